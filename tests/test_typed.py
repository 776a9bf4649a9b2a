"""`radeid` ships `py.typed` (PEP 561), so type checkers read its annotations."""

from __future__ import annotations

import sys
from pathlib import Path

import radeid

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_py_typed_is_in_the_package_and_its_data() -> None:
    assert (Path(radeid.__file__).parent / "py.typed").is_file()
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in pyproject["tool"]["setuptools"]["package-data"]["radeid"]
