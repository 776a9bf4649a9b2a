"""`radeid deid`: de-identify a file or folder (the main job)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from radeid.cli.errors import EXIT_USAGE, err, fail, note
from radeid.cli.jobs import (
    check_input,
    check_job_paths,
    config_reads,
    key_paths,
    make_parents,
    refuse_existing,
    report,
)
from radeid.cli.options import (
    AgeMode,
    ModeOpt,
    Scope,
    input_format,
    job_overrides,
    load_job_config,
    pop_run_flags,
    progress_settings,
    read_options,
    with_shared_options,
)
from radeid.cli.progress import ProgressSettings
from radeid.cli.reporting import dry_run_deid, print_written_report, report_path, run_reported, trial_total
from radeid.config.config import Config, ConfigError
from radeid.io.errors import RadeidIOError
from radeid.io.formats import InputFormat
from radeid.io.readers import estimate_total
from radeid.pipeline.multilingual import build_deidentifier
from radeid.pipeline.spec import PipelineSpec
from radeid.replace.base import KEYED_MODES
from radeid.replace.surrogate.dictionary import Replacements
from radeid.run.batch import default_audit_path
from radeid.run.parallel import RunPlan, default_workers, run, work_folder_for
from radeid.run.report import RunFacts
from radeid.run.sink import ParallelRunSummary
from radeid.run.worker_start import fewer_collections
from radeid.secure.keys import key_dir_for, load_key, resolve_key


@with_shared_options
def deid(
    input_path: Annotated[
        Path, typer.Argument(metavar="INPUT", help="A file (.jsonl/.csv/.parquet/.txt/.xml) or a folder.")
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="Output file, or folder for folder formats.")],
    mode: ModeOpt = None,
    key_file: Annotated[
        Path | None,
        typer.Option(
            "--key-file",
            help="Secret key for surrogates and the vault (else $RADEID_KEY, else radeid.key beside the output).",
        ),
    ] = None,
    scope: Annotated[
        Scope | None, typer.Option("--scope", help="patient: fakes consistent per patient; corpus: across the corpus.")
    ] = None,
    date_shift: Annotated[
        str | None, typer.Option("--date-shift", help="patient (one keyed shift per patient), none, or fixed:N days.")
    ] = None,
    max_shift_days: Annotated[
        int | None, typer.Option("--max-shift-days", min=1, help="Largest date shift in days, either way (365).")
    ] = None,
    date_shifts: Annotated[
        Path | None,
        typer.Option("--date-shifts", help="CSV patient_id,shift_days: these patients get exactly these shifts."),
    ] = None,
    day_first: Annotated[
        bool | None, typer.Option("--day-first/--month-first", help="Read 03/04/2019 as 3 April (or 4 March).")
    ] = None,
    length_preserving: Annotated[
        bool | None,
        typer.Option("--length-preserving/--any-length", help="Pad or trim surrogates to the original's length."),
    ] = None,
    age_mode: Annotated[
        AgeMode | None, typer.Option("--age-mode", help="keep_over: ages stay over 89; aggregate: write '90+'.")
    ] = None,
    typos: Annotated[
        float | None, typer.Option("--typos", min=0.0, max=1.0, help="Rate of typos in surrogates (augmentation).")
    ] = None,
    locale: Annotated[str | None, typer.Option("--locale", help="Faker locale for names and places (en_US).")] = None,
    keep_state: Annotated[
        bool | None,
        typer.Option("--keep-state/--fake-state", help="Keep US state names; fake ZIPs stay inside the state."),
    ] = None,
    vault: Annotated[
        Path | None,
        typer.Option("--vault", help="Write an encrypted re-identification vault (Parquet) here."),
    ] = None,
    mask_char: Annotated[str | None, typer.Option("--mask-char", help="Character for mask/fixed modes.")] = None,
    mask_length: Annotated[int | None, typer.Option("--mask-length", min=1, help="Length in fixed mode.")] = None,
    output_format: Annotated[
        InputFormat | None, typer.Option("--output-format", help="Output format (default: the input's).")
    ] = None,
    audit: Annotated[
        Path | None, typer.Option("--audit", help="Audit JSONL path (default: OUTPUT.audit.jsonl beside OUTPUT).")
    ] = None,
    keep_column: Annotated[
        list[str] | None,
        typer.Option("--keep-column", help="Copy this input column to the output unchanged (repeatable)."),
    ] = None,
    pseudonymize_ids: Annotated[
        bool | None,
        typer.Option(
            "--pseudonymize-ids/--keep-ids",
            help="Write document ids and output file names as keyed pseudonyms (doc-3f9a...); else copied as they are.",
        ),
    ] = None,
    patients: Annotated[
        Path | None,
        typer.Option(
            "--patients",
            help="CSV 'id,patient_id': the patient of each file or document id (a folder's files carry none).",
        ),
    ] = None,
    replacements: Annotated[
        Path | None,
        typer.Option(
            "--replacements",
            help="TSV 'category<TAB>original<TAB>surrogate': your own surrogates for these originals.",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option("--workers", "-w", min=1, help="Worker processes (default: one per available core)."),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option("--resume", help="Continue an interrupted run from its work folder beside the output."),
    ] = False,
    report: Annotated[
        Path | None,
        typer.Option("--report", metavar="PATH", help="Run report JSON (io.report; default: OUTPUT.report.json)."),
    ] = None,
    no_report: Annotated[
        bool, typer.Option("--no-report", help="Write no run report (io.write_report false).")
    ] = False,
    **shared: Any,
) -> None:
    """De-identify documents: detect PHI, replace it, write the output and an audit of every span.

    Every option is also a key of the config (`radeid default-config`); options override --config.

    Examples:

      radeid keygen -o site.key

      radeid deid examples/ -o out/ --key-file site.key

      radeid deid reports.jsonl -o deid.jsonl --key-file site.key --vault vault.parquet

      radeid deid reports.jsonl -o deid.jsonl --mode tag --deny-list staff.tsv

      radeid deid notes.csv -o deid.csv --id-col note_id --text-col body --on-error skip

      radeid deid big.jsonl -o deid.jsonl --key-file site.key --workers 2 --resume

      radeid deid big.jsonl -o trial.jsonl --sample 100 --seed 7 --dry-run
    """
    check_input(input_path)
    config, no_model, quiet, overwrite, progress_given = pop_run_flags(shared)
    dry_run = shared.pop("dry_run")
    overlay = job_overrides(
        **shared, mode=mode, key_file=key_file, scope=scope, date_shift=date_shift, max_shift_days=max_shift_days,
        day_first=day_first, length_preserving=length_preserving, age_mode=age_mode, typos=typos, locale=locale,
        keep_state=keep_state, date_shifts=date_shifts, vault=vault, mask_char=mask_char, mask_length=mask_length,
        output_format=output_format, audit=audit, keep_column=keep_column, pseudonymize_ids=pseudonymize_ids,
        patients=patients, replacements=replacements,
        report=report, write_report=False if no_report else None,
    )  # fmt: skip
    try:
        cfg = load_job_config(config, overlay, no_model=no_model)
        Replacements.load(cfg.surrogate.replacements)  # a bad line is a usage error now, not in a worker
    except (ConfigError, OSError, ValueError) as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    progress = progress_settings(cfg, quiet=quiet, given=progress_given)
    if dry_run:
        if resume:
            raise fail("--dry-run writes nothing, so there is no run to resume; drop --resume", EXIT_USAGE)
        dry_run_deid(cfg, input_path, output, config_path=config, quiet=quiet, progress=progress)
        return
    run_deid(
        cfg, input_path, output, config_path=config, workers=workers, resume=resume, quiet=quiet,
        overwrite=overwrite, progress=progress,
    )  # fmt: skip


def run_deid(
    cfg: Config,
    input_path: Path,
    output: Path,
    *,
    config_path: Path | None = None,
    workers: int | None = None,
    resume: bool = False,
    quiet: bool = False,
    overwrite: bool = False,
    progress: ProgressSettings | None = None,
) -> None:
    """`radeid deid` once its config is known: check paths (an existing output needs `overwrite`),
    then the key, then run."""
    fewer_collections()  # this process runs the pipeline itself with -w 1
    io = cfg.io
    audit_path = Path(io.audit) if io.audit else None
    vault_path = Path(io.vault) if io.vault else None
    key_file = io.key_file or None
    writes = {
        "--output": output,
        "--audit": audit_path or default_audit_path(output),
        "--vault": vault_path,
        "--report": report_path(cfg, output),
    }
    check_job_paths(
        {"the input": input_path, "--config": config_path, **config_reads(cfg)},
        {**writes, "the work folder": work_folder_for(output)},
        key_paths(key_file, output if _needs_key(cfg) else None),
    )
    refuse_existing(writes, overwrite=overwrite, resume=resume)
    make_parents(*writes.values())
    try:
        options = read_options(cfg)  # before a key is made: a bad HL7 field map stops here
        key = _job_key(cfg, input_path, output)
        plan = RunPlan(
            PipelineSpec(cfg, key),
            input_path,
            output,
            workers=workers or default_workers(),
            resume=resume,
            input_format=input_format(io.format),
            output_format=input_format(io.output_format),
            options=options,
            audit_path=audit_path,
            vault_path=vault_path,
            vault_key=key,
            on_error=io.on_error,  # type: ignore[arg-type]
        )
    except (ConfigError, RadeidIOError, OSError, ValueError) as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    shown = progress or progress_settings(cfg, quiet=quiet)
    total = None if shown.mode == "none" else trial_total(estimate_total(input_path, plan.input_format), plan.options)
    facts = RunFacts(cfg, config_path, input_path, io.format or None, output, plan.audit, vault_path, key,
                     plan.worker_count, resumed=resume, report=report_path(cfg, output))  # fmt: skip
    summary = run_reported(facts, lambda on_batch: run(plan, on_batch=on_batch), shown, total, resume=resume)
    _report_run(summary, plan, quiet)
    print_written_report(facts, summary, quiet)


def _needs_key(cfg: Config) -> bool:
    """Surrogates, a vault and keyed ids need a key; masks and tags do not."""
    return bool(cfg.replace.modes() & KEYED_MODES) or bool(cfg.io.vault) or cfg.io.pseudonymize_ids


def _job_key(cfg: Config, input_path: Path, output: Path) -> bytes | None:
    """The key, when the job needs one (surrogates, a vault, keyed ids): the user's, else a new one
    written beside the output, only once every path and the config were checked."""
    io = cfg.io
    if not _needs_key(cfg):
        return None
    found = load_key(Path(io.key_file) if io.key_file else None)
    if found is None:
        # Fail fast on a bad config (lists, rules, model) here, with a clear error, before a
        # key is generated. Otherwise the first batch reports it (as a ConfigError, exit 2):
        # building the pipeline here too would cost every parallel job a second start-up.
        # The replacer needs no key yet.
        build_deidentifier(cfg)
        found = resolve_key(None, key_dir_for(output, input_path), vault=bool(io.vault))
    key, message = found
    note(message)
    return key


def _report_run(summary: ParallelRunSummary, plan: RunPlan, quiet: bool) -> None:
    """The summary table, a warning about unreadable dates, and where the outputs are."""
    report(summary, quiet, "de-identified")
    stats = summary.replacer_stats
    if stats and stats.get("date_unparseable"):
        err.print(
            f"[yellow]warning[/]: {stats['date_unparseable']} date(s) were impossible or unreadable (2/30/2020) "
            "and got a valid date of the same format, shifted (a same-shape stand-in when not date-shaped)"
        )
    if not quiet:
        err.print(f"output: {escape(str(plan.output_path))}\naudit:  {escape(str(plan.audit))}", highlight=False)
        if plan.vault_path is not None:
            err.print(f"vault:  {escape(str(plan.vault_path))}", highlight=False)


def register(app: typer.Typer) -> None:
    """Add `radeid deid` to the command line."""
    app.command()(deid)
