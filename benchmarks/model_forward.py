"""A real model's forward pass in NumPy against PyTorch (issue 16): a GPT-2-small-sized checkpoint
(12 layers, 768 wide, 12 heads; random weights, written to a temporary folder) on 1024 tokens,
float32, every layer's attention weights returned, both sides on the same number of threads.

    python -m benchmarks.model_forward [--L 1024] [--repeats 7] [--torch-python /path/to/python]

PyTorch runs in a child process (the app's venv has no PyTorch): ``--torch-python`` names an
interpreter with torch and transformers (``transformers.GPT2LMHeadModel``, eager attention,
``output_attentions=True``: the same work). Without one, the NumPy time is compared with the
machine's measured float32 GEMM rate (the time the multiply-adds alone would take). Also printed:
peak RSS against the checkpoint's float32 size plus the activations the pass keeps.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CONFIG = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": 768, "n_head": 12, "n_layer": 12,
          "n_positions": 1024, "vocab_size": 320, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}

TORCH_SIDE = r"""
import sys, time, json, torch, transformers
folder, L, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
torch.set_num_threads(threads)
model = transformers.GPT2LMHeadModel.from_pretrained(folder, attn_implementation="eager").eval()
ids = torch.arange(L).remainder(model.config.vocab_size)[None]
with torch.inference_mode():
    model(ids, output_attentions=True)
    print("ready", flush=True)
    for _ in sys.stdin:  # one pass per line read: the two sides take turns
        t = time.perf_counter(); model(ids, output_attentions=True)
        print(json.dumps(time.perf_counter() - t), flush=True)
"""


def make_checkpoint(folder):
    sys.path.insert(0, str(ROOT / "tests" / "core"))
    from checkpoint_factory import gpt2_tensors, gpt2_tokenizer, write_checkpoint
    write_checkpoint(folder, CONFIG, gpt2_tensors(np.random.default_rng(0), CONFIG), gpt2_tokenizer())


def forward_flops(L, d=768, layers=12, vocab=320):
    """Multiply-adds × 2 of one pass: projections, scores and mixing, MLP (4d), the LM head."""
    per_layer = 2 * L * d * (3 * d + d + 8 * d) + 2 * 2 * L * L * d
    return layers * per_layer + 2 * L * d * vocab


def gemm_rate(n=1024, repeats=5):
    a = np.random.default_rng(1).standard_normal((n, n)).astype(np.float32)
    a @ a
    best = min(_timed(lambda: a @ a) for _ in range(repeats))
    return 2 * n ** 3 / best


def _median(values):
    return sorted(values)[len(values) // 2]


def _timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--L", type=int, default=1024)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--threads", type=int, default=os.cpu_count(),
                   help="cores each side may use (NumPy: lanes; PyTorch: set_num_threads); default every core")
    p.add_argument("--torch-python", default=os.environ.get("TORCH_PYTHON"))
    args = p.parse_args(argv)
    from threadpoolctl import threadpool_limits

    from explorer.models import lanes, open_checkpoint
    threads = args.threads
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "gpt2-small-random"
        make_checkpoint(folder)
        model = open_checkpoint(folder)
        ids = [i % CONFIG["vocab_size"] for i in range(args.L)]
        lanes.cores = lambda: threads
        model.run_ids(ids)  # warm-up
        torch_side = None
        if args.torch_python:
            torch_side = subprocess.Popen([args.torch_python, "-c", TORCH_SIDE, str(folder), str(args.L), str(threads)],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            assert torch_side.stdout.readline().strip() == "ready"
        numpy_times, torch_times = [], []
        for _ in range(args.repeats):  # turn by turn, so both sides meet the same load
            numpy_times.append(_timed(lambda: model.run_ids(ids)))
            if torch_side:
                torch_side.stdin.write("\n")
                torch_side.stdin.flush()
                torch_times.append(json.loads(torch_side.stdout.readline()))
        if torch_side:
            torch_side.stdin.close()
            torch_side.wait()
        numpy_s = _median(numpy_times)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        weights = sum(f.stat().st_size for f in folder.glob("*.safetensors"))
        attentions = CONFIG["n_layer"] * CONFIG["n_head"] * args.L ** 2 * 4
        print(f"machine: {os.cpu_count()} cores, {threads} used by each side; L = {args.L}; GPT-2-small-sized (12 × 768, 12 heads), float32, "
              f"attention weights of every layer returned")
        print(f"explorer.models (NumPy, {threads} lanes of one-thread BLAS): {numpy_s * 1000:.0f} ms (median of {args.repeats})")
        if torch_times:
            torch_s = _median(torch_times)
            ratios = [a / b for a, b in zip(numpy_times, torch_times)]
            print(f"PyTorch eager (transformers GPT2LMHeadModel, {threads} threads): {torch_s * 1000:.0f} ms "
                  f"(median of {args.repeats}, taking turns with NumPy)")
            print(f"NumPy / PyTorch: {numpy_s / torch_s:.2f}× of the medians; turn by turn "
                  f"{min(ratios):.2f}–{max(ratios):.2f}×, median {_median(ratios):.2f}× (goal ≤ 1.2×)")
        else:
            with threadpool_limits(threads):
                rate = gemm_rate()
            ideal = forward_flops(args.L) / rate
            print(f"no PyTorch given (--torch-python): the multiply-adds alone at this machine's float32 GEMM rate "
                  f"({rate / 1e9:.0f} GFLOP/s) take {ideal * 1000:.0f} ms; NumPy / that: {numpy_s / ideal:.2f}×")
        print(f"peak RSS {rss / 2**20:.0f} MiB; checkpoint {weights / 2**20:.0f} MiB (memory-mapped) + attention "
              f"weights kept {attentions / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
