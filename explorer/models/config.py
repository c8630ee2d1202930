"""config.json read into one ModelConfig for both families, or a CheckpointError saying what is not supported.

GPT-2 family (``gpt2``; distilgpt2 is a gpt2 with fewer layers) and the Llama family (``llama``,
``mistral``, ``qwen2``) are read; anything else is refused with a message naming the model type.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from explorer.core.errors import CheckpointError
from explorer.core.translatable import QT_TRANSLATE_NOOP
from explorer.core.rope import Llama3Scaling
from explorer.core.session_limits import MAX_MODEL_LAYERS, MAX_VOCAB  # (a session names a head by them)

CONFIG = "config.json"
GPT2_TYPES = ("gpt2",)
LLAMA_TYPES = ("llama", "mistral", "qwen2")
SUPPORTED = ", ".join(GPT2_TYPES + LLAMA_TYPES)
GPT2_ACTIVATIONS = ("gelu_new", "gelu_pytorch_tanh", "gelu_fast", "relu")
ROPE_SCALINGS = ("default", "llama3")


@dataclass(frozen=True)
class ModelConfig:
    """The numbers the forward pass needs, named the same for both families."""

    model_type: str
    family: str                 # "gpt2" or "llama"
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    hidden: int
    intermediate: int
    vocab: int
    max_positions: int
    norm_eps: float
    activation: str             # gelu_new … for GPT-2, silu for the Llama family
    rope_theta: float | None    # None: learned positions (GPT-2)
    rope_scaling: Llama3Scaling | None   # None, or the llama3 parameters
    sliding_window: int | None
    end_ids: tuple[int, ...] = ()   # eos_token_id: generation stops after one of these

    @property
    def group(self) -> int:
        """Query heads per K/V head (GQA); 1 for plain multi-head attention."""
        return self.heads // self.kv_heads


def _number(raw: dict, key: str, default=None, *, kind=int, low=1, high=2 ** 24):
    """raw[key] as a number in low..high, else CheckpointError naming config.json and the key."""
    value = raw.get(key, default)
    if value is None:
        raise CheckpointError(f"{CONFIG}: \"{key}\" is missing")
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is int:
        ok = ok and float(value).is_integer()
    if not ok or not math.isfinite(value) or not low <= value <= high:
        raise CheckpointError(f"{CONFIG}: \"{key}\" is {str(value)[:40]}; it must be "
                              f"{'an integer' if kind is int else 'a number'} in {low:g}..{high:g}")
    return kind(value)


def read_config(folder: Path) -> ModelConfig:
    """The folder's config.json as a ModelConfig; CheckpointError if missing, malformed or unsupported."""
    path = folder / CONFIG
    if not path.is_file():
        raise CheckpointError(QT_TRANSLATE_NOOP("Checkpoint", "{folder}: no {config} (a Hugging Face checkpoint "
                                                "folder has config.json, model.safetensors and tokenizer.json)").format(
                                  folder=folder, config=CONFIG))
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:   # UnicodeDecodeError is a ValueError
        raise CheckpointError(f"{CONFIG}: cannot be read as JSON ({str(exc)[:120]})") from None
    if not isinstance(raw, dict):
        raise CheckpointError(f"{CONFIG}: is not a JSON object")
    model_type = raw.get("model_type")
    if model_type in GPT2_TYPES:
        return _gpt2(raw)
    if model_type in LLAMA_TYPES:
        return _llama(raw)
    if model_type is None:
        raise CheckpointError(QT_TRANSLATE_NOOP("Checkpoint", "{config}: has no \"model_type\"; supported model "
                                                "types: {supported}").format(config=CONFIG, supported=SUPPORTED))
    raise CheckpointError(QT_TRANSLATE_NOOP("Checkpoint", "{config}: model type {model_type} is not supported; "
                                            "supported: {supported}").format(config=CONFIG,
                              model_type=repr(str(model_type)[:40]), supported=SUPPORTED))


def _divide(hidden: int, heads: int) -> int:
    if hidden % heads:
        raise CheckpointError(f"{CONFIG}: the hidden size {hidden} is not divisible by the {heads} heads")
    return hidden // heads


