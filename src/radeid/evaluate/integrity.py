"""Integrity checks: does de-identification change anything but PHI, and are span edges clean?

In surrogate mode a false positive is an invisible edit of research data (`Temp 98.6` becomes
`Temp 103.6`), and a span that swallows punctuation or a neighbouring field damages the text
around the PHI (`(tel. 217.555.0147` becomes `(tel[PHONE]`). Recall figures do not show either,
so these two helpers measure them directly:

- `edge_violations` checks each span against the *edge rule* that gold and predictions should
  both follow;
- `changed_tokens` counts the evaluation tokens (`radeid.core.tokens.word_tokens`) of the
  original text that the replacements of a `Result` actually altered.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from difflib import SequenceMatcher
from typing import Any, TypeVar

from radeid.core.document import Replacement, Result, Span
from radeid.core.tokens import word_tokens

__all__ = ["ABBREVIATIONS", "changed_token_offsets", "changed_tokens", "edge_violations"]

SpanLike = TypeVar("SpanLike", Span, Mapping[str, Any])

#: Words whose closing `.` may end a span (besides a single-letter initial such as `J.`): titles,
#: name suffixes and the abbreviations that end facility names and addresses (`Acme Co.`,
#: `Main St.`). A closed list rather than "any short word", so that `ED.` or `Lee.` at the end of
#: a sentence still counts as swallowed punctuation.
ABBREVIATIONS = frozenset(
    "dr mr mrs ms mx prof jr sr st ste mt ft ave blvd rd ln apt inc co corp ltd llc univ hosp med ctr".split()
)

_OPENERS = {")": "(", "]": "[", "}": "{"}
_LABEL_COLON = re.compile(r"\w:[ \t]")
_POSSESSIVE = re.compile(r"['\u2019][sS]$")
_ISO_TIME = re.compile(r"(?<=\d)T\d{2}:\d{2}")  # the `T10:15` after the date of an ISO 8601 date-time
_WORD_BEFORE_DOT = re.compile(r"(?<![^\W\d_])([^\W\d_]+)\.$")


def _offsets(span: Span | Mapping[str, Any]) -> tuple[int, int]:
    if isinstance(span, Span):
        return span.start, span.end
    return int(span["start"]), int(span["end"])


def _balanced_bracket_edge(surface: str, at_start: bool) -> bool:
    """An opening bracket at the start (closing at the end) whose partner is inside the span.

    `(541) 555-0142` is a whole phone number; `(541` or `0142)` swallowed a bracket.
    """
    if at_start:
        closer = {v: k for k, v in _OPENERS.items()}.get(surface[0])
        return closer is not None and closer in surface[1:]
    opener = _OPENERS.get(surface[-1])
    return opener is not None and opener in surface[:-1]


def _abbreviation_dot(surface: str) -> bool:
    """The span ends with the `.` of an initial (`J.`) or a listed abbreviation (`Dr.`, `St.`)."""
    match = _WORD_BEFORE_DOT.search(surface)
    if match is None:
        return False
    word = match.group(1)
    return len(word) == 1 or word.casefold() in ABBREVIATIONS


def _category(span: SpanLike) -> str:
    value = span.get("category", "") if isinstance(span, Mapping) else getattr(span, "category", "")
    return str(getattr(value, "value", value) or "").split("/")[0]


def _is_person(span: SpanLike) -> bool:
    return _category(span) in ("", "PATIENT", "HCW")


def _is_url(span: SpanLike) -> bool:
    return _category(span) == "URL"


def edge_violations(text: str, spans: Sequence[SpanLike]) -> list[tuple[SpanLike, str]]:
    """Every `(span, reason)` where a span breaks the edge rule; empty when all spans are clean.

    The rule (one reason per broken clause, so a span can appear more than once):

    - `out of range`: the offsets do not fit the text (nothing else is checked then);
    - `starts inside a word` / `ends inside a word`: the span cuts a run of alphanumerics (the
      characters on both sides of its start, or of its end, are alphanumeric) — a span must begin
      and end on a word boundary; the one exception is the `T` of an ISO 8601 date-time: in
      `2019-07-04T10:15:00` the DATE span is `2019-07-04` (a time of day is not PHI);
    - `starts with whitespace|punctuation`: the first character must be alphanumeric, except an
      opening bracket closed inside the span (`(541) 555-0142`);
    - `ends with whitespace|punctuation`: the last character must be alphanumeric, except a closing
      bracket opened inside the span, or the `.` of an initial or a listed abbreviation
      (`J.`, `Dr.`, `Inc.`: see `ABBREVIATIONS`), which belongs to the word;
    - `contains a line break`, `contains a tab`, `contains a run of spaces` (two or more): a span
      never joins lines or table columns (`Dr. Ahmed   Performing sonographer` is two fields);
    - `contains a label colon`: a word, `:` and a space inside the span (`Name: X`) means a field
      label was swallowed (times like `10:15` are fine);
    - `ends with a possessive`: `'s` / `’s` belongs to the sentence, not the person's name
      (`Ahmed's`); an institution's `'s` is its name (`Seattle Children's`), so only spans without a
      category or of category PATIENT/HCW are checked for it;
    - a URL may end with `/` (`https://example.org/` is the address itself).

    `spans` are `Span`s or gold dicts with `start`/`end`; each is returned as given.
    """
    found: list[tuple[SpanLike, str]] = []
    for span in spans:
        start, end = _offsets(span)
        if not 0 <= start < end <= len(text):
            found.append((span, "out of range"))
            continue
        surface = text[start:end]
        if start > 0 and text[start - 1].isalnum() and text[start].isalnum():
            found.append((span, "starts inside a word"))
        if end < len(text) and text[end].isalnum() and text[end - 1].isalnum() and not _ISO_TIME.match(text, end):
            found.append((span, "ends inside a word"))
        first, last = surface[0], surface[-1]
        if first.isspace():
            found.append((span, "starts with whitespace"))
        elif not first.isalnum() and not _balanced_bracket_edge(surface, at_start=True):
            found.append((span, "starts with punctuation"))
        if last.isspace():
            found.append((span, "ends with whitespace"))
        elif not last.isalnum() and not _balanced_bracket_edge(surface, at_start=False):
            if not (last == "." and _abbreviation_dot(surface)) and not (last == "/" and _is_url(span)):
                found.append((span, "ends with punctuation"))
        if "\n" in surface or "\r" in surface:
            found.append((span, "contains a line break"))
        if "\t" in surface:
            found.append((span, "contains a tab"))
        if "  " in surface:
            found.append((span, "contains a run of spaces"))
        if _LABEL_COLON.search(surface):
            found.append((span, "contains a label colon"))
        if len(surface) > 2 and _POSSESSIVE.search(surface) and _is_person(span):
            found.append((span, "ends with a possessive"))
    return found


def changed_token_offsets(
    original_text: str,
    replacements: Result | Sequence[Replacement],
    ignore: Collection[str] = (),
) -> list[tuple[int, int]]:
    """`(start, end)` of each evaluation token of `original_text` that the replacements altered.

    A token counts when it overlaps a replacement and does not survive it: the tokens touched by
    a replacement (the whole tokens, so a span cut inside `L4/5` is judged on `L4`) are compared
    with the tokens of the same stretch after the replacement, aligned with `difflib`; a token that
    comes out identical in the aligned output is not counted. So `Dr. Ahmed` -> `Dr. Levy`
    changes one token (`Ahmed`) and `98.6` -> `103.6` changes one (`98`). Tokens whose text is in
    `ignore` (placeholders such as `XXXX` that the source already put there) never count.
    """
    reps = replacements.replacements if isinstance(replacements, Result) else tuple(replacements)
    tokens = word_tokens(original_text)
    changed: set[tuple[int, int]] = set()
    for rep in reps:
        start, end = rep.span.start, rep.span.end
        touched = [t for t in tokens if t[0] < end and t[1] > start]
        if not touched:
            continue
        lo, hi = min(start, touched[0][0]), max(end, touched[-1][1])
        before = [original_text[a:b] for a, b in touched]
        stretch = original_text[lo:start] + rep.new_text + original_text[end:hi]
        after = [stretch[a:b] for a, b in word_tokens(stretch)]
        kept: set[int] = set()
        for block in SequenceMatcher(None, before, after, autojunk=False).get_matching_blocks():
            kept.update(range(block.a, block.a + block.size))
        for i, tok in enumerate(touched):
            if i not in kept and original_text[tok[0] : tok[1]] not in ignore:
                changed.add(tok)
    return sorted(changed)


def changed_tokens(
    original_text: str,
    result: Result | Sequence[Replacement],
    ignore: Collection[str] = (),
) -> int:
    """How many evaluation tokens of `original_text` the replacements altered (see `changed_token_offsets`)."""
    return len(changed_token_offsets(original_text, result, ignore))
