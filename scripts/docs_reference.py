"""Reference pages of the documentation site, generated from the code at build time.

* The command-line reference walks the Typer app (`radeid.cli:app`) and lists every command with
  its arguments and options, plus its examples from `docs/cli_examples.toml`. Every command must
  have at least one example, and every example must name a command that exists: otherwise
  `cli_reference()` raises `DocsError` and the site build fails.
* The configuration reference lists every key of every section dataclass with its type, the
  shipped default (`radeid/data/config.toml`, what `radeid default-config` prints) and its
  documentation (the comment above the key in config.toml, the dataclass docstring, or `EXTRA_DOCS`
  below). A key with no documentation at all fails the build too.

`scripts/gen_docs_pages.py` writes both pages for mkdocs (mkdocs-gen-files); the tests in
`tests/docs/` call these functions directly.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import types
import typing
from collections.abc import Iterator, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

import radeid.config.sections as sections_module  # the one place this module names where the section dataclasses live

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES_FILE = ROOT / "docs" / "cli_examples.toml"


class DocsError(Exception):
    """The documentation cannot be built as it stands; the message says what to fix."""


# --------------------------------------------------------------------------- command line


def _click_root() -> Any:
    import typer

    from radeid.cli import app

    return typer.main.get_command(app)


def _subcommands(command: Any, ctx: Any) -> Iterator[tuple[str, Any, Any]]:
    if not hasattr(command, "list_commands"):
        return
    for name in command.list_commands(ctx):
        sub = command.get_command(ctx, name)
        if sub is None or getattr(sub, "hidden", False):
            continue
        yield name, sub, sub.context_class(sub, parent=ctx, info_name=name)


def walk_commands() -> list[tuple[str, Any, Any]]:
    """Every command of the CLI, depth first: (full path such as "radeid model export", command, context)."""
    root = _click_root()
    ctx = root.context_class(root, info_name="radeid")
    found: list[tuple[str, Any, Any]] = []

    def visit(path: str, command: Any, context: Any) -> None:
        found.append((path, command, context))
        for name, sub, sub_ctx in _subcommands(command, context):
            visit(f"{path} {name}", sub, sub_ctx)

    visit("radeid", root, ctx)
    return found


def command_paths() -> list[str]:
    """The full path of every command, the root ("radeid") and the groups included."""
    return [path for path, _, _ in walk_commands()]


def load_examples(path: Path = EXAMPLES_FILE) -> dict[str, list[dict[str, str]]]:
    """The examples file: `[["radeid deid"]]` tables, each with `run` (the command line) and `what`."""
    with path.open("rb") as f:
        data = tomllib.load(f)
    examples: dict[str, list[dict[str, str]]] = {}
    for key, entries in data.items():
        if not isinstance(entries, list) or not all(isinstance(e, Mapping) for e in entries):
            raise DocsError(f'{path.name}: [["{key}"]] must be an array of tables with `run` and `what`')
        for entry in entries:
            unknown = set(entry) - {"run", "what"}
            if unknown or not isinstance(entry.get("run"), str) or not entry["run"].strip():
                raise DocsError(f"{path.name}: an example of {key!r} needs a `run` string (and only `run`, `what`)")
        examples[key] = [dict(entry) for entry in entries]
    return examples


_ENV_PREFIX = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=(?:\"[^\"]*\"|'[^']*'|\S+)\s+)+")


def check_examples(examples: Mapping[str, list[Mapping[str, str]]], paths: list[str]) -> None:
    """Raise `DocsError` when a command has no example, or an example names no command or another one."""
    problems = []
    known = set(paths)
    for path in paths:
        if not examples.get(path):
            problems.append(f"{path!r} has no example")
    for key, entries in examples.items():
        if key not in known:
            problems.append(f"{key!r} is not a command (examples for it must go or be renamed)")
            continue
        for entry in entries:
            run = _ENV_PREFIX.sub("", entry["run"].strip())
            words = run.split()
            # The longest command path the example's first words spell must be its key.
            named = "radeid"
            for n in range(2, len(words) + 1):
                if " ".join(words[:n]) in known:
                    named = " ".join(words[:n])
            if not words or words[0] != "radeid" or named != key:
                problems.append(
                    f"an example under {key!r} runs {named if words[:1] == ['radeid'] else words[:1]}: {entry['run']!r}"
                )
    if problems:
        raise DocsError("docs/cli_examples.toml: " + "; ".join(problems))


def _clean(text: str | None) -> str:
    return (text or "").strip()


def _first_paragraph_and_rest(help_text: str) -> str:
    # Typer help ends with an "Examples:" block of indented lines; the examples file holds them
    # (with a word on what each does), so the block is left out here.
    return re.split(r"\s*\bExamples?:\s*\n", help_text, maxsplit=1)[0].strip()


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _default(param: Any) -> str:
    value = getattr(param, "default", None)
    if value is None or value == () or value == [] or (value is False and getattr(param, "is_flag", False)):
        return ""
    value = getattr(value, "value", value)
    return f"`{value}`"


def _option_row(param: Any, ctx: Any) -> tuple[str, str, str]:
    record = param.get_help_record(ctx) if hasattr(param, "get_help_record") else None
    if record:
        name, help_text = record
    else:
        name, help_text = " / ".join(param.opts + param.secondary_opts), _clean(getattr(param, "help", ""))
    help_text = re.sub(r"\s*\[(default|required)[^\]]*\]\s*$", "", help_text or "")
    if getattr(param, "multiple", False) and "repeatable" not in help_text:
        help_text += " (repeatable)"
    return f"`{name}`", _cell(help_text), _default(param)


def _usage(path: str, command: Any) -> str:
    words = [path, "[OPTIONS]"]
    for param in command.params:
        if hasattr(param, "is_flag") or getattr(param, "hidden", False):
            continue
        name = (param.metavar or param.name).upper()
        if getattr(param, "nargs", 1) == -1:
            name += "..."
        words.append(name if param.required else f"[{name}]")
    if hasattr(command, "list_commands"):
        words.append("COMMAND [ARGS]...")
    return " ".join(words)


def cli_reference(examples: Mapping[str, list[Mapping[str, str]]] | None = None) -> str:
    """The command-line reference page (Markdown). Raises `DocsError` when the examples do not match."""
    commands = walk_commands()
    examples = load_examples() if examples is None else examples
    check_examples(examples, [path for path, _, _ in commands])
    out = [
        "# Command-line reference",
        "",
        "Generated from the command line itself when the site is built. `radeid COMMAND --help` prints",
        "the same. Every option of `radeid deid` is also a configuration key: see the",
        "[configuration reference](config.md).",
        "",
    ]
    for path, command, ctx in commands:
        depth = min(path.count(" ") + 1, 3)
        out += [f"{'#' * (depth + 1)} `{path}`", ""]
        help_text = _first_paragraph_and_rest(_clean(command.help))
        if help_text:
            out += [help_text, ""]
        out += ["```text", _usage(path, command), "```", ""]
        arguments = [p for p in command.params if not hasattr(p, "is_flag") and not getattr(p, "hidden", False)]
        options = [p for p in command.params if hasattr(p, "is_flag") and not getattr(p, "hidden", False)]
        if arguments:
            out += ["| argument | meaning |", "|---|---|"]
            for param in arguments:
                name = param.metavar or param.name.upper()
                optional = "" if param.required else " (optional)"
                out.append(f"| `{name}` | {_cell(_clean(getattr(param, 'help', '')))}{optional} |")
            out.append("")
        if options:
            rows = [_option_row(param, ctx) for param in options]
            if any(default for _, _, default in rows):
                out += ["| option | meaning | default |", "|---|---|---|"]
                out += [f"| {name} | {meaning} | {default} |" for name, meaning, default in rows]
            else:
                out += ["| option | meaning |", "|---|---|"]
                out += [f"| {name} | {meaning} |" for name, meaning, _ in rows]
            out.append("")
        subs = list(_subcommands(command, ctx))
        if subs:
            out += ["Commands: " + ", ".join(f"`{path} {name}`" for name, _, _ in subs) + ".", ""]
        out += ["Examples:", "", "```bash"]
        for entry in examples[path]:
            if entry.get("what"):
                out.append(f"# {entry['what']}")
            out.append(entry["run"].strip())
        out += ["```", ""]
    return "\n".join(out)


# --------------------------------------------------------------------------- configuration

#: Documentation for keys that have no comment in config.toml and no line in their dataclass's
#: docstring. Prefer a comment in config.toml; this is the fallback.
EXTRA_DOCS: dict[str, str] = {
    "detectors.lexicon.include_bundled": "Use the bundled word lists (vendors, institutions, states and countries).",
    "detectors.lexicon.hospital_lists": "Your own hospital lists: one name per line (`--hospital-list`).",
    "detectors.lexicon.vendor_lists": "Your own vendor and product lists: one name per line (`--vendor-list`).",
    "resolver.allow_lists": "Your own allow lists: terms that are never PHI when a span's whole text equals one "
    "(`--allow-list`).",
    "resolver.category_priority": "Per category, added to the source priority when spans overlap (see "
    "`source_priority`).",
    "protected.disabled": "Protected pattern names to switch off.",
    "replace.char": "The character of the `mask` and `fixed` modes (`--mask-char`).",
    "replace.fixed_length": "How many `char`s the `fixed` mode writes, whatever the original's length "
    "(`--mask-length`).",
    "surrogate.max_shift_days": "The largest per-patient date shift, in days (the shift is never 0).",
    "io.output_format": "Output format; \"\" writes the output's suffix, else the input's format.",
    "detectors.transformer.gate_context": "Word pieces of context on each side of a sentence the gate hands "
    'the model (`gate_scope = "sentence"`).',
    "detectors.ensemble.threshold": "For `weighted`: a token is PHI when the voting members' weights sum to "
    "at least this.",
    "detectors.ensemble.combiner": "For `learned`: the combiner file written by `radeid ensemble fit`.",
}


def config_sections() -> list[tuple[str, type]]:
    """Every TOML section and its dataclass, in the order of the shipped config.toml."""
    from radeid.config import DETECTOR_SECTIONS, Config

    hints = typing.get_type_hints(Config)
    pairs: list[tuple[str, type]] = []
    for f in dataclasses.fields(Config):
        if f.name == "detectors":
            pairs += [(f"detectors.{name}", kind) for name, kind in DETECTOR_SECTIONS.items()]
        else:
            pairs.append((f.name, hints[f.name]))
    return pairs


def section_dataclasses() -> list[type]:
    """Every section dataclass the sections module defines (aliases counted once)."""
    seen: list[type] = []
    for value in vars(sections_module).values():
        if (
            isinstance(value, type)
            and dataclasses.is_dataclass(value)
            and value.__module__ == sections_module.__name__
            and value not in seen
        ):
            seen.append(value)
    return seen


def _shipped() -> tuple[dict[str, Any], dict[str, str]]:
    """The shipped config.toml as data, and the comment block above each `section.key` in it."""
    text = resources.files("radeid").joinpath("data", "config.toml").read_text(encoding="utf-8")
    comments: dict[str, str] = {}
    section = ""
    block: list[str] = []
    group = ""  # a comment documents the keys right below it, up to a blank line or another comment
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and not stripped.startswith("[["):
            section = stripped.strip("[]").strip()
            comments.setdefault(section, " ".join(block))  # a comment above a table header documents the table
            block, group = [], ""
        elif stripped.startswith("#"):
            block.append(stripped.lstrip("#").strip())
        elif "=" in stripped and not line.startswith((" ", "\t", '"')):
            key = stripped.split("=", 1)[0].strip().strip('"')
            if block:
                group = " ".join(block)
            if group:
                comments[f"{section}.{key}"] = group
            block = []
        elif not stripped:
            block, group = [], ""
    return tomllib.loads(text), comments


def _docstring_fields(kind: type) -> dict[str, str]:
    """`name: text` entries of a dataclass docstring (continuation lines indented further)."""
    doc = kind.__doc__ or ""
    entries: dict[str, str] = {}
    current = None
    for line in doc.splitlines():
        match = re.match(r"^\s{0,4}([a-z_]+): (.*)$", line)
        if match:
            current = match.group(1)
            entries[current] = match.group(2).strip()
        elif current and line.startswith("        ") and line.strip():
            entries[current] += " " + line.strip()
        else:
            current = None
    return entries


def _type_name(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return "string: " + " or ".join(f'`"{a}"`' for a in args)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in args)
    if origin is tuple:
        element = _type_name(args[0]) if args else "value"
        return "list of " + {"category": "category names", "string": "strings"}.get(element, element + "s")
    if origin in (Mapping, dict) or (origin is not None and getattr(origin, "__name__", "") == "Mapping"):
        return "table"
    names = {bool: "boolean", int: "integer", float: "number", str: "string"}
    if annotation in names:
        return names[annotation]
    if isinstance(annotation, type) and issubclass(annotation, str):
        return "category"
    return getattr(annotation, "__name__", str(annotation))


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
    if hasattr(value, "value"):
        return _toml_value(value.value)
    return str(value)


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _toml_value(key)


def _lookup(data: Mapping[str, Any], dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(data, Mapping) or part not in data:
            return None
        data = data[part]
    return data


def config_entries() -> list[tuple[str, type, list[dict[str, str]]]]:
    """Per section: its name, its dataclass and one entry per field (key, type, default, doc)."""
    shipped, comments = _shipped()
    out = []
    missing = []
    for section, kind in config_sections():
        hints = typing.get_type_hints(kind)
        docstring = _docstring_fields(kind)
        fields = []
        for f in dataclasses.fields(kind):
            dotted = f"{section}.{f.name}"
            value = _lookup(shipped, dotted)
            if value is None:
                value = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
            doc = comments.get(dotted) or docstring.get(f.name) or EXTRA_DOCS.get(dotted, "")
            if not doc:
                missing.append(dotted)
            fields.append({"key": f.name, "type": _type_name(hints[f.name]), "default": _toml_value(value), "doc": doc})
        out.append((section, kind, fields))
    if missing:
        raise DocsError(
            "configuration keys without documentation (add a comment above them in "
            "radeid/data/config.toml): " + ", ".join(missing)
        )
    return out


def _escape_md(text: str) -> str:
    # Comments in config.toml are plain text: keep `<TAB>`-style words literal outside code spans.
    parts = text.split("`")
    for i in range(0, len(parts), 2):
        parts[i] = parts[i].replace("<", "&lt;").replace(">", "&gt;")
    return "`".join(parts)


def _wrap(value: str, width: int = 90) -> str:
    """A long one-line TOML list or inline table, cut into lines of at most `width` characters."""
    opening, closing = value[0], value[-1]
    if opening not in "[{" or opening == "{":  # inline tables must stay on one line in TOML
        return value
    items = [item.strip() for item in value[1:-1].split(", ")]
    lines, line = [], ""
    for item in items:
        if line and len(line) + len(item) + 2 > width:
            lines.append(line + ",")
            line = item
        else:
            line = f"{line}, {item}" if line else item
    lines.append(line)
    return opening + "\n    " + "\n    ".join(lines) + ",\n" + closing


def config_reference() -> str:
    """The configuration reference page (Markdown)."""
    _, comments = _shipped()
    out = [
        "# Configuration reference",
        "",
        "Generated from the configuration's section classes and the shipped defaults when the site is",
        "built. `radeid default-config` prints the same defaults as one TOML file. A `--config` file is",
        "merged over them: tables key by key, lists and values replace. Unknown keys are an error.",
        "See the [configuration guide](../guides/configuration.md) for how to write one.",
        "",
    ]
    for section, kind, fields in config_entries():
        out += [f"## `[{section}]`", ""]
        about = comments.get(section) or (kind.__doc__ or "").strip().split("\n\n")[0]
        if about and not about.startswith(kind.__name__ + "("):
            out += [_escape_md(" ".join(about.split())), ""]
        for entry in fields:
            default = entry["default"]
            out += [f"### `{section}.{entry['key']}`", ""]
            if len(default) <= 70:
                out += [f"**Type:** {entry['type']}. **Default:** `{default}`", ""]
            else:
                out += [
                    f"**Type:** {entry['type']}. **Default:**",
                    "",
                    "```toml",
                    f"{entry['key']} = {_wrap(default)}",
                    "```",
                    "",
                ]
            out += [_escape_md(entry["doc"]), ""]
    return "\n".join(out)
