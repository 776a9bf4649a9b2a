"""`radeid reidentify`: restore the originals of a run from its encrypted vault."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from radeid.cli.errors import EXIT_FAILED, EXIT_USAGE, EXIT_WRONG_KEY, err, fail, note
from radeid.cli.jobs import check_input, check_job_paths, key_paths, run_job
from radeid.cli.options import FormatOpt, QuietOpt
from radeid.cli.progress import QUIET, ProgressSettings
from radeid.io.errors import RadeidIOError
from radeid.io.readers import ReadOptions
from radeid.run.batch import reidentify_path
from radeid.secure.keys import load_key
from radeid.secure.vault import VaultContents, VaultError, VaultMismatchError, WrongKeyError, read_vault_contents


def reidentify(
    input_path: Annotated[Path, typer.Argument(metavar="INPUT", help="De-identified output of `radeid deid`.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Where the restored originals go.")],
    vault: Annotated[Path, typer.Option("--vault", help="The vault written by `radeid deid --vault`.")],
    key_file: Annotated[
        Path | None, typer.Option("--key-file", help="The key used for the run (else $RADEID_KEY).")
    ] = None,
    input_format: FormatOpt = None,
    id_col: Annotated[str, typer.Option("--id-col", help="Field with the document id.")] = "id",
    text_col: Annotated[str, typer.Option("--text-col", help="Field with the text.")] = "text",
    quiet: QuietOpt = False,
) -> None:
    """Restore the original text of de-identified documents from an encrypted vault.

    A wrong key fails before anything is written. Example:

      radeid reidentify deid.jsonl --vault vault.parquet --key-file site.key -o restored.jsonl
    """
    check_input(input_path)
    check_job_paths({"the input": input_path, "--vault": vault}, {"--output": output}, key_paths(key_file))
    contents = _open_vault(vault, key_file)
    options = ReadOptions(id_col=id_col, text_col=text_col)

    def job(on_batch: Any) -> Any:
        return reidentify_path(
            contents.rows,
            input_path,
            output,
            input_format=input_format,
            options=options,
            on_batch=on_batch,
            original_ids=contents.original_ids,
            digests=contents.digests if contents.binds_text else None,
        )

    try:
        summary = run_job(job, QUIET if quiet else ProgressSettings(), "re-identifying")
    except VaultMismatchError as exc:  # the input is not the run's output: a usage error
        raise fail(str(exc), EXIT_USAGE) from None
    except VaultError as exc:
        raise fail(str(exc), EXIT_FAILED) from None
    if not quiet:
        err.print(
            f"restored {summary.documents} documents ({summary.spans} values) into {escape(str(output))}",
            highlight=False,
        )


def register(app: typer.Typer) -> None:
    """Add `radeid reidentify` to the command line."""
    app.command()(reidentify)


def _open_vault(vault: Path, key_file: Path | None) -> VaultContents:
    """The vault opened with the run's key (exit 3 for a wrong key, 2 for any other problem), and a
    note when it is of a format that does not record the de-identified texts."""
    try:
        found = load_key(key_file)
        if found is None:
            raise fail("reidentify needs the run's key: pass --key-file or set RADEID_KEY", EXIT_USAGE)
        key, message = found
        note(message)
        contents = read_vault_contents(vault, key)
    except WrongKeyError as exc:
        raise fail(str(exc), EXIT_WRONG_KEY) from None
    except (VaultError, RadeidIOError, OSError, ValueError) as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    if not contents.binds_text:
        note(
            f"note: {vault} is a vault of an older format that does not record the de-identified texts: an edit "
            "between surrogates cannot be detected (a vault written by this radeid can)"
        )
    return contents
