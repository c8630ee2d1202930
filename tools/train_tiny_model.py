"""Train the explorer's embedded model: a two-layer Llama-layout transformer that grows a previous-token
head and an induction head (Olsson et al., 2022), written to explorer/resources/models/tiny-induction/.

Data: "<s>" + n random words + the same n words again (n drawn from 6..48 per batch), from a fixed
vocabulary of common words; the loss is next-token cross-entropy on every position, so only the second
copy can be predicted — by looking back at what followed the word's first occurrence. After training,
the heads are scored with explorer.models' own NumPy forward pass and the scores written to heads.json.

Needs PyTorch (the optional ``train`` extra: ``pip install -e '.[train]'``); the app never imports it.
    python tools/train_tiny_model.py            # ~3 minutes on one CPU thread
With torch 2.13.0 (CPU) the run is deterministic: a second run wrote the same model.safetensors, byte for
byte. Reached (heads.json): loss 2.59, near the floor of ~2.56 (the first copy and the first word of the
second cannot be predicted: (n + 1)/2n · ln 138);
previous-token head layer 0 head 1 (0.92); induction heads layer 1 heads 0, 2, 3, 1 (0.99, 0.95, 0.85, 0.84).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import torch
from safetensors.numpy import save_file
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "explorer" / "resources" / "models" / "tiny-induction"
SEED = 1234
WORDS = """the a an and or but if of to in on at by for with from up down over under cat dog bird fish mouse
horse cow sheep fox bear red blue green yellow black white big small old new hot cold fast slow good bad
sat ran saw ate drank chased found lost made took gave said went came sees runs eats likes wants has is was
mat hat box bed sun moon star tree house door road car boat train book pen cup ball laser dot light water
fire stone river hill city king queen man woman boy girl friend teacher doctor one two three four five six
seven eight nine ten day night morning today time year word token head layer model query key value
attention matrix vector score weight softmax 猫 追 红色 激光点""".split()
CONFIG = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 64,
          "num_attention_heads": 4, "num_key_value_heads": 4, "head_dim": 16, "num_hidden_layers": 2,
          "intermediate_size": 128, "max_position_embeddings": 256, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
          "hidden_act": "silu", "tie_word_embeddings": True, "bos_token_id": 1, "eos_token_id": 1,
          "torch_dtype": "float32"}


def make_tokenizer() -> Tokenizer:
    """A WordLevel tokenizer over WORDS (lower-cased, split on whitespace and punctuation) adding "<s>"."""
    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator([" ".join(WORDS)], trainers.WordLevelTrainer(special_tokens=["<unk>", "<s>"]))
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    return tok


class Block(torch.nn.Module):
    """A Llama decoder layer: RMSNorm → attention with RoPE ("half") → RMSNorm → SwiGLU MLP."""

    def __init__(self, c):
        super().__init__()
        d, self.h, self.hd = c["hidden_size"], c["num_attention_heads"], c["head_dim"]
        self.q, self.k, self.v = (torch.nn.Linear(d, self.h * self.hd, bias=False) for _ in range(3))
        self.o = torch.nn.Linear(self.h * self.hd, d, bias=False)
        self.gate, self.up = (torch.nn.Linear(d, c["intermediate_size"], bias=False) for _ in range(2))
        self.down = torch.nn.Linear(c["intermediate_size"], d, bias=False)
        self.n1, self.n2 = torch.nn.RMSNorm(d, eps=c["rms_norm_eps"]), torch.nn.RMSNorm(d, eps=c["rms_norm_eps"])

    def forward(self, x, cos, sin):
        b, n, _ = x.shape
        y = self.n1(x)
        q, k, v = (m(y).view(b, n, self.h, self.hd).transpose(1, 2) for m in (self.q, self.k, self.v))

        def turn(t):
            a, c = t[..., :self.hd // 2], t[..., self.hd // 2:]
            return torch.cat([a * cos - c * sin, c * cos + a * sin], dim=-1)

        out = torch.nn.functional.scaled_dot_product_attention(turn(q), turn(k), v, is_causal=True)
        x = x + self.o(out.transpose(1, 2).reshape(b, n, -1))
        y = self.n2(x)
        return x + self.down(torch.nn.functional.silu(self.gate(y)) * self.up(y))


class TinyLlama(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.embed = torch.nn.Embedding(c["vocab_size"], c["hidden_size"])
        torch.nn.init.normal_(self.embed.weight, std=0.1)   # tied: logits = norm(x)·e, std ≈ 0.1·√D
        self.blocks = torch.nn.ModuleList(Block(c) for _ in range(c["num_hidden_layers"]))
        self.norm = torch.nn.RMSNorm(c["hidden_size"], eps=c["rms_norm_eps"])

    def forward(self, ids):
        hd = self.c["head_dim"]
        inv = self.c["rope_theta"] ** (-torch.arange(0, hd, 2, dtype=torch.float64) / hd)
        angles = torch.arange(ids.shape[1], dtype=torch.float64)[:, None] * inv[None]
        cos, sin = angles.cos().float(), angles.sin().float()
        x = self.embed(ids)
        for block in self.blocks:
            x = block(x, cos, sin)
        return self.norm(x) @ self.embed.weight.T     # tied embeddings

    def hf_tensors(self) -> dict[str, np.ndarray]:
        """The weights under Hugging Face's Llama names, [out, in] as nn.Linear stores them."""
        t = {"model.embed_tokens.weight": self.embed.weight, "model.norm.weight": self.norm.weight}
        for i, b in enumerate(self.blocks):
            p = f"model.layers.{i}."
            t.update({p + "input_layernorm.weight": b.n1.weight, p + "post_attention_layernorm.weight": b.n2.weight,
                      p + "self_attn.q_proj.weight": b.q.weight, p + "self_attn.k_proj.weight": b.k.weight,
                      p + "self_attn.v_proj.weight": b.v.weight, p + "self_attn.o_proj.weight": b.o.weight,
                      p + "mlp.gate_proj.weight": b.gate.weight, p + "mlp.up_proj.weight": b.up.weight,
                      p + "mlp.down_proj.weight": b.down.weight})
        return {k: v.detach().numpy().astype(np.float32).copy() for k, v in t.items()}


