"""The sections of a configuration, one frozen dataclass each, with their defaults.

The defaults here are the fallback for a section a file leaves out; the shipped defaults are
`radeid/data/config.toml`, which `radeid default-config` prints and which sets every key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from radeid.core.categories import Category

__all__ = [
    "ENSEMBLE_STRATEGIES",
    "EnsembleConfig",
    "GATE_SCOPES",
    "IOConfig",
    "KEEP_MODE",
    "LexiconConfig",
    "MaskConfig",
    "PipelineConfig",
    "ProtectedConfig",
    "ReplaceConfig",
    "ResolverConfig",
    "RulesConfig",
    "SurrogateOptions",
    "TransformerConfig",
]

TRANSFORMER_BACKENDS = ("auto", "onnx", "torch")
LABEL_SCHEMES = ("auto", "bio", "io")
#: `window`: the model skips whole windows with no signal; `sentence`: the model sees only the
#: sentences that hold a signal, each with `gate_context` word pieces of context on both sides.
GATE_SCOPES = ("window", "sentence")
ON_ERROR = ("fail", "skip")
#: `vote:K` (K a positive number) and `vote:all` are also accepted (`EnsembleConfig.vote_count`).
ENSEMBLE_STRATEGIES = ("vote:K", "vote:all", "weighted", "learned")


@dataclass(frozen=True)
class PipelineConfig:
    detectors: tuple[str, ...] = ("rules", "lexicon")
    batch_size: int = 64
    normalize_unicode: bool = True
    language: str = "en"
    languages: tuple[str, ...] = ()
    fallback_language: str = "en"
    language_confidence: float = 0.75


@dataclass(frozen=True)
class RulesConfig:
    extra_files: tuple[str, ...] = ()
    disabled: tuple[str, ...] = ()
    age_threshold: int = 89


@dataclass(frozen=True)
class LexiconConfig:
    include_bundled: bool = True
    hospital_lists: tuple[str, ...] = ()
    vendor_lists: tuple[str, ...] = ()
    deny_lists: tuple[str, ...] = ()


@dataclass(frozen=True)
class ResolverConfig:
    use_bundled_allow_list: bool = True
    allow_lists: tuple[str, ...] = ()
    min_score: float = 0.0
    extend_to_word_boundaries: bool = True
    split_fields: bool = True
    protected: bool = True
    propagate: bool = True
    strong_sources: tuple[str, ...] = ()
    form_check_sources: tuple[str, ...] = ()
    common_word_check: bool = True
    trim_lower_case_edges: bool = True
    merge_categories: tuple[Category, ...] = ()
    source_priority: Mapping[str, int] = field(default_factory=dict)
    category_priority: Mapping[Category, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ProtectedConfig:
    """Text that is never PHI (`radeid/data/protected/*.toml`, the language pack's
    `radeid/data/lang/<code>/protected/*.toml`, then the user's own files)."""

    include_bundled: bool = True
    extra_files: tuple[str, ...] = ()
    disabled_classes: tuple[str, ...] = ()
    disabled: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReplaceConfig:
    """How PHI is replaced: `mode` is a registered replacement mode (`radeid.replace.base.REPLACERS`:
    surrogate, mask, tag, numbered, fixed); `char` and `fixed_length` serve the mask modes."""

    mode: str = "surrogate"
    char: str = "*"
    fixed_length: int = 8
    categories: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.categories, Mapping):
            raise ValueError("categories must be a table {CATEGORY = mode}")
        modes: dict[str, str] = {}
        for key, value in self.categories.items():
            if not isinstance(value, str) or not value:
                raise ValueError(f"categories.{key} must be a mode name (surrogate, tag, numbered, mask, fixed, keep)")
            modes[Category.parse(key).value] = value
        object.__setattr__(self, "categories", modes)

    def mode_of(self, category: Category) -> str:
        """The mode that replaces `category`: its own in `categories`, else `mode`."""
        return self.categories.get(category.value, self.mode)

    def modes(self) -> frozenset[str]:
        """Every mode a run uses ("keep" included): the default and the per-category ones."""
        return frozenset({self.mode, *self.categories.values()})


