"""Help screens whose value placeholders read as words: `PATH`, `TEXT`, `N`, `NUMBER`, `fail|skip`.

Typer shows a value's Python type (`<bool>`, `<list[Path]>`, `<int range>`); `words_in_help(app)`
makes every command of the app show a word instead, and nothing after a flag (a flag takes no value).
An option that sets its own `metavar` keeps it.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

__all__ = ["placeholder", "words_in_help"]

_WORDS = {
    "path": "PATH", "Path": "PATH", "str": "TEXT", "int": "N", "int range": "N", "float": "NUMBER",
    "float range": "NUMBER", "bool": "", "datetime": "DATE", "file": "FILE",
}  # fmt: skip


def placeholder(typed: str) -> str:
    """The word for typer's `<type>` of a value: `<list[Path]>` -> PATH (repeatable: the help says
    so), `<int range>` -> N, `<bool>` -> nothing (a flag), choices `<a|b>` -> a|b."""
    label = typed.removeprefix("<").removesuffix(">")
    while label.startswith("list[") and label.endswith("]"):
        label = label[len("list[") : -1]
    if label in _WORDS:
        return _WORDS[label]
    if "|" in label or "," in label:  # choices, a tuple's items
        return label
    return label.upper()


class _WordOption(TyperOption):
    def display_type_rich(self, ctx: Any) -> str | None:
        if self.metavar is not None:
            return self.metavar
        word = placeholder(self.display_type(ctx))
        return word + ("..." if self.nargs != 1 and word else "")


class _WordArgument(TyperArgument):
    def display_type_rich(self, ctx: Any) -> str | None:
        return placeholder(self.display_type(ctx))


def _in_words(params: list[Any]) -> None:
    for param in params:
        if type(param) is TyperOption:
            param.__class__ = _WordOption
        elif type(param) is TyperArgument:
            param.__class__ = _WordArgument


class WordsCommand(TyperCommand):
    """A typer command whose help shows words for values (see the module doc)."""

    def get_params(self, ctx: Any) -> list[Any]:
        params = super().get_params(ctx)  # its own and --help, made on demand
        _in_words(params)
        return params


class WordsGroup(TyperGroup):
    """A typer group (a command with subcommands) whose own options read as words too."""

    def get_params(self, ctx: Any) -> list[Any]:
        params = super().get_params(ctx)
        _in_words(params)
        return params


def words_in_help(app: typer.Typer) -> None:
    """Make every command of `app` (and of its sub-apps) show words for values in help; call it
    once every command is registered."""
    if not isinstance(app.info.cls, type) or app.info.cls is TyperGroup:  # unset: typer's default
        app.info.cls = WordsGroup
    for command in app.registered_commands:
        if not isinstance(command.cls, type) or command.cls is TyperCommand:
            command.cls = WordsCommand
    for group in app.registered_groups:
        if not isinstance(group.cls, type) or group.cls is TyperGroup:
            group.cls = WordsGroup
        if group.typer_instance is not None:
            words_in_help(group.typer_instance)
