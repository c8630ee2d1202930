"""Real models (F19): open a local Hugging Face checkpoint, run it in NumPy, turn any head into a session.

No Qt, no PyTorch, no network. Checkpoints are folders in the Hugging Face layout (config.json,
model.safetensors or shards with model.safetensors.index.json, tokenizer.json); tensors are read
memory-mapped with the ``safetensors`` package, text is split with ``tokenizers``. Families: GPT-2
(gpt2, distilgpt2) and Llama (llama, mistral, qwen2); float32, float16 and bfloat16 weights.

    from explorer.models import open_checkpoint, list_cached_models, open_embedded_model
    model = open_embedded_model()                 # or open_checkpoint(folder) / open_checkpoint("gpt2")
    run = model.run("the cat sat on the mat the cat sat on the mat",
                    progress=print, cancelled=lambda: False)
    run.tokens, run.ids, run.attentions.shape     # (layers, heads, L, L)
    session = model.head_session(run, layer=1, head=0)   # an ordinary explorer session (indices from 0)
    edited = model.run_ids(run.ids, edits={(1, 0): session})   # F25: the session in place of that head
    model.notable_heads                           # the embedded model's previous-token and induction heads

Every bad file raises ``CheckpointError`` (explorer.core.errors) naming the file and the tensor.
"""
from pathlib import Path

from explorer.core.errors import CheckpointError

from .config import ModelConfig
from .flow_back import (HeadSource, NextToken, NextTokenChange, checkpoint_misfit, head_source, next_token_change,
                        with_logits)
from .forward import RunCancelled
from .head_roles import HeadScores, NotableHead, induction_scores, previous_token_scores, repeated_random_ids
from .hf_cache import CachedModel, find_cached, hub_cache_dir, list_cached_models
from .model import Model, Run, open_checkpoint

EMBEDDED_MODEL = Path(__file__).resolve().parents[1] / "resources" / "models" / "tiny-induction"


def open_embedded_model() -> Model:
    """The tiny two-layer model that ships with the explorer (trained by tools/train_tiny_model.py)."""
    return open_checkpoint(EMBEDDED_MODEL)


__all__ = ["CachedModel", "CheckpointError", "EMBEDDED_MODEL", "HeadScores", "HeadSource", "Model", "ModelConfig",
           "NextToken", "NextTokenChange", "NotableHead", "Run", "RunCancelled", "checkpoint_misfit", "find_cached",
           "head_source", "hub_cache_dir", "induction_scores", "list_cached_models", "next_token_change",
           "open_checkpoint", "open_embedded_model", "previous_token_scores", "repeated_random_ids", "with_logits"]