#: `[replace.categories]` may also name this mode: the span's text is left as it is (and audited as kept).
KEEP_MODE = "keep"
#: Categories whose surrogates always follow the patient (`[surrogate.scope]` refuses them).
PATIENT_ONLY = frozenset({Category.DATE, Category.AGE})
SCOPES = ("patient", "corpus")
PATIENT_FROM = ("", "mrn")

#: The mask modes' options are the replace section (kept under the name `MaskReplacer` takes).
MaskConfig = ReplaceConfig


@dataclass(frozen=True)
class IOConfig:
    """Columns, formats and side files of a run. Empty strings mean "the default": formats from
    the suffix, the patient id from a `patient_id` field when there is one, the audit beside
    the output, no vault, the key from $RADEID_KEY (else generated beside the output)."""

    format: str = ""
    output_format: str = ""
    id_col: str = "id"
    text_col: str = "text"
    patient_col: str = ""
    keep_columns: tuple[str, ...] = ()
    on_error: str = "fail"
    # progress: auto (a bar on a terminal, else log lines), bar, log or none; log lines every
    # progress_interval seconds, as text or json (one object per line, for schedulers)
    progress: Literal["auto", "bar", "log", "none"] = "auto"
    progress_interval: float = 30.0
    log_format: Literal["text", "json"] = "text"
    audit: str = ""
    vault: str = ""
    key_file: str = ""
    pseudonymize_ids: bool = False
    patients: str = ""
    patient_pattern: str = ""
    patient_from: str = ""

    #: The run report ("" = OUTPUT.report.json beside the output; `write_report` false: none).
    report: str = ""
    write_report: bool = True
    #: A trial run: the first `limit` documents, or a random `sample` of that many drawn with
    #: `seed` (`radeid.io.select`); 0 = every document.
    limit: int = 0
    sample: int = 0
    seed: int = 0
    #: An HL7 v2 field map (TOML) over the bundled one: Z-segments and other fields that hold PHI.
    hl7_fields: str = ""

    def __post_init__(self) -> None:
        if self.patient_pattern:
            try:
                pattern = re.compile(self.patient_pattern)
            except re.error as exc:
                raise ValueError(f"patient_pattern is not a valid regular expression: {exc}") from None
            if "patient" not in pattern.groupindex:
                raise ValueError(
                    "patient_pattern needs a named group `patient`, e.g. '^(?P<patient>[^_]+)_' "
                    "(the patient id is what that group matches in the file's relative path)"
                )
        if self.patient_from not in PATIENT_FROM:
            raise ValueError(f"patient_from must be '' or 'mrn', not {self.patient_from!r}")


@dataclass(frozen=True)
class TransformerConfig:
    """The `transformer` detector; `model` empty means none is configured."""

    model: str = ""
    backend: str = "auto"
    device: str = "cpu"
    label_map: str = ""
    scheme: str = "auto"
    threshold: float = 0.5
    batch_size: int = 16
    max_length: int = 0
    stride: int = 48
    threads: int = 0
    check_forms: bool = True
    gate: bool = True
    gate_scope: str = "sentence"
    gate_context: int = 16


