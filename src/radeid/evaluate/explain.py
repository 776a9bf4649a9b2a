"""`radeid explain`, the pure part: one document's explanation as tables, verdicts and JSON.

"Why was this name not removed?" has three answers, printed in this order: what each detector
proposed, what the resolver did with each proposal (`radeid.resolve.trace.Decision`, in order), and the
final spans; then, for every proposal that left no trace in the final spans (no final span holds
any of its characters), a one-line verdict naming the decisions that cost it.

The JSON form (`--json`, `explanation_json`) is one object, stable across versions (keys are only
ever added; `version` changes if one's meaning does):

* `version`: 1; `id`: the document id;
* `proposals`: `{"detector", "start", "end", "category", "source", "score", "text"}` per proposal,
  detectors in pipeline order, each detector's spans in the order it returned them;
* `decisions`: `Decision.as_dict(text)` per decision, in the order the resolver made them:
  `{"step", "action", "reason", "before": span | null, "after": [span, ...]}`;
* `spans`: the final spans, `{"start", "end", "category", "source", "score", "text"}`;
* `verdicts`: one per proposal that left no trace: `{"proposal": index into proposals, "start",
  "end", "category", "source", "text", "verdict": one line, "checks": the dropping decisions'
  `Decision.check` names ("form:common_word", "protected:vitals/temperature"), "decisions":
  indices into decisions of every decision on the way}`.

Offsets are characters of the document text, end exclusive. Span texts are printed on purpose:
this is the user's own look at one document; nothing else in radeid writes document text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich import box
from rich.console import Console, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from radeid.core.categories import Category
from radeid.core.document import Document, Span
from radeid.io.errors import ReadIssue
from radeid.io.formats import InputFormat, detect_format, format_from_suffix
from radeid.io.readers import ReadOptions, read_documents
from radeid.pipeline.deidentifier import Explanation
from radeid.resolve.trace import Decision, span_dict

__all__ = [
    "JSON_VERSION",
    "ExplainError",
    "Verdict",
    "describe",
    "explanation_json",
    "lineage",
    "proposals_of",
    "pick_document",
    "render",
    "span_dict",
    "tables",
    "verdicts",
]

JSON_VERSION = 1
#: From this console width on, each table shows one column per field; below it, two stacked ones.
WIDE = 80

_Key = tuple[int, int, Category, str]


@dataclass(frozen=True)
class Verdict:
    """Why one proposal left no trace: the decisions on its way (indices) and a one-line reason."""

    proposal: int
    decisions: tuple[int, ...]
    checks: tuple[str, ...]
    text: str


class ExplainError(Exception):
    """The document to explain cannot be had; the message names the file, line or id, never text."""


# ------------------------------------------------------------------------------ the document


def input_format(path: Path, given: InputFormat | None) -> InputFormat:
    """The format to read `path` in: the given one, a folder's, the suffix's; else plain text."""
    if given is not None:
        return given
    if path.is_dir():
        return detect_format(path)
    return format_from_suffix(path) or InputFormat.TXT


def pick_document(path: Path, fmt: InputFormat, options: ReadOptions, doc_id: str | None) -> Document:
    """The document `doc_id` of `path` (the first one when None), read by `radeid.io`.

    Raises `ExplainError` when it is not there or cannot be read, naming where (and the records
    that could not be read on the way); `RadeidIOError` for a whole-input problem.
    """
    skipped: list[ReadIssue] = []
    read = 0
    for item in read_documents(path, fmt, options):
        if isinstance(item, Document):
            read += 1
            if doc_id is None or item.id == doc_id:
                return item
        elif item.is_error:
            if doc_id is not None and item.doc_id == doc_id:
                raise ExplainError(f"document {doc_id!r} cannot be read: {item.describe()}")
            skipped.append(item)
    what = f"no document with id {doc_id!r}" if doc_id is not None else "no document"
    raise ExplainError(f"{what} in {path} ({read} document(s) read){_skipped(skipped)}")


def _skipped(issues: Iterable[ReadIssue]) -> str:
    """The unreadable records, for the not-found message: at most three, each by place and reason."""
    shown = list(issues)
    if not shown:
        return ""
    more = f"; and {len(shown) - 3} more" if len(shown) > 3 else ""
    return f"; {len(shown)} record(s) could not be read: " + "; ".join(i.describe() for i in shown[:3]) + more


# ------------------------------------------------------------------------------ the analysis


def proposals_of(explanation: Explanation) -> list[tuple[str, Span]]:
    """Every proposal with its detector's name, detectors in pipeline order."""
    return [(name, span) for name, spans in explanation.proposals.items() for span in spans]


