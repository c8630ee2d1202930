"""Where Q, K, V come from: three trained projections of the token vectors X (the chapter's ten lines)."""
import numpy as np

from .softmax import softmax


def self_attention(X, Wq, Wk, Wv, causal=False):
    """The chapter's ``attention(X, Wq, Wk, Wv, causal)``, line for line; returns the output (L, d_v)."""
    Q, K, V = X @ Wq.T, X @ Wk.T, X @ Wv.T  # (L,D)→(L,d) 三种人格
    S = Q @ K.T / np.sqrt(Q.shape[-1])  # (L,L) 第一次矩阵乘
    if causal:
        S = np.where(np.tril(np.ones_like(S)), S, -1e9)  # 下三角通行证
    return softmax(S) @ V  # 第二、三步
