"""The one place that settles conflicts between detectors.

Detectors propose overlapping, possibly ragged spans; the resolver returns one clean, sorted,
non-overlapping set per document. Steps, in order:

1. drop low scores; grow spans that stop inside a word to the whole word (and a person's name
   over its hyphen: SOO-JIN);
2. clean the edges (`radeid.core.edges`): cut at field separators (line break, tab, a run of spaces,
   a label colon), strip edge whitespace and punctuation, leave a possessive 's outside a name;
3. drop allow-listed terms;
4. protected content (`radeid.resolve.protected`): a span inside it is dropped, a span that
   overlaps its edge loses the protected part, unless the span comes from a strong source
   (`strong_sources`: a validated, cued rule or the user's deny list);
5. form checks (`radeid.patterns.forms`) on model spans and on every span trimmed in step 4;
6. merge overlapping spans (the highest-priority span names the category, the extent is the
   union so no detected character is lost), then join same-category neighbours separated by a
   single space (never a tab, a run of spaces or a line break: those separate fields);
7. propagate (`radeid.resolve.propagation`): every other mention of a detected name, ID, street or
   facility in the document is detected too, unless the allow list or protected content holds it.

Before step 3 a model's piece of a date or facility name grows to the whole entity
(`radeid.resolve.completion`); in step 5 a gazetteer place in a place context outweighs the
common-word check (`radeid.patterns.gazetteer`, `radeid.resolve.evidence`). Spans of strong sources
skip steps 3-5.

Kept as one module (about 540 lines): the steps that share the resolver's state (strong sources,
protected intervals, the trace) stay in this module; joining final neighbours is
`radeid.resolve.joins`, splitting bridged groups `radeid.resolve.bridges`.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from radeid.config.config import Config
from radeid.config.sections import ResolverConfig
from radeid.core.categories import Category
from radeid.core.document import Span
from radeid.core.edges import clean_edges, extend_to_word_boundaries, tighten
from radeid.core.resources import bundled_data_path, read_word_list
from radeid.patterns.forms import FormChecker, only_function_words
from radeid.resolve.bridges import split_bridged
from radeid.resolve.completion import complete
from radeid.resolve.evidence import address_number, id_suffix, place_evidence, short_number, street_name_word
from radeid.resolve.joins import PARTICLE_WORDS, attach_particles, drop_credentials, merge_touching
from radeid.resolve.propagation import propagate
from radeid.resolve.protected import ProtectedContent, covering, merge_intervals
from radeid.resolve.trace import Decision

#: Up to two words after a span, on the same line, to test eponym phrases like "Baker cyst".
_NEXT_WORDS = re.compile(r"(?:[ \t]+[\w'-]+){1,2}")

#: Spans from this source are the user's explicit decision and are never allow-listed away.
DENY_SOURCE = "lexicon/deny"

#: An ensemble span's source is `ensemble/<strategy>/<member source>`: the member span that named it.
ENSEMBLE_SOURCE = "ensemble/"


def member_source(source: str) -> str:
    """The member source inside an ensemble span's source (`ensemble/vote:2/rules/date_iso` ->
    `rules/date_iso`), so strong sources, form checks and priorities judge an ensemble span by the
    member that named it; any other source as it is."""
    if source.startswith(ENSEMBLE_SOURCE):
        parts = source.split("/", 2)
        if len(parts) == 3:
            return parts[2]
    return source


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

    def __init__(
        self,
        config: ResolverConfig,
        allow_terms: Collection[str] | None = None,
        *,
        protected: ProtectedContent | None = None,
        forms: FormChecker | None = None,
    ) -> None:
        self.config = config
        self.protected = protected
        self.forms = forms
        self._strong = _glob_regex(config.strong_sources)
        self._form_checked = _glob_regex(config.form_check_sources)
        self.allow_terms = frozenset(allow_terms) if allow_terms is not None else load_allow_list(config)
        # Word prefixes of multi-word terms ("baker" of "baker cyst"): only spans equal to one of
        # these need the look at the following words, which keeps the common case to one lookup.
        self._allow_prefixes = frozenset(
            " ".join(words[:n]) for words in (t.split() for t in self.allow_terms) for n in range(1, len(words))
        )
        # The terms and their possessives ("crohn" -> "crohn's", "crohn’s"; "graves" -> "graves'"):
        # one lookup answers "the term, or the term without its possessive ending"
        self._allow_or_possessive = possessive_forms(self.allow_terms)
        self.merge_categories = frozenset(config.merge_categories)
        # Per source, which never changes its answer: a document has many spans of few sources.
        self._strong_of: dict[str, bool] = {}
        self._form_checked_of: dict[str, bool] = {}

    @classmethod
    def from_config(cls, config: Config) -> Resolver:
        """The resolver of a whole configuration: protected content and form checks included."""
        protected = None
        if config.resolver.protected:
            protected = ProtectedContent.from_files(
                config.protected_files,
                include_bundled=config.protected.include_bundled,
                disabled_classes=config.protected.disabled_classes,
                disabled=config.protected.disabled,
                language=None,  # config.protected_files starts with the language pack's files
            )
        forms = None
        if config.resolver.form_check_sources:
            forms = FormChecker(config.rules.age_threshold, check_common_words=config.resolver.common_word_check)
        return cls(config.resolver, protected=protected, forms=forms)

    def resolve(self, text: str, spans: Iterable[Span], trace: list[Decision] | None = None) -> list[Span]:
        """The final spans of `text`; every change to a proposal is appended to `trace` when given."""
        kept = self._score_and_extend(text, list(spans), trace)
        kept = self._complete(text, kept, trace)
        kept, trimmed = self._clean_and_allow(text, kept, trace)
        if self.protected is not None and kept:
            kept, cut = self._apply_protected(text, kept, trace)
            trimmed |= cut
        particles: list[Span] = []  # particles a form check dropped ("la", "van"): a name after them takes them
        if self.forms is not None:
            kept = self._form_check(text, kept, trimmed, self.forms, trace, particles)
        merged = merge_overlaps(kept, self.rank, trace, self._is_anchor, text)
        joined = merge_touching(text, merged, self.merge_categories, trace)
        if particles:
            joined = attach_particles(text, joined, particles, trace)
        final = drop_credentials(text, joined, trace)
        if self.config.propagate and final:
            final = self._propagate(text, final, trace)
        return final

    def _score_and_extend(self, text: str, proposals: list[Span], trace: list[Decision] | None) -> list[Span]:
        """Step 1: low scores (and spans past the text) go, and a span that stops inside a word grows to it."""
        kept = [s for s in proposals if s.score >= self.config.min_score and s.end <= len(text)]
        if trace is not None and len(kept) != len(proposals):
            trace.extend(Decision("score", "dropped", s, ()) for s in proposals if s not in kept)
        if self.config.extend_to_word_boundaries:
            grown = [extend_to_word_boundaries(text, s) for s in kept]
            if trace is not None:
                changed = ((a, b) for a, b in zip(kept, grown, strict=True) if a != b)
                trace.extend(Decision("extend", "extended", a, (b,)) for a, b in changed)
            kept = grown
        return kept

    def _complete(self, text: str, kept: list[Span], trace: list[Decision] | None) -> list[Span]:
        """A model's piece of a date or facility grows to the whole entity (two dates split) before any judging."""
        completed: list[Span] = []
        for span in kept:
            whole = complete(text, span, model=self._is_form_checked(span) and not self.is_strong(span))
            if trace is not None and whole != [span]:
                trace.append(Decision("complete", "extended", span, tuple(whole), span.category.value.lower()))
            completed.extend(whole)
        return completed

    def _clean_and_allow(
        self, text: str, kept: list[Span], trace: list[Decision] | None
    ) -> tuple[list[Span], set[tuple[int, int, Category, str]]]:
        """Steps 2-3: edges cleaned, allow-listed pieces dropped; with the keys of split pieces, form-checked later."""
        # Edge cleaning also drops spans of punctuation alone ("," or "/" between two names); the
        # pieces of a span cut at a field separator are form-checked like trimmed spans.
        cleaned: list[Span] = []
        # keyed with the source: `Span` equality ignores it, and a rule's span must not be taken for
        # the model's trimmed piece at the same offsets (that dropped strong rule dates)
        trimmed: set[tuple[int, int, Category, str]] = set()
        for span in kept:
            pieces = clean_edges(
                text, span, split=self.config.split_fields, strip_lower=self.config.trim_lower_case_edges
            )
            if len(pieces) > 1:
                trimmed.update(map(_key, pieces))
            if trace is not None and pieces != [span]:
                action = "dropped" if not pieces else ("split" if len(pieces) > 1 else "trimmed")
                trace.append(Decision("edges", action, span, tuple(pieces)))
            for piece in pieces:
                if not self.is_strong(piece) and self._allowed(text, piece):
                    if trace is not None:
                        trace.append(Decision("allow_list", "dropped", piece, (), normalize_term(piece.text_in(text))))
                else:
                    cleaned.append(piece)
        return cleaned, trimmed

    def _form_check(
        self,
        text: str,
        kept: list[Span],
        trimmed: set[tuple[int, int, Category, str]],
        forms: FormChecker,
        trace: list[Decision] | None,
        particles: list[Span],
    ) -> list[Span]:
        """Step 5: model spans and trimmed pieces must look like their category, or are relabelled or
        dropped; a dropped particle goes to `particles`, for the name after it."""
        checked: list[Span] = []
        for s in kept:
            if not self.is_strong(s) and (_key(s) in trimmed or self._is_form_checked(s)):
                place = place_evidence(text, s)
                if place is not None:
                    if trace is not None:
                        action = "relabelled" if place != s else "kept"
                        trace.append(Decision("form", action, s, (place,), "gazetteer"))
                    checked.append(place)
                    continue
                failed = forms.failure(text, s)
                relabel = _relabel(text, s, failed, forms) if failed is not None else None
                if relabel is not None:
                    if trace is not None:
                        trace.append(Decision("form", "relabelled", s, (relabel[0],), relabel[1]))
                    checked.append(relabel[0])
                    continue
                if failed is not None:
                    if trace is not None:
                        trace.append(Decision("form", "dropped", s, (), failed))
                    if s.text_in(text).casefold() in PARTICLE_WORDS:
                        particles.append(s)
                    continue
            checked.append(s)
        return checked

    def _propagate(self, text: str, final: list[Span], trace: list[Decision] | None) -> list[Span]:
        """Add the other mentions of the document's detected entities (`radeid.resolve.propagation`);
        each still passes the allow list and protected content."""
        extra = [s for s in propagate(text, final) if not self._allowed(text, s)]
        if extra and self.protected is not None:
            # whole mentions only: one that protected content would trim is left out
            whole = {(e.start, e.end) for e in extra}
            extra = [s for s in self._apply_protected(text, extra)[0] if (s.start, s.end) in whole]
        if not extra:
            return final
        if trace is not None:
            trace.extend(Decision("propagate", "added", None, (s,), s.source.split("/", 1)[-1]) for s in extra)
        return merge_touching(text, sorted([*final, *extra]), self.merge_categories, trace)

    def is_strong(self, span: Span) -> bool:
        """Spans of strong sources (validated cued rules, the deny list) beat protected content."""
        source = span.source
        strong = self._strong_of.get(source)
        if strong is None:
            strong = self._strong.match(source) is not None or self._strong.match(member_source(source)) is not None
            self._strong_of[source] = strong
        return strong

    def _is_anchor(self, span: Span) -> bool:
        """A span whose extent is exact by construction: a rule's, or a strong source's."""
        return span.source.startswith("rules/") or self.is_strong(span)

    def _is_form_checked(self, span: Span) -> bool:
        source = span.source
        checked = self._form_checked_of.get(source)
        if checked is None:
            checked = bool(self._form_checked.match(source) or self._form_checked.match(member_source(source)))
            self._form_checked_of[source] = checked
        return checked

    def _apply_protected(
        self, text: str, spans: list[Span], trace: list[Decision] | None = None
    ) -> tuple[list[Span], set[tuple[int, int, Category, str]]]:
        """Drop spans inside protected content; settle spans that overlap its edges.

        A clinical value at a span's edge is cut off (the rest is form-checked by the caller); a
        clinical word at an edge ("soft" patterns) leaves the span whole unless the rest of it is
        only function words, because such words are often part of a proper name.
        """
        assert self.protected is not None
        weak = [s for s in spans if not self.is_strong(s)]
        if not weak:
            return spans, set()
        found = self.protected.find_near(text, weak)
        if not found:
            return spans, set()
        every = _Intervals((p.start, p.end) for p in found)
        hard = _Intervals((p.start, p.end) for p in found if not p.soft)
        soft = _Intervals((p.start, p.end) for p in found if p.soft)
        kept: list[Span] = []
        trimmed: set[tuple[int, int, Category, str]] = set()

        def note(span: Span, after: tuple[Span, ...]) -> None:
            if trace is not None:
                reason = ",".join(
                    sorted({f"{p.klass}/{p.name}" for p in found if p.start < span.end and span.start < p.end})
                )
                trace.append(Decision("protected", "trimmed" if after else "dropped", span, after, reason))

        for span in spans:
            if self.is_strong(span) or not every.overlapping(span.start, span.end):
                kept.append(span)
                continue
            settled = None if every.contains(span.start, span.end) else _cut_protected(text, span, hard, soft)
            if settled is None:
                note(span, ())
                continue
            start, end = settled
            if (start, end) == (span.start, span.end):
                kept.append(span)
            else:
                piece = span.with_(start=start, end=end)
                kept.append(piece)
                trimmed.add(_key(piece))
                note(span, (piece,))
        return kept, trimmed

    def rank(self, span: Span) -> tuple[int, int, float]:
        """Overlap winner order: priority (source + category), then length, then score."""
        priority = source_priority(span.source, self.config.source_priority)
        if not priority and span.source.startswith(ENSEMBLE_SOURCE):
            priority = source_priority(member_source(span.source), self.config.source_priority)
        priority += self.config.category_priority.get(span.category, 0)
        return (priority, len(span), span.score)

    def _allowed(self, text: str, span: Span) -> bool:
        """Whole-span match, or the span plus the next one or two words ("Ewing" + "sarcoma")."""
        if span.source.startswith(DENY_SOURCE) or not self.allow_terms:
            return False
        term = normalize_term(text[span.start : span.end])
        if term in self._allow_or_possessive:  # a term, or a term's possessive
            return True
        if term not in self._allow_prefixes:
            return False
        following = _NEXT_WORDS.match(text, span.end)
        if following is None:
            return False
        words = following.group(0).split()
        return any(normalize_term(" ".join([term, *words[:n]])) in self.allow_terms for n in range(1, len(words) + 1))


