"""The block against PyTorch's own nn.TransformerEncoderLayer (float64, dropout 0), where torch is installed
(skipped otherwise, like test_against_torch.py): the same weights, the same output to 1e-12."""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from explorer.core.block import BlockSettings, block_weights  # noqa: E402
from explorer.core.block_stack import session_block  # noqa: E402
from explorer.core.session import Settings  # noqa: E402


def t(a):
    return torch.from_numpy(np.array(a, dtype=np.float64))


@pytest.mark.parametrize("norm_first", [True, False])
@pytest.mark.parametrize("activation", ["relu", "gelu", "gelu_tanh"])
@pytest.mark.parametrize("causal", [False, True])
def test_equals_torch(norm_first, activation, causal):
    rng = np.random.default_rng(5)
    length, d, heads = 6, 8, 2
    m = {"X": rng.standard_normal((length, d)),
         **{name: rng.standard_normal((d, d)) / math.sqrt(d) for name in ("Wq", "Wk", "Wv", "Wo")}}
    block = BlockSettings(placement="pre" if norm_first else "post", activation=activation, ffn_mult=4, seed=2,
                          blocks=1)
    w = block_weights(d, block)
    act = {"relu": "relu", "gelu": "gelu", "gelu_tanh": lambda x: torch.nn.functional.gelu(x, approximate="tanh")}
    layer = torch.nn.TransformerEncoderLayer(d, heads, dim_feedforward=4 * d, dropout=0.0, activation=act[activation],
                                             layer_norm_eps=1e-5, batch_first=True, norm_first=norm_first,
                                             dtype=torch.float64)
    layer.eval()
    with torch.no_grad():
        layer.self_attn.in_proj_weight.copy_(t(np.concatenate([m["Wq"], m["Wk"], m["Wv"]])))
        layer.self_attn.in_proj_bias.zero_()
        layer.self_attn.out_proj.weight.copy_(t(m["Wo"]))
        layer.self_attn.out_proj.bias.zero_()
        for module, weight, bias in ((layer.linear1, w.w1, w.b1), (layer.linear2, w.w2, w.b2),
                                     (layer.norm1, w.gain1, w.bias1), (layer.norm2, w.gain2, w.bias2)):
            module.weight.copy_(t(weight))
            module.bias.copy_(t(bias))
        mask = torch.nn.Transformer.generate_square_subsequent_mask(length, dtype=torch.float64) if causal else None
        want = layer(t(m["X"])[None], src_mask=mask, is_causal=causal)[0].numpy()
    got = session_block(m, Settings(source="projected", heads=heads, causal=causal), block).first.output
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
