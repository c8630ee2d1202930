"""The checkpoints already in the user's Hugging Face cache, described from their config and headers only.

Nothing is downloaded, ever: the cache is filled by the user's own tools (``hf download gpt2``). Its
folder is ``HF_HUB_CACHE``, else ``HF_HOME/hub``, else ``$XDG_CACHE_HOME/huggingface/hub``, else
``~/.cache/huggingface/hub``; each model is ``models--org--name/snapshots/<revision>/``.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from explorer.core.errors import CheckpointError

from .config import read_config
from .tensor_store import INDEX, SINGLE, TensorStore


def hub_cache_dir() -> Path:
    """Where huggingface_hub keeps downloaded repositories, by the same environment variables."""
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(var):
            return Path(os.environ[var]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(xdg).expanduser() / "huggingface" / "hub"


@dataclass(frozen=True)
class CachedModel:
    """One snapshot of a model repository in the cache. ``problem`` says why it cannot be opened (else None)."""

    repo_id: str             # "gpt2", "Qwen/Qwen2.5-0.5B"
    revision: str            # the snapshot folder's name (a commit hash)
    path: Path               # the snapshot folder: open_checkpoint(path)
    model_type: str | None   # config.json's model_type
    layers: int | None
    heads: int | None
    kv_heads: int | None
    hidden: int | None
    parameters: int | None   # Σ of the tensors' element counts, from the safetensors headers
    size_bytes: int | None   # Σ of the safetensors files' sizes
    is_main: bool            # the revision refs/main points to
    problem: str | None = None

    @property
    def supported(self) -> bool:
        return self.problem is None


def repo_id(folder_name: str) -> str:
    """"models--org--name" → "org/name"."""
    return folder_name[len("models--"):].replace("--", "/")


def describe_snapshot(path: Path, repo_id: str, revision: str, is_main: bool) -> CachedModel:
    """A snapshot described from config.json and the safetensors headers; problems are reported, not raised."""
    fields = dict(model_type=None, layers=None, heads=None, kv_heads=None, hidden=None, parameters=None,
                  size_bytes=None)
    problem = None
    try:
        config = read_config(path)
        fields.update(model_type=config.model_type, layers=config.layers, heads=config.heads,
                      kv_heads=config.kv_heads, hidden=config.hidden)
        store = TensorStore(path, cache=False)
        fields.update(parameters=store.parameter_count(), size_bytes=sum(p.stat().st_size for p in store.files))
        if not (path / "tokenizer.json").is_file():
            problem = "no tokenizer.json"
    except CheckpointError as exc:
        problem = str(exc)
    except OSError as exc:
        problem = f"cannot be read ({exc.strerror or exc})"
    return CachedModel(repo_id=repo_id, revision=revision, path=path, is_main=is_main, problem=problem, **fields)


def _snapshots(repo: Path) -> list[tuple[Path, bool]]:
    """A repository folder's snapshots holding config.json and safetensors weights, with "is refs/main"."""
    main = repo / "refs" / "main"
    try:
        main_revision = main.read_text(encoding="utf-8").strip() if main.is_file() else None
        snapshots = sorted(p for p in (repo / "snapshots").iterdir() if p.is_dir())
    except OSError:
        return []
    return [(snap, snap.name == main_revision) for snap in snapshots
            if (snap / "config.json").is_file() and ((snap / SINGLE).is_file() or (snap / INDEX).is_file())]


def list_cached_models(cache_dir: str | Path | None = None, *, only_supported: bool = False) -> list[CachedModel]:
    """Every model snapshot in the cache that holds a config.json and safetensors weights, by repo id."""
    root = Path(cache_dir) if cache_dir is not None else hub_cache_dir()
    try:
        repos = sorted(p for p in root.iterdir() if p.name.startswith("models--") and p.is_dir())
    except OSError:
        return []
    found = [describe_snapshot(snap, repo_id(repo.name), snap.name, is_main)
             for repo in repos for snap, is_main in _snapshots(repo)]
    return [m for m in found if m.supported or not only_supported]


def find_cached(repo_id: str, cache_dir: str | Path | None = None) -> Path | None:
    """The snapshot folder of ``repo_id`` ("gpt2", "org/name"): refs/main's, else the last one; or None."""
    root = Path(cache_dir) if cache_dir is not None else hub_cache_dir()
    snapshots = _snapshots(root / ("models--" + repo_id.replace("/", "--")))
    main = [snap for snap, is_main in snapshots if is_main]
    return (main or [snap for snap, _ in snapshots] or [None])[-1]