def _key(span: Span) -> tuple[int, int, Category, str]:
    """A span's identity with its source (`Span` equality leaves the source out)."""
    return (span.start, span.end, span.category, span.source)


def possessive_forms(terms: Collection[str]) -> frozenset[str]:
    """`terms` and their possessives: "term's", "term’s", and "terms'" for a term ending in s. A
    span's text is allowed when it is a term or a term's possessive: one lookup in this set."""
    forms = set(terms)
    for term in terms:
        forms.update((term + "'s", term + "\u2019s"))
        if term.endswith("s"):
            forms.add(term + "'")
    return frozenset(forms)


def source_priority(source: str, priorities: Mapping[str, int]) -> int:
    """Priority of the longest configured prefix of `source` (`rules/ssn` -> `rules/ssn`, `rules`)."""
    parts = source.split("/")
    for n in range(len(parts), 0, -1):
        key = "/".join(parts[:n])
        if key in priorities:
            return priorities[key]
    return 0


def merge_overlaps(
    spans: Sequence[Span],
    rank: Callable[[Span], tuple[Any, ...]],
    trace: list[Decision] | None = None,
    anchor: Callable[[Span], bool] | None = None,
    text: str | None = None,
) -> list[Span]:
    """Merge each group of overlapping spans into one: union extent, category of the best-ranked.
    With `anchor` (rule spans), a group whose weak span bridges anchors of different categories is
    merged per anchor cluster and the bridge dropped (`radeid.resolve.bridges`)."""
    result: list[Span] = []
    group: list[Span] = []
    group_end = -1

    def close() -> None:
        if anchor is not None and len(group) > 2:
            parts, bridges = split_bridged(group, anchor, partial(_bridge_pieces, text) if text is not None else None)
        else:
            parts, bridges = [group], []
        for part in sorted(parts, key=lambda p: min(s.start for s in p)):
            merged = _merge_group(part, rank)
            if trace is not None and len(part) > 1:
                trace.extend(Decision("merge", "merged", s, (merged,)) for s in part)
            result.append(merged)
        if trace is not None:  # a bridge is dropped; its pieces outside the rule spans are spans of their own
            trace.extend(Decision("merge", "dropped", s, (), "bridge") for s in bridges)

    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if group and span.start >= group_end:
            close()
            group = []
        group.append(span)
        group_end = max(group_end, span.end) if len(group) > 1 else span.end
    if group:
        close()
    return result


