"""The surrogate stability experiment: re-synthesize the gold PHI N times and score each version.

A corpus has one set of names and dates; a detector may have learned (or a rule may match) those
very strings. Replacing every gold span with a fresh surrogate, re-running the pipeline and
scoring against the surrogates' known positions, N times with N keys, shows how much of the score
is the detector and how much the particular strings. We report, per metric, the mean over rounds
and the central 95% range of the rounds (2.5th to 97.5th percentile; not a bootstrap interval).

Keys are seeded by default: round r uses HMAC-SHA256(master, "round/r"), with the master derived
from `seed` (or read from a key file), so a run can be repeated exactly. With `seed=None` and no
master key each round draws `secrets.token_bytes(32)`. Surrogates are synthetic either way; the
key only needs to differ between rounds.

Replacing is done by a replacer factory (`key -> Replacer`), `radeid.replace.surrogate.SurrogateReplacer`
by default; the gold spans are then found in the new text from `Result.output_offsets()`.
"""

from __future__ import annotations

import bisect
import hashlib
import hmac
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from radeid.core.categories import Category
from radeid.core.document import Document, Result, Span
from radeid.core.tokens import Tokenizer
from radeid.evaluate.bootstrap import Interval, percentile_interval
from radeid.evaluate.metrics import (
    IGNORED_SPANS_KEY,
    LEVEL_METRICS,
    LEVELS,
    EvaluationResult,
    evaluate_documents,
    ignored_regions,
)
from radeid.replace.base import Replacer

__all__ = [
    "ReplacerFactory",
    "ResynthesisResult",
    "ResynthesisUnavailable",
    "default_replacer_factory",
    "resynthesize",
    "resynthesize_document",
    "round_keys",
]

#: Builds a replacer from a 32-byte key; one is made per round.
ReplacerFactory = Callable[[bytes], Replacer]
#: Detects PHI in a batch of documents (e.g. `Deidentifier.detect`).
DetectFn = Callable[[Sequence[Document]], list[list[Span]]]


class ResynthesisUnavailable(RuntimeError):
    """The surrogate engine cannot be imported; pass a replacer factory instead."""


def default_replacer_factory() -> ReplacerFactory:
    """`key -> SurrogateReplacer(key)` from the surrogate engine, imported only when needed."""
    try:
        from radeid.replace.surrogate import SurrogateReplacer
    except ImportError as exc:
        raise ResynthesisUnavailable(
            "the surrogate engine (radeid.replace.surrogate.SurrogateReplacer) is not available; "
            "resynthesis needs it, or a replacer factory from the Python API"
        ) from exc

    def make(key: bytes) -> Replacer:
        return SurrogateReplacer(key)

    return make


def round_keys(rounds: int, seed: int | None = 0, master_key: bytes | None = None) -> list[bytes]:
    """One 32-byte key per round: derived from `master_key` or `seed`, else random (`seed=None`)."""
    if master_key is None and seed is None:
        return [secrets.token_bytes(32) for _ in range(rounds)]
    master = master_key if master_key is not None else hashlib.sha256(f"radeid/resynthesize/{seed}".encode()).digest()
    return [hmac.digest(master, f"round/{r}".encode(), "sha256") for r in range(rounds)]


def _non_overlapping(spans: Sequence[Span]) -> list[Span]:
    """Sorted spans with overlaps removed (the earlier, then longer, span wins), as replacers need."""
    kept: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if kept and span.start < kept[-1].end:
            continue
        kept.append(span)
    return kept


class _OffsetMap:
    """Maps original-text offsets to the output text of a `Result`."""

    def __init__(self, result: Result) -> None:
        self.reps = [(r.span.start, r.span.end) for r in result.replacements]
        self.out = result.output_offsets()
        self.exact = {rep: out for rep, out in zip(self.reps, self.out, strict=True)}
        self.ends = [e for _, e in self.reps]
        self.shift = [0]
        for (s, e), (os_, oe) in zip(self.reps, self.out, strict=True):
            self.shift.append(self.shift[-1] + (oe - os_) - (e - s))

    def position(self, pos: int, side: str) -> int:
        """A position outside replacements moves with them; one inside snaps to the replacement's edge."""
        k = bisect.bisect_right(self.ends, pos)  # replacements ending at or before pos
        if k < len(self.reps) and self.reps[k][0] < pos:  # strictly inside replacement k
            return self.out[k][0] if side == "start" else self.out[k][1]
        return pos + self.shift[k]

    def span(self, start: int, end: int) -> tuple[int, int]:
        if (start, end) in self.exact:
            return self.exact[(start, end)]
        return self.position(start, "start"), self.position(end, "end")


