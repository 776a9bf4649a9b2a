"""`radeid review`: the review page of a run (`radeid.review.page`), registered on the main CLI with
`register(app)`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from radeid.cli.errors import EXIT_FAILED, EXIT_USAGE, EXIT_WRONG_KEY, err, fail, note
from radeid.cli.jobs import check_input, check_job_paths, key_paths
from radeid.cli.options import FormatOpt
from radeid.io.audit import AuditError
from radeid.io.errors import RadeidIOError
from radeid.io.formats import InputFormat
from radeid.io.readers import ReadOptions
from radeid.review.page import ReviewData, ReviewError, build_page, load_review, write_page
from radeid.run.batch import default_audit_path
from radeid.secure.keys import load_key
from radeid.secure.vault import VaultError, WrongKeyError

__all__ = ["register", "review"]

#: Above this many documents the command suggests `--sample` (the page holds every document).
LARGE_RUN = 2000


def register(app: typer.Typer) -> None:
    """Add `radeid review` to the command line."""
    app.command()(review)


def review(
    output_path: Annotated[Path, typer.Argument(metavar="OUTPUT", help="What `radeid deid` wrote (its -o path).")],
    page: Annotated[Path, typer.Option("--output", "-o", help="The HTML page to write (e.g. review.html).")],
    audit: Annotated[
        Path | None, typer.Option("--audit", help="The run's audit JSONL (default: OUTPUT.audit.jsonl).")
    ] = None,
    vault: Annotated[
        Path | None,
        typer.Option("--vault", help="The run's vault: show the originals (needs the key; the page is then PHI)."),
    ] = None,
    key_file: Annotated[
        Path | None, typer.Option("--key-file", help="The run's key, to open --vault (else $RADEID_KEY).")
    ] = None,
    sample: Annotated[
        int | None, typer.Option("--sample", min=1, help="Review N documents drawn at random (seeded).")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of --sample (same seed, same sample).")] = 0,
    input_format: FormatOpt = None,
    id_col: Annotated[str, typer.Option("--id-col", help="Field with the document id.")] = "id",
    text_col: Annotated[str, typer.Option("--text-col", help="Field with the text.")] = "text",
) -> None:
    """Write a self-contained HTML page to review a run: every replacement highlighted by
    category, filters, a summary, and marks (over-redaction, missed PHI) exported as gold JSONL.

    With --vault and --key-file the page shows the originals beside the surrogates: it is then
    protected health information itself (written with mode 0600). An audit that does not match
    OUTPUT (another run's) still gives a page, with a warning banner, and exits 2. Examples:

      radeid review deid.jsonl -o review.html

      radeid review deid.jsonl -o review.html --sample 50 --seed 7

      radeid review deid.jsonl -o review.html --vault vault.parquet --key-file site.key
    """
    check_input(output_path)
    audit_path = _check_paths(output_path, audit, vault, key_file, page)
    key = _vault_key(vault, key_file)
    data = _write_review(output_path, page, audit_path, vault, key, sample, seed, input_format, id_col, text_col)
    _summary(data, page, sample)
    if data.mismatch is not None:  # the page is written, with a banner; the run's own audit is a usage matter
        left_out = "; the originals were left out" if vault is not None else ""
        raise fail(f"{data.mismatch}. The page says so in a banner{left_out}; pass the run's own --audit", EXIT_USAGE)


def _check_paths(output_path: Path, audit: Path | None, vault: Path | None, key_file: Path | None, page: Path) -> Path:
    """The run's audit must exist (a usage error that says why otherwise); no output may overwrite an input."""
    audit_path = audit or default_audit_path(output_path)
    if not audit_path.exists():
        raise fail(f"audit not found: {audit_path} (pass --audit; `radeid deid --no-audit` writes none)",
                   EXIT_USAGE)  # fmt: skip
    check_job_paths({"OUTPUT": output_path, "--audit": audit_path, "--vault": vault}, {"--output": page},
                    key_paths(key_file))  # fmt: skip
    return audit_path


def _vault_key(vault: Path | None, key_file: Path | None) -> bytes | None:
    """The key that opens --vault (required with it, refused without it); None when there is no vault."""
    if vault is not None:
        try:
            found = load_key(key_file)
        except ValueError as exc:
            raise fail(str(exc), EXIT_USAGE) from None
        if found is None:
            raise fail("--vault needs the run's key: pass --key-file or set RADEID_KEY", EXIT_USAGE)
        key, message = found
        note(message)
        return key
    if key_file is not None:
        raise fail("--key-file is only used with --vault (to show the originals)", EXIT_USAGE)
    return None


def _write_review(
    output_path: Path,
    page: Path,
    audit_path: Path,
    vault: Path | None,
    key: bytes | None,
    sample: int | None,
    seed: int,
    input_format: InputFormat | None,
    id_col: str,
    text_col: str,
) -> ReviewData:
    """Load the run, build and write the page; each error class maps to its exit code."""
    try:
        data = load_review(
            output_path, audit=audit_path, vault=vault, key=key, sample=sample, seed=seed,
            fmt=input_format, options=ReadOptions(id_col=id_col, text_col=text_col, warn_duplicates=False),
        )  # fmt: skip
        html = build_page(data)
        write_page(page, html, private=data.has_originals)
    except WrongKeyError as exc:
        raise fail(str(exc), EXIT_WRONG_KEY) from None
    except (ReviewError, AuditError, VaultError) as exc:
        raise fail(str(exc), EXIT_FAILED) from None
    except (RadeidIOError, OSError, ValueError) as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    return data


def _summary(data: ReviewData, page: Path, sample: int | None) -> None:
    """What was written (and a hint to --sample for a large run), on stderr."""
    if sample is None and data.total_documents > LARGE_RUN:
        note(f"note: {data.total_documents} documents on one page; --sample N reviews a seeded sample")
    spans = sum(len(d.spans) for d in data.documents)
    what = "with originals: this page is PHI, mode 0600" if data.has_originals else "surrogates only"
    err.print(
        f"wrote {escape(str(page))}: {len(data.documents)} of {data.total_documents} documents, "
        f"{spans} replacements ({what})",
        highlight=False,
    )
