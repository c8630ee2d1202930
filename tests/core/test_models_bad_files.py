"""Bad checkpoints are refused with one error type, CheckpointError, whose message names the file (and the
tensor), without allocating what a hostile header claims (measured with tracemalloc, not a clock)."""
import json
import struct
import tracemalloc

import numpy as np
import pytest

from explorer.core.errors import CheckpointError, ExplorerError
from explorer.models import open_checkpoint
from explorer.models.safetensors_file import read_header
from tests.core.checkpoint_factory import gpt2_checkpoint, llama_checkpoint

NAME = "model.layers.0.self_attn.q_proj.weight"


def raw_file(path, header, data=b"", length=None):
    """A safetensors file written byte by byte: 8-byte length, header text, data."""
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text) if length is None else length) + text + data)
    return path


def refused(folder_or_file, *patterns):
    """The CheckpointError raised for it, checked to contain every pattern, using < 8 MiB on the way."""
    tracemalloc.start()
    try:
        with pytest.raises(CheckpointError) as info:
            if folder_or_file.is_dir():
                open_checkpoint(folder_or_file)
            else:
                read_header(folder_or_file)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2 ** 20, f"{peak} bytes allocated to refuse it"
    message = str(info.value)
    for pattern in patterns:
        assert pattern in message, message
    assert isinstance(info.value, ExplorerError) and isinstance(info.value, ValueError)
    return message


def test_a_file_cut_in_the_middle_of_its_data(tmp_path):
    llama_checkpoint(tmp_path)
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-1000])
    refused(tmp_path, "model.safetensors", "outside the file", "truncated")


def test_a_file_cut_inside_its_header_or_before_it(tmp_path):
    raw_file(tmp_path / "a.safetensors", b'{"x": {"dtype": "F32", "shape": [1]', length=500)
    refused(tmp_path / "a.safetensors", "a.safetensors", "header claims 500 bytes")
    (tmp_path / "b.safetensors").write_bytes(b"\x01\x02")
    refused(tmp_path / "b.safetensors", "b.safetensors", "truncated")


def test_a_header_length_of_2_to_the_63(tmp_path):
    raw_file(tmp_path / "huge.safetensors", b"{}", length=2 ** 63)
    refused(tmp_path / "huge.safetensors", "huge.safetensors", f"claims {2 ** 63} bytes")


@pytest.mark.parametrize("header", [b"not json at all", b"\xff\xfe{}", b"[1, 2, 3]", b"[" * 100_000])
def test_a_header_that_is_not_json(tmp_path, header):
    raw_file(tmp_path / "m.safetensors", header)
    refused(tmp_path / "m.safetensors", "m.safetensors", "header is not")


