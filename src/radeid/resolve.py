"""The one place that settles conflicts between detectors.

Detectors propose overlapping, possibly ragged spans; the resolver returns one clean, sorted,
non-overlapping set per document. Steps, in order: drop low scores, grow spans to whole words,
drop allow-listed terms, merge overlapping spans (the highest-priority span names the category,
the merged extent is the union so no detected character is lost), then merge touching spans of
one category that are separated only by spaces or tabs (never a line break).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from radeid.categories import Category
from radeid.config import ResolverConfig
from radeid.document import Span
from radeid.wordlists import bundled_data_path, read_word_list

#: Up to two words after a span, on the same line, to test eponym phrases like "Baker cyst".
_NEXT_WORDS = re.compile(r"(?:[ \t]+[\w'-]+){1,2}")

#: Spans from this source are the user's explicit decision and are never allow-listed away.
DENY_SOURCE = "lexicon/deny"


def normalize_term(text: str) -> str:
    """Case- and whitespace-insensitive form used to compare a span with allow-list terms."""
    return " ".join(text.casefold().split())


def load_allow_list(config: ResolverConfig, extra_terms: Iterable[str] = ()) -> frozenset[str]:
    terms: list[str] = list(extra_terms)
    if config.use_bundled_allow_list:
        bundled = bundled_data_path("lexicons", "allow.txt")
        if bundled.exists():
            terms.extend(read_word_list(bundled))
    for path in config.allow_lists:
        terms.extend(read_word_list(path))
    return frozenset(normalize_term(t) for t in terms)


class Resolver:
    """Turns the union of all detectors' spans into the final span set of a document."""

    def __init__(self, config: ResolverConfig, allow_terms: Collection[str] | None = None) -> None:
        self.config = config
        self.allow_terms = frozenset(allow_terms) if allow_terms is not None else load_allow_list(config)
        # Word prefixes of multi-word terms ("baker" of "baker cyst"): only spans equal to one of
        # these need the look at the following words, which keeps the common case to one lookup.
        self._allow_prefixes = frozenset(
            " ".join(words[:n]) for words in (t.split() for t in self.allow_terms) for n in range(1, len(words))
        )
        self.merge_categories = frozenset(config.merge_categories)

    def resolve(self, text: str, spans: Iterable[Span]) -> list[Span]:
        kept = [s for s in spans if s.score >= self.config.min_score and s.end <= len(text)]
        if self.config.extend_to_word_boundaries:
            kept = [extend_to_word_boundaries(text, s) for s in kept]
        # A span of punctuation alone ("," or "/" between two names) hides nothing; models emit them.
        kept = [s for s in kept if any(ch.isalnum() for ch in text[s.start : s.end]) and not self._allowed(text, s)]
        merged = merge_overlaps(kept, self.rank)
        return merge_touching(text, merged, self.merge_categories)

    def rank(self, span: Span) -> tuple[int, int, float]:
        """Overlap winner order: priority (source + category), then length, then score."""
        priority = source_priority(span.source, self.config.source_priority)
        priority += self.config.category_priority.get(span.category, 0)
        return (priority, len(span), span.score)

    def _allowed(self, text: str, span: Span) -> bool:
        """Whole-span match, or the span plus the next one or two words ("Ewing" + "sarcoma")."""
        if span.source.startswith(DENY_SOURCE) or not self.allow_terms:
            return False
        term = normalize_term(text[span.start : span.end])
        if term in self.allow_terms or _strip_possessive(term) in self.allow_terms:
            return True
        if term not in self._allow_prefixes:
            return False
        following = _NEXT_WORDS.match(text, span.end)
        if following is None:
            return False
        words = following.group(0).split()
        return any(
            normalize_term(" ".join([term, *words[:n]])) in self.allow_terms for n in range(1, len(words) + 1)
        )


def _strip_possessive(term: str) -> str:
    for suffix in ("'s", "\u2019s", "s'"):
        if term.endswith(suffix):
            return term[: -len(suffix)] if suffix != "s'" else term[:-1]
    return term


def source_priority(source: str, priorities: Mapping[str, int]) -> int:
    """Priority of the longest configured prefix of `source` (`rules/ssn` -> `rules/ssn`, `rules`)."""
    parts = source.split("/")
    for n in range(len(parts), 0, -1):
        key = "/".join(parts[:n])
        if key in priorities:
            return priorities[key]
    return 0


def extend_to_word_boundaries(text: str, span: Span) -> Span:
    """Grow a span that starts or ends inside a word (letters/digits) to cover the whole word."""
    start, end = span.start, span.end
    while start > 0 and text[start - 1].isalnum() and text[start].isalnum():
        start -= 1
    while end < len(text) and text[end].isalnum() and text[end - 1].isalnum():
        end += 1
    if (start, end) == (span.start, span.end):
        return span
    return span.with_(start=start, end=end)


def merge_overlaps(spans: Sequence[Span], rank: Callable[[Span], tuple]) -> list[Span]:
    """Merge each group of overlapping spans into one: union extent, category of the best-ranked."""
    result: list[Span] = []
    group: list[Span] = []
    group_end = -1
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if group and span.start >= group_end:
            result.append(_merge_group(group, rank))
            group = []
        group.append(span)
        group_end = max(group_end, span.end) if len(group) > 1 else span.end
    if group:
        result.append(_merge_group(group, rank))
    return result


def _merge_group(group: list[Span], rank: Callable[[Span], tuple]) -> Span:
    if len(group) == 1:
        return group[0]
    best = max(group, key=rank)
    return best.with_(
        start=min(s.start for s in group),
        end=max(s.end for s in group),
        score=max(s.score for s in group),
    )


def merge_touching(text: str, spans: Sequence[Span], categories: Collection[Category]) -> list[Span]:
    """Join same-category neighbours split only by spaces/tabs (`Jane` + `Smith` -> `Jane Smith`)."""
    result: list[Span] = []
    for span in spans:
        prev = result[-1] if result else None
        if (
            prev is not None
            and span.category in categories
            and prev.category == span.category
            and _only_blanks(text[prev.end : span.start])
        ):
            result[-1] = prev.with_(end=span.end, score=max(prev.score, span.score))
        else:
            result.append(span)
    return result


def _only_blanks(gap: str) -> bool:
    return all(ch in " \t" for ch in gap)
