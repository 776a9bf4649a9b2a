"""Plain-text word lists (allow lists, deny lists, lexicons) as data files.

Format: one entry per line, UTF-8; blank lines and lines starting with `#` are ignored; an
optional tab-separated second field carries a label (e.g. a PHI category for deny lists).
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path

from radeid.core.errors import ConfigError


def list_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """`(line number, line)` of a UTF-8 list file, line ends kept. A line that is not UTF-8 is a
    `ConfigError` naming the file, the line and the byte (never the text): the bare decode error
    named neither (issue 27)."""
    with open(path, "rb") as handle:
        for lineno, raw in enumerate(handle, start=1):
            try:
                yield lineno, raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ConfigError(
                    f"{path} line {lineno}: not valid UTF-8 (byte 0x{raw[exc.start]:02x} at byte {exc.start + 1}); "
                    "list files are UTF-8: convert it (e.g. iconv -f latin1 -t utf-8)"
                ) from None


def iter_word_list(path: str | Path) -> Iterator[tuple[str, str | None]]:
    """Yield `(term, label_or_None)` for each entry of a list file."""
    for _, raw in list_lines(path):
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
