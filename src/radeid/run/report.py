"""The run report: a JSON file that records what a `radeid deid` run did, for whoever must answer
for it later (a privacy officer, an audit of the data release).

Beside the output by default (`OUTPUT.report.json`). It holds one entry per run onto that output:
a completed run replaces the file; a resumed, interrupted or failed run appends its entry, so the
last completed entry describes the files on disk. An entry names the radeid version, the resolved
config (and its SHA-256), the model (name and SHA-256 of its files), the key (a fingerprint,
`radeid.secure.keys.key_fingerprint`, never the key), the input (path, SHA-256, record count),
the output, audit and vault, when it ran, and what it did: documents, replacements per category,
the ids of documents with no replacement, and the records skipped or warned about (id, code,
file and line: never text). The schema is `radeid/data/schemas/run_report.schema.json`
(documented in docs/reference/run-report.md); `load_report` checks a file against it.

The file is written atomically (a temporary beside it, then a rename) once the outputs are in place.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import Any

from radeid.config.config import Config
from radeid.core.minischema import schema_errors
from radeid.core.resources import bundled_data_path
from radeid.io.atomic import AtomicTextFile
from radeid.io.errors import ReadIssue
from radeid.io.formats import walk_files
from radeid.io.ids import pseudonymize_id
from radeid.pipeline.fingerprint import dumps_canonical
from radeid.run.batch import RunSummary
from radeid.secure.keys import key_fingerprint

__all__ = [
    "MAX_LISTED",
    "RunFacts",
    "ReportError",
    "default_report_path",
    "load_report",
    "report_schema",
    "run_entry",
    "write_report",
]

FORMAT = "radeid-run-report"
VERSION = 1
#: At most this many ids of documents with no replacement are listed (the count is always exact).
MAX_LISTED = 100_000


class ReportError(ValueError):
    """A file that is not a run report (unreadable, not JSON, or not of the schema)."""


def default_report_path(output: Path) -> Path:
    """`out.jsonl` -> `out.jsonl.report.json`, `out/` -> `out.report.json`, beside the output."""
    output = Path(output)
    return output.with_name(output.name + ".report.json")


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass
class RunFacts:
    """What the command knows of a run before it starts (the rest comes from its summary)."""

    config: Config
    config_file: Path | None
    input_path: Path
    input_format: str | None
    output: Path | None
    audit: Path | None
    vault: Path | None
    key: bytes | None
    workers: int
    dry_run: bool = False
    resumed: bool = False
    #: Where the report goes (None: no report).
    report: Path | None = None
    started_at: str = dataclasses.field(default_factory=utc_now)
    started: float = dataclasses.field(default_factory=time.monotonic)


# ------------------------------------------------------------------------------------ the parts


def _plain(value: Any) -> Any:
    """A config value as plain JSON (tables as objects, tuples as lists, enums as their value);
    bookkeeping fields that do not take part in equality (`Config.explicit`) are left out."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value) if f.compare}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)


def config_part(config: Config, config_file: Path | None) -> dict[str, Any]:
    """The resolved config and its SHA-256 (over its canonical JSON). It names the key *file*
    (a path) at most: the key itself is never in a config."""
    resolved = _plain(config)
    digest = hashlib.sha256(dumps_canonical(resolved).encode("utf-8")).hexdigest()
    return {"sha256": digest, "file": _absolute(config_file), "resolved": resolved}


def _absolute(path: Path | None) -> str | None:
    return os.path.abspath(path) if path is not None else None


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def tree_sha256(path: Path) -> tuple[str, dict[str, str]]:
    """SHA-256 of a file, or of a folder: over each non-hidden file's relative path and SHA-256,
    in sorted order (`sha256sum`-style lines). Returns it and the per-file digests (folders)."""
    if not path.is_dir():
        return file_sha256(path), {}
    files = {file.relative_to(path).as_posix(): file_sha256(file) for file in walk_files(path)}
    listing = "".join(f"{sha}  {rel}\n" for rel, sha in sorted(files.items()))
    return hashlib.sha256(listing.encode("utf-8", "surrogateescape")).hexdigest(), files


def model_part(config: Config) -> dict[str, Any] | None:
    """The transformer model the run used (its name, folder and SHA-256s), or None without one."""
    detectors = list(config.pipeline.detectors)
    if "ensemble" in detectors:
        detectors += list(config.ensemble.members)
    name = config.transformer.model
    if "transformer" not in detectors or not name:
        return None
    from radeid.detect.transformer import ModelLoadError, resolve_model

    try:
        path = Path(resolve_model(name))
    except ModelLoadError:
        return {"name": name, "path": None, "sha256": None, "files": {}}
    if not path.exists():  # a hub name: no local files to hash
        return {"name": name, "path": None, "sha256": None, "files": {}}
    digest, files = tree_sha256(path)
    return {"name": name, "path": str(path), "sha256": digest, "files": files}


