"""Integrity of the default pipeline in surrogate mode: does it change anything but PHI? (issue 10)

In surrogate mode a false positive is an invisible edit of research data, and a span with bad edges
damages the text around the PHI. This script runs the pipeline exactly as `radeid deid` does in
surrogate mode (keyed surrogates, here with a fixed test key, so runs are repeatable) and reports:

(a) changed tokens per 100 reports on PHI-free real prose (evaluation tokens of the original that the
    output altered, `radeid.evaluate.integrity.changed_tokens`): Open-i (`XXXX` placeholders ignored), for
    all reports and for the held-out half (ids with `int(sha1(id), 16) % 2 == 1`; the other half may be used
    for training, so the held-out half is the honest figure), and mtsamples, with the distinct span texts
    found there counted by category (`--show` prints them, so a human can tell genuine names from false
    positives; these are published sample texts, not patient data);
(b) on the hand-written trap lines (`tests/data/integrity_traps.jsonl`): PHI-free lines with any span, per
    class and per detector (`span.source`), numeric tokens outside gold PHI that the output altered, and on
    `phi_adjacent` lines the gold spans found (exact offsets / covered / overlapped) and token recall;
(c) predicted spans that break the edge rule (`radeid.evaluate.integrity.edge_violations`), per data set,
    with the gold's own count beside them;
(d) binary token precision and recall, as `benchmarks/accuracy.py` computes them, on `presidio_synth`,
    `meddocan` (Spanish, with the Spanish language pack; its held-out fifth unless `--all-docs`),
    `tests/data/recall_regression.jsonl`
    (when it exists), a held-out synthetic set (`--synth`), the 12 bundled examples (`examples/*.txt`
    + BRAT `.ann`) and the German reports written by hand (`de_reports`, with the German pack);
(e) the veto audit (issue 25): a check that looks free on the data it was tuned on can cost recall
    elsewhere, so for every set and every check that removes text (`radeid.resolve.trace.Decision.check`:
    `form:common_word`, `protected:<class>` (`--by-pattern`: per pattern), `edges`, `allow_list`,
    `credential`, `score`, ...) the gold and non-gold evaluation tokens (accuracy.py's) it removed: those
    its decisions' removed characters (`radeid.resolve.trace.removed_ranges`) overlap and no final span covers;
    tokens another span covers in the end are counted apart as "won back". The transformer's own vetoes
    run before the resolver and leave no decision: rows `gate` and `transformer.check_forms` count the
    tokens that the final spans of a run with that option off cover and the default run's do not (the
    gate-off run is a second model run; check_forms is a filter on the model's spans, so the default
    run is the check_forms-off run filtered, checked against the default detector on the first batch).
    A gold age of 89 or less (MEDDOCAN labels every age) is no PHI under radeid's policy (ages over
    89 only, as `[detectors.rules] age_threshold`): its tokens count as neither gold nor non-gold here.
    Open-i and mtsamples have no gold: non-gold only. `COSTS RECALL` marks a check that removed more
    gold than non-gold tokens on a set; `--strict` then exits 1.

No document text is printed except with `--show`. Command lines:

    python benchmarks/integrity.py                           # default pipeline (rules + lexicons + model)
    python benchmarks/integrity.py --no-model                # rules + lexicons only
    python benchmarks/integrity.py --limit 40                # quick: 40 documents of each set (traps, examples whole)
    python benchmarks/integrity.py --all-docs                # meddocan whole (default: its held-out fifth)
    python benchmarks/integrity.py --english-only            # meddocan through the English pipeline too
    python benchmarks/integrity.py --sets presidio_synth examples traps --by-pattern   # some sets; (e) per pattern
    python benchmarks/integrity.py --strict                  # exit 1 when a check costs recall on a set
    python benchmarks/integrity.py --no-audit                # (a)-(d) only: no traces, no gate-off model run
    radeid synth -n 300 --seed 2 --start 500000 -o held_out_synth.jsonl
    python benchmarks/integrity.py --synth held_out_synth.jsonl --json integrity.json
    python benchmarks/integrity.py --config my.toml --data-dir ../shared/data --show
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import re
import sys
import time
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from accuracy import DEFAULT_DATA, IGNORED_GOLD, read_jsonl, score_labelled_spans, score_phi_free_spans

from radeid.config.config import Config
from radeid.core.document import Document, Result, Span
from radeid.core.tokens import covered_tokens, word_tokens
from radeid.detect.base import Detector, build_detector
from radeid.evaluate.integrity import changed_token_offsets, edge_violations
from radeid.evaluate.splits import meddocan_split
from radeid.io.gold import parse_brat_ann
from radeid.pipeline.deidentifier import Deidentifier
from radeid.pipeline.spec import PipelineSpec
from radeid.resolve.trace import STEPS, Decision, removed_ranges

REPO = Path(__file__).resolve().parents[1]
TRAPS = REPO / "tests" / "data" / "integrity_traps.jsonl"
RECALL_REGRESSION = REPO / "tests" / "data" / "recall_regression.jsonl"
#: The German reports written by hand (tests/data/make_de_reports.py), all three sets.
GERMAN_REPORTS = tuple(
    REPO / "tests" / "data" / name for name in ("de_reports.jsonl", "de_reports_2.jsonl", "de_reports_heldout.jsonl")
)
EXAMPLES = REPO / "examples"
#: A fixed key, so that the surrogates (and so the changed tokens) are the same on every run.
TEST_KEY = b"radeid-integrity-benchmark-fixed-test-key"
PLACEHOLDERS = frozenset({"XXXX"})
_DIGIT = re.compile(r"\d")


@dataclasses.dataclass
class Run:
    """One data set through the pipeline: its records, resolved spans and surrogate results.

    With the audit on, also the resolver's decisions per document and, per detector-internal veto
    (`gate`, `transformer.check_forms`), the final spans of each document with that option off.
    """

    records: list[dict]
    spans: list[list[Span]]
    results: list[Result]
    seconds: float
    decisions: list[list[Decision]] = dataclasses.field(default_factory=list)
    off_spans: dict[str, list[list[Span]]] = dataclasses.field(default_factory=dict)
    off_seconds: float = 0.0


def build(config_path: Path | None, no_model: bool, language: str | None = None) -> Deidentifier:
    """The surrogate-mode pipeline `radeid deid` builds (same `PipelineSpec`), with the fixed test key;
    `language` picks a language pack as `--lang` does."""
    config = Config.load(config_path, {"pipeline": {"language": language}} if language else None)
    if no_model:
        detectors = tuple(d for d in config.pipeline.detectors if d != "transformer")
        config = dataclasses.replace(config, pipeline=dataclasses.replace(config.pipeline, detectors=detectors))
    return PipelineSpec.surrogates(TEST_KEY, config).build()


@dataclasses.dataclass
class OffRuns:
    """The transformer rebuilt with each of its own vetoes off: they run before the resolver and leave
    no `Decision`, so the audit measures them by what the pipeline finds without them.

    `unchecked` (check_forms off, gate as configured) replaces the default model run: its spans that
    pass `plausible` are exactly what the default detector returns (checked on the first batch), so
    `transformer.check_forms` costs no model run of its own; `ungated` (gate off) is the second run.
    """

    index: int  # the transformer's place in `deid.detectors`
    unchecked: Detector | None
    ungated: Detector | None
    verified: bool = False


def build_off_runs(deid: Deidentifier) -> OffRuns | None:
    """The transformer with `check_forms` off and with `gate` off (config via `dataclasses.replace`)."""
    config = deid.config
    if "transformer" not in config.pipeline.detectors:
        return None
    index = list(config.pipeline.detectors).index("transformer")
    section = config.transformer
    unchecked = ungated = None
    if section.check_forms:
        unchecked = build_detector("transformer", config.with_section("detectors.transformer", check_forms=False))
    if section.gate:
        ungated = build_detector("transformer", config.with_section("detectors.transformer", gate=False))
    if unchecked is None and ungated is None:
        return None
    return OffRuns(index, unchecked, ungated)


def run(deid: Deidentifier, records: list[dict], off: OffRuns | None = None, audit: bool = False) -> Run:
    """Detect once and replace those very spans, so spans and output belong together.

    Detectors and resolver are called one by one (as `Deidentifier.detect` does) so that the
    resolver's decisions can be recorded (`audit`) and the transformer's proposals swapped for
    those of `off` (same proposals of the other detectors, same resolver).
    """
    docs = [Document(str(r["id"]), r["text"], r.get("patient_id")) for r in records]
    out = Run(records, [], [], 0.0)
    start = time.perf_counter()
    size = deid.config.pipeline.batch_size
    for i in range(0, len(docs), size):
        batch = docs[i : i + size]
        by_detector: list[list[list[Span]]] = []
        variants: dict[str, list[list[Span]]] = {}
        for n, detector in enumerate(deid.detectors):
            if off is not None and n == off.index:
                found, extra = _transformer_proposals(detector, batch, off, variants)
                out.off_seconds += extra
            else:
                found = detector.detect(batch)
            by_detector.append(found)
        for d, doc in enumerate(batch):
            proposals = [s for found in by_detector for s in found[d]]
            decisions: list[Decision] | None = [] if audit else None
            spans = deid.resolver.resolve(doc.text, proposals, decisions)
            out.spans.append(spans)
            out.results.append(deid.replacer.replace(doc, spans))
            if decisions is not None:
                out.decisions.append(decisions)
            resolved_at = time.perf_counter()
            for option, model_spans in variants.items():
                assert off is not None
                swapped = [
                    s for n, found in enumerate(by_detector) for s in (model_spans[d] if n == off.index else found[d])
                ]
                out.off_spans.setdefault(option, []).append(deid.resolver.resolve(doc.text, swapped))
            out.off_seconds += time.perf_counter() - resolved_at
    out.seconds = time.perf_counter() - start - out.off_seconds
    return out


def _transformer_proposals(
    detector: Detector, batch: list[Document], off: OffRuns, variants: dict[str, list[list[Span]]]
) -> tuple[list[list[Span]], float]:
    """The default transformer's proposals (from the check_forms-off run when there is one), the off-runs'
    proposals put in `variants`, and the seconds spent beyond the default run (kept out of docs/s)."""
    extra = 0.0
    if off.ungated is not None:
        start = time.perf_counter()
        variants["gate"] = off.ungated.detect(batch)
        extra += time.perf_counter() - start
    if off.unchecked is None:
        return detector.detect(batch), extra
    from radeid.detect.transformer import plausible

    raw = off.unchecked.detect(batch)
    found = [[s for s in spans if plausible(doc.text, s)] for doc, spans in zip(batch, raw, strict=True)]
    variants["transformer.check_forms"] = raw
    if not off.verified:  # the shortcut must give the default detector's spans, or the audit is wrong
        start = time.perf_counter()
        if detector.detect(batch) != found:
            raise SystemExit("veto audit: the check_forms-off run filtered by `plausible` is not the default run")
        off.verified = True
        extra += time.perf_counter() - start
    return found, extra


def held_out(record_id: str) -> bool:
    """The held-out half of Open-i: never used for training by agreement."""
    return int(hashlib.sha1(record_id.encode()).hexdigest(), 16) % 2 == 1


def subset(r: Run, keep: Sequence[bool]) -> Run:
    pick = [i for i, k in enumerate(keep) if k]
    return Run(
        [r.records[i] for i in pick],
        [r.spans[i] for i in pick],
        [r.results[i] for i in pick],
        r.seconds,
        [r.decisions[i] for i in pick] if r.decisions else [],
        {option: [spans[i] for i in pick] for option, spans in r.off_spans.items()},
        r.off_seconds,
    )


# -- (a) changed tokens on PHI-free prose ---------------------------------------------------------


def changes(r: Run, ignore: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Changed tokens per 100 reports, by category of the replacement, and reports with any change."""
    total = 0
    by_category: Counter[str] = Counter()
    docs_changed = 0
    for record, result in zip(r.records, r.results, strict=True):
        changed = changed_token_offsets(record["text"], result, ignore)
        total += len(changed)
        docs_changed += bool(changed)
        for rep in result.replacements:
            by_category[rep.span.category.value] += sum(
                1 for a, b in changed if a < rep.span.end and b > rep.span.start
            )
    return {
        "docs": len(r.records),
        "changed_tokens": total,
        "changed_tokens_per_100_reports": 100 * total / max(1, len(r.records)),
        "docs_with_a_change": docs_changed,
        "changed_tokens_by_category": {c: n for c, n in by_category.most_common() if n},
    }


