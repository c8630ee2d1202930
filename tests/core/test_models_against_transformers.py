"""explorer.models against Hugging Face transformers itself, on tiny random models it builds and saves.

Skipped where transformers and torch are not installed (CI, the app's venv): the independent NumPy
reference (models_reference.py) is the test that always runs; this one pins the conventions (Conv1D
orientation, rotate_half, repeat_kv, llama3 scaling, tied embeddings) to the library that defines them.
Run where both are installed, e.g. ``pip install -e '.[train]' transformers pytest`` in a separate venv;
passed with torch 2.13.0 and transformers 5.24.0.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from explorer.models import open_checkpoint  # noqa: E402
from tests.core.checkpoint_factory import gpt2_tokenizer, llama_tokenizer  # noqa: E402

TEXT = "the cat sat on the mat and the dog chased the red laser dot"
LLAMA3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
          "original_max_position_embeddings": 32}


def small_llama(cls_name, **extra):
    config_cls = getattr(transformers, cls_name.replace("ForCausalLM", "Config"))
    config = config_cls(vocab_size=120, hidden_size=24, intermediate_size=40, num_hidden_layers=2,
                        num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=128,
                        **extra)
    return getattr(transformers, cls_name)(config), llama_tokenizer()


def small_gpt2():
    config = transformers.GPT2Config(vocab_size=320, n_embd=32, n_head=4, n_layer=2, n_positions=64)
    return transformers.GPT2LMHeadModel(config), gpt2_tokenizer()


CASES = {
    "gpt2": small_gpt2,
    "llama": lambda: small_llama("LlamaForCausalLM", rope_theta=50000.0),
    "llama-tied-bf16": lambda: small_llama("LlamaForCausalLM", tie_word_embeddings=True),
    "llama3-scaling": lambda: small_llama("LlamaForCausalLM", rope_theta=500000.0, rope_scaling=LLAMA3),
    "mistral": lambda: small_llama("MistralForCausalLM", sliding_window=None),
    "qwen2": lambda: small_llama("Qwen2ForCausalLM", rope_theta=1e6, tie_word_embeddings=True),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_attentions_and_logits_equal_transformers(tmp_path, case):
    torch.manual_seed(0)
    model, tokenizer = CASES[case]()
    with torch.no_grad():       # random init leaves biases at zero: give Qwen2/GPT-2's biases values
        for name, p in model.named_parameters():
            if name.endswith("bias"):
                p.normal_(0, 0.3)
    if case.endswith("bf16"):
        model = model.to(torch.bfloat16)
    model.save_pretrained(tmp_path, safe_serialization=True)
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    ours = open_checkpoint(tmp_path).run(TEXT)
    model = model.float().eval()
    model.config._attn_implementation = "eager"
    with torch.no_grad():
        out = model(torch.tensor([ours.ids]), output_attentions=True)
    theirs = np.stack([a[0].numpy() for a in out.attentions])
    tolerance = 1e-5 if not case.endswith("bf16") else 1e-4
    np.testing.assert_allclose(ours.attentions, theirs, atol=tolerance)
    np.testing.assert_allclose(ours.last_logits, out.logits[0, -1].numpy(), atol=20 * tolerance, rtol=1e-4)
