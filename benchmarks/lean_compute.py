"""What a whole recompute costs: the core's ``run_pipeline`` and the app's ``recompute`` against leaner NumPy.

    .venv/bin/python -m benchmarks.lean_compute --L 4096
    OPENBLAS_NUM_THREADS=1 .venv/bin/python -m benchmarks.lean_compute --L 1024

Not part of ``benchmarks.run`` (no Qt at all): it backs the recommendations in
docs/performance.md with numbers. Variants, each computing scores, weights and output of every
head (d = 64, 8 heads) unless it says otherwise:

* core — ``explorer.core.pipeline.run_pipeline``, the plain reference the tests compare with;
* app — ``explorer.core.recompute.recompute`` as the model runs it (head by head into the previous
  result's buffers, softmax in blocks);
* plain float64 — ``benchmarks.edit_pixels.reference_stages`` (fresh arrays every call);
* in place float64 — the same into buffers kept between calls (``matmul(out=)``, ``exp(out=)``,
  in-place divide): no fresh memory per edit;
* in place float32 — the same in float32 (half the bytes to write and to hold);
* shown head float32 — only the selected head's scores and weights, the rest left to a worker.

Prints the median time of ``--repeats`` calls after one warm-up, and the minor page faults per call
(fresh memory the kernel had to map).
"""
from __future__ import annotations

import argparse
import resource
import statistics
import time

import numpy as np

from benchmarks.edit_pixels import reference_stages


class InPlace:
    """Softmax attention for every head into buffers that live as long as the shapes do."""

    def __init__(self, length, width, heads, dtype):
        self.heads, self.dtype = heads, dtype
        self.s = np.empty((heads, length, length), dtype)
        self.w = np.empty((heads, length, length), dtype)
        self.m = np.empty((heads, length, 1), dtype)
        self.o = np.empty((heads, length, width // heads), dtype)

    def __call__(self, q, k, v, head=None):
        length, width = q.shape
        h, d_h = self.heads, width // self.heads
        q, k, v = (np.asarray(x, self.dtype) for x in (q, k, v))
        qh = np.ascontiguousarray(q.reshape(length, h, d_h).transpose(1, 0, 2))
        kt = np.ascontiguousarray(k.reshape(length, h, d_h).transpose(1, 2, 0))
        vh = np.ascontiguousarray(v.reshape(length, h, -1).transpose(1, 0, 2))
        heads = range(h) if head is None else [head]
        for i in heads:  # one head at a time: temporaries stay (L, L), not (H, L, L)
            s, w = self.s[i], self.w[i]
            np.matmul(qh[i], kt[i], out=s)
            s *= self.dtype(1.0 / np.sqrt(d_h))
            np.max(s, axis=-1, keepdims=True, out=self.m[i])
            np.subtract(s, self.m[i], out=w)
            np.exp(w, out=w)
            w /= w.sum(axis=-1, keepdims=True)
            if head is None:
                np.matmul(w, vh[i], out=self.o[i])
        return self.s, self.w, self.o


def timed(fn, repeats):
    fn()
    times, faults = [], []
    for _ in range(repeats):
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
    return statistics.median(times), statistics.median(faults)


def main(argv=None):
    from explorer.core.pipeline import run_pipeline
    from explorer.core.recompute import recompute
    from explorer.core.presets import random_session
    from explorer.core.session import Settings

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--L", type=int, default=4096)
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args(argv)
    mats = random_session(a.L, a.d, 0).matrices
    q, k, v = mats["Q"], mats["K"], mats["V"]
    settings = Settings(heads=a.heads)
    f64, f32 = InPlace(a.L, a.d, a.heads, np.float64), InPlace(a.L, a.d, a.heads, np.float32)
    kept = [recompute(mats, settings)]
    variants = [
        ("core run_pipeline (the reference)", lambda: run_pipeline(mats, settings)),
        ("app recompute (kept buffers)", lambda: kept.append(recompute(mats, settings, previous=kept.pop()))),
        ("plain float64 (fresh arrays)", lambda: reference_stages(q, k, v, a.heads)),
        ("in place float64 (kept buffers)", lambda: f64(q, k, v)),
        ("in place float32 (kept buffers)", lambda: f32(q, k, v)),
        ("shown head only, float32", lambda: f32(q, k, v, head=0)),
    ]
    arrays = 2 * a.heads * a.L * a.L * 8
    print(f"# recompute at L = {a.L}, d = {a.d}, {a.heads} heads (scores + weights in float64: "
          f"{arrays / 2 ** 30:.2f} GiB); median of {a.repeats}")
    print(f"{'variant':34s} {'time':>10s} {'page faults':>12s}")
    for name, fn in variants:
        t, faults = timed(fn, a.repeats)
        print(f"{name:34s} {1000 * t:8.0f} ms {faults:12.0f}")


if __name__ == "__main__":
    main()