def distinct_spans(r: Run) -> Counter[tuple[str, str]]:
    """(category, span text) -> occurrences: what a human checks for genuine names or dates."""
    found: Counter[tuple[str, str]] = Counter()
    for record, spans in zip(r.records, r.spans, strict=True):
        for span in spans:
            found[(span.category.value, " ".join(record["text"][span.start : span.end].split()))] += 1
    return found


# -- (b) the trap lines -----------------------------------------------------------------------------


def trap_figures(r: Run) -> dict[str, Any]:
    """PHI-free lines with spans per class and source, changed numbers outside gold, phi_adjacent recall."""
    per_class: dict[str, dict[str, int]] = {}
    sources: Counter[str] = Counter()
    offenders: list[dict[str, Any]] = []
    for record, spans, result in zip(r.records, r.spans, r.results, strict=True):
        row = per_class.setdefault(
            record["class"], {"lines": 0, "lines_with_a_span": 0, "spans": 0, "changed_numeric_tokens": 0}
        )
        row["lines"] += 1
        text = record["text"]
        gold = [(g["start"], g["end"]) for g in record["spans"]]
        for a, b in changed_token_offsets(text, result):
            in_gold = any(a < ge and b > gs for gs, ge in gold)
            row["changed_numeric_tokens"] += bool(_DIGIT.search(text[a:b])) and not in_gold
        if record["class"] == "phi_adjacent":
            continue
        row["spans"] += len(spans)
        row["lines_with_a_span"] += bool(spans)
        for span in spans:
            sources[span.source or "?"] += 1
            offenders.append(
                {
                    "id": record["id"],
                    "text": text[span.start : span.end],
                    "category": span.category.value,
                    "source": span.source,
                }
            )
    adjacent = subset(r, [rec["class"] == "phi_adjacent" for rec in r.records])
    phi_free_lines = [rec for rec in r.records if rec["class"] != "phi_adjacent"]
    return {
        "phi_free_lines": len(phi_free_lines),
        "phi_free_lines_with_a_span": sum(v["lines_with_a_span"] for c, v in per_class.items() if c != "phi_adjacent"),
        "changed_numeric_tokens": sum(v["changed_numeric_tokens"] for v in per_class.values()),
        "per_class": per_class,
        "phi_free_spans_by_source": dict(sources.most_common()),
        "phi_adjacent": gold_found(adjacent) | {"token": score_labelled_spans(adjacent.records, adjacent.spans, None)},
        "_offenders": offenders,
    }


