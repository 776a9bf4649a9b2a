"""The canonical form of a configuration and the digests of the files it names: what a pipeline's
fingerprint is made of.

`PipelineSpec.fingerprint` (a run's journal refuses to resume under another pipeline) and the
prebuilt pipelines of the fork server (`radeid.pipeline.prebuilt`) both read it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Any

__all__ = ["canonical", "dumps_canonical", "named_files"]


def canonical(value: Any) -> Any:
    """A JSON-ready, order-independent form of a config value (dataclasses, enums, mappings)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: canonical(getattr(value, f.name)) for f in dataclasses.fields(value) if f.compare}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Mapping):
        items = [(canonical(k), canonical(v)) for k, v in value.items()]
        return [[k, v] for k, v in sorted(items, key=lambda kv: dumps_canonical(kv[0]))]
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    if isinstance(value, frozenset | set):
        return sorted((canonical(v) for v in value), key=dumps_canonical)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, bytes):
        return hashlib.sha256(value).hexdigest()  # never a raw secret in a fingerprint
    return repr(value)


def dumps_canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [s for f in dataclasses.fields(value) for s in _strings(getattr(value, f.name))]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


def named_files(config: Any) -> dict[str, str]:
    """`{path: content digest}` for every string of `config` (or a part of one) that names a file or folder.

    Folders (a model directory) are summarised by file names, sizes and modification times:
    hashing gigabytes of weights at every start would cost more than it protects.
    """
    found: dict[str, str] = {}
    for text in sorted(set(_strings(config))):
        if not text or len(text) > 4096 or "\n" in text:
            continue
        path = Path(text)
        if text.partition(":")[0] == "bundled" and not path.exists():  # a model shipped with radeid
            from radeid.detect.transformer import ModelLoadError, resolve_model

            try:
                path = Path(resolve_model(text))
            except ModelLoadError:
                pass
        try:
            if path.is_file():
                found[text] = _file_digest(path)
            elif path.is_dir():
                listing = hashlib.blake2b(digest_size=16)
                for root, dirs, files in os.walk(path):
                    dirs.sort()
                    for name in sorted(files):
                        st = os.stat(os.path.join(root, name))
                        rel = os.path.relpath(os.path.join(root, name), path)
                        listing.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogatepass"))
                found[text] = "dir:" + listing.hexdigest()
        except OSError:
            found[text] = "unreadable"
    return found


def _file_digest(path: Path) -> str:
    digest = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()