def _gpt2(raw: dict) -> ModelConfig:
    hidden, heads = _number(raw, "n_embd"), _number(raw, "n_head")
    activation = raw.get("activation_function", "gelu_new")
    if activation not in GPT2_ACTIVATIONS:
        raise CheckpointError(f"{CONFIG}: gpt2 activation {str(activation)[:40]!r} is not supported; supported: "
                              f"{', '.join(GPT2_ACTIVATIONS)}")
    if raw.get("scale_attn_by_inverse_layer_idx") or raw.get("scale_attn_weights") is False:
        raise CheckpointError(f"{CONFIG}: gpt2 with scale_attn_by_inverse_layer_idx or without "
                              f"scale_attn_weights is not supported (only the standard 1/√d_h scale)")
    return ModelConfig(
        model_type="gpt2", family="gpt2", layers=_number(raw, "n_layer", high=MAX_MODEL_LAYERS), heads=heads,
        kv_heads=heads, head_dim=_divide(hidden, heads), hidden=hidden,
        intermediate=_number(raw, "n_inner", 4 * hidden) if raw.get("n_inner") else 4 * hidden,
        vocab=_number(raw, "vocab_size", high=MAX_VOCAB),
        max_positions=_number(raw, "n_positions", raw.get("n_ctx", 1024)),
        norm_eps=_number(raw, "layer_norm_epsilon", 1e-5, kind=float, low=0.0, high=1.0),
        activation=activation, rope_theta=None, rope_scaling=None, sliding_window=None, end_ids=_end_ids(raw))


def _end_ids(raw: dict) -> tuple[int, ...]:
    """eos_token_id as a tuple: absent or null → (), one id or a list of ids (Llama 3 gives several)."""
    value = raw.get("eos_token_id")
    values = value if isinstance(value, list) else [] if value is None else [value]
    return tuple(_number({"eos_token_id": v}, "eos_token_id", low=0, high=2 ** 31) for v in values)


def _rope(raw: dict) -> tuple[float, Llama3Scaling | None]:
    """θ base and scaling, from ``rope_theta``/``rope_scaling`` or transformers ≥ 5's ``rope_parameters``."""
    params = raw.get("rope_parameters") if isinstance(raw.get("rope_parameters"), dict) else {}
    theta = _number({"rope_theta": params.get("rope_theta", raw.get("rope_theta", 10000.0))}, "rope_theta",
                    kind=float, low=1.0, high=1e12)
    scaling = raw.get("rope_scaling") or (params if params.get("rope_type") not in (None, "default") else None)
    if scaling is None:
        return theta, None
    kind = scaling.get("rope_type", scaling.get("type")) if isinstance(scaling, dict) else scaling
    if kind in (None, "default"):
        return theta, None
    if kind != "llama3":
        raise CheckpointError(f"{CONFIG}: rope_scaling {str(kind)[:40]!r} is not supported (supported: none, "
                              f"default, llama3)")
    factors = [_number(scaling, key, kind=float, low=1e-9, high=1e9)
               for key in ("factor", "low_freq_factor", "high_freq_factor")]
    if not factors[2] > factors[1]:
        raise CheckpointError(f"{CONFIG}: rope_scaling's high_freq_factor {factors[2]:g} is not above its "
                              f"low_freq_factor {factors[1]:g} (llama3 blends the pairs between the two)")
    return theta, Llama3Scaling(*factors, _number(scaling, "original_max_position_embeddings", high=2 ** 30))


def _llama(raw: dict) -> ModelConfig:
    model_type = raw["model_type"]
    hidden, heads = _number(raw, "hidden_size"), _number(raw, "num_attention_heads")
    kv_heads = _number(raw, "num_key_value_heads", heads)
    if heads % kv_heads:
        raise CheckpointError(f"{CONFIG}: {heads} attention heads cannot share {kv_heads} key/value heads "
                              f"(num_attention_heads must be a multiple of num_key_value_heads)")
    head_dim = _number(raw, "head_dim") if raw.get("head_dim") else _divide(hidden, heads)
    if head_dim % 2:
        raise CheckpointError(f"{CONFIG}: head_dim {head_dim} is odd; RoPE rotates pairs of dimensions")
    if raw.get("partial_rotary_factor", 1.0) != 1.0:
        raise CheckpointError(f"{CONFIG}: partial_rotary_factor is not supported ({model_type} rotates all of q, k)")
    activation = raw.get("hidden_act", "silu")
    if activation != "silu":
        raise CheckpointError(f"{CONFIG}: {model_type} activation {str(activation)[:40]!r} is not supported "
                              f"(the SwiGLU MLP with silu is)")
    theta, scaling = _rope(raw)
    window = raw.get("sliding_window") if raw.get("use_sliding_window", model_type == "mistral") else None
    return ModelConfig(
        model_type=model_type, family="llama", layers=_number(raw, "num_hidden_layers", high=MAX_MODEL_LAYERS),
        heads=heads, kv_heads=kv_heads, head_dim=head_dim, hidden=hidden,
        intermediate=_number(raw, "intermediate_size"),
        vocab=_number(raw, "vocab_size", high=MAX_VOCAB),
        max_positions=_number(raw, "max_position_embeddings", 2048, high=2 ** 30),
        norm_eps=_number(raw, "rms_norm_eps", 1e-6, kind=float, low=0.0, high=1.0), activation="silu",
        rope_theta=theta, rope_scaling=scaling,
        sliding_window=_number(raw, "sliding_window", high=2 ** 30) if window else None, end_ids=_end_ids(raw))