def test_offsets_outside_the_file(tmp_path):
    raw_file(tmp_path / "m.safetensors", {"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, b"\0" * 8)
    refused(tmp_path / "m.safetensors", "m.safetensors", "'w'", "outside the file")


def test_overlapping_offsets(tmp_path):
    header = {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
              "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}
    raw_file(tmp_path / "m.safetensors", header, b"\0" * 12)
    refused(tmp_path / "m.safetensors", "m.safetensors", "'a' and 'b' overlap")


def test_offsets_that_disagree_with_dtype_and_shape(tmp_path):
    raw_file(tmp_path / "m.safetensors", {"w": {"dtype": "F16", "shape": [3, 3], "data_offsets": [0, 36]}},
             b"\0" * 36)
    refused(tmp_path / "m.safetensors", "m.safetensors", "'w'", "span 36 bytes", "needs 18")


@pytest.mark.parametrize("entry,words", [
    ({"dtype": "F99", "shape": [1], "data_offsets": [0, 4]}, "unknown dtype"),
    ({"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}, "bad shape"),
    ({"dtype": "F32", "shape": [1], "data_offsets": [4, 0]}, "bad data_offsets"),
    ("F32", "not an object")])
def test_malformed_entries(tmp_path, entry, words):
    raw_file(tmp_path / "m.safetensors", {"w": entry}, b"\0" * 4)
    refused(tmp_path / "m.safetensors", "m.safetensors", words)


def test_a_missing_tensor(tmp_path):
    _, tensors = llama_checkpoint(tmp_path)
    del tensors[NAME]
    from safetensors.numpy import save_file
    save_file(tensors, str(tmp_path / "model.safetensors"))
    refused(tmp_path, "model.safetensors", f"missing tensor {NAME!r}")


def test_a_missing_tensor_in_a_shard(tmp_path):
    llama_checkpoint(tmp_path, shards=2)
    index = json.loads((tmp_path / "model.safetensors.index.json").read_text())
    index["weight_map"]["extra.weight"] = "model-00001-of-00002.safetensors"
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps(index))
    refused(tmp_path, "model-00001-of-00002.safetensors", "'extra.weight'")


@pytest.mark.parametrize("shard", ["../elsewhere.safetensors", "missing.safetensors"])
def test_an_index_pointing_outside_the_folder_or_nowhere(tmp_path, shard):
    llama_checkpoint(tmp_path, shards=2)
    index = json.loads((tmp_path / "model.safetensors.index.json").read_text())
    index["weight_map"][NAME] = shard
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps(index))
    refused(tmp_path, shard)


def test_a_config_whose_hidden_size_is_not_divisible_by_its_heads(tmp_path):
    cfg, _ = llama_checkpoint(tmp_path)
    del cfg["head_dim"]
    (tmp_path / "config.json").write_text(json.dumps(dict(cfg, num_attention_heads=5, num_key_value_heads=5)))
    refused(tmp_path, "config.json", "hidden size 24 is not divisible by the 5 heads")


def test_a_config_that_contradicts_the_tensors(tmp_path):
    gpt2_checkpoint(tmp_path)
    cfg = json.loads((tmp_path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps(dict(cfg, n_embd=64)))
    refused(tmp_path, "model.safetensors", "'wte.weight'", "shape [320, 32]", "config.json says [320, 64]")


@pytest.mark.parametrize("text,words", [('{"model_type": "bert"}', "model type 'bert' is not supported"),
                                        ("{not json", "cannot be read as JSON"),
                                        ('{"model_type": "gpt2", "n_embd": 32, "n_head": 4, "n_layer": "two"}',
                                         '"n_layer" is two')])
def test_bad_or_unsupported_configs(tmp_path, text, words):
    gpt2_checkpoint(tmp_path)
    (tmp_path / "config.json").write_text(text)
    refused(tmp_path, "config.json", words)


def test_a_malformed_tokenizer(tmp_path):
    llama_checkpoint(tmp_path)
    (tmp_path / "tokenizer.json").write_text('{"model": {"type": "WordLevel"}}')
    refused(tmp_path, "tokenizer.json", "not a valid tokenizer")


def test_a_folder_without_config_or_weights(tmp_path):
    refused(tmp_path, "no config.json")
    llama_checkpoint(tmp_path)
    (tmp_path / "model.safetensors").unlink()
    refused(tmp_path, "neither model.safetensors nor model.safetensors.index.json")


def test_a_path_that_is_not_there(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    with pytest.raises(CheckpointError, match="no such model in the Hugging Face cache"):
        open_checkpoint("org/absent")


def test_integer_weights_are_refused_when_read(tmp_path):
    _, tensors = llama_checkpoint(tmp_path)
    tensors["model.norm.weight"] = np.ones(24, np.int32)
    from safetensors.numpy import save_file
    save_file(tensors, str(tmp_path / "model.safetensors"))
    model = open_checkpoint(tmp_path)
    with pytest.raises(CheckpointError, match="'model.norm.weight' is I32"):
        model.run("the cat")


@pytest.mark.parametrize("how", ["rewritten shorter", "replaced"])
def test_weights_changed_on_disk_after_opening_are_refused_before_the_next_pass(tmp_path, how):
    """Tensors are memory-mapped: reading a mapping whose file was cut shorter would end the process
    (SIGBUS), so every pass first checks that the weights files are those it opened."""
    gpt2_checkpoint(tmp_path)
    model = open_checkpoint(tmp_path, cache_weights=False)
    model.run("the cat sat")
    weights = tmp_path / "model.safetensors"
    data = weights.read_bytes()
    if how == "rewritten shorter":
        weights.write_bytes(data[: len(data) // 2])      # as save_file into the same folder truncates first
    else:
        weights.unlink()
        weights.write_bytes(data)                         # a new file (new inode) with the same bytes
    for attempt in (lambda: model.run("the cat sat"), lambda: model.generate("the cat", 2)):
        with pytest.raises(CheckpointError, match="model.safetensors: changed on disk since the model was opened"):
            attempt()