def _bridge_pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A bridge's pieces outside the rule spans: the runs of words with a capital or a digit (a
    name, a number), tightened. Lower-case words between two rule spans ("Ramos el 3 de": " el ")
    are not PHI, nor is a run of abbreviations alone ("Dr.")."""
    pieces: list[tuple[int, int]] = []
    run: list[re.Match[str]] = []
    for m in [*_PIECE_WORD.finditer(text, start, end), None]:
        if m is not None and any(ch.isupper() or ch.isdigit() for ch in m.group()):
            run.append(m)
            continue
        if run and not all(_ABBREVIATION.fullmatch(w.group()) for w in run):
            a, b = tighten(text, run[0].start(), run[-1].end())
            if b > a and not only_function_words(text[a:b]):
                pieces.append((a, b))
        run = []
    return pieces


_PIECE_WORD = re.compile(r"[^\s,;:()]+")
_ABBREVIATION = re.compile(r"[^\W\d_]{1,4}\.")


def _merge_group(group: list[Span], rank: Callable[[Span], tuple[Any, ...]]) -> Span:
    if len(group) == 1:
        return group[0]
    best = max(group, key=rank)
    return best.with_(
        start=min(s.start for s in group),
        end=max(s.end for s in group),
        score=max(s.score for s in group),
    )


def _relabel(text: str, span: Span, failed: str, forms: FormChecker) -> tuple[Span, str] | None:
    """What a span that failed its category's form check is instead, with the reason, or None (drop it)."""
    if failed in ("phone", "ip", "url", "email", "age") and (
        address_number(text, span) or street_name_word(text, span)
    ):
        # a house number, floor or street-name word on an address line ("Calle Electra, 1 - 4º L")
        return span.with_(category=Category.LOCATION, subtype=None), f"{failed}_address_number"
    if failed == "ip" and forms.failure(text, phone := span.with_(category=Category.PHONE)) is None:
        return phone, "ip_phone"  # a phone written with dots ("670.97.10.26"), no address
    if failed == "phone" and (short_number(text, span) or id_suffix(text, span)):
        # a number too short for a phone (a postcode, a house number, an ID's end) that no protected
        # pattern claimed: PHI of another shape, kept as an ID
        return span.with_(category=Category.ID, subtype=None), "phone_short_number"
    words = span.text_in(text)
    if (
        failed in ("email", "url", "ip", "phone")
        and not any(ch.isdigit() for ch in words)
        and sum(ch.isalpha() for ch in words) > 1
    ):
        # words the model gave a shape category ("Almansa" as an e-mail): judged as a name instead;
        # a capitalised word that is no common word stays
        name = span.with_(category=Category.PATIENT, subtype=None)
        if forms.failure(text, name) is None:
            return name, f"{failed}_to_name"
    return None


