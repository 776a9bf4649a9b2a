"""Type checks of configuration values, read off the section dataclasses' own annotations.

One place checks every key of every typed section (issue 27): a value of the wrong type is a
`ConfigError` naming the key (`pipeline.batch_size must be an integer, not the string 'x'`),
raised while the file is read, before anything is built, in the main process. Without it a wrong
type surfaced late as a traceback (`'<' not supported`), or worse was silently taken: a string
where a list belongs was read letter by letter, and any non-empty string counted as true.

The annotations are the schema: `bool`, `int`, `float`, `str`, `tuple[X, ...]` (a TOML array),
`Mapping[K, V]` (a TOML table), `Literal[...]`; a `Category` is written as its name (a string),
which the section itself parses. Values' *ranges* stay with the checks in `Config.validate` and the
sections' `__post_init__`.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Mapping
from functools import cache
from importlib.util import find_spec
from typing import Any, Literal, get_args, get_origin

from radeid.core.categories import Category
from radeid.core.errors import ConfigError

__all__ = ["check_locale", "check_section", "check_value"]

#: Locale names Faker uses (`en_US`, `de`, `fil_PH`); anything else is never imported.
_LOCALE = re.compile(r"[a-z]{2,3}(_[A-Z]{2})?")


@cache
def _hints(kind: type) -> dict[str, Any]:
    return typing.get_type_hints(kind)


def check_section(kind: type, values: Mapping[str, Any], where: str) -> None:
    """Raise a `ConfigError` for the first value in `values` whose type is not its field's."""
    hints = _hints(kind)
    for name, value in values.items():
        if name in hints:
            check_value(value, hints[name], f"{where}.{name}")


def check_value(value: Any, hint: Any, key: str) -> None:
    """Raise a `ConfigError` naming `key` when `value` is not of type `hint` (see the module doc)."""
    if not _fits(value, hint):
        raise ConfigError(f"{key} must be {_expected(hint)}, not {_describe(value)}")
    origin = get_origin(hint)
    if origin is tuple:
        item = get_args(hint)[0]
        for n, element in enumerate(value):
            check_value(element, item, f"{key}[{n}]")
    elif origin is Mapping:
        _, item = get_args(hint)
        for name, element in value.items():
            if not isinstance(name, str):
                raise ConfigError(f"{key} must be a table with text keys, not a key {_describe(name)}")
            check_value(element, item, f"{key}.{name}")


def _fits(value: Any, hint: Any) -> bool:
    """The value's own type (not its items') is the one `hint` asks for."""
    origin = get_origin(hint)
    if origin is Literal:
        return isinstance(value, str) and value in get_args(hint)
    if origin is tuple:
        return isinstance(value, (list, tuple))
    if origin is Mapping:
        return isinstance(value, Mapping)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, arg) for arg in get_args(hint))
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is str or hint is Category:  # a category is written as its name
        return isinstance(value, str)
    return True  # a type this schema does not know: the section checks it itself


def _expected(hint: Any) -> str:
    origin = get_origin(hint)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in get_args(hint))
    if origin is tuple:
        return f"a list of {_plural(get_args(hint)[0])}"
    if origin is Mapping:
        return f"a table of {_plural(get_args(hint)[1])}"
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_expected(arg) for arg in get_args(hint))
    names = {bool: "true or false", int: "an integer", float: "a number", str: "a string", Category: "a category name"}
    return names.get(hint, getattr(hint, "__name__", str(hint)))


def _plural(hint: Any) -> str:
    names = {bool: "booleans", int: "integers", float: "numbers", str: "strings", Category: "category names"}
    return names.get(hint, "tables" if get_origin(hint) is Mapping else "values")


def _describe(value: Any) -> str:
    """`the string 'x'`, `the integer 7`, `a list`, `a table`: what the file gave (values shortened)."""
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "a table"
    kind = {str: "string", int: "integer", float: "number"}.get(type(value), type(value).__name__)
    try:
        shown = repr(value)
    except ValueError:  # an integer over Python's digit limit
        return f"an {kind} too long to show"
    return f"the {kind} {shown if len(shown) <= 40 else shown[:37] + '...'}"


def check_locale(locale: str, key: str = "surrogate.locale") -> None:
    """A locale Faker has person names for (found without importing them); `en_US` is not looked up."""
    if locale == "en_US":
        return
    if _LOCALE.fullmatch(locale) and find_spec(f"faker.providers.person.{locale}") is not None:
        return
    raise ConfigError(
        f"{key}: Faker has no person names for locale {locale!r}; use a Faker locale such as en_US, en_GB, de_DE"
    )
