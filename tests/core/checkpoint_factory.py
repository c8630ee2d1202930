"""Tiny checkpoints in the Hugging Face layout, made offline for the tests of explorer.models.

GPT-2 ("gpt2", optionally with distilgpt2's ``transformer.`` prefix) and Llama-family ("llama",
"qwen2" with q/k/v biases, GQA, a head_dim unequal to hidden / heads) with random weights, written
with ``safetensors.numpy.save_file`` (bfloat16 by hand: NumPy has no such dtype), optionally sharded,
and a tokenizer trained with ``tokenizers`` on a few sentences.
"""
from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

SENTENCES = ["the cat sat on the mat", "the dog chased the red laser dot", "a cat and a dog sat together",
             "猫 追 红色 激光点", "attention is three matrix multiplications", "hello world\nnew line"]


def gpt2_tokenizer() -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(SENTENCES, trainers.BpeTrainer(vocab_size=320, special_tokens=["<|endoftext|>"],
                                                           initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return tok


def llama_tokenizer() -> Tokenizer:
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.train_from_iterator(SENTENCES, trainers.BpeTrainer(vocab_size=120, special_tokens=["<unk>", "<s>", "</s>"]))
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    return tok


def gpt2_tensors(rng, cfg, prefix=""):
    d, inner, v = cfg["n_embd"], 4 * cfg["n_embd"], cfg["vocab_size"]

    def w(*shape, scale=0.3):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    t = {f"{prefix}wte.weight": w(v, d, scale=1.0), f"{prefix}wpe.weight": w(cfg["n_positions"], d),
         f"{prefix}ln_f.weight": 1 + w(d, scale=0.1), f"{prefix}ln_f.bias": w(d, scale=0.1)}
    for i in range(cfg["n_layer"]):
        p = f"{prefix}h.{i}."
        t.update({p + "ln_1.weight": 1 + w(d, scale=0.1), p + "ln_1.bias": w(d, scale=0.1),
                  p + "attn.c_attn.weight": w(d, 3 * d), p + "attn.c_attn.bias": w(3 * d),
                  p + "attn.c_proj.weight": w(d, d), p + "attn.c_proj.bias": w(d, scale=0.1),
                  p + "ln_2.weight": 1 + w(d, scale=0.1), p + "ln_2.bias": w(d, scale=0.1),
                  p + "mlp.c_fc.weight": w(d, inner), p + "mlp.c_fc.bias": w(inner, scale=0.1),
                  p + "mlp.c_proj.weight": w(inner, d, scale=0.1), p + "mlp.c_proj.bias": w(d, scale=0.1)})
    return t


def llama_tensors(rng, cfg, biases=False, tied=False):
    d, n, kv, hd = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    inner, v = cfg["intermediate_size"], cfg["vocab_size"]

    def w(*shape, scale=0.3):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    t = {"model.embed_tokens.weight": w(v, d, scale=1.0), "model.norm.weight": 1 + w(d, scale=0.1)}
    if not tied:
        t["lm_head.weight"] = w(v, d)
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        t.update({p + "input_layernorm.weight": 1 + w(d, scale=0.1),
                  p + "self_attn.q_proj.weight": w(n * hd, d), p + "self_attn.k_proj.weight": w(kv * hd, d),
                  p + "self_attn.v_proj.weight": w(kv * hd, d), p + "self_attn.o_proj.weight": w(d, n * hd),
                  p + "post_attention_layernorm.weight": 1 + w(d, scale=0.1),
                  p + "mlp.gate_proj.weight": w(inner, d), p + "mlp.up_proj.weight": w(inner, d),
                  p + "mlp.down_proj.weight": w(d, inner, scale=0.1)})
        if biases:
            t.update({p + "self_attn.q_proj.bias": w(n * hd), p + "self_attn.k_proj.bias": w(kv * hd),
                      p + "self_attn.v_proj.bias": w(kv * hd)})
    return t


def gpt2_config(**over):
    cfg = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": 32, "n_head": 4, "n_layer": 2,
           "n_positions": 64, "vocab_size": 320, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}
    return {**cfg, **over}


def llama_config(**over):
    cfg = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 24,
           "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "num_hidden_layers": 2,
           "intermediate_size": 40, "vocab_size": 120, "max_position_embeddings": 128, "rms_norm_eps": 1e-6,
           "rope_theta": 10000.0, "hidden_act": "silu"}
    return {**cfg, **over}


def bfloat16_bits(a: np.ndarray) -> np.ndarray:
    """float32 → bfloat16 bits, rounding to nearest even (as torch does)."""
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype("<u2")


def widen_bfloat16(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def save_bfloat16(tensors: dict, path: Path) -> None:
    """A safetensors file of BF16 tensors, header and data written by hand from the format's spec."""
    header, chunks, at = {}, [], 0
    for name, a in tensors.items():
        raw = bfloat16_bits(a).tobytes()
        header[name] = {"dtype": "BF16", "shape": list(a.shape), "data_offsets": [at, at + len(raw)]}
        chunks.append(raw)
        at += len(raw)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def as_stored(tensors: dict, dtype: str) -> dict:
    """The float32 values the file will hold once stored in ``dtype`` and read back."""
    if dtype == "F16":
        return {k: v.astype(np.float16).astype(np.float32) for k, v in tensors.items()}
    if dtype == "BF16":
        return {k: widen_bfloat16(bfloat16_bits(v)).reshape(v.shape) for k, v in tensors.items()}
    return tensors


def write_checkpoint(folder: Path, config: dict, tensors: dict, tokenizer: Tokenizer, *, dtype="F32",
                     shards: int = 1) -> dict:
    """Write config.json, the weights (one file or ``shards`` files and an index) and tokenizer.json;
    returns the float32 tensors exactly as stored."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config))
    tokenizer.save(str(folder / "tokenizer.json"))
    names = list(tensors)
    groups = [names[i::shards] for i in range(shards)]
    files = ["model.safetensors"] if shards == 1 else [f"model-{i + 1:05d}-of-{shards:05d}.safetensors"
                                                       for i in range(shards)]
    for file, group in zip(files, groups):
        part = {n: tensors[n] for n in group}
        if dtype == "BF16":
            save_bfloat16(part, folder / file)
        else:
            save_file({n: a.astype(np.float16 if dtype == "F16" else np.float32) for n, a in part.items()},
                      str(folder / file), metadata={"format": "pt"})
    if shards > 1:
        index = {"metadata": {"total_size": 0}, "weight_map": {n: f for f, g in zip(files, groups) for n in g}}
        (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    return as_stored(tensors, dtype)


def gpt2_checkpoint(folder: Path, seed=0, prefix="", **kw):
    cfg = gpt2_config()
    tensors = gpt2_tensors(np.random.default_rng(seed), cfg, prefix)
    return cfg, write_checkpoint(folder, cfg, tensors, gpt2_tokenizer(), **kw)


def llama_checkpoint(folder: Path, seed=0, biases=False, tied=False, config=None, **kw):
    cfg = config or llama_config()
    tensors = llama_tensors(np.random.default_rng(seed), cfg, biases=biases, tied=tied)
    return cfg, write_checkpoint(folder, cfg, tensors, llama_tokenizer(), **kw)
