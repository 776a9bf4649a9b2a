"""The README and the documentation site: short README, no history or outside links, every CLI command
with an example, every configuration key in the generated reference.

The site itself is built by CI (`mkdocs build --strict` in `.ci/run`), not here: these tests call the
generator's functions (`scripts/docs_reference.py`) directly.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import shlex
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def ref():
    """scripts/docs_reference.py, imported from its file (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location("docs_reference", ROOT / "scripts" / "docs_reference.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("docs_reference", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def commands(ref):
    return {path: (command, ctx) for path, command, ctx in ref.walk_commands()}


def published_pages(ref) -> dict[str, str]:
    """The README, every page under docs/, and the two generated reference pages."""
    pages = {"README.md": README.read_text(encoding="utf-8")}
    for path in sorted(DOCS.rglob("*.md")):
        pages[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
    pages["reference/cli.md (generated)"] = ref.cli_reference()
    pages["reference/config.md (generated)"] = ref.config_reference()
    return pages


def test_readme_is_at_most_300_lines():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines; move detail into docs/"


# What the README and the site must not hold: paths outside the repository, internal issue
# references, and web links (the loopback address of `radeid serve` in examples is not a link out).
FORBIDDEN = {
    "a path outside the repository": re.compile(r"\.\./shared"),
    "an issue reference": re.compile(r"\bissues? ?\d+|(?<![\w&/])#\d+\b", re.IGNORECASE),
    "a web link": re.compile(r"https?://(?!127\.0\.0\.1|localhost)", re.IGNORECASE),
}


def test_readme_and_docs_hold_no_history_links_or_issue_numbers(ref):
    found = []
    for name, text in published_pages(ref).items():
        for number, line in enumerate(text.splitlines(), 1):
            for what, pattern in FORBIDDEN.items():
                if pattern.search(line):
                    found.append(f"{name}:{number}: {what}: {line.strip()[:100]}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("text", ["see issue 25", "(#14)", "Issue 3 says", "https://example.org", "../shared/data"])
def test_the_forbidden_patterns_catch_what_they_are_for(text):
    assert any(pattern.search(text) for pattern in FORBIDDEN.values())


@pytest.mark.parametrize("text", ["`#`", "&#8212;", "http://127.0.0.1:8000/v1/info", "issue a key", "MRN #"])
def test_the_forbidden_patterns_leave_ordinary_text_alone(text):
    assert not any(pattern.search(text) for pattern in FORBIDDEN.values())


def test_readme_links_to_files_that_exist():
    text = README.read_text(encoding="utf-8")
    missing = []
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if not (ROOT / target).exists():
            missing.append(target)
    assert not missing, f"README.md links to missing files: {missing}"


def test_every_command_has_an_example_and_every_example_names_a_command(ref, commands):
    examples = ref.load_examples()
    ref.check_examples(examples, list(commands))  # raises DocsError, naming what is wrong
    assert set(examples) == set(commands)
    # The walk reaches the subcommands of groups, not only the top level.
    assert {"radeid deid", "radeid model export", "radeid ensemble fit"} <= set(commands)


def test_a_command_without_an_example_fails_the_build(ref, commands):
    examples = ref.load_examples()
    for missing in ("radeid deid", "radeid model calibrate", "radeid"):
        fewer = {key: value for key, value in examples.items() if key != missing}
        with pytest.raises(ref.DocsError, match=re.escape(repr(missing))):
            ref.check_examples(fewer, list(commands))
        with pytest.raises(ref.DocsError):
            ref.cli_reference(fewer)


def test_an_example_of_a_command_that_does_not_exist_fails_the_build(ref, commands):
    examples = dict(ref.load_examples())
    examples["radeid frobnicate"] = [{"run": "radeid frobnicate x", "what": "nothing"}]
    with pytest.raises(ref.DocsError, match="frobnicate"):
        ref.check_examples(examples, list(commands))
    misfiled = dict(ref.load_examples())
    misfiled["radeid detect"] = [{"run": "radeid deid a.jsonl -o b.jsonl", "what": "filed under detect"}]
    with pytest.raises(ref.DocsError, match="radeid detect"):
        ref.check_examples(misfiled, list(commands))


def test_every_example_parses_with_its_commands_options(ref, commands):
    problems = []
    for path, entries in ref.load_examples().items():
        command, ctx = commands[path]
        for entry in entries:
            words = shlex.split(entry["run"].split(" > ")[0])[len(path.split()) :]
            if "--help" in words or "--version" in words:
                continue
            try:
                command.make_context(path.split()[-1], words, parent=ctx.parent)
            except Exception as exc:  # noqa: BLE001 - click's usage errors, whatever their class
                problems.append(f"{entry['run']!r}: {exc}")
    assert not problems, "\n".join(problems)


def test_cli_reference_lists_every_command_and_option(ref, commands):
    page = ref.cli_reference()
    for path, (command, _) in commands.items():
        assert f"`{path}`" in page
        for param in command.params:
            if getattr(param, "hidden", False):
                continue
            for opt in getattr(param, "opts", []):
                if opt.startswith("-"):
                    assert opt in page, f"{path}: option {opt} is missing from the reference"


def test_config_reference_covers_every_field_of_every_section(ref):
    sections = ref.config_sections()
    used = {kind for _, kind in sections}
    page = ref.config_reference()
    for kind in ref.section_dataclasses():
        assert kind in used, f"{kind.__name__} is not a section of the configuration reference"
    for section, kind in sections:
        assert f"## `[{section}]`" in page
        for field in dataclasses.fields(kind):
            assert f"### `{section}.{field.name}`" in page, f"{section}.{field.name} is missing"


def test_config_reference_has_a_type_default_and_meaning_for_every_key(ref):
    for section, _, fields in ref.config_entries():
        for entry in fields:
            assert entry["type"] and entry["default"] and entry["doc"].strip(), f"{section}.{entry['key']}"
    entries = {f"{section}.{e['key']}": e for section, _, fields in ref.config_entries() for e in fields}
    # The shipped default (config.toml), not the dataclass fallback: the bundled model's threshold.
    assert entries["detectors.transformer.threshold"]["default"] == "0.3"
    assert entries["pipeline.detectors"]["default"] == '["rules", "lexicon", "transformer"]'


def test_python_examples_import_names_that_exist(ref):
    """Every `from radeid... import ...` in a Python example of the README or the site imports (module
    paths change as the package moves into layers; the examples must follow)."""
    import ast
    import importlib

    problems = []
    for name, text in published_pages(ref).items():
        for block in re.findall(r"```python\n(.*?)```", text, re.DOTALL):
            for node in ast.walk(ast.parse(block)):
                if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith("radeid"):
                    continue
                try:
                    module = importlib.import_module(node.module)
                except ModuleNotFoundError as exc:
                    if exc.name and not exc.name.startswith("radeid"):
                        continue  # an optional extra that is not installed here (pyspark, ...)
                    problems.append(f"{name}: from {node.module}: {exc}")
                    continue
                problems += [
                    f"{name}: {node.module} has no {alias.name}"
                    for alias in node.names
                    if not hasattr(module, alias.name)
                ]
    assert not problems, "\n".join(problems)
