"""The options the `radeid` commands share and the config they build.

Every option that changes what a run does is a config key (`radeid default-config` lists them);
`job_overrides` turns the options the user gave into a config overlay, so a command line and a
TOML file describe a job the same way and an option left out never hides the file's value.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Mapping
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from radeid.cli.progress import QUIET, ProgressSettings
from radeid.config.config import Config, ConfigError
from radeid.config.modes import REPLACERS
from radeid.core.plugins import load_plugins
from radeid.io.formats import InputFormat
from radeid.io.patients import read_patient_map
from radeid.io.readers import ReadOptions


def known_mode(value: str | None) -> str | None:
    """`--mode` accepts every registered replacement mode, a plugin's included (a name the registry
    does not know loads the plugins, `radeid.core.plugins`), not a list copied by hand."""
    if value is not None and value not in REPLACERS:
        failed = "".join(f"; plugin {p!r} not loaded ({error})" for p, error in load_plugins().failed)
        raise typer.BadParameter(f"{value!r} is not a replacement mode; known: {', '.join(REPLACERS.names())}{failed}")
    return value


ModeOpt = Annotated[
    str | None,
    typer.Option(
        "--mode",
        "-m",
        callback=known_mode,
        autocompletion=lambda: REPLACERS.names(),
        help="replace.mode: surrogate (realistic fakes, needs a key), mask, tag, numbered, fixed, or a plugin's mode.",
    ),
]


class Scope(str, Enum):
    patient = "patient"
    corpus = "corpus"


class AgeMode(str, Enum):
    keep_over = "keep_over"
    aggregate = "aggregate"


class OnErrorChoice(str, Enum):
    fail = "fail"
    skip = "skip"


# Options shared by `deid` and `detect`. Defaults are None: the config decides (see module doc).
FormatOpt = Annotated[
    InputFormat | None,
    typer.Option("--format", "-f", help="Input format (io.format); guessed from the suffix or folder content."),
]


ConfigOpt = Annotated[Path | None, typer.Option("--config", "-c", help="TOML file merged over the bundled defaults.")]


HospitalOpt = Annotated[
    list[Path] | None, typer.Option("--hospital-list", help="Extra hospital names, one per line (repeatable).")
]


VendorOpt = Annotated[
    list[Path] | None, typer.Option("--vendor-list", help="Extra vendor/software names, one per line (repeatable).")
]


DenyOpt = Annotated[
    list[Path] | None,
    typer.Option("--deny-list", help="Terms always redacted: 'term<TAB>CATEGORY' per line (repeatable)."),
]


AllowOpt = Annotated[
    list[Path] | None,
    typer.Option("--allow-list", help="Terms never redacted (whole-span match, any case), one per line (repeatable)."),
]


IdColOpt = Annotated[str | None, typer.Option("--id-col", help="Field with the document id (io.id_col, 'id').")]


TextColOpt = Annotated[str | None, typer.Option("--text-col", help="Field with the text (io.text_col, 'text').")]


PatientColOpt = Annotated[
    str | None,
    typer.Option("--patient-col", help="Field with the patient id (default: 'patient_id' when present)."),
]


OnErrorOpt = Annotated[
    OnErrorChoice | None,
    typer.Option("--on-error", help="fail: stop at the first bad record, write nothing; skip: leave it out, go on."),
]


BatchOpt = Annotated[int | None, typer.Option("--batch-size", min=1, help="Documents per detection batch.")]


AgeOpt = Annotated[int | None, typer.Option("--age-threshold", min=0, help="Ages above this are PHI (default 89).")]


QuietOpt = Annotated[
    bool,
    typer.Option("--quiet", "-q", help="No progress, summary or status lines on stderr; errors and warnings still."),
]


OverwriteOpt = Annotated[
    bool,
    typer.Option("--overwrite", help="Replace an existing output (and audit, vault); without it they are refused."),
]


class ProgressChoice(str, Enum):
    auto = "auto"
    bar = "bar"
    log = "log"
    none = "none"


class LogFormatChoice(str, Enum):
    text = "text"
    json = "json"


ProgressOpt = Annotated[
    ProgressChoice | None,
    typer.Option(
        "--progress",
        help="io.progress: auto (a bar on a terminal, else a log line every --progress-interval seconds), bar, "
        "log or none.",
    ),
]


ProgressIntervalOpt = Annotated[
    float | None,
    typer.Option("--progress-interval", min=0.0, help="Seconds between progress log lines (io.progress_interval, 30)."),
]


LogFormatOpt = Annotated[
    LogFormatChoice | None,
    typer.Option("--log-format", help="io.log_format: progress log lines as text, or json (one object per line)."),
]


ModelOpt = Annotated[
    str | None,
    typer.Option(
        "--model",
        help="Run the transformer detector with this model instead of the bundled one (ONNX or Hugging Face "
        "folder, or hub name).",
    ),
]


LangOpt = Annotated[
    str | None,
    typer.Option(
        "--lang",
        help=(
            "Language pack: en (default), es (Spanish model, es_ES surrogates, day-first dates), or auto "
            "(each document its own language; needs radeid[lang]); pipeline.language."
        ),
    ),
]


NoModelOpt = Annotated[
    bool, typer.Option("--no-model", help="Rules and word lists only: no transformer model (about 50x faster).")
]


ThresholdOpt = Annotated[
    float | None,
    typer.Option(
        "--threshold",
        min=0.0,
        max=1.0,
        help="Model score from which a word piece is PHI (default: detectors.transformer.threshold, 0.3 for the "
        "bundled model).",
    ),
]


#: Options `deid` and `detect` share, declared once: (annotation, default).
SHARED_OPTIONS: dict[str, tuple[Any, Any]] = {
    "input_format": (FormatOpt, None),
    "config": (ConfigOpt, None),
    "hospital_list": (HospitalOpt, None),
    "vendor_list": (VendorOpt, None),
    "deny_list": (DenyOpt, None),
    "allow_list": (AllowOpt, None),
    "id_col": (IdColOpt, None),
    "text_col": (TextColOpt, None),
    "patient_col": (PatientColOpt, None),
    "on_error": (OnErrorOpt, None),
    "batch_size": (BatchOpt, None),
    "age_threshold": (AgeOpt, None),
    "lang": (LangOpt, None),
    "model": (ModelOpt, None),
    "no_model": (NoModelOpt, False),
    "threshold": (ThresholdOpt, None),
    "quiet": (QuietOpt, False),
    "overwrite": (OverwriteOpt, False),
    "progress": (ProgressOpt, None),
    "progress_interval": (ProgressIntervalOpt, None),
    "log_format": (LogFormatOpt, None),
}


# Trial runs (`deid` and `detect`): a few documents first, or nothing written at all.
LimitOpt = Annotated[
    int | None,
    typer.Option("--limit", min=1, metavar="N", help="Only the first N documents (io.limit): a trial run."),
]


SampleOpt = Annotated[
    int | None,
    typer.Option(
        "--sample",
        min=1,
        metavar="N",
        help="A random sample of N documents, in input order (io.sample): the same --seed, the same sample.",
    ),
]


SeedOpt = Annotated[
    int | None, typer.Option("--seed", metavar="S", help="Seed of --sample (io.seed, 0): same seed, same sample.")
]


DryRunOpt = Annotated[
    bool,
    typer.Option("--dry-run", help="Detect and count, write no output, audit, vault or key (deid: only the report)."),
]


#: The trial-run options, shared by `deid` and `detect` like the ones above.
SHARED_OPTIONS.update(
    {"limit": (LimitOpt, None), "sample": (SampleOpt, None), "seed": (SeedOpt, None), "dry_run": (DryRunOpt, False)}
)


def with_shared_options(func: Callable[..., None]) -> Callable[..., None]:
    """Give a command taking `**shared` every option of `SHARED_OPTIONS` as a keyword parameter
    (`deid` and `detect`, so they cannot drift apart)."""
    return with_options(SHARED_OPTIONS)(func)


def borrowed_options(command: Callable[..., Any], names: Iterable[str]) -> dict[str, tuple[Any, Any]]:
    """Options of another command, by parameter name, as `with_options` takes them: `spark-deid`
    borrows `deid`'s, so one option reads and behaves the same in both."""
    parameters = inspect.signature(command).parameters
    return {name: (parameters[name].annotation, parameters[name].default) for name in names}