def gold_found(r: Run) -> dict[str, Any]:
    """Gold spans found with exact offsets, covered in full by one span, only overlapped, or missed."""
    counts = Counter({"exact": 0, "covered": 0, "overlapped": 0, "missed": 0})
    for record, spans in zip(r.records, r.spans, strict=True):
        for g in record["spans"]:
            if any(s.start == g["start"] and s.end == g["end"] for s in spans):
                counts["exact"] += 1
            elif any(s.start <= g["start"] and s.end >= g["end"] for s in spans):
                counts["covered"] += 1
            elif any(s.start < g["end"] and s.end > g["start"] for s in spans):
                counts["overlapped"] += 1
            else:
                counts["missed"] += 1
    total = sum(counts.values())
    found = (counts["exact"] + counts["covered"]) / max(1, total)
    return {"gold_spans": total, **counts, "found_exact_or_covered": found}


# -- (c) edges ---------------------------------------------------------------------------------------


def edges(r: Run) -> dict[str, Any]:
    """Predicted spans breaking the edge rule, by reason; and the gold's own count for reference."""
    reasons: Counter[str] = Counter()
    bad = predicted = gold_bad = gold_total = 0
    for record, spans in zip(r.records, r.spans, strict=True):
        predicted += len(spans)
        found = edge_violations(record["text"], spans)
        bad += len({id(s) for s, _ in found})
        reasons.update(reason for _, reason in found)
        gold_spans = [g for g in record.get("spans", []) if g.get("category") != "OTHER"]
        gold_total += len(gold_spans)
        gold_bad += len({id(g) for g, _ in edge_violations(record["text"], gold_spans)})
    return {
        "predicted_spans": predicted,
        "spans_breaking_the_rule": bad,
        "by_reason": dict(reasons.most_common()),
        "gold_spans": gold_total,
        "gold_spans_breaking_the_rule": gold_bad,
    }


