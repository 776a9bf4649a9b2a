"""The PhysioNet `deid` package (Neamatullah et al. 2008, Perl, GPL) run as a subprocess, as a radeid detector.

radeid never ships or downloads `deid`: the user installs it and names its folder. The adapter follows
the package's documented batch interface (`deid` 1.1 README and its gold-standard files):

- input `NAME.text`: each note as `START_OF_RECORD=<patient>||||<note>||||`, a newline, the note's
  text, a newline and `||||END_OF_RECORD`;
- `perl deid.pl NAME deid-output.config`, run inside the `deid` folder (it reads its dictionaries and
  lists relative to it);
- output `NAME.phi`: per note a line `Patient <p>\tNote <n>`, then one line per PHI location,
  `<start> <start> <end>` (whitespace-separated; offsets count from the first character after the
  header's newline, in bytes since Perl reads bytes), and `NAME.res`: the notes again with each PHI
  replaced by a `[**tag**]` marker such as `[**Last Name**]` or `[**Telephone/Fax (1) 123**]`.

Offsets come from `.phi` (exact); categories from the `.res` marker that covers the same text,
through an ordered keyword table (`tags`, first match wins), and `default` where none matches.

Privacy: `deid` reads files, so document text is written to disk, and only inside `workdir`, a folder
the user names for this (a private 0700 sub-folder per batch, removed afterwards, also on error).
There is no default: without `workdir` the detector is not built.

    [detectors.physionet_deid]
    path = "/opt/deid"                 # the folder holding deid.pl and its lists (required)
    workdir = "/secure/scratch"        # where document text may be written (required)
    perl = "perl"
    script = "deid.pl"
    config_file = "deid-output.config"
    timeout_s = 3600                   # per batch
    default = "ID"                     # category when no marker keyword matches
    tags = { "doctor" = "HCW" }        # extra keyword -> category rules, tried before the built-in ones
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from radeid.config.config import ConfigError
from radeid.core.categories import Category, split_label
from radeid.core.document import Document, Span
from radeid.detect.adapters.common import Options, section

if TYPE_CHECKING:
    from radeid.config.config import Config

__all__ = ["DEFAULT_TAGS", "PhysionetDeidDetector", "from_config", "parse_phi", "parse_res", "write_text"]

NAME = "physionet_deid"
STEM = "notes"

#: `[**tag**]` keywords (regular expressions, lower case) -> category; the first that matches wins, so
#: "Doctor Last Name" is HCW before "name" makes it PATIENT.
DEFAULT_TAGS: dict[str, str] = {
    r"doctor|\bdr\b|provider name": "HCW",
    r"hospital|ward|clinic": "HOSPITAL",
    r"company": "VENDOR",
    r"telephone|phone|fax|pager": "PHONE",
    r"e-?mail": "EMAIL",
    r"url|web": "URL",
    r"\bage\b": "AGE",
    r"name|initial": "PATIENT",
    r"location|address|street|state|zip|country|city|apartment": "LOCATION",
    r"number|identifier|record|ssn|social security|\bid\b|unit": "ID",
    r"date|year|month|day|holiday|\d": "DATE",
}

_HEADER = re.compile(r"^\s*Patient\s+(\S+)\s+Note\s+(\S+)\s*$")
_MARKER = re.compile(r"\[\*\*(.*?)\*\*\]", re.DOTALL)
_RECORD = re.compile(r"START_OF_RECORD=([^|\n]*)\|\|\|\|([^|\n]*)\|\|\|\|\r?\n(.*?)\n?\|\|\|\|END_OF_RECORD", re.DOTALL)


def write_text(texts: Sequence[str], path: Path) -> None:
    """The `deid` input file: note `i` of patient 1 is `texts[i-1]`."""
    with open(path, "w", encoding="utf-8", newline="") as handle:
        for number, text in enumerate(texts, 1):
            handle.write(f"START_OF_RECORD=1||||{number}||||\n{text}\n||||END_OF_RECORD\n")


def parse_phi(content: str) -> dict[str, list[tuple[int, int]]]:
    """`.phi` locations by note number: `(start, end)` as written (byte offsets into the note)."""
    notes: dict[str, list[tuple[int, int]]] = {}
    current: list[tuple[int, int]] | None = None
    for line in content.splitlines():
        header = _HEADER.match(line)
        if header:
            current = notes.setdefault(header.group(2), [])
            continue
        numbers = line.split()
        if not numbers:
            continue
        if current is None or len(numbers) not in (2, 3) or not all(n.isdigit() for n in numbers):
            raise ValueError("unexpected line in the .phi file (not 'start [start] end' under a note header)")
        start, end = int(numbers[0]), int(numbers[-1])
        if end > start:
            current.append((start, end))
    return notes


def parse_res(content: str) -> dict[str, str]:
    """`.res` note bodies (with their `[**tag**]` markers) by note number."""
    return {m.group(2).strip(): m.group(3) for m in _RECORD.finditer(content)}


def align_markers(original: str, res_body: str) -> list[tuple[int, int, str]] | None:
    """Where each `[**tag**]` of `res_body` stands in `original`: `(start, end, tag)` in characters.

    The text between markers is copied verbatim by `deid`, so `original` must match the body with each
    marker read as "some text"; a regular expression finds such a reading (None if there is none).
    """
    pieces = _MARKER.split(res_body)
    literals, tags = pieces[0::2], pieces[1::2]
    if not tags:
        return []
    pattern = "".join(re.escape(lit) + ("(.+?)" if i < len(tags) else "") for i, lit in enumerate(literals))
    match = re.fullmatch(pattern, original, re.DOTALL)
    if match is None:
        return None
    return [(match.start(i + 1), match.end(i + 1), tag.strip()) for i, tag in enumerate(tags)]


def _char_offsets(text: str) -> list[int]:
    """Byte offset -> character offset of `text` in UTF-8 (one entry per byte, plus the end)."""
    table: list[int] = []
    for index, char in enumerate(text):
        table.extend([index] * len(char.encode("utf-8")))
    table.append(len(text))
    return table


class PhysionetDeidDetector:
    """`deid`'s PHI locations as spans; `source` is `physionet_deid/<tag>` (`physionet_deid` when untagged)."""

    name = NAME

    def __init__(
        self,
        path: Path,
        workdir: Path,
        *,
        perl: str = "perl",
        script: str = "deid.pl",
        config_file: str = "deid-output.config",
        timeout_s: float = 3600.0,
        tags: Mapping[str, str] | None = None,
        default: str = "ID",
    ) -> None:
        self.path = path
        self.workdir = workdir
        self.command = [perl, script]
        self.config_file = config_file
        self.timeout_s = timeout_s
        rules = {**(tags or {}), **DEFAULT_TAGS}
        self.tags = [(re.compile(k, re.IGNORECASE), split_label(v)) for k, v in rules.items()]
        self.default = split_label(default)

    def detect(self, docs: Sequence[Document]) -> list[list[Span]]:
        if not docs:
            return []
        texts = [doc.text for doc in docs]
        scratch = Path(tempfile.mkdtemp(prefix="radeid-deid-", dir=self.workdir))  # 0700
        try:
            stem = scratch / STEM
            write_text(texts, stem.with_suffix(".text"))
            try:
                done = subprocess.run(
                    [*self.command, str(stem), self.config_file],
                    cwd=self.path,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,  # deid echoes PHI while it works: never surfaced
                    timeout=self.timeout_s,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                raise RuntimeError(f"{NAME}: deid ran past timeout_s={self.timeout_s:g}") from None
            if done.returncode != 0:
                raise RuntimeError(f"{NAME}: deid exited with status {done.returncode}")
            phi_file, res_file = stem.with_suffix(".phi"), stem.with_suffix(".res")
            if not phi_file.exists():
                raise RuntimeError(f"{NAME}: deid wrote no .phi file (is config_file an output config?)")
            try:
                located = parse_phi(phi_file.read_text(encoding="utf-8", errors="replace"))
            except ValueError as error:
                raise RuntimeError(f"{NAME}: {error}") from None
            bodies = parse_res(res_file.read_text(encoding="utf-8", errors="replace")) if res_file.exists() else {}
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return [self.spans(text, located.get(str(n), []), bodies.get(str(n))) for n, text in enumerate(texts, 1)]

    def spans(self, text: str, phi: Sequence[tuple[int, int]], res_body: str | None) -> list[Span]:
        """One note's `.phi` byte locations as character spans, typed by the `.res` marker over them."""
        to_char = _char_offsets(text)
        markers = align_markers(text, res_body) if res_body is not None else None
        spans = []
        for byte_start, byte_end in sorted(set(phi)):
            if byte_end > len(to_char) - 1:
                continue  # beyond the note: not ours to map (deid counted something else)
            start, end = to_char[byte_start], to_char[byte_end]
            if byte_end < len(to_char) - 1 and to_char[byte_end - 1] == end:  # ends inside a character
                end += 1
            if end <= start:
                continue
            tag = self._tag(start, end, markers or [])
            category, subtype = self._category(tag)
            source = f"{NAME}/{tag}" if tag else NAME
            spans.append(Span(start, end, category, subtype, 1.0, source))
        return spans

    @staticmethod
    def _tag(start: int, end: int, markers: Sequence[tuple[int, int, str]]) -> str:
        best, overlap = "", 0
        for m_start, m_end, tag in markers:
            shared = min(end, m_end) - max(start, m_start)
            if shared > overlap:
                best, overlap = tag, shared
        return best

    def _category(self, tag: str) -> tuple[Category, str | None]:
        for pattern, target in self.tags:
            if tag and pattern.search(tag):
                return target
        return self.default


def from_config(config: Config | None) -> PhysionetDeidDetector:
    """The `physionet_deid` detector from its `[detectors.physionet_deid]` table."""
    options = Options(NAME, section(config, NAME))
    path = options.path("path")
    workdir = options.path("workdir")
    perl = options.string("perl", "perl") or "perl"
    script = options.string("script", "deid.pl") or "deid.pl"
    config_file = options.string("config_file", "deid-output.config") or "deid-output.config"
    timeout_s = options.number("timeout_s", 3600.0)
    default = options.string("default", "ID") or "ID"
    tags = options.mapping("tags")
    options.done()
    where = options.where
    if path is None:
        raise ConfigError(f"{where}.path must name the folder of the PhysioNet deid package (it is not bundled)")
    if not (path / script).is_file():
        raise ConfigError(f"{where}.path: no {script} in {path}")
    if workdir is None:
        raise ConfigError(
            f"{where}.workdir must name a folder where document text may be written (deid reads files); "
            "a private sub-folder is made there per batch and removed after it"
        )
    if not workdir.is_dir():
        raise ConfigError(f"{where}.workdir: no such folder {workdir}")
    if shutil.which(perl) is None:
        raise ConfigError(f"{where}.perl: {perl!r} not found; deid needs Perl (e.g. apt-get install perl)")
    if timeout_s <= 0:
        raise ConfigError(f"{where}.timeout_s must be positive")
    for key, value in {**tags, "default": default}.items():
        try:
            split_label(value)
        except ValueError as error:
            raise ConfigError(f"{where}.tags[{key!r}]: {error}") from None
        if key != "default":
            try:
                re.compile(key)
            except re.error:
                raise ConfigError(f"{where}.tags: {key!r} is not a regular expression") from None
    return PhysionetDeidDetector(
        path, workdir, perl=perl, script=script, config_file=config_file, timeout_s=timeout_s, tags=tags,
        default=default,
    )  # fmt: skip