def with_options(options: Mapping[str, tuple[Any, Any]]) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Give a command taking `**options` these options ((annotation, default) by name) as keyword
    parameters.

    Typer reads a command's options from its signature; this writes them into the signature
    once (written by hand because typer has no option groups).
    """

    def decorate(func: Callable[..., None]) -> Callable[..., None]:
        hints = inspect.get_annotations(func, eval_str=True)
        own = [
            p.replace(annotation=hints.get(p.name, p.annotation))
            for p in inspect.signature(func).parameters.values()
            if p.kind is not inspect.Parameter.VAR_KEYWORD
        ]
        added = [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
            for name, (annotation, default) in options.items()
        ]

        @functools.wraps(func)
        def command(*args: Any, **kwargs: Any) -> None:
            func(*args, **kwargs)

        parameters = [*own, *added]
        command.__signature__ = inspect.Signature(parameters, return_annotation=None)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in parameters}
        return command

    return decorate


def job_overrides(**options: Any) -> dict[str, Any]:
    """Options the user gave (not None) as a config overlay. Keys are `section.key` paths or, for
    list options that add to the file's lists, `+section.key`; see `load_job_config`."""
    paths = {
        "mode": "replace.mode", "mask_char": "replace.char", "mask_length": "replace.fixed_length",
        "scope": "surrogate.scope", "date_shift": "surrogate.date_shift",
        "max_shift_days": "surrogate.max_shift_days", "day_first": "surrogate.day_first",
        "length_preserving": "surrogate.length_preserving", "age_mode": "surrogate.age_mode",
        "typos": "surrogate.typo_rate", "locale": "surrogate.locale", "keep_state": "surrogate.keep_state",
        "date_shifts": "surrogate.date_shifts",
        "input_format": "io.format", "output_format": "io.output_format", "id_col": "io.id_col",
        "text_col": "io.text_col", "patient_col": "io.patient_col", "on_error": "io.on_error",
        "progress": "io.progress", "progress_interval": "io.progress_interval", "log_format": "io.log_format",
        "audit": "io.audit", "vault": "io.vault", "key_file": "io.key_file",
        "pseudonymize_ids": "io.pseudonymize_ids", "patients": "io.patients",
        "replacements": "surrogate.replacements",
        "report": "io.report", "write_report": "io.write_report",
        "limit": "io.limit", "sample": "io.sample", "seed": "io.seed",
        "batch_size": "pipeline.batch_size", "lang": "pipeline.language",
        "age_threshold": "detectors.rules.age_threshold",
        "model": "detectors.transformer.model", "threshold": "detectors.transformer.threshold",
        "keep_column": "+io.keep_columns", "hospital_list": "+detectors.lexicon.hospital_lists",
        "vendor_list": "+detectors.lexicon.vendor_lists", "deny_list": "+detectors.lexicon.deny_lists",
        "allow_list": "+resolver.allow_lists",
    }  # fmt: skip
    overlay: dict[str, Any] = {}
    for name, value in options.items():
        if value is None or (isinstance(value, list) and not value):
            continue
        if isinstance(value, Enum):
            value = value.value
        elif isinstance(value, Path):
            value = str(value)
        elif isinstance(value, list):
            value = [str(v) for v in value]
        overlay[paths[name]] = value
    return overlay


