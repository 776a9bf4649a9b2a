"""The user's own replacements and the MRN that names a patient.

`Replacements`: `[surrogate] replacements = "map.tsv"` (`--replacements`), a TSV file of
`category<TAB>original<TAB>surrogate` lines (category `*`: any category; blank lines and lines
starting with `#` are skipped; an optional first line `category<TAB>original<TAB>surrogate` is a
header). An original found there, compared case-insensitively with its spacing normalised, gets
exactly that surrogate in surrogate mode. Errors name the file and line, never what the line holds
(the file is full of PHI).

`mrn_patient`: `[io] patient_from = "mrn"`, the document's first detected medical record number
as its patient key, for documents whose record has no patient id.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from radeid.core.categories import Category
from radeid.core.document import Span
from radeid.core.errors import ConfigError

__all__ = ["Replacements", "mrn_patient", "normalize_original"]

_ANY = "*"
_HEADER = ("category", "original", "surrogate")
# a cue right before an ID span that makes it a medical record number (ids.toml's id_mrn cues)
_MRN_CUE = re.compile(
    r"(?:\bmrn|\bmr\s*(?:#|no\b|num)|medical\s+record(?:\s+(?:number|no|num))?|\bmed\.?\s*rec\.?)\W{0,6}$",
    re.IGNORECASE,
)
_MRN_DROP = re.compile(r"[\s\-]+")


def normalize_original(text: str) -> str:
    """How originals are compared: case folded, runs of whitespace as one space, ends trimmed."""
    return " ".join(text.split()).casefold()


class Replacements:
    """The user's replacement dictionary: `(category or "*", original)` -> surrogate."""

    def __init__(self, table: Mapping[tuple[str, str], str] | None = None) -> None:
        self._table = dict(table or {})

    def __len__(self) -> int:
        return len(self._table)

    @classmethod
    def load(cls, path: str | Path) -> Replacements:
        """Read the TSV at `path` ("" = none); a `ConfigError` names the file and line of a bad line."""
        if not str(path):
            return cls()
        try:
            lines = Path(path).read_text(encoding="utf-8-sig").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
            raise ConfigError(f"replacements file {path}: cannot read it: {reason}") from None
        table: dict[tuple[str, str], str] = {}
        for number, line in enumerate(lines, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = line.split("\t")
            if number == 1 and tuple(f.strip().lower() for f in fields) == _HEADER:
                continue
            key, surrogate = _entry(fields, f"replacements file {path}, line {number}")
            if table.setdefault(key, surrogate) != surrogate:
                raise ConfigError(
                    f"replacements file {path}, line {number}: this original is listed before with a different "
                    "surrogate (one original, one surrogate)"
                )
        return cls(table)

    def get(self, category: Category, original: str) -> str | None:
        """The user's surrogate for `original` of `category` (its own category first, then `*`)."""
        if not self._table:
            return None
        norm = normalize_original(original)
        found = self._table.get((category.value, norm))
        return found if found is not None else self._table.get((_ANY, norm))


def _entry(fields: list[str], where: str) -> tuple[tuple[str, str], str]:
    """One line's `((category, normalised original), surrogate)`."""
    if len(fields) != 3:
        raise ConfigError(
            f"{where}: expected 3 tab-separated fields (category, original, surrogate), found {len(fields)}"
        )
    category, original, surrogate = (f.strip() for f in fields)
    if category != _ANY:
        try:
            category = Category.parse(category).value
        except ValueError:
            known = ", ".join(c.value for c in Category)
            raise ConfigError(f"{where}: the category must be * or one of {known}") from None
    if not original or not surrogate:
        raise ConfigError(f"{where}: the original and the surrogate must not be empty")
    return (category, normalize_original(original)), surrogate


def mrn_patient(text: str, spans: Sequence[Span]) -> str | None:
    """The first medical record number detected in `text` (an ID span of subtype MRN, or one right
    after an MRN cue), normalised: spaces and dashes dropped, leading zeros dropped, upper case."""
    for span in sorted(spans, key=lambda s: s.start):
        if span.category is not Category.ID:
            continue
        if (span.subtype or "").upper() != "MRN" and not _MRN_CUE.search(text[max(0, span.start - 40) : span.start]):
            continue
        norm = _MRN_DROP.sub("", text[span.start : span.end]).upper().lstrip("0")
        if norm:
            return norm
    return None
