"""The models already in the Hugging Face cache, found through the same environment variables as
huggingface_hub and described from config.json and the safetensors headers only (fake caches, no network)."""
import os
import shutil
from pathlib import Path

import pytest

from explorer.models import find_cached, hub_cache_dir, list_cached_models, open_checkpoint
from tests.core.checkpoint_factory import gpt2_checkpoint, llama_checkpoint

CACHE_VARS = ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME")


def cached(hub: Path, repo_id: str, revision: str, make, main=True):
    """A repository laid out as huggingface_hub does: blobs, snapshot files as symlinks to them, refs/main."""
    repo = hub / ("models--" + repo_id.replace("/", "--"))
    build = repo / "build"
    make(build)
    snapshot = repo / "snapshots" / revision
    snapshot.mkdir(parents=True)
    (repo / "blobs").mkdir(exist_ok=True)
    for file in build.iterdir():
        blob = repo / "blobs" / f"{revision}-{file.name}"
        shutil.move(file, blob)
        os.symlink(os.path.relpath(blob, snapshot), snapshot / file.name)
    build.rmdir()
    if main:
        (repo / "refs").mkdir(exist_ok=True)
        (repo / "refs" / "main").write_text(revision)
    return snapshot


@pytest.fixture
def no_cache_vars(monkeypatch):
    for var in CACHE_VARS:
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def test_the_cache_folder_follows_huggingface_hubs_variables(tmp_path, no_cache_vars):
    no_cache_vars.setenv("HOME", str(tmp_path / "home"))
    assert hub_cache_dir() == tmp_path / "home" / ".cache" / "huggingface" / "hub"
    no_cache_vars.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert hub_cache_dir() == tmp_path / "xdg" / "huggingface" / "hub"
    no_cache_vars.setenv("HF_HOME", str(tmp_path / "hf"))
    assert hub_cache_dir() == tmp_path / "hf" / "hub"
    no_cache_vars.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert hub_cache_dir() == tmp_path / "hub"


def test_listing_describes_each_snapshot_from_config_and_headers(tmp_path, no_cache_vars):
    hub = tmp_path / "hf" / "hub"
    no_cache_vars.setenv("HF_HOME", str(tmp_path / "hf"))
    gpt2 = cached(hub, "gpt2", "a" * 40, gpt2_checkpoint)
    old = cached(hub, "org/tiny-llama", "b" * 40, lambda f: llama_checkpoint(f, shards=2), main=False)
    new = cached(hub, "org/tiny-llama", "c" * 40, lambda f: llama_checkpoint(f, dtype="BF16"))
    cached(hub, "org/broken", "d" * 40, lambda f: (llama_checkpoint(f), (f / "config.json").write_text("{}")))
    (hub / "datasets--org--data" / "snapshots" / "e").mkdir(parents=True)
    (hub / "models--org--pytorch-only" / "snapshots" / "f").mkdir(parents=True)
    (hub / "models--org--pytorch-only" / "snapshots" / "f" / "config.json").write_text("{}")

    models = list_cached_models()
    assert [(m.repo_id, m.revision) for m in models] == [("gpt2", "a" * 40), ("org/broken", "d" * 40),
                                                          ("org/tiny-llama", "b" * 40), ("org/tiny-llama", "c" * 40)]
    g, broken, llama_old, llama_new = models
    assert (g.model_type, g.layers, g.heads, g.kv_heads, g.hidden) == ("gpt2", 2, 4, 4, 32)
    assert g.supported and g.is_main and g.path == gpt2
    assert g.parameters == sum(open_checkpoint(gpt2).store.info(n).count for n in open_checkpoint(gpt2).store.names)
    assert g.size_bytes == (gpt2 / "model.safetensors").stat().st_size
    assert (llama_new.model_type, llama_new.layers, llama_new.heads, llama_new.kv_heads) == ("llama", 2, 4, 2)
    assert llama_new.is_main and not llama_old.is_main and llama_old.path == old and llama_new.path == new
    assert llama_new.parameters == llama_old.parameters and llama_new.size_bytes < llama_old.size_bytes  # BF16
    assert not broken.supported and broken.problem.startswith('config.json: has no "model_type"')
    assert [m.repo_id for m in list_cached_models(only_supported=True)] == ["gpt2", "org/tiny-llama",
                                                                             "org/tiny-llama"]


def test_a_cached_model_opens_by_its_repo_id(tmp_path, no_cache_vars):
    no_cache_vars.setenv("HF_HUB_CACHE", str(tmp_path))
    cached(tmp_path, "org/tiny-llama", "b" * 40, llama_checkpoint, main=False)
    main = cached(tmp_path, "org/tiny-llama", "c" * 40, llama_checkpoint)
    assert find_cached("org/tiny-llama") == main and find_cached("org/other") is None
    model = open_checkpoint("org/tiny-llama")
    assert model.folder == main and model.name == "org/tiny-llama"
    assert model.run("the cat").attentions.shape[:2] == (2, 4)


def test_an_empty_or_absent_cache_lists_nothing(tmp_path):
    assert list_cached_models(tmp_path / "absent") == []
    assert list_cached_models(tmp_path) == []