def _key(span: Span) -> _Key:
    # with the source: `Span` equality ignores it, and a rule's span is not the model's at the same offsets
    return (span.start, span.end, span.category, span.source)


def lineage(span: Span, decisions: Sequence[Decision]) -> list[int]:
    """Indices of the decisions that changed `span` or what it became (its pieces, its merges)."""
    live = {_key(span)}
    chain: list[int] = []
    for n, decision in enumerate(decisions):
        if decision.before is not None and _key(decision.before) in live:
            chain.append(n)
            live.discard(_key(decision.before))
            live.update(_key(s) for s in decision.after)
    return chain


def left_trace(span: Span, final: Sequence[Span]) -> bool:
    """Whether a final span holds any character of `span` (it was removed, at least in part)."""
    return any(s.overlaps(span) for s in final)


def describe(decision: Decision, text: str) -> str:
    """What a decision did to its span, in words ("vetoed by protected content vitals/temperature")."""
    before, reason = decision.before, decision.reason
    if decision.step == "score" and before is not None:
        if before.end > len(text):
            return "dropped: it ends past the end of the text"
        return f"dropped for its score {before.score:.2f} (below resolver.min_score)"
    if decision.step == "extend":
        return "extended to whole words"
    if decision.step == "edges":
        return {"dropped": "dropped by edge cleaning (nothing left but punctuation or space)",
                "split": "split at a field separator",
                "trimmed": "trimmed at its edges"}.get(decision.action, f"{decision.action} at its edges")  # fmt: skip
    if decision.step == "allow_list":
        return f"dropped by the allow list (term {_quoted(reason)})"
    if decision.step == "protected":
        verb = "vetoed" if decision.action == "dropped" else decision.action
        return f"{verb} by protected content {reason.replace(',', ', ')}"
    if decision.step == "form":
        return f"{decision.action} by the form check {reason}"
    if decision.step == "credential":
        return "dropped as a credential after a person's name (MD, PA-C, ...)"
    if decision.step in ("merge", "join"):
        after = decision.after[0] if decision.after else None
        into = f" into {after.start}-{after.end} {after.category.value}" if after is not None else ""
        return f"{decision.action}{into}"
    return f"{decision.action} by step {decision.step}" + (f" ({reason})" if reason else "")


def verdicts(explanation: Explanation) -> list[Verdict]:
    """A verdict for each proposal that left no trace in the final spans, in proposal order."""
    text, decisions = explanation.document.text, explanation.decisions
    out: list[Verdict] = []
    for n, (_, span) in enumerate(proposals_of(explanation)):
        if left_trace(span, explanation.spans):
            continue
        chain = lineage(span, decisions)
        drops = [decisions[i] for i in chain if not decisions[i].after]
        words: list[str] = []
        for i in chain:
            phrase = describe(decisions[i], text)
            if not words or words[-1] != phrase:  # the pieces of a split, dropped by the same check
                words.append(phrase)
        line = ", then ".join(words) if words else "not in the final spans, and no decision of the resolver names it"
        out.append(Verdict(n, tuple(chain), tuple(dict.fromkeys(d.check for d in drops)), line))
    return out


# ------------------------------------------------------------------------------------- JSON


def explanation_json(explanation: Explanation) -> dict[str, object]:
    """The `--json` object (see the module doc)."""
    text = explanation.document.text
    proposals = proposals_of(explanation)
    return {
        "version": JSON_VERSION,
        "id": explanation.document.id,
        "proposals": [{"detector": name, **span_dict(span, text)} for name, span in proposals],
        "decisions": [d.as_dict(text) for d in explanation.decisions],
        "spans": [span_dict(s, text) for s in explanation.spans],
        "verdicts": [_verdict_dict(v, proposals[v.proposal][1], text) for v in verdicts(explanation)],
    }


