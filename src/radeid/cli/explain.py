"""`radeid explain`: why a span was (not) removed from one document (`radeid.evaluate.explain`), registered
on the main CLI with `register(app)`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from radeid.cli.errors import EXIT_USAGE, fail, note
from radeid.cli.jobs import check_job_paths, config_reads
from radeid.cli.options import (
    AllowOpt,
    ConfigOpt,
    DenyOpt,
    FormatOpt,
    HospitalOpt,
    IdColOpt,
    LangOpt,
    ModelOpt,
    NoModelOpt,
    TextColOpt,
    ThresholdOpt,
    VendorOpt,
    job_overrides,
    load_job_config,
)
from radeid.config.config import Config, ConfigError
from radeid.core.document import Document
from radeid.evaluate.explain import ExplainError, explanation_json, input_format, pick_document, render
from radeid.io.errors import RadeidIOError
from radeid.io.formats import FOLDER_FORMATS, InputFormat
from radeid.io.readers import ReadOptions
from radeid.pipeline.multilingual import build_deidentifier

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    """Add `radeid explain` to the command line."""

    @app.command()
    def explain(
        input_path: Annotated[
            Path | None,
            typer.Argument(metavar="FILE", help="A text file (one document) or a JSONL/CSV/Parquet file of rows."),
        ] = None,
        text: Annotated[str | None, typer.Option("--text", help="Explain this text instead of a file.")] = None,
        doc_id: Annotated[
            str | None,
            typer.Option("--id", help="Which document of a row file (default: the first); with --text, its id."),
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")] = False,
        input_format_: FormatOpt = None,
        config: ConfigOpt = None,
        id_col: IdColOpt = None,
        text_col: TextColOpt = None,
        deny_list: DenyOpt = None,
        allow_list: AllowOpt = None,
        hospital_list: HospitalOpt = None,
        vendor_list: VendorOpt = None,
        model: ModelOpt = None,
        no_model: NoModelOpt = False,
        threshold: ThresholdOpt = None,
        lang: LangOpt = None,
    ) -> None:
        """Show why each span was or was not removed from one document: every detector's proposals,
        what the resolver did with each (step, action, reason), the final spans, and a verdict for
        each proposal that left no trace.

        The output holds the document's text: it is for your own look at one document. Examples:

          radeid explain report.txt --no-model

          radeid explain reports.jsonl --id r12 --deny-list staff.tsv

          radeid explain --text "Seen by Dr. Grant. Temp 98.6 F." --json
        """
        cfg = _config(config, no_model, input_format=input_format_, id_col=id_col, text_col=text_col,
                      deny_list=deny_list, allow_list=allow_list, hospital_list=hospital_list,
                      vendor_list=vendor_list, model=model, threshold=threshold, lang=lang)  # fmt: skip
        doc = _document(cfg, input_path, text, doc_id, config)
        try:
            explanation = build_deidentifier(cfg).explain(doc)
        except (ConfigError, RadeidIOError, OSError, ValueError) as exc:
            raise fail(str(exc), EXIT_USAGE) from None
        if as_json:
            typer.echo(json.dumps(explanation_json(explanation), ensure_ascii=False, indent=2))
        else:
            render(explanation, Console(highlight=False))


def _config(config: Path | None, no_model: bool, **options: object) -> Config:
    """The job's config, as `radeid detect` builds it (bundled defaults, --config, options)."""
    try:
        return load_job_config(config, job_overrides(**options), no_model=no_model)
    except (ConfigError, OSError, ValueError) as exc:
        raise fail(str(exc), EXIT_USAGE) from None


def _document(cfg: Config, path: Path | None, text: str | None, doc_id: str | None, config: Path | None) -> Document:
    """The one document to explain: `--text`, or the file's document `--id` (else its first)."""
    if (path is None) == (text is None):
        raise fail("give a FILE or --text (one of them)", EXIT_USAGE)
    reads = {"--config": config, **config_reads(cfg)}
    if text is not None:
        check_job_paths(reads, {})
        return Document(doc_id or "text", text)
    assert path is not None
    if not path.exists():
        raise fail(f"input not found: {path}", EXIT_USAGE)
    check_job_paths({"FILE": path, **reads}, {})
    io = cfg.io
    try:
        fmt = input_format(path, InputFormat.parse(io.format) if io.format else None)
        options = ReadOptions(id_col=io.id_col, text_col=io.text_col, warn_duplicates=False)
        doc = pick_document(path, fmt, options, doc_id)
    except (ExplainError, RadeidIOError, OSError, ValueError) as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    if fmt is InputFormat.TXT and not io.format and path.suffix.lower() != ".txt":
        note(f"reading {path} as one plain-text document (--format names another format)")
    if doc_id is None and (path.is_dir() or fmt not in FOLDER_FORMATS):
        note(f"explaining document {doc.id!r} of {path} (the first; --id picks another)")
    if not doc.text.strip():
        note(f"note: document {doc.id!r} has no text")
    return doc
