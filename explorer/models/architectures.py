"""Where each family keeps its weights: tensor names, expected shapes, and each layer's weights as
``x @ W`` matrices ([in, out]) whatever the file's orientation (GPT-2's Conv1D stores [in, out],
Llama's Linear [out, in], read through a transposed view, not a copy)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.core.errors import CheckpointError

from .config import CONFIG, ModelConfig
from .tensor_store import TensorStore

# role -> (name pattern, shape as config fields, required); "{i}" is the layer, "{p}" the prefix
GPT2_GLOBAL = {"embed": ("{p}wte.weight", ("vocab", "hidden"), True),
               "positions": ("{p}wpe.weight", ("max_positions", "hidden"), True),
               "norm_w": ("{p}ln_f.weight", ("hidden",), True), "norm_b": ("{p}ln_f.bias", ("hidden",), True),
               "lm_head": ("lm_head.weight", ("vocab", "hidden"), False)}
GPT2_LAYER = {"norm1_w": ("{p}h.{i}.ln_1.weight", ("hidden",), True),
              "norm1_b": ("{p}h.{i}.ln_1.bias", ("hidden",), True),
              "qkv": ("{p}h.{i}.attn.c_attn.weight", ("hidden", "qkv"), True),
              "qkv_b": ("{p}h.{i}.attn.c_attn.bias", ("qkv",), True),
              "wo": ("{p}h.{i}.attn.c_proj.weight", ("hidden", "hidden"), True),
              "bo": ("{p}h.{i}.attn.c_proj.bias", ("hidden",), True),
              "norm2_w": ("{p}h.{i}.ln_2.weight", ("hidden",), True),
              "norm2_b": ("{p}h.{i}.ln_2.bias", ("hidden",), True),
              "fc": ("{p}h.{i}.mlp.c_fc.weight", ("hidden", "intermediate"), True),
              "fc_b": ("{p}h.{i}.mlp.c_fc.bias", ("intermediate",), True),
              "proj": ("{p}h.{i}.mlp.c_proj.weight", ("intermediate", "hidden"), True),
              "proj_b": ("{p}h.{i}.mlp.c_proj.bias", ("hidden",), True)}
LLAMA_GLOBAL = {"embed": ("model.embed_tokens.weight", ("vocab", "hidden"), True),
                "norm_w": ("model.norm.weight", ("hidden",), True),
                "lm_head": ("lm_head.weight", ("vocab", "hidden"), False)}
_L = "model.layers.{i}."
LLAMA_LAYER = {"norm1_w": (_L + "input_layernorm.weight", ("hidden",), True),
               "wq": (_L + "self_attn.q_proj.weight", ("q_width", "hidden"), True),
               "wk": (_L + "self_attn.k_proj.weight", ("kv_width", "hidden"), True),
               "wv": (_L + "self_attn.v_proj.weight", ("kv_width", "hidden"), True),
               "bq": (_L + "self_attn.q_proj.bias", ("q_width",), False),
               "bk": (_L + "self_attn.k_proj.bias", ("kv_width",), False),
               "bv": (_L + "self_attn.v_proj.bias", ("kv_width",), False),
               "wo": (_L + "self_attn.o_proj.weight", ("hidden", "q_width"), True),
               "bo": (_L + "self_attn.o_proj.bias", ("hidden",), False),
               "norm2_w": (_L + "post_attention_layernorm.weight", ("hidden",), True),
               "gate": (_L + "mlp.gate_proj.weight", ("intermediate", "hidden"), True),
               "up": (_L + "mlp.up_proj.weight", ("intermediate", "hidden"), True),
               "down": (_L + "mlp.down_proj.weight", ("hidden", "intermediate"), True),
               "gate_b": (_L + "mlp.gate_proj.bias", ("intermediate",), False),
               "up_b": (_L + "mlp.up_proj.bias", ("intermediate",), False),
               "down_b": (_L + "mlp.down_proj.bias", ("hidden",), False)}
# In these files W is [out, in]; the forward pass wants [in, out]
LLAMA_TRANSPOSED = ("wq", "wk", "wv", "wo", "gate", "up", "down")


@dataclass
class LayerWeights:
    """One block's weights as float32 arrays for ``x @ W``; biases and LayerNorm shifts may be None."""

    norm1_w: np.ndarray
    norm1_b: np.ndarray | None
    wq: np.ndarray          # (D, H·d_h)
    wk: np.ndarray          # (D, KV·d_h)
    wv: np.ndarray
    bq: np.ndarray | None
    bk: np.ndarray | None
    bv: np.ndarray | None
    wo: np.ndarray          # (H·d_h, D)
    bo: np.ndarray | None
    norm2_w: np.ndarray
    norm2_b: np.ndarray | None
    mlp: dict               # gpt2: fc, fc_b, proj, proj_b; llama: gate, up, down (+ optional biases)
    wqkv: np.ndarray | None = None  # GPT-2's fused c_attn (D, 3D): one contiguous matmul instead of three
    bqkv: np.ndarray | None = None