# -- (e) veto audit ---------------------------------------------------------------------------------

#: Sets without gold: every token they lose is a non-gold token, and no check there "costs recall".
PHI_FREE_SETS = frozenset({"openi_iu", "mtsamples"})
#: Rows for the transformer's own vetoes, measured by a run with the option off.
OPTION_ROWS = {"gate": "gate", "transformer.check_forms": "transformer.check_forms"}
COUNT_KEYS = ("gold_removed", "non_gold_removed", "gold_won_back", "non_gold_won_back")


#: radeid's policy: an age is PHI only above this (HIPAA Safe Harbor; `[detectors.rules] age_threshold`).
AGE_POLICY = 89


def outside_policy(record: dict, span: dict, age_threshold: int = AGE_POLICY) -> bool:
    """A gold span that is not PHI under radeid's policy: OTHER, or an age of `age_threshold` or less
    (MEDDOCAN labels every age; a check that drops "72 años" removes no PHI radeid looks for)."""
    if span["category"] in IGNORED_GOLD:
        return True
    if span["category"] != "AGE":
        return False
    numbers = [int(n) for n in _DIGIT_RUN.findall(record["text"][span["start"] : span["end"]])]
    return bool(numbers) and max(numbers) <= age_threshold


_DIGIT_RUN = re.compile(r"\d{1,3}")


def age_policy_record(record: dict) -> dict:
    """`record` with its gold spans outside radeid's policy (ages of 89 or less) scored as neither."""
    spans = [s | {"category": "OTHER"} if outside_policy(record, s) else s for s in record["spans"]]
    return record | {"spans": spans}


def evaluation_tokens(record: dict, age_policy: bool = False) -> tuple[list[tuple[int, int]], list[bool], list[bool]]:
    """Tokens, gold flags and skip flags, as `benchmarks/accuracy.py` counts them: a token under OTHER
    gold only, or under an Open-i `XXXX` placeholder, is neither gold nor non-gold. With `age_policy`
    (the veto audit), a token under an age radeid's policy does not count as PHI is neither too, and so
    is a token with no letter or digit (a period, a dash, a quote): the edge rule leaves punctuation
    outside every span on purpose (it survives in every mode), so a gold span that includes it would
    count as recall lost where nothing of the PHI stays visible."""
    tokens = word_tokens(record["text"])
    gold_spans = record.get("spans", [])
    ignore = (lambda g: outside_policy(record, g)) if age_policy else (lambda g: g["category"] in IGNORED_GOLD)
    gold = covered_tokens(tokens, [(g["start"], g["end"]) for g in gold_spans if not ignore(g)])
    ignored_ranges = [(g["start"], g["end"]) for g in gold_spans if ignore(g)]
    ignored_ranges += [(int(a), int(b)) for a, b in record.get("placeholders", [])]
    ignored = covered_tokens(tokens, ignored_ranges) if ignored_ranges else [False] * len(tokens)
    skip = [ig and not g for ig, g in zip(ignored, gold, strict=True)]
    if age_policy:
        text = record["text"]
        skip = [k or not any(ch.isalnum() for ch in text[a:b]) for k, (a, b) in zip(skip, tokens, strict=True)]
    return tokens, gold, skip


def check_name(decision: Decision, by_pattern: bool = False) -> str:
    """The audit row of a decision: `form:<check>`, `protected:<class>` (`<class>/<pattern>` with
    `by_pattern`), else the step alone: the allow list's reason is the document's own term, never a
    row name. A step the resolver adds later keeps its reason (`Decision.check`)."""
    if decision.step == "protected":
        if by_pattern or not decision.reason:
            return decision.check
        return "protected:" + "+".join(sorted({part.split("/", 1)[0] for part in decision.reason.split(",")}))
    if decision.step == "form" or decision.step not in STEPS:
        return decision.check
    return decision.step