@dataclass(frozen=True)
class SurrogateOptions:
    """How surrogates are made. The defaults are what `radeid deid` uses.

    scope: "patient" keys every surrogate by the document's patient (else its id); "corpus"
        keys names, IDs and places by one corpus-wide scope, so equal originals get equal
        fakes across patients (dates and ages still shift per patient). A table
        (`[surrogate.scope]`, `{"*" = default, CATEGORY = "patient" | "corpus"}`) sets it per
        category; DATE and AGE cannot be listed: they always shift per patient.
    date_shift: "patient" (a keyed offset per patient), "none", or "fixed:N" days.
    max_shift_days: the patient offset is drawn from [-max, max] without 0.
    length_preserving: each surrogate as long as the original: names pick same-length fakes,
        facilities, places and vendors are drawn again until one fits (else whole words are
        dropped, else a plausible ending is added); dates and ids are padded with spaces or trimmed.
    typo_rate: probability of one typo in a name/place surrogate (training augmentation).
    locale: Faker locale for names and places.
    age_mode: "keep_over" keeps an age over 89 over 89; "aggregate" writes "90+".
    day_first: read ambiguous numeric dates day first (03/04/2020 = 3 April).
    keep_state: keep US state names and draw ZIP codes inside the state.
    replacements: a TSV file `category<TAB>original<TAB>surrogate` (category `*`: any); an
        original found there (case and spacing aside) gets exactly that surrogate.
    keep_years: a year written alone ("in 2019") stays as it is (Safe Harbor allows years);
        full dates still shift.
    date_format: a strftime format ("%Y-%m-%d") every shifted full date is written in; empty
        keeps each date's own written form.
    date_shifts: a CSV file (`patient_id,shift_days`) of fixed shifts per patient; patients not
        in it get the keyed shift.
    """

    scope: Literal["patient", "corpus"] | Mapping[str, Literal["patient", "corpus"]] = "patient"
    date_shift: str = "patient"
    max_shift_days: int = 365
    length_preserving: bool = False
    typo_rate: float = 0.0
    locale: str = "en_US"
    age_mode: Literal["keep_over", "aggregate"] = "keep_over"
    day_first: bool = False
    keep_state: bool = False
    replacements: str = ""
    keep_years: bool = False
    date_format: str = ""
    date_shifts: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.scope, Mapping):
            object.__setattr__(self, "scope", _category_scopes(self.scope))
        elif self.scope not in SCOPES:
            raise ValueError(f"scope must be 'patient' or 'corpus', not {self.scope!r}")
        self.fixed_shift()  # validates date_shift
        if self.max_shift_days < 1:
            raise ValueError("max_shift_days must be at least 1")
        if not 0.0 <= self.typo_rate <= 1.0:
            raise ValueError("typo_rate must be within [0, 1]")
        if self.age_mode not in ("keep_over", "aggregate"):
            raise ValueError(f"age_mode must be 'keep_over' or 'aggregate', not {self.age_mode!r}")
        if self.date_format:
            _check_date_format(self.date_format)

    def scope_of(self, category: Category) -> str:
        """ "patient" or "corpus": the scope of `category`'s surrogates (dates and ages: always
        "patient")."""
        if category in PATIENT_ONLY:
            return "patient"
        if isinstance(self.scope, str):
            return self.scope
        return self.scope.get(category.value, self.scope.get("*", "patient"))

    def fixed_shift(self) -> int | None:
        """The fixed offset for "fixed:N" and 0 for "none"; None means a keyed patient shift."""
        mode = self.date_shift.strip().lower()
        if mode == "patient":
            return None
        if mode == "none":
            return 0
        if mode.startswith("fixed:"):
            try:
                return int(mode.split(":", 1)[1])
            except ValueError:
                pass
        raise ValueError(f"date_shift must be 'none', 'patient' or 'fixed:N', not {self.date_shift!r}")


def _category_scopes(table: Mapping[str, str]) -> str | dict[str, str]:
    """`[surrogate.scope]` checked: category names (or "*") to "patient" / "corpus". A table
    that only sets "*" is that plain scope."""
    scopes: dict[str, str] = {}
    for key, value in table.items():
        if value not in SCOPES:
            raise ValueError(f"scope.{key} must be 'patient' or 'corpus', not {value!r}")
        if key == "*":
            scopes["*"] = value
            continue
        category = Category.parse(key)
        if category in PATIENT_ONLY:
            raise ValueError(
                f"scope.{key}: dates and ages always shift per patient (one shift keeps every interval); "
                "leave DATE and AGE out of [surrogate.scope]"
            )
        scopes[category.value] = value
    if set(scopes) <= {"*"}:
        return scopes.get("*", "patient")
    return scopes


