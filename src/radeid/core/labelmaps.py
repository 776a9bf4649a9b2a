"""Map other annotation schemes' labels to radeid categories; the maps are data files."""

from __future__ import annotations

import sys
from functools import cache

from radeid.core.categories import Category, split_label
from radeid.core.resources import bundled_data_path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

#: A label mapped to this value is known but not PHI for radeid (e.g. i2b2 PROFESSION).
IGNORE = "IGNORE"


def available_label_maps() -> list[str]:
    return sorted(p.stem for p in bundled_data_path("labelmaps").glob("*.toml"))


@cache
def load_label_map(name: str) -> dict[str, str]:
    """Load a bundled label map (`stanford`, `i2b2_2014`, `presidio`, `meddocan`) or a TOML path.

    Keys are compared upper-case; values are `CATEGORY`, `CATEGORY/SUBTYPE` or `IGNORE`.
    """
    path = bundled_data_path("labelmaps", f"{name}.toml")
    if not path.exists():
        from pathlib import Path

        path = Path(name)
        if not path.exists():
            raise ValueError(f"unknown label map {name!r}; bundled: {', '.join(available_label_maps())}")
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except UnicodeDecodeError as exc:
        raise ValueError(f"label map {path}: not valid UTF-8 (byte {exc.start + 1})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"label map {path} is not valid TOML: {exc}") from None
    return {str(k).upper(): str(v) for k, v in data.get("labels", {}).items()}


def map_label(label: str, mapping: dict[str, str] | None = None) -> tuple[Category, str | None] | None:
    """Translate a foreign label to `(category, subtype)`; `None` when it is not PHI here.

    Without a mapping, radeid's own labels (`DATE`, `ID/MRN`) are accepted; BIO prefixes
    (`B-`, `I-`) are stripped first so model labels map too.
    """
    key = label.strip()
    if len(key) > 2 and key[1] == "-" and key[0] in "BIESLU":
        key = key[2:]
    if mapping is not None:
        target = mapping.get(key.upper())
        if target is not None:
            return None if target == IGNORE else split_label(target)
    if key.upper() in ("O", IGNORE, "OTHER"):
        return None
    try:
        return split_label(key)
    except ValueError:
        return None
