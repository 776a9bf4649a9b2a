"""Name tables shared by the detectors and the surrogates: the compare-key of a name part and the
gender of first names across Faker's locales.

They sit in the patterns layer because the model's gate (a detector) and the surrogate names (a
replacer) both read them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from functools import lru_cache

from radeid.core.resources import bundled_data_path

__all__ = ["fold_name", "world_genders"]


def fold_name(text: str) -> str:
    """Compare-key for a name part: accents dropped and only letters kept ("José" == "JOSE").

    Memoised: the surrogates fold the same pool names and name words many times per report."""
    found = _FOLDED.get(text)
    if found is None:
        if len(_FOLDED) > _FOLD_LIMIT:
            _FOLDED.clear()
        if text.isascii():  # NFKD leaves ASCII as it is
            found = text.lower() if text.isalpha() else "".join(filter(str.isalpha, text)).lower()
        else:
            found = "".join(filter(str.isalpha, unicodedata.normalize("NFKD", text))).casefold()
        _FOLDED[text] = found
    return found


_FOLDED: dict[str, str] = {}
_FOLD_LIMIT = 1 << 17


@lru_cache(maxsize=1)
def world_genders() -> Mapping[str, str]:
    """Folded first name -> F | M | U from Faker's male and female lists over all its locales,
    precomputed by scripts/build_name_genders.py into first_names_gender_world.tsv."""
    table: dict[str, str] = {}
    with open(bundled_data_path("surrogates", "first_names_gender_world.tsv"), encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("#"):
                continue
            name, _, label = line.rstrip("\n").partition("\t")
            if name and label in ("F", "M", "U"):
                table[name] = label
    return table