_PUNCTUATION_GAP = re.compile(r"[,;|/()\-\u2013\u2014]")
_GAP_CHARS = " \t,;|/()-\u2013\u2014"


def _cut_protected(text: str, span: Span, hard: _Intervals, soft: _Intervals) -> tuple[int, int] | None:
    """The extent of `span` left once protected content at its edges is cut off; None when no PHI is left."""
    start, end = hard.cut_edges(span.start, span.end)
    if _inside_word(text, start) or _inside_word(text, end):
        return None  # the cut left a fragment of a word ("4007" of a longer code): no PHI
    start, end = tighten(text, start, end)
    if end <= start or not any(ch.isalnum() for ch in text[start:end]):
        return None
    rest_start, rest_end = soft.cut_edges(start, end)
    if (rest_start, rest_end) != (start, end):
        if only_function_words(text[rest_start:rest_end]):
            return None
        # a clinical word set off by punctuation is a field of its own ("Riverbend Hospital,
        # IR Suite 2", "Larkspur Hospital - Medicine Service"): cut it off; joined by a plain
        # space it is part of a name ("Lakeside Neurology") and the span stays whole
        if _set_off(text, start, end, rest_start, rest_end):
            start, end = tighten(text, rest_start, rest_end)
            if end <= start:
                return None
    return start, end