def _overlapping(starts: Sequence[int], ends: Sequence[int], start: int, end: int) -> range:
    """Indices of the (sorted, disjoint) tokens that overlap `[start, end)`."""
    return range(bisect_right(ends, start), bisect_left(starts, end))


def veto_counts(
    tokens: Sequence[tuple[int, int]],
    gold: Sequence[bool],
    skip: Sequence[bool],
    final: Iterable[Span],
    decisions: Iterable[Decision],
    by_pattern: bool = False,
) -> dict[str, Counter[str]]:
    """Per check, the tokens its decisions took away (`removed_ranges`), split by gold and by whether a
    final span covers them in the end (`won_back`) or not (`removed`: what the check cost). A token
    taken by several decisions of one check counts once for it, and once for every other check."""
    starts = [a for a, _ in tokens]
    ends = [b for _, b in tokens]
    covered = covered_tokens(tokens, [(s.start, s.end) for s in final])
    taken: dict[str, set[int]] = {}
    for decision in decisions:
        ranges = removed_ranges(decision)
        if not ranges:
            continue
        hit = taken.setdefault(check_name(decision, by_pattern), set())
        for start, end in ranges:
            hit.update(i for i in _overlapping(starts, ends, start, end) if not skip[i])
    out: dict[str, Counter[str]] = {}
    for check, hit in taken.items():
        counts: Counter[str] = Counter({key: 0 for key in COUNT_KEYS})
        for i in hit:
            counts[("gold_" if gold[i] else "non_gold_") + ("won_back" if covered[i] else "removed")] += 1
        out[check] = counts
    return out


def option_counts(
    tokens: Sequence[tuple[int, int]],
    gold: Sequence[bool],
    skip: Sequence[bool],
    default: Iterable[Span],
    without: Iterable[Span],
) -> Counter[str]:
    """What a detector-internal veto cost: tokens the run `without` it covers and the default run does
    not (`removed`); and the other way round (`only_with_it`: what the option gained)."""
    on = covered_tokens(tokens, [(s.start, s.end) for s in default])
    off = covered_tokens(tokens, [(s.start, s.end) for s in without])
    counts: Counter[str] = Counter({key: 0 for key in ("gold_removed", "non_gold_removed")})
    counts.update({"gold_only_with_it": 0, "non_gold_only_with_it": 0})
    for is_on, is_off, is_gold, is_skipped in zip(on, off, gold, skip, strict=True):
        if is_skipped or is_on == is_off:
            continue
        kind = "gold_" if is_gold else "non_gold_"
        counts[kind + ("removed" if is_off else "only_with_it")] += 1
    return counts


def costs_recall(counts: Counter[str] | dict[str, int]) -> bool:
    """A check that took more gold than non-gold tokens from the final output."""
    return counts["gold_removed"] > counts["non_gold_removed"]


def veto_audit(runs: dict[str, Run], by_pattern: bool = False) -> dict[str, Any]:
    """Per set and per check, gold and non-gold tokens removed and won back; the (check, set) pairs that
    cost recall. Sets without gold count non-gold tokens only."""
    sets: dict[str, Any] = {}
    flagged: list[list[str]] = []
    for name, r in runs.items():
        if not r.decisions:
            continue
        labelled = name not in PHI_FREE_SETS
        totals: Counter[str] = Counter()
        checks: dict[str, Counter[str]] = {}
        for d, record in enumerate(r.records):
            tokens, gold, skip = evaluation_tokens(record, age_policy=True)
            totals["gold_tokens"] += sum(g and not k for g, k in zip(gold, skip, strict=True))
            totals["non_gold_tokens"] += sum(not g and not k for g, k in zip(gold, skip, strict=True))
            for check, counts in veto_counts(tokens, gold, skip, r.spans[d], r.decisions[d], by_pattern).items():
                checks.setdefault(check, Counter()).update(counts)
            for option, spans in r.off_spans.items():
                counts = option_counts(tokens, gold, skip, r.spans[d], spans[d])
                checks.setdefault(OPTION_ROWS.get(option, option), Counter()).update(counts)
        rows: dict[str, dict[str, Any]] = {}
        order = sorted(checks.items(), key=lambda kv: (-kv[1]["gold_removed"], -kv[1]["non_gold_removed"], kv[0]))
        for check, counts in order:
            row: dict[str, Any] = dict(counts)
            if check in OPTION_ROWS.values():
                row["gold_won_back"] = row["non_gold_won_back"] = None
            row["costs_recall"] = labelled and costs_recall(counts)
            if row["costs_recall"]:
                flagged.append([check, name])
            rows[check] = row
        sets[name] = {"docs": len(r.records), "labelled": labelled, **totals, "checks": rows}
    return {"by_pattern": by_pattern, "sets": sets, "costs_recall": flagged}


# -- data -------------------------------------------------------------------------------------------


def default_data_dir() -> Path:
    """`../shared/data` beside the repo; from a git worktree (`wt/NAME`), the same folder one level further up."""
    for base in (REPO.parent, *REPO.parent.parents):
        if (base / "shared" / "data").is_dir():
            return base / "shared" / "data"
    return DEFAULT_DATA