def resynthesize_document(
    document: Document, replacer: Replacer, ignored: Sequence[tuple[int, int]] = ()
) -> tuple[Document, list[tuple[int, int]]]:
    """Replace the gold spans of `document`; return the new document (gold at the surrogates) and
    the ignored regions moved to the new text.

    Overlapping gold spans are replaced once (the earlier, then longer, wins); every gold span is
    still scored where it now lies. A span the replacer left alone keeps its text and moves.
    """
    result = replacer.replace(document, _non_overlapping(document.spans))
    mapping = _OffsetMap(result)
    spans: list[Span] = []
    for span in document.spans:
        start, end = mapping.span(span.start, span.end)
        if end > start:
            spans.append(span.with_(start=start, end=end))
    regions = [r for r in (mapping.span(s, e) for s, e in ignored) if r[1] > r[0]]
    metadata = dict(document.metadata or {})
    metadata[IGNORED_SPANS_KEY] = regions
    new = Document(document.id, result.text, document.patient_id, metadata, tuple(sorted(spans)))
    return new, regions


@dataclass(frozen=True)
class ResynthesisResult:
    """Every round's evaluation and, per `(level, key, metric)`, the mean with the 2.5-97.5% range."""

    rounds: tuple[EvaluationResult, ...]
    intervals: dict[tuple[str, str, str], Interval]
    seed: int | None
    keyed_from_file: bool = False

    def get(self, level: str, key: str, metric: str) -> Interval | None:
        return self.intervals.get((level, key, metric))

    def mean_counts(self, level: str, key: str) -> tuple[float, float]:
        """Mean gold and predicted units per round (token counts vary with surrogate lengths)."""
        gold = [r.scores(level)[key].gold for r in self.rounds if key in r.scores(level)]
        pred = [r.scores(level)[key].predicted for r in self.rounds if key in r.scores(level)]
        return (float(np.mean(gold)) if gold else 0.0, float(np.mean(pred)) if pred else 0.0)

    def to_dict(self) -> dict[str, Any]:
        nested: dict[str, dict[str, dict[str, Any]]] = {}
        for (level, key, metric), iv in self.intervals.items():
            nested.setdefault(level, {}).setdefault(key, {})[metric] = {
                "mean": iv.point,
                "low": iv.low,
                "high": iv.high,
                "rounds": iv.resamples,
            }
        return {
            "rounds": len(self.rounds),
            "seed": None if self.keyed_from_file else self.seed,
            "keys": "key file" if self.keyed_from_file else ("seeded" if self.seed is not None else "random"),
            "summary": nested,
        }


def summarize_rounds(
    rounds: Sequence[EvaluationResult], confidence: float = 0.95
) -> dict[tuple[str, str, str], Interval]:
    """Mean and central range of each metric over rounds; a key absent in a round is left out there."""
    values: dict[tuple[str, str, str], list[float]] = {}
    for result in rounds:
        for level in LEVELS:
            for key, scores in result.scores(level).items():
                for metric in LEVEL_METRICS[level]:
                    values.setdefault((level, key, metric), []).append(scores.get(metric))
    out: dict[tuple[str, str, str], Interval] = {}
    for k, vs in values.items():
        low, high, n = percentile_interval(vs, confidence)
        out[k] = Interval(float(np.mean(vs)), low, high, n)
    return out


def resynthesize(
    gold: Sequence[Document],
    detect: DetectFn,
    rounds: int,
    *,
    seed: int | None = 0,
    master_key: bytes | None = None,
    replacer_factory: ReplacerFactory | None = None,
    ignored: Mapping[str, Sequence[tuple[int, int]]] | None = None,
    tokenizer: Tokenizer | str | None = None,
    categories: Sequence[Category | str] | None = None,
    batch_size: int = 64,
    on_round: Callable[[int, EvaluationResult], None] | None = None,
) -> ResynthesisResult:
    """Run `rounds` rounds of replace-gold-with-surrogates, detect, score; summarize over rounds."""
    if rounds < 1:
        raise ValueError("rounds must be at least 1")
    factory = replacer_factory or default_replacer_factory()
    results: list[EvaluationResult] = []
    for r, key in enumerate(round_keys(rounds, seed, master_key)):
        replacer = factory(key)
        docs: list[Document] = []
        for doc in gold:
            regions = [*(ignored.get(doc.id, ()) if ignored else ()), *ignored_regions(doc)]
            new, _ = resynthesize_document(doc, replacer, regions)
            docs.append(new)
        predicted: dict[str, list[Span]] = {}
        for i in range(0, len(docs), batch_size):
            batch = [Document(d.id, d.text, d.patient_id) for d in docs[i : i + batch_size]]  # gold hidden
            for doc, spans in zip(batch, detect(batch), strict=True):
                predicted[doc.id] = list(spans)
        result = evaluate_documents(docs, predicted, tokenizer=tokenizer, categories=categories)
        results.append(result)
        if on_round is not None:
            on_round(r, result)
    return ResynthesisResult(tuple(results), summarize_rounds(results), seed, keyed_from_file=master_key is not None)