def _verdict_dict(verdict: Verdict, span: Span, text: str) -> dict[str, object]:
    found = span_dict(span, text)
    del found["score"]
    return {"proposal": verdict.proposal, **found, "verdict": verdict.text, "checks": list(verdict.checks),
            "decisions": list(verdict.decisions)}  # fmt: skip


# ------------------------------------------------------------------------------------ tables


def _quoted(text: str) -> str:
    """A span's text on one line, quoted, line breaks and tabs visible (`"Smith\\nMD"`)."""
    return json.dumps(text, ensure_ascii=False)


def _span_cell(span: Span, text: str, source: bool = False) -> str:
    cell = f"{span.start}-{span.end} {span.category.value} {_quoted(span.text_in(text))}"
    return f"{cell} ({span.source})" if source and span.source else cell


def _decision_row(n: int, decision: Decision, text: str) -> list[str]:
    """`#, step, action, reason, before, after` of one decision, spans with their sources."""
    before = _span_cell(decision.before, text, source=True) if decision.before is not None else "-"
    after = "; ".join(_span_cell(s, text, source=True) for s in decision.after) or "(dropped)"
    reason = decision.reason.replace(",", ", ") or "-"  # wraps between protected patterns
    return [str(n), decision.step, decision.action, reason, before, "→ " + after]


def _table(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]], wide: bool, left: Sequence[int]) -> Table:
    """One table: a column per field when `wide`; else the `left` fields stacked in one column, the
    rest in another (readable at 40 columns). Cells are `Text`: a span's text is never markup."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    if wide:
        columns = [[i] for i in range(len(headers))]
    else:
        columns = [list(left), [i for i in range(len(headers)) if i not in left]]
    for group in columns:
        table.add_column("\n".join(headers[i] for i in group), overflow="fold")
    for row in rows:
        table.add_row(*(Text("\n".join(row[i] for i in group)) for group in columns))
    return table


def tables(explanation: Explanation, width: int) -> list[RenderableType]:
    """The three tables and the verdicts of `render`, laid out for a console `width` wide."""
    text, wide = explanation.document.text, width >= WIDE
    proposals = proposals_of(explanation)
    found = [[name, s.source, s.category.value, f"{s.start}-{s.end}", f"{s.score:.2f}", _quoted(s.text_in(text))]
             for name, s in proposals]  # fmt: skip
    steps = [_decision_row(n, d, text) for n, d in enumerate(explanation.decisions)]
    final = [[f"{s.start}-{s.end}", s.category.value, s.source, f"{s.score:.2f}", _quoted(s.text_in(text))]
             for s in explanation.spans]  # fmt: skip
    out: list[RenderableType] = [
        _table(f"Proposals ({len(found)})", ["detector", "source", "category", "start-end", "score", "text"],
               found, wide, left=(3, 2, 4)),
        _table(f"Resolver decisions ({len(steps)})", ["#", "step", "action", "reason", "before", "after"],
               steps, wide, left=(0, 1, 2)),
        _table(f"Final spans ({len(final)})", ["start-end", "category", "source", "score", "text"],
               final, wide, left=(0, 1, 3)),
    ]  # fmt: skip
    judged = verdicts(explanation)
    left = f"{len(judged)} of {len(proposals)} proposals left no trace" if judged else "every proposal left a trace"
    out.append(Text(f"Not removed ({left})", style="bold"))
    for verdict in judged:
        span = proposals[verdict.proposal][1]
        out.append(Padding(Text(f"{_span_cell(span, text, source=True)}: {verdict.text}"), (0, 0, 0, 2)))
    return out


def render(explanation: Explanation, console: Console) -> None:
    """Print the explanation on `console`, at its width."""
    for part in tables(explanation, console.width):
        console.print(part)
        if isinstance(part, Table):
            console.print()