class Layout:
    """A family's tensor names for one checkpoint, checked against its config and headers on creation."""

    def __init__(self, config: ModelConfig, store: TensorStore):
        self.config, self.store = config, store
        if config.family == "gpt2":
            self.prefix = "transformer." if "transformer.wte.weight" in store.names else ""
            self.global_spec, self.layer_spec = GPT2_GLOBAL, GPT2_LAYER
        else:
            self.prefix, self.global_spec, self.layer_spec = "", LLAMA_GLOBAL, LLAMA_LAYER
        sizes = {"vocab": config.vocab, "hidden": config.hidden, "max_positions": config.max_positions,
                 "intermediate": config.intermediate, "qkv": 3 * config.hidden,
                 "q_width": config.heads * config.head_dim, "kv_width": config.kv_heads * config.head_dim}
        self.names: dict[tuple[str, int | None], str] = {}
        for role, spec in self.global_spec.items():
            self._check(role, None, spec, sizes)
        for i in range(config.layers):
            for role, spec in self.layer_spec.items():
                self._check(role, i, spec, sizes)

    def _check(self, role, layer, spec, sizes) -> None:
        pattern, axes, required = spec
        name = pattern.format(p=self.prefix, i=layer)
        if name not in self.store.names:
            if required:
                files = ", ".join(p.name for p in self.store.files)
                raise CheckpointError(f"{files}: missing tensor {name!r} (a {self.config.model_type} with "
                                      f"{self.config.layers} layers needs it)")
            return
        info = self.store.info(name)
        expected = tuple(sizes[a] for a in axes)
        if info.shape != expected:
            said = ", ".join(f"{a} = {sizes[a]}" for a in dict.fromkeys(axes))
            raise CheckpointError(f"{self.store.file_of(name)}: tensor {name!r} has shape {list(info.shape)}, but "
                                  f"{CONFIG} says {list(expected)} ({said})")
        self.names[(role, layer)] = name

    def has(self, role: str, layer: int | None = None) -> bool:
        return (role, layer) in self.names

    def get(self, role: str, layer: int | None = None) -> np.ndarray | None:
        name = self.names.get((role, layer))
        return None if name is None else self.store.get(name)

    def output_embedding(self) -> np.ndarray:
        """lm_head's (V, D), or the input embedding when the two are tied (no lm_head in the file)."""
        head = self.get("lm_head")
        return self.get("embed") if head is None else head

    def layer(self, i: int) -> LayerWeights:
        """Layer i's weights, oriented for ``x @ W``."""
        g = {role: self.get(role, i) for role in self.layer_spec}
        if self.config.family == "gpt2":
            d = self.config.hidden
            qkv, b = g.pop("qkv"), g.pop("qkv_b")
            g.update(wq=qkv[:, :d], wk=qkv[:, d:2 * d], wv=qkv[:, 2 * d:], bq=b[:d], bk=b[d:2 * d], bv=b[2 * d:],
                     wqkv=qkv, bqkv=b)
            mlp_roles = ("fc", "fc_b", "proj", "proj_b")
        else:
            g.update({role: g[role].T for role in LLAMA_TRANSPOSED})
            g.update(norm1_b=None, norm2_b=None)
            mlp_roles = ("gate", "up", "down", "gate_b", "up_b", "down_b")
        mlp = {role: g.pop(role) for role in mlp_roles}
        return LayerWeights(mlp=mlp, **g)
