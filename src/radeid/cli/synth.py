"""`radeid synth` and `radeid augment`, added to the main CLI with `register(app)`.

Exit codes follow the main CLI: 0 ok, 1 bad input data (the message names file and line),
2 usage errors. Messages carry counts and paths, never document text.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from radeid.cli.errors import EXIT_FAILED, EXIT_USAGE, fail
from radeid.cli.options import QuietOpt
from radeid.io.errors import RadeidIOError

if TYPE_CHECKING:
    from radeid.synth.generate import SynthOptions

__all__ = ["augment_command", "register", "synth_command"]


def _kinds(values: list[str] | None) -> tuple[str, ...]:
    """`--kinds ct,mri_brain --kinds ultrasound` -> ("ct", "mri_brain", "ultrasound")."""
    out: list[str] = []
    for value in values or []:
        out.extend(k.strip() for k in value.split(",") if k.strip())
    return tuple(out)


#: What `radeid synth --format` writes, with the options only that format takes (the others:
#: -n, -o, --seed, -q, are shared). A format added here gets its branch in `synth_command`.
SYNTH_FORMATS: dict[str, tuple[str, ...]] = {
    "jsonl": ("kinds", "openi_carrier", "upper_rate", "wrap_rate", "typo_rate", "extras", "start", "list_kinds"),
    "hl7": ("gold", "mllp", "per_patient"),
    "fhir": ("per_patient",),
    "dicom": ("per_patient",),
}
_DEFAULT_OUTPUT = {"jsonl": "synth.jsonl", "hl7": "synth.hl7", "fhir": "synth.ndjson", "dicom": "synth_sr"}

FormatOpt = Annotated[
    str,
    typer.Option(
        "--format",
        "-f",
        help="What to write: jsonl (reports and notes with gold spans), hl7 (ORU^R01 messages, gold in --gold), "
        "fhir (a bulk export of report Bundles, one a line) or dicom (a new folder of Basic Text SR files).",
    ),
]
GoldOpt = Annotated[
    Path | None,
    typer.Option("--gold", help="hl7: the gold JSONL (offsets into each message's text); default OUTPUT.gold.jsonl."),
]
MllpOpt = Annotated[bool, typer.Option("--mllp", help="hl7: frame each message with MLLP bytes (0x0b ... 0x1c 0x0d).")]
KindsOpt = Annotated[
    list[str] | None,
    typer.Option("--kinds", "-k", help="Kinds to draw from (comma-separated or repeated); default: all."),
]
OpeniOpt = Annotated[
    Path | None,
    typer.Option(
        "--openi-carrier",
        help="Open-i reports JSONL: adds the openi_chest_xray kind (real prose, XXXX filled). Research-only data.",
    ),
]


def _rate(name: str, help_text: str) -> Any:
    """A share from 0 to 1."""
    return typer.Option(name, min=0.0, max=1.0, help=help_text)


PerPatientOpt = Annotated[
    int,
    typer.Option(
        "--per-patient", min=1, help="hl7, fhir, dicom: records per patient, in a row (one name, MRN, birth date)."
    ),
]


def synth_command(
    ctx: typer.Context,
    n: Annotated[int, typer.Option("-n", "--count", min=1, help="Number of documents to generate.")] = 100,
    output: Annotated[
        Path | None,
        typer.Option("-o", "--output", help="Output (default synth.jsonl, synth.hl7, synth.ndjson or synth_sr/)."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed: the same seed gives the same documents.")] = 0,
    fmt: FormatOpt = "jsonl",
    kinds: KindsOpt = None,
    openi_carrier: OpeniOpt = None,
    upper_rate: Annotated[float, _rate("--upper-rate", "Share of all-capitals documents.")] = 0.08,
    wrap_rate: Annotated[float, _rate("--wrap-rate", "Share of hard-wrapped documents.")] = 0.15,
    typo_rate: Annotated[float, _rate("--typo-rate", "Share of documents with typos.")] = 0.2,
    extras: Annotated[
        float,
        _rate("--extras", "Extra hard negatives and PHI contexts (0: the first generator's documents; 1: full dose)."),
    ] = 0.0,
    start: Annotated[int, typer.Option("--start", min=0, help="First document number (to extend a run).")] = 0,
    list_kinds: Annotated[bool, typer.Option("--list-kinds", help="Print the kinds and exit.")] = False,
    gold: GoldOpt = None,
    mllp: MllpOpt = False,
    per_patient: PerPatientOpt = 1,
    quiet: QuietOpt = False,
) -> None:
    """Generate labelled synthetic radiology reports and clinical notes (JSONL gold format), or HL7 messages.

    Examples:

      radeid synth -n 5000 -o synth.jsonl --seed 1

      radeid synth -n 500 -o mri.jsonl --kinds mri_brain,mri_spine --upper-rate 0.2

      radeid synth -n 1000 -o cxr.jsonl --openi-carrier openi_iu_reports.dev.jsonl --kinds openi_chest_xray

      radeid synth --format hl7 -n 200 -o oru.hl7 --gold oru.gold.jsonl --mllp --per-patient 2

      radeid synth --format fhir -n 200 -o reports.ndjson --per-patient 2

      radeid synth --format dicom -n 50 -o srdir/
    """
    _check_format_options(ctx, fmt)
    if list_kinds:
        from radeid.synth.kinds import KINDS

        Console(highlight=False).print("\n".join(KINDS))
        return
    from radeid.cli.jobs import check_job_paths

    output = output or Path(_DEFAULT_OUTPUT[fmt])
    if fmt != "jsonl":
        _write_format(fmt, n, seed, output, gold, mllp, per_patient, quiet)
        return
    check_job_paths({"--openi-carrier": openi_carrier}, {"--output": output})
    options = _synth_options(seed, kinds, upper_rate, wrap_rate, typo_rate, openi_carrier, extras)
    _write_synth(n, options, start, output, quiet)


def _check_format_options(ctx: typer.Context, fmt: str) -> None:
    """An unknown --format, or an option of another format given, is a usage error."""
    if fmt not in SYNTH_FORMATS:
        raise fail(f"unknown --format {fmt!r}; choose one of: {', '.join(SYNTH_FORMATS)}", EXIT_USAGE)
    for param in ctx.command.params:
        name = param.name or ""
        others = [f for f, names in SYNTH_FORMATS.items() if name in names]
        source = ctx.get_parameter_source(name)  # (compared by name: typer may bring its own click)
        if others and fmt not in others and source is not None and source.name == "COMMANDLINE":
            option = max(param.opts, key=len)
            raise fail(f"{option} applies to --format {' or '.join(others)} only, not {fmt}", EXIT_USAGE)


def _write_hl7(n: int, seed: int, output: Path, gold: Path, mllp: bool, per_patient: int, quiet: bool) -> None:
    """Generate and write the messages and their gold, then say how many and where (not with --quiet)."""
    from radeid.synth.hl7 import oru_messages, write_oru_files

    began = time.perf_counter()
    try:
        count = write_oru_files(oru_messages(n, seed, per_patient=per_patient), output, gold, mllp=mllp)
    except RadeidIOError as exc:  # an output that is a folder
        raise fail(str(exc), EXIT_USAGE) from None
    except OSError as exc:
        raise fail(
            f"cannot write the messages or their gold: {exc.strerror or type(exc).__name__}", EXIT_FAILED
        ) from None
    took = time.perf_counter() - began
    if not quiet:
        framing = "MLLP-framed" if mllp else "one after another"
        Console(stderr=True, highlight=False, soft_wrap=True).print(
            f"wrote {count} HL7 messages ({framing}) to {escape(str(output))} and their gold spans to "
            f"{escape(str(gold))} in {took:.1f} s"
        )


def _write_format(
    fmt: str, n: int, seed: int, output: Path, gold: Path | None, mllp: bool, per_patient: int, quiet: bool
) -> None:
    """The structured formats: HL7 messages with their gold, FHIR Bundles or DICOM SR files."""
    from radeid.cli.jobs import check_job_paths

    if fmt == "hl7":
        gold = gold or output.with_name(f"{output.stem if output.suffix else output.name}.gold.jsonl")
        check_job_paths({}, {"--output": output, "--gold": gold})
        _write_hl7(n, seed, output, gold, mllp, per_patient, quiet)
    else:
        check_job_paths({}, {"--output": output})
        _write_records(fmt, n, seed, output, per_patient, quiet)


def _write_records(fmt: str, n: int, seed: int, output: Path, per_patient: int, quiet: bool) -> None:
    """FHIR Bundles as one bulk-export file, or DICOM SR files in a new folder (no gold file: the
    generators say where the patient's name is, for the recall benchmarks, not every span)."""
    began = time.perf_counter()
    try:
        if fmt == "fhir":
            from radeid.synth.fhir import bundles, write_bulk_export

            count, what = write_bulk_export(bundles(n, seed, per_patient=per_patient, indent=None), output), "Bundles"
        else:
            count, what = _write_sr_folder(n, seed, output, per_patient), "DICOM SR files"
    except RadeidIOError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    except OSError as exc:
        raise fail(f"cannot write the {fmt} output: {exc.strerror or type(exc).__name__}", EXIT_FAILED) from None
    if not quiet:
        Console(stderr=True, highlight=False, soft_wrap=True).print(
            f"wrote {count} {what} to {escape(str(output))} in {time.perf_counter() - began:.1f} s"
        )


def _write_sr_folder(n: int, seed: int, output: Path, per_patient: int) -> int:
    """`sr-00001.dcm`, ... in `output`, a folder that must be new or empty (no file is replaced)."""
    from radeid.synth.dicom import sr_reports, write_sr

    if output.exists() and not (output.is_dir() and not any(output.iterdir())):
        raise fail(f"--output {str(output)!r} exists; dicom writes a new or empty folder", EXIT_USAGE)
    output.mkdir(parents=True, exist_ok=True)
    reports = sr_reports(n, seed, per_patient=per_patient)
    for number, report in enumerate(reports, 1):
        write_sr(report.dataset, output / f"sr-{number:05d}.dcm")
    return len(reports)


def _synth_options(
    seed: int,
    kinds: list[str] | None,
    upper_rate: float,
    wrap_rate: float,
    typo_rate: float,
    openi_carrier: Path | None,
    extras: float,
) -> SynthOptions:
    """The generator's options, checked (the Open-i file must exist; a bad kind or rate is a usage error)."""
    from radeid.synth.generate import SynthOptions

    if openi_carrier is not None and not openi_carrier.is_file():
        raise fail(f"Open-i carrier file not found: {openi_carrier}", EXIT_USAGE)
    try:
        return SynthOptions(
            seed=seed,
            kinds=_kinds(kinds),
            upper_rate=upper_rate,
            wrap_rate=wrap_rate,
            typo_rate=typo_rate,
            openi_path=openi_carrier,
            extras=extras,
        )
    except ValueError as exc:
        raise fail(str(exc), EXIT_USAGE) from None


def _write_synth(n: int, options: SynthOptions, start: int, output: Path, quiet: bool = False) -> None:
    """Generate and write the documents, then say how many and how fast on stderr (not with --quiet);
    a generator error exits 1."""
    from radeid.synth.generate import generate
    from radeid.synth.goldio import write_gold_jsonl

    began = time.perf_counter()
    try:
        count = write_gold_jsonl(generate(n, options, start=start), output)
    except ValueError as exc:
        raise fail(str(exc), EXIT_FAILED) from None
    took = time.perf_counter() - began
    if quiet:
        return
    Console(stderr=True, highlight=False, soft_wrap=True).print(
        f"wrote {count} documents to {escape(str(output))} in {took:.1f} s ({count / max(took, 1e-9):.0f} docs/s)"
    )


def augment_command(
    input_path: Annotated[
        Path, typer.Argument(metavar="IN", help="Labelled documents: JSONL with spans, BRAT or i2b2.")
    ],
    output: Annotated[Path, typer.Option("-o", "--output", help="Output JSONL (gold spans with text).")],
    copies: Annotated[int, typer.Option("--copies", "-c", min=0, help="Re-renderings per document.")] = 3,
    key_file: Annotated[
        Path | None, typer.Option("--key-file", help="Surrogate key file (else --seed, else $RADEID_KEY / radeid.key).")
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Derive the key from this number (reproducible runs).")
    ] = None,
    typos: Annotated[
        float, typer.Option("--typos", min=0.0, max=1.0, help="Chance of a typo per name/place surrogate.")
    ] = 0.0,
    no_original: Annotated[bool, typer.Option("--no-original", help="Write only the copies, not the inputs.")] = False,
    fmt: Annotated[str | None, typer.Option("--format", "-f", help="Input format (default: guessed).")] = None,
    label_map: Annotated[
        str | None, typer.Option("--label-map", "-l", help="Label map for the input's labels.")
    ] = None,
    quiet: QuietOpt = False,
) -> None:
    """Re-render labelled documents with new surrogates (names, dates, IDs, places), labels kept aligned.

    Examples:

      radeid augment synth.jsonl -o synth_aug.jsonl --copies 3 --seed 7

      radeid augment gold/ -o gold_aug.jsonl --format brat --copies 5 --key-file site.key --typos 0.05
    """
    _check_augment_paths(input_path, output, key_file, seed, label_map)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    key = _augment_key(err, key_file, seed, output)  # a key made here is always said
    shown = Console(stderr=True, highlight=False, soft_wrap=True, quiet=quiet)  # the counts: not with --quiet
    _write_augment(shown, input_path, output, fmt, label_map, key, copies, typos, no_original)


def _check_augment_paths(
    input_path: Path, output: Path, key_file: Path | None, seed: int | None, label_map: str | None
) -> None:
    """One key source at most; the input must exist; the paths checked (`radeid.io.paths`)."""
    from radeid.cli.jobs import check_job_paths, key_paths

    if key_file is not None and seed is not None:
        raise fail("give --key-file or --seed, not both", EXIT_USAGE)
    if not input_path.exists():
        raise fail(f"input not found: {input_path}", EXIT_USAGE)
    check_job_paths({"IN": input_path, "--label-map": _file_or_none(label_map)}, {"--output": output},
                    key_paths(key_file, output) if seed is None else {})  # fmt: skip


def _file_or_none(name: str | None) -> Path | None:
    """A label map given as a file (a bundled map's name is no path)."""
    return Path(name) if name is not None and Path(name).exists() else None


def _augment_key(err: Console, key_file: Path | None, seed: int | None, output: Path) -> bytes:
    """The surrogate key: derived from --seed (reproducible), else read or made as every command does."""
    from radeid.secure.keys import resolve_key

    if seed is not None:
        return hashlib.sha256(f"radeid-augment-seed:{seed}".encode()).digest()
    try:
        key, note = resolve_key(key_file, output.resolve().parent)
    except ValueError as exc:
        raise fail(str(exc), EXIT_USAGE) from None
    if note:
        err.print(escape(note))
    return key


def _write_augment(
    err: Console,
    input_path: Path,
    output: Path,
    fmt: str | None,
    label_map: str | None,
    key: bytes,
    copies: int,
    typos: float,
    no_original: bool,
) -> None:
    """Re-render and write the documents, then the counts on stderr; bad input data exits 1."""
    from radeid.replace.surrogate import SurrogateOptions
    from radeid.synth.augment import AugmentOptions, augment
    from radeid.synth.goldio import GoldDataError, read_gold, write_gold_jsonl

    options = AugmentOptions(
        copies=copies, typo_rate=typos, keep_original=not no_original, surrogate=SurrogateOptions()
    )
    stats: Counter[str] = Counter()
    began = time.perf_counter()
    try:
        count = write_gold_jsonl(augment(read_gold(input_path, fmt, label_map), key, options, stats), output)
    except GoldDataError as exc:
        raise fail(str(exc), EXIT_FAILED) from None
    except ValueError as exc:
        raise fail(str(exc), EXIT_FAILED) from None
    took = time.perf_counter() - began
    err.print(
        f"read {stats['documents']} documents, wrote {count} to {escape(str(output))} "
        f"({stats['spans']} re-rendered spans) in {took:.1f} s"
    )


def register(app: typer.Typer) -> None:
    """Add `synth` and `augment` to the main `radeid` app."""
    app.command("synth")(synth_command)
    app.command("augment")(augment_command)