def _check_date_format(fmt: str) -> None:
    """A date format must write the year, the month and the day, or two shifted dates could read
    alike; strftime itself accepts almost anything, so the directives are checked here."""
    directives = set(re.findall(r"%-?([A-Za-z%])", fmt))
    missing = [
        what
        for what, codes in (("a year (%Y or %y)", "Yy"), ("a month (%m, %b or %B)", "mbB"), ("a day (%d or %e)", "de"))
        if not directives & set(codes)
    ]
    if missing:
        raise ValueError(f"date_format {fmt!r} must contain {', '.join(missing)}")
    try:
        date(2019, 3, 5).strftime(fmt)
    except ValueError as exc:
        raise ValueError(f"date_format {fmt!r} is not a valid strftime format: {exc}") from None


@dataclass(frozen=True)
class EnsembleConfig:
    """The `ensemble` detector (`radeid.detect.ensemble`): members voted or combined per token.

    members: registered detector names, each built from its own `[detectors.<name>]` section.
    strategy: "vote:K" (at least K members), "vote:all", "weighted" (sum of the voting members'
        weights reaches `threshold`), or "learned" (the combiner file, `radeid ensemble fit`).
    weights: `{member: {CATEGORY or "*": weight}}` for "weighted"; a missing weight is 1.0.
    """

    members: tuple[str, ...] = ("rules", "lexicon", "transformer")
    strategy: str = "vote:1"
    weights: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    threshold: float = 1.0
    combiner: str = ""

    def __post_init__(self) -> None:
        if not self.members:
            raise ValueError("members must name at least one detector")
        if len(set(self.members)) != len(self.members):
            raise ValueError(f"members lists a detector twice: {list(self.members)}")
        if "ensemble" in self.members:
            raise ValueError("an ensemble cannot be a member of itself")
        self.vote_count()  # validates the strategy
        if self.strategy == "learned" and not self.combiner:
            raise ValueError('strategy "learned" needs combiner = "path/to/combiner.json" (radeid ensemble fit)')
        if not isinstance(self.weights, Mapping):
            raise ValueError("weights must be a table {member = {CATEGORY = weight}}")
        weights: dict[str, dict[str, float]] = {}
        for member, table in self.weights.items():
            if member not in self.members:
                raise ValueError(f"weights names {member!r}, which is not a member ({', '.join(self.members)})")
            if not isinstance(table, Mapping):
                raise ValueError(f"weights.{member} must be a table {{CATEGORY = weight}}")
            weights[member] = {}
            for key, value in table.items():
                name = "*" if key == "*" else Category.parse(key).value
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise ValueError(f"weights.{member}.{key} must be a number")
                weights[member][name] = float(value)
        object.__setattr__(self, "weights", weights)
        if isinstance(self.threshold, bool) or not isinstance(self.threshold, int | float) or self.threshold <= 0:
            raise ValueError("threshold must be a positive number")

    def vote_count(self) -> int | None:
        """K of "vote:K" ("vote:all": the number of members); None for the other strategies."""
        strategy = self.strategy.strip().lower()
        if strategy in ("weighted", "learned"):
            return None
        if strategy.startswith("vote:"):
            k = strategy.split(":", 1)[1]
            if k == "all":
                return len(self.members)
            if k.isdigit() and 1 <= int(k) <= len(self.members):
                return int(k)
            if k.isdigit():
                raise ValueError(
                    f"{self.strategy}: K must be between 1 and the number of members ({len(self.members)})"
                )
        raise ValueError(f"strategy must be vote:K, vote:all, weighted or learned, not {self.strategy!r}")

    def weight(self, member: str, category: Category) -> float:
        table = self.weights.get(member, {})
        return table.get(category.value, table.get("*", 1.0))
