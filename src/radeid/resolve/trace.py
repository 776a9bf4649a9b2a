"""What the resolver did with each proposal, step by step.

"Why was this name not removed?" is the first question a user asks, and "which check cost recall?"
the first one a benchmark must answer. The resolver records a `Decision` for every change it makes
to a proposal when it is handed a list to fill (`Resolver.resolve(..., trace=[])`); without one it
records nothing and costs nothing. `radeid explain` prints the decisions; `benchmarks/integrity.py`
counts the gold and non-gold characters each check removed.
"""

from __future__ import annotations

from dataclasses import dataclass

from radeid.core.document import Span

__all__ = ["Decision", "removed_ranges", "span_dict"]

#: The resolver's steps, in the order it runs them.
STEPS = (
    "score",  # below min_score
    "extend",  # grown to whole words
    "complete",  # a model piece grown to its whole entity (date, facility, e-mail, phone, address)
    "edges",  # cut at a field separator, edge punctuation, lower-case words, a possessive
    "allow_list",  # the whole span is an allow-listed term
    "protected",  # protected content (reason: class/pattern)
    "form",  # a form check of its category (reason: which check)
    "merge",  # overlapping spans merged into one
    "join",  # same-category neighbours joined
    "credential",  # a degree after a person's name
    "propagate",  # another mention of a detected entity, added
)


@dataclass(frozen=True, slots=True)
class Decision:
    """One change the resolver made: `before` became `after` (empty when it was dropped)."""

    step: str
    action: str  # dropped | trimmed | split | extended | merged | joined | added | kept | relabelled
    before: Span | None
    after: tuple[Span, ...]
    reason: str = ""

    @property
    def check(self) -> str:
        """`step` and `reason` as one name (`form:common_word`, `protected:clinical_values/te`)."""
        return f"{self.step}:{self.reason}" if self.reason else self.step

    def as_dict(self, text: str) -> dict[str, object]:
        """A JSON-ready view (span texts included: for the user's own explain output only)."""
        return {
            "step": self.step,
            "action": self.action,
            "reason": self.reason,
            "before": span_dict(self.before, text) if self.before is not None else None,
            "after": [span_dict(s, text) for s in self.after],
        }


def removed_ranges(decision: Decision) -> list[tuple[int, int]]:
    """The characters of `before` that no span of `after` holds: what the decision took away."""
    if decision.before is None:
        return []
    cursor, out = decision.before.start, []
    for span in sorted(decision.after):
        if span.start > cursor:
            out.append((cursor, min(span.start, decision.before.end)))
        cursor = max(cursor, span.end)
    if cursor < decision.before.end:
        out.append((cursor, decision.before.end))
    return [(a, b) for a, b in out if b > a]


def span_dict(span: Span, text: str) -> dict[str, object]:
    """A span as JSON, with its text (the spans of `Decision.as_dict` and of `radeid explain --json`)."""
    return {
        "start": span.start,
        "end": span.end,
        "category": span.category.value,
        "source": span.source,
        "score": round(span.score, 4),
        "text": text[span.start : span.end],
    }