def batch(rng, words, size, half):
    """(size, 1 + 2·half) ids: "<s>", half random words, the same words again."""
    block = rng.choice(words, size=(size, half))
    return torch.tensor(np.concatenate([np.ones((size, 1), np.int64), block, block], axis=1))


def train(steps: int, batch_size: int) -> tuple[TinyLlama, list[float]]:
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    tok = make_tokenizer()
    words = np.array([tok.token_to_id(w) for w in WORDS])
    model = TinyLlama(dict(CONFIG, vocab_size=tok.get_vocab_size()))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / 100) * 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps)))
    losses, start = [], time.time()
    for step in range(steps):
        ids = batch(rng, words, batch_size, int(rng.integers(6, 49)))
        logits = model(ids[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        schedule.step()
        losses.append(loss.item())
        if step % 100 == 0 or step == steps - 1:
            print(f"step {step:5d}  loss {np.mean(losses[-100:]):.3f}  {time.time() - start:.0f} s", flush=True)
    return model, losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=6000)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    torch.set_num_threads(1)   # tiny matrices: one thread is as fast, and shares the machine
    model, losses = train(args.steps, args.batch)
    args.out.mkdir(parents=True, exist_ok=True)
    tok = make_tokenizer()
    tok.save(str(args.out / "tokenizer.json"))
    (args.out / "config.json").write_text(json.dumps(dict(CONFIG, vocab_size=tok.get_vocab_size()), indent=2) + "\n")
    save_file(model.hf_tensors(), str(args.out / "model.safetensors"), metadata={"format": "pt"})
    (args.out / "model.safetensors").chmod(0o644)     # the package data is readable by all, like the rest

    sys.path.insert(0, str(ROOT))
    from explorer.models import open_checkpoint   # the heads as the app will see them: NumPy forward pass
    scores = open_checkpoint(args.out).head_scores(half=24, samples=16, seed=SEED)
    report = scores.to_json()
    report["training"] = {"script": "tools/train_tiny_model.py", "seed": SEED, "steps": args.steps,
                          "batch": args.batch, "optimizer": "AdamW lr 3e-3, 100 warm-up steps, cosine decay",
                          "data": "<s> + n random words + the same n words, n uniform in 6..48",
                          "final_loss": round(float(np.mean(losses[-100:])), 4), "torch": torch.__version__}
    (args.out / "heads.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps(report["heads"], indent=1))


if __name__ == "__main__":
    main()