def load_job_config(config_path: Path | None, overlay: Mapping[str, Any], *, no_model: bool = False) -> Config:
    """The bundled defaults, the user's file, then the options: list options (`+section.key`)
    add to the file's lists; `--model` adds the transformer detector; `--no-model` removes it."""
    if no_model and "detectors.transformer.model" in overlay:
        raise ConfigError("--model and --no-model contradict each other; pass one of them")
    base = Config.load(config_path)
    nested: dict[str, Any] = {}
    for path, value in overlay.items():
        extend = path.startswith("+")
        *sections, key = path.lstrip("+").split(".")
        if extend:
            current = _section_of(base, sections)
            value = list(dict.fromkeys([*getattr(current, key), *value]))  # extend, without repeats
        table = nested
        for section in sections:
            table = table.setdefault(section, {})
        table[key] = value
    detectors = list(base.pipeline.detectors)
    # with an ensemble that has the model as a member, --model only names the model, --no-model
    # takes the member out (the model is never also run on its own)
    members = list(base.ensemble.members) if "ensemble" in detectors else []
    if "detectors.transformer.model" in overlay and "transformer" not in detectors + members:
        detectors.append("transformer")
    if no_model:
        detectors = [d for d in detectors if d != "transformer"]
        if "transformer" in members:
            nested.setdefault("detectors", {}).setdefault("ensemble", {})["members"] = [
                m for m in members if m != "transformer"
            ]
    if detectors != list(base.pipeline.detectors):
        nested.setdefault("pipeline", {})["detectors"] = detectors
    return Config.load(config_path, nested)


def _section_of(config: Config, sections: list[str]) -> Any:
    if sections[0] == "detectors":
        return config.detectors[sections[1]]
    return getattr(config, sections[0])


def pop_run_flags(shared: dict[str, Any]) -> tuple[Path | None, bool, bool, bool, bool]:
    """Take the shared options that are not config keys out of `shared`: --config, --no-model,
    --quiet, --overwrite, and whether --progress was given (it overrides --quiet)."""
    given = shared.get("progress") is not None
    return shared.pop("config"), shared.pop("no_model"), shared.pop("quiet"), shared.pop("overwrite"), given


def progress_settings(config: Config, *, quiet: bool = False, given: bool = False) -> ProgressSettings:
    """How a job shows its progress: the config's `[io]` keys; `--quiet` turns it off unless
    `--progress` was `given` on the command line too."""
    io = config.io
    if quiet and not given:
        return QUIET
    return ProgressSettings(mode=io.progress, interval=io.progress_interval, log_format=io.log_format)


def read_options(config: Config) -> ReadOptions:
    """The reader options of a job's `[io]` section."""
    io = config.io
    return ReadOptions(
        id_col=io.id_col,
        text_col=io.text_col,
        patient_col=io.patient_col or None,
        keep_columns=io.keep_columns,
        patients=read_patient_map(io.patients) if io.patients else {},
        patient_pattern=io.patient_pattern,
        limit=io.limit,
        sample=io.sample,
        seed=io.seed,
        hl7_fields=io.hl7_fields,
    )


def input_format(name: str) -> InputFormat | None:
    """The format a config names, or None to guess it from the path."""
    return InputFormat(name) if name else None