def read_examples(folder: Path) -> list[dict]:
    """The bundled examples as gold records (BRAT `.ann` read by radeid's own parser)."""
    records = []
    for txt in sorted(folder.glob("*.txt")):
        text = txt.read_text(encoding="utf-8")
        parsed = parse_brat_ann(txt.with_suffix(".ann").read_text(encoding="utf-8"), text)
        spans = [{"start": s.start, "end": s.end, "category": s.category.value} for s in parsed.spans]
        records.append({"id": f"examples/{txt.stem}", "text": text, "spans": spans})
    return records


#: Every set this script knows, in the order it runs them (`--sets` picks some).
SET_NAMES = (
    "openi_iu", "mtsamples", "presidio_synth", "meddocan", "traps", "recall_regression", "synth", "examples",
    "de_reports",
)  # fmt: skip


#: The language pack each non-English set runs with (as `radeid deid --lang`); `--english-only` runs
#: every set through the English pipeline instead.
SET_LANGUAGE = {"meddocan": "es", "de_reports": "de"}

#: Sets read in part unless `--all-docs`: the Spanish model was trained on four fifths of meddocan, so
#: only the held-out fifth (`radeid.evaluate.splits.meddocan_split`, 158 documents) is an honest test;
#: `--all-docs` reads all 750 (the trained-on ones too).
SAMPLED: dict[str, tuple[str, Callable[[dict], bool]]] = {
    "meddocan": ("the held-out fifth", lambda rec: meddocan_split(str(rec["id"])) == "heldout"),
}


def load_sets(
    data_dir: Path,
    synth: Path | None,
    limit: int | None,
    names: Sequence[str] = SET_NAMES,
    all_docs: bool = False,
) -> dict[str, list[dict]]:
    files: dict[str, Path | tuple[Path, ...]] = {
        "openi_iu": data_dir / "openi_iu_reports.dev.jsonl",
        "mtsamples": data_dir / "mtsamples_subset.jsonl",
        "presidio_synth": data_dir / "presidio_synth.dev.jsonl",
        "meddocan": data_dir / "meddocan.dev.jsonl",
        "traps": TRAPS,
        "recall_regression": RECALL_REGRESSION,
        "de_reports": GERMAN_REPORTS,
    }
    if synth is not None:
        files["synth"] = synth
    sets: dict[str, list[dict]] = {}
    for name, where in files.items():
        paths = where if isinstance(where, tuple) else (where,)
        if name not in names:
            continue
        if not all(path.exists() for path in paths):
            if name != "recall_regression":  # being written; used when it is there
                print(f"note: {paths[0]} not found; {name} skipped", file=sys.stderr)
            continue
        records = [rec for path in paths for rec in read_jsonl(path)]
        keep = SAMPLED.get(name, ("", lambda rec: True))[1]
        sets[name] = records if all_docs else [rec for rec in records if keep(rec)]
    if "examples" in names:
        sets["examples"] = read_examples(EXAMPLES)
    # the traps, the recall regression lines and the examples are small: always whole, so a quick run
    # still covers every class
    whole = ("traps", "recall_regression", "examples", "de_reports")
    return {n: recs[:limit] if limit and n not in whole else recs for n, recs in sets.items()}


# -- report -----------------------------------------------------------------------------------------


def evaluate(
    deid: Deidentifier,
    sets: dict[str, list[dict]],
    audit: bool = True,
    by_pattern: bool = False,
    packs: dict[str, Deidentifier] | None = None,
) -> tuple[dict[str, Any], dict[str, Run]]:
    """Every figure; a set named in `packs` runs with that pipeline (its language pack), the rest with `deid`."""
    packs = packs or {}
    off = build_off_runs(deid) if audit else None
    runs = {}
    for name, records in sets.items():
        own = packs.get(name)
        own_off = (build_off_runs(own) if audit else None) if own is not None else off
        runs[name] = run(own or deid, records, own_off, audit)
    out: dict[str, Any] = {"docs_per_s": {n: len(r.records) / max(r.seconds, 1e-9) for n, r in runs.items()}}
    if "openi_iu" in runs:
        openi = runs["openi_iu"]
        half = subset(openi, [held_out(str(rec["id"])) for rec in openi.records])
        out["openi_iu"] = {
            "all": changes(openi, PLACEHOLDERS) | {"fp_tokens_per_100_reports": _fp(openi)},
            "held_out_half": changes(half, PLACEHOLDERS) | {"fp_tokens_per_100_reports": _fp(half)},
        }
    if "mtsamples" in runs:
        found = distinct_spans(runs["mtsamples"])
        out["mtsamples"] = changes(runs["mtsamples"]) | {
            "spans": sum(found.values()),
            "distinct_span_texts": len(found),
            "distinct_span_texts_by_category": dict(Counter(c for c, _ in found).most_common()),
        }
    if "traps" in runs:
        out["traps"] = trap_figures(runs["traps"])
    out["edges"] = {name: edges(r) for name, r in runs.items()}
    out["token_scores"] = {
        name: score_labelled_spans(runs[name].records, runs[name].spans, runs[name].seconds)
        for name in ("presidio_synth", "meddocan", "recall_regression", "synth", "examples", "de_reports")
        if name in runs
    }
    if "meddocan" in runs:  # MEDDOCAN labels every age; radeid's policy removes ages over 89 only
        med = runs["meddocan"]
        out["token_scores"]["meddocan, ages<=89 not PHI"] = score_labelled_spans(
            [age_policy_record(rec) for rec in med.records], med.spans, med.seconds
        )
    if audit:
        options = []
        if off is not None:
            options = [o for o, d in (("gate", off.ungated), ("transformer.check_forms", off.unchecked)) if d]
        out["veto_audit"] = veto_audit(runs, by_pattern) | {
            "off_runs": {"options": options, "seconds": {n: round(r.off_seconds, 2) for n, r in runs.items()}}
        }
    return out, runs


