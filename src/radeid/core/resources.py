"""Plain-text word lists (allow lists, deny lists, lexicons) as data files.

Format: one entry per line, UTF-8; blank lines and lines starting with `#` are ignored; an
optional tab-separated second field carries a label (e.g. a PHI category for deny lists).
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path


def iter_word_list(path: str | Path) -> Iterator[tuple[str, str | None]]:
    """Yield `(term, label_or_None)` for each entry of a list file."""
    with open(path, encoding="utf-8") as handle:
        for raw in handle:
            line = raw.rstrip("\n").rstrip("\r")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            term, _, label = line.partition("\t")
            term = term.strip()
            if term:
                yield term, (label.strip() or None)


def read_word_list(path: str | Path) -> list[str]:
    """Just the terms of a list file, in file order."""
    return [term for term, _ in iter_word_list(path)]


def bundled_data_path(*parts: str) -> Path:
    """Path of a data file shipped inside the package (`radeid/data/...`)."""
    return Path(str(resources.files("radeid").joinpath("data", *parts)))