def _set_off(text: str, start: int, end: int, rest_start: int, rest_end: int) -> bool:
    """Whether a part cut at an edge was separated from the kept rest by punctuation."""
    kept = text[rest_start:rest_end]
    lead = kept[: len(kept) - len(kept.lstrip(_GAP_CHARS))] if rest_start > start else ""
    trail = kept[len(kept.rstrip(_GAP_CHARS)) :] if rest_end < end else ""
    return bool(_PUNCTUATION_GAP.search(lead) or _PUNCTUATION_GAP.search(trail))


def _inside_word(text: str, offset: int) -> bool:
    return 0 < offset < len(text) and text[offset - 1].isalnum() and text[offset].isalnum()


class _Intervals:
    """Disjoint protected intervals with the three questions the resolver asks of them."""

    def __init__(self, intervals: Iterable[tuple[int, int]]) -> None:
        self.intervals = merge_intervals(intervals)
        self.starts = [a for a, _ in self.intervals]

    def overlapping(self, start: int, end: int) -> list[tuple[int, int]]:
        return covering(self.intervals, self.starts, start, end)

    def contains(self, start: int, end: int) -> bool:
        return any(a <= start and end <= b for a, b in self.overlapping(start, end))

    def cut_edges(self, start: int, end: int) -> tuple[int, int]:
        """`[start, end)` without the intervals that cover its first or last character."""
        hits = self.overlapping(start, end)
        for a, b in hits:
            if a <= start < b:
                start = b
        for a, b in reversed(hits):
            if a < end <= b:
                end = a
        return start, max(start, end)


def _glob_regex(patterns: Iterable[str]) -> re.Pattern[str]:
    """One regex for source globs (`rules/date_*`); a glob also matches its `glob/...` children."""
    parts = [fnmatch.translate(p).removesuffix(r"\Z") + r"(?:/.*)?\Z" for p in patterns]
    return re.compile("|".join(f"(?:{p})" for p in parts) if parts else "(?!)", re.DOTALL)