def _fp(r: Run) -> float:
    return score_phi_free_spans(r.records, r.spans, None)["fp_tokens_per_100_reports"]


def _f(value: float) -> str:
    return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"


def print_report(fig: dict[str, Any], runs: dict[str, Run], show: bool) -> None:
    if "openi_iu" in fig:
        print("\n(a) changed tokens on PHI-free prose (surrogate mode)")
        print(f"  {'set':<26}{'docs':>6}{'changed/100':>13}{'docs changed':>14}{'fp tok/100':>12}")
        for part, res in fig["openi_iu"].items():
            print(
                f"  {'openi_iu ' + part:<26}{res['docs']:>6}{_f(res['changed_tokens_per_100_reports']):>13}"
                f"{res['docs_with_a_change']:>14}{_f(res['fp_tokens_per_100_reports']):>12}"
            )
            print(f"    by category: {res['changed_tokens_by_category']}")
    if "mtsamples" in fig:
        res = fig["mtsamples"]
        print(
            f"  {'mtsamples':<26}{res['docs']:>6}{_f(res['changed_tokens_per_100_reports']):>13}"
            f"{res['docs_with_a_change']:>14}{'-':>12}"
        )
        print(f"    by category: {res['changed_tokens_by_category']}")
        print(
            f"    {res['spans']} spans, {res['distinct_span_texts']} distinct (category, text): "
            f"{res['distinct_span_texts_by_category']}"
        )
        if show:
            print("    count  category  text   (published sample texts: check genuine names/dates vs false positives)")
            listing = sorted(distinct_spans(runs["mtsamples"]).items(), key=lambda kv: (-kv[1], kv[0]))
            for (category, text), n in listing:
                print(f"    {n:>5}  {category:<9} {text}")
    if "traps" in fig:
        res = fig["traps"]
        print(
            f"\n(b) trap lines: {res['phi_free_lines_with_a_span']} of {res['phi_free_lines']} PHI-free lines get a "
            f"span; {res['changed_numeric_tokens']} numeric tokens outside gold PHI altered"
        )
        print(f"  {'class':<26}{'lines':>6}{'with span':>11}{'spans':>7}{'numbers changed':>17}")
        for cls, row in sorted(res["per_class"].items()):
            print(
                f"  {cls:<26}{row['lines']:>6}{row['lines_with_a_span']:>11}{row['spans']:>7}"
                f"{row['changed_numeric_tokens']:>17}"
            )
        print(f"  spans on PHI-free lines by source: {res['phi_free_spans_by_source']}")
        adj = res["phi_adjacent"]
        print(
            f"  phi_adjacent: {adj['gold_spans']} gold spans: {adj['exact']} exact, {adj['covered']} covered, "
            f"{adj['overlapped']} overlapped only, {adj['missed']} missed; token recall {_f(adj['token']['recall'])}, "
            f"precision {_f(adj['token']['precision'])}"
        )
        if show:
            print("  spans on PHI-free trap lines (invented text):")
            for item in res["_offenders"]:
                print(f"    {item['id']:<34} {item['category']:<9} {item['source']:<22} {item['text']!r}")
    print("\n(c) spans breaking the edge rule")
    print(f"  {'set':<19}{'spans':>7}{'breaking':>10}{'gold':>7}{'gold breaking':>15}  reasons")
    for name, res in fig["edges"].items():
        print(
            f"  {name:<19}{res['predicted_spans']:>7}{res['spans_breaking_the_rule']:>10}{res['gold_spans']:>7}"
            f"{res['gold_spans_breaking_the_rule']:>15}  {res['by_reason']}"
        )
    if fig["token_scores"]:
        print("\n(d) binary token scores (as benchmarks/accuracy.py)")
        print(f"  {'set':<28}{'docs':>6}{'precision':>11}{'recall':>9}{'f1':>8}{'span recall':>13}")
        for name, res in fig["token_scores"].items():
            print(
                f"  {name:<28}{res['docs']:>6}{_f(res['precision']):>11}{_f(res['recall']):>9}{_f(res['f1']):>8}"
                f"{_f(res['span_recall']):>13}"
            )
    if "veto_audit" in fig:
        print_audit(fig["veto_audit"])
    print("\n  docs/s: " + ", ".join(f"{n} {_f(v)}" for n, v in fig["docs_per_s"].items()))


