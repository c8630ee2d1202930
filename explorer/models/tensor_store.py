"""A checkpoint's tensors by name, whether in one ``model.safetensors`` or in shards listed by
``model.safetensors.index.json``; headers are all checked on opening, tensors read on first use."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from explorer.core.errors import CheckpointError
from explorer.core.translatable import QT_TRANSLATE_NOOP

from .safetensors_file import SafetensorsFile, TensorInfo

SINGLE = "model.safetensors"
INDEX = "model.safetensors.index.json"


def _shard_names(folder: Path) -> dict[str, str]:
    """tensor name -> shard file name, from the index; each shard a plain file name in ``folder``."""
    path = folder / INDEX
    try:
        index = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:   # UnicodeDecodeError is a ValueError
        raise CheckpointError(f"{INDEX}: cannot be read as JSON ({str(exc)[:120]})") from None
    weight_map = index.get("weight_map") if isinstance(index, dict) else None
    if not isinstance(weight_map, dict) or not weight_map:
        raise CheckpointError(f"{INDEX}: has no \"weight_map\" object of tensor names to shard files")
    for name, shard in weight_map.items():
        if not isinstance(shard, str) or Path(shard).name != shard or shard in ("", ".", ".."):
            raise CheckpointError(f"{INDEX}: tensor {name!r} is mapped to {str(shard)[:80]!r}, which is not a "
                                  f"file name in the checkpoint folder")
    return weight_map


class TensorStore:
    """Every tensor of a checkpoint folder: ``info(name)``, ``get(name)`` (float32), ``names``.

    With ``cache`` the float32 arrays are kept after their first read (small models: the next run
    need not widen or copy them again); without, each use reads them from the memory-mapped file."""

    def __init__(self, folder: str | Path, cache: bool | None = None):
        self.folder = Path(folder)
        if (self.folder / INDEX).is_file():
            weight_map = _shard_names(self.folder)
            files = {shard: self._open(shard) for shard in sorted(set(weight_map.values()))}
            self._where = {}
            for name, shard in weight_map.items():
                if name not in files[shard].tensors:
                    raise CheckpointError(f"{shard}: has no tensor {name!r}, which {INDEX} places there")
                self._where[name] = files[shard]
        elif (self.folder / SINGLE).is_file():
            single = self._open(SINGLE)
            self._where = dict.fromkeys(single.tensors, single)
        else:
            raise CheckpointError(QT_TRANSLATE_NOOP("Checkpoint", "{folder}: holds neither {single} nor {index} "
                                                    "(only safetensors checkpoints are read)").format(
                                      folder=self.folder, single=SINGLE, index=INDEX))
        self.files = sorted({f.path for f in self._where.values()})
        float_bytes = sum(self.info(n).count for n in self._where) * 4
        self.cache = float_bytes <= 2 ** 31 if cache is None else cache
        self._cached: dict[str, np.ndarray] = {}

    def _open(self, name: str) -> SafetensorsFile:
        path = self.folder / name
        if not path.is_file():
            raise CheckpointError(f"{name}: listed in {INDEX} but not in {self.folder}")
        return SafetensorsFile(path)

    def check_unchanged(self) -> None:
        """CheckpointError naming the first weights file rewritten or replaced since the folder was opened."""
        for f in {id(f): f for f in self._where.values()}.values():
            f.check_unchanged()

    @property
    def names(self):
        return self._where.keys()

    def file_of(self, name: str) -> str:
        return self._where[name].path.name

    def info(self, name: str) -> TensorInfo:
        return self._where[name].info(name)

    def parameter_count(self) -> int:
        return sum(self.info(n).count for n in self._where)

    def get(self, name: str) -> np.ndarray:
        """The tensor as float32 (read-only when cached, so no caller can change the model)."""
        array = self._cached.get(name)
        if array is None:
            array = self._where[name].tensor(name)
            if self.cache:
                array.flags.writeable = False
                self._cached[name] = array
        return array
