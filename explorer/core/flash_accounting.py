"""What FlashAttention holds and moves, in the paper's accounting (Dao et al. 2022): the cells on chip per
step against the L_q × L_k matrix never held, and Theorem 2's HBM accesses — Θ(N·d + N²) for standard
attention, Θ(N²·d²/M) for FlashAttention with an SRAM of M numbers. A model with its constants dropped,
not a measurement."""
import math
from dataclasses import dataclass

from explorer.core.translatable import QT_TRANSLATE_NOOP

BYTES_PER_NUMBER = 2  # fp16 / bf16, as the paper's kernels store Q, K, V
# (bytes of SRAM, what it is): the paper's "M around 100KB", and the shared memory of one streaming
# multiprocessor (SM) of the GPU it was written for (A100) and of the one after (H100)
SRAM_SIZES = ((100 * 1024, QT_TRANSLATE_NOOP("Flash", "100 KB (the paper)")),
              (192 * 1024, "192 KB (A100 SM)"),
              (228 * 1024, "228 KB (H100 SM)"))


def sram_size(n_bytes):
    """An SRAM's size as the sentences name it: "100 KB"."""
    return f"{int(n_bytes) // 1024} KB"


def sram_numbers(n_bytes):
    """M of Theorem 2, counted in numbers: bytes / BYTES_PER_NUMBER."""
    return int(n_bytes) // BYTES_PER_NUMBER


def working_set(b_r, b_c, d, d_v):
    """Numbers on chip during one step of Algorithm 1: Q_i (B_r·d), K_j (B_c·d), V_j (B_c·d_v), S_ij (B_r·B_c,
    overwritten by P̃_ij), O_i (B_r·d_v), ℓ_i and m_i (B_r each)."""
    return b_r * d + b_c * d + b_c * d_v + b_r * b_c + b_r * d_v + 2 * b_r


@dataclass(frozen=True)
class HbmModel:
    """Theorem 2 of Dao et al. 2022 for N_q queries, N_k keys (N_q = N_k = N in the paper), head width d and
    an SRAM of M numbers. Θ-bounds without their constants: orders of size, not counts."""

    n_queries: int
    n_keys: int
    d: int
    sram: int  # M, in numbers

    @property
    def standard(self):
        """N·d + N²: read Q, K, V and write O (N·d each), write then read S and A (N² each); with L_q ≠ L_k,
        N = the longer side and L_q·L_k for N²."""
        return max(self.n_queries, self.n_keys) * self.d + self.n_queries * self.n_keys

    @property
    def flash(self):
        """N²·d²/M (L_q·L_k for N²): T_c = N/B_c = 4·N·d/M passes over K, V, each reading Q and O (N·d)."""
        return self.n_queries * self.n_keys * self.d ** 2 / self.sram

    @property
    def in_range(self):
        """Whether Theorem 2 speaks here (d ≤ M ≤ N·d): above N·d the whole head fits on chip, and reading
        Q, K, V once (N·d) is all either method needs."""
        return self.d <= self.sram <= max(self.n_queries, self.n_keys) * self.d

    @property
    def paper_tiles(self):
        """(B_r, B_c) Algorithm 1 picks for this M: B_c = ⌈M / 4d⌉, B_r = min(⌈M / 4d⌉, d)."""
        b_c = math.ceil(self.sram / (4 * self.d))
        return min(b_c, self.d), b_c