def print_audit(audit: dict[str, Any]) -> None:
    """The (e) tables: one per set, a row per check that took characters away there (zeros included: it
    fired but no token was lost), most gold removed first; then the flagged pairs."""
    print(
        "\n(e) veto audit: evaluation tokens each check took away; removed = no final span covers them in the end,"
        "\n    won back = a final span covers them all the same; gate and transformer.check_forms: tokens a run with"
        "\n    that option off covers and the default run does not (with it on: only-with-it gold/non-gold)"
    )
    width = max([44, *(len(c) + 2 for res in audit["sets"].values() for c in res["checks"])])
    head = f"    {'check':<{width}}{'gold removed':>14}{'non-gold removed':>18}"
    head += f"{'gold won back':>15}{'non-gold won back':>19}"
    for name, res in audit["sets"].items():
        gold = f"{res.get('gold_tokens', 0):,} gold / " if res["labelled"] else "no gold, "
        print(f"  {name}: {res['docs']} docs, {gold}{res.get('non_gold_tokens', 0):,} non-gold tokens")
        print(head)
        for check, row in res["checks"].items():
            cells = [row[k] if k.startswith("non") or res["labelled"] else "-" for k in COUNT_KEYS]
            cells = ["-" if c is None else c for c in cells]
            line = f"    {check:<{width}}{cells[0]:>14}{cells[1]:>18}{cells[2]:>15}{cells[3]:>19}"
            if "gold_only_with_it" in row:
                only = row["gold_only_with_it"] if res["labelled"] else "-"
                line += f"  (only with it: {only} / {row['non_gold_only_with_it']})"
            if row["costs_recall"]:
                line += "  COSTS RECALL"
            print(line)
    pairs = audit["costs_recall"]
    if pairs:
        print("  COSTS RECALL (more gold than non-gold tokens removed): " + ", ".join(f"{c} on {n}" for c, n in pairs))
    else:
        print("  COSTS RECALL: none (no check removed more gold than non-gold tokens on any set)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", type=Path, default=None, help="a config file merged over the defaults")
    parser.add_argument("--no-model", action="store_true", help="rules + lexicons only (no transformer)")
    parser.add_argument("--data-dir", type=Path, default=None, help="the shared data folder (default ../shared/data)")
    parser.add_argument("--synth", type=Path, default=None, help="a held-out labelled set from `radeid synth`")
    parser.add_argument("--limit", type=int, default=None, help="only the first N documents of each set")
    parser.add_argument("--all-docs", action="store_true", help="meddocan whole, not only its held-out fifth")
    parser.add_argument(
        "--english-only", action="store_true", help="run every set with the English pipeline (no language packs)"
    )
    parser.add_argument("--json", type=Path, default=None, metavar="OUT", help="also write every figure as JSON")
    parser.add_argument("--show", action="store_true", help="print mtsamples span texts and trap false positives")
    parser.add_argument(
        "--sets", nargs="+", choices=SET_NAMES, default=list(SET_NAMES), metavar="SET",
        help=f"only these sets (default all found: {', '.join(SET_NAMES)})",
    )  # fmt: skip
    parser.add_argument("--no-audit", action="store_true", help="skip (e), the veto audit, and its second model run")
    parser.add_argument("--by-pattern", action="store_true", help="(e): protected content per pattern, not per class")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a check removes more gold than non-gold")
    args = parser.parse_args()
    if args.synth is not None and not args.synth.exists():
        parser.error(f"--synth: no such file {args.synth}")
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    sets = load_sets(args.data_dir or default_data_dir(), args.synth, args.limit, args.sets, args.all_docs)
    deid = build(args.config, args.no_model)
    languages = {} if args.english_only else {n: SET_LANGUAGE[n] for n in sets if n in SET_LANGUAGE}
    packs = {n: build(args.config, args.no_model, code) for n, code in languages.items()}
    fig, runs = evaluate(deid, sets, audit=not args.no_audit, by_pattern=args.by_pattern, packs=packs)
    sampled = {} if args.all_docs else {n: how for n, (how, _) in SAMPLED.items() if n in sets}
    fig["pipeline"] = {
        "detectors": list(deid.config.pipeline.detectors),
        "mode": "surrogate",
        "limit": args.limit,
        "sampled": sampled,
        "languages": {n: p.config.pipeline.language for n, p in packs.items()},
    }
    print(f"pipeline: {', '.join(deid.config.pipeline.detectors)} (surrogate mode, fixed test key)")
    for name, pack in packs.items():
        print(f"  {name}: language pack {pack.config.pipeline.language!r} (model {pack.config.transformer.model})")
    if sampled:
        print("sampled: " + ", ".join(f"{n} {how}" for n, how in sampled.items()) + " (--all-docs: whole)")
    print_report(fig, runs, args.show)
    if args.json is not None:
        public = dict(fig)
        if "traps" in public:  # trap text is invented, but keep the JSON free of any text all the same
            public["traps"] = {k: v for k, v in public["traps"].items() if not k.startswith("_")}
        args.json.write_text(json.dumps(public, indent=2) + "\n", encoding="utf-8")
    if args.strict and fig.get("veto_audit", {}).get("costs_recall"):
        sys.exit(1)


if __name__ == "__main__":
    main()