def input_part(facts: RunFacts, summary: RunSummary | None) -> dict[str, Any]:
    """The input: path, SHA-256 and its record count. Without a selection the run read every
    record, so the count is exact (documents read + records skipped); a trial run gives the
    reader's estimate (`radeid.io.readers.estimate_total`). A run that stopped (`summary` None)
    gives neither: Ctrl-C or SIGTERM must not wait for the whole input to be read again."""
    from radeid.io.readers import estimate_total

    options = facts.config.io
    selects = bool(options.limit or options.sample)
    records: int | None = None
    if summary is not None:
        if selects:
            records = estimate_total(facts.input_path, facts.input_format)
        else:
            records = summary.read + sum(i.records for i in summary.errors)
    return {
        "path": os.path.abspath(facts.input_path),
        "format": facts.input_format,
        "sha256": tree_sha256(facts.input_path)[0] if summary is not None else None,
        "records": records,
        "records_exact": summary is not None and not selects,
    }


def _issue(issue: ReadIssue, id_key: bytes | None) -> dict[str, Any]:
    doc_id = issue.doc_id
    if doc_id is not None and id_key is not None:
        doc_id = pseudonymize_id(id_key, doc_id)
    return {
        "id": doc_id,
        "code": issue.code or ("read-error" if issue.is_error else "read-warning"),
        "reason": issue.reason,
        "source": issue.path,
        "line": issue.line,
        "row": issue.row,
        "records": issue.records,
    }


# ------------------------------------------------------------------------------------ the entry


def run_entry(facts: RunFacts, summary: RunSummary | None, status: str, documents: int = 0) -> dict[str, Any]:
    """One run's entry. `summary` is None for a run that stopped before it had one (interrupted):
    then `documents` (counted as batches finished) is all that is known of what it did."""
    from radeid import __version__

    config, io = facts.config, facts.config.io
    id_key = facts.key if io.pseudonymize_ids else None
    empty = list(summary.empty_ids) if summary else []
    by_category = dict(sorted(summary.by_category.items())) if summary else {}
    return {
        "status": status,
        "command": "deid",
        "dry_run": facts.dry_run,
        "resumed": facts.resumed,
        "radeid_version": __version__,
        "started_at": facts.started_at,
        "finished_at": utc_now(),
        "duration_seconds": round(time.monotonic() - facts.started, 3),
        "config": config_part(config, facts.config_file),
        "model": model_part(config),
        "key": {"fingerprint": key_fingerprint(facts.key)} if facts.key is not None else None,
        "input": input_part(facts, summary),
        "selection": {"limit": io.limit, "sample": io.sample, "seed": io.seed} if io.limit or io.sample else None,
        "output": None if facts.dry_run else _absolute(facts.output),
        "audit": None if facts.dry_run else _absolute(facts.audit),
        "vault": None if facts.dry_run else _absolute(facts.vault),
        "workers": facts.workers,
        "documents": summary.documents if summary else documents,
        "replacements": summary.spans if summary else 0,
        "replacements_by_category": by_category,
        "zero_replacement_count": len(empty),
        "zero_replacement_ids": empty[:MAX_LISTED],
        "zero_replacement_ids_complete": len(empty) <= MAX_LISTED,
        "skipped": [_issue(i, id_key) for i in summary.errors] if summary else [],
        "warnings": [_issue(i, id_key) for i in summary.warnings] if summary else [],
    }


# ------------------------------------------------------------------------------------ the file


def report_schema() -> dict[str, Any]:
    """The JSON Schema of a run report (shipped in the package)."""
    text = bundled_data_path("schemas", "run_report.schema.json").read_text(encoding="utf-8")
    return dict(json.loads(text))


def load_report(path: Path) -> dict[str, Any]:
    """A run report read and checked against its schema; `ReportError` naming the file otherwise."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ReportError(f"cannot read the run report {str(path)!r}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, ValueError):
        raise ReportError(f"{str(path)!r} is not a run report (not JSON)") from None
    errors = schema_errors(data, report_schema())
    if errors:
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        raise ReportError(f"{str(path)!r} is not a radeid run report: {'; '.join(errors[:3])}{more}")
    return dict(data)


def write_report(path: Path, entry: dict[str, Any], *, append: bool) -> None:
    """Write the report with `entry` as its last run: after the runs already there (`append`, when
    the file is a report), else alone. Atomic: a temporary beside it, fsynced, then renamed."""
    runs: list[Any] = []
    if append and Path(path).is_file():
        try:
            runs = list(load_report(path)["runs"])
        except ReportError:
            runs = []  # not a report (or damaged): this run's entry starts a new one
    document = {"format": FORMAT, "version": VERSION, "runs": [*runs, entry]}
    target = AtomicTextFile(Path(path), overwrite=None)
    try:
        target.handle.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    except BaseException:
        target.abort()
        raise
    target.commit()
