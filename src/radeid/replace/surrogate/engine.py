"""`SurrogateReplacer`: hide in plain sight.

Kept as one module (about 590 lines): one document's replacement is one sequence (contexts, names,
generation, redraws, separation, finishing) whose steps share its state; the seam, if it grows, is
the `--length-preserving` finishing at the bottom.

Each span becomes a realistic fake of its category. Consistency needs no shared state: every
choice is seeded by a keyed hash of (scope, normalised original) under the user's key (see
`keyed.Keyed`: an HMAC-SHA256 subkey per scope, then keyed BLAKE2b), the scope being the patient (or the
document when it has no patient, or nothing in corpus scope; `[surrogate.scope]` sets it per
category, dates and ages always following the patient), so one patient gets the same fake
name, MRN and date shift in every document, in any order, on any machine. A document without a
patient id may take its first MRN as its patient key (`[io] patient_from = "mrn"`); an original
in the user's dictionary (`[surrogate] replacements`) gets the user's surrogate as written. Within a document a
short-lived memory links mentions of one entity ("Dr. Jane Smith", "Smith", "J. Smith") and
keeps every surrogate away from the document's real PHI strings.

Per document: one pass parses every span (names are planned together), one pass generates. A
per-instance cache keeps per-scope values (date offset, letter permutation); it is a cache of
pure functions, so results never depend on which documents came before.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable, Sequence
from importlib import import_module
from typing import TYPE_CHECKING

from radeid.config.sections import SurrogateOptions
from radeid.core.categories import Category
from radeid.core.document import Document, Result, Span, replacements_of
from radeid.core.registry import Registry
from radeid.replace.surrogate.base import LENGTH_DRAWS_FROM, Generator, SurrogateContext
from radeid.replace.surrogate.dates import AgeGenerator, DateGenerator
from radeid.replace.surrogate.dictionary import Replacements, mrn_patient
from radeid.replace.surrogate.identifiers import (
    EmailGenerator,
    IdGenerator,
    IpGenerator,
    PhoneGenerator,
    UrlGenerator,
)
from radeid.replace.surrogate.initials import is_transcription_initials, render_initials
from radeid.replace.surrogate.keyed import (
    SCOPE_CACHE_LIMIT,
    Keyed,
    KeyStream,
    apply_case,
    ascii_initial,
    case_style,
    fold,
    fold_name,
)
from radeid.replace.surrogate.leaks import leaked_tokens
from radeid.replace.surrogate.memory import DocumentMemory
from radeid.replace.surrogate.names import (
    NameMention,
    length_pools,
    letter_map,
    mention_requests,
    name_pools,
    parse_name,
    plan_parts,
    render_mention,
    settle_genders,
    settle_roles,
)
from radeid.replace.surrogate.place_kinds import names_a_facility
from radeid.replace.surrogate.shift_table import read_shift_table

if TYPE_CHECKING:
    from radeid.config.config import Config

__all__ = ["GENERATORS", "SurrogateOptions", "SurrogateReplacer"]

_NAME_CATEGORIES = frozenset({Category.PATIENT, Category.HCW})
_TYPO_CATEGORIES = frozenset({Category.PATIENT, Category.HCW, Category.HOSPITAL, Category.LOCATION, Category.VENDOR})
_MAX_ATTEMPTS = 12
_EMAIL_WORD = re.compile(r"[^\W\d_]{2,}")
_KEYBOARD = {
    "a": "qwsz", "b": "vghn", "c": "xdfv", "d": "serfcx", "e": "wsdr", "f": "drtgvc", "g": "ftyhbv",
    "h": "gyujnb", "i": "ujko", "j": "huikmn", "k": "jiolm", "l": "kop", "m": "njk", "n": "bhjm",
    "o": "iklp", "p": "ol", "q": "wa", "r": "edft", "s": "awedxz", "t": "rfgy", "u": "yhji",
    "v": "cfgb", "w": "qase", "x": "zsdc", "y": "tghu", "z": "asx",
}  # fmt: skip


#: Surrogate generators by category name: a factory `(options) -> Generator`. Names (PATIENT,
#: HCW) are planned together per document by the engine itself and are not in here.
GeneratorFactory = Callable[[SurrogateOptions], Generator]
GENERATORS: Registry[GeneratorFactory] = Registry("surrogate generator")
GENERATORS.add(Category.DATE.value, lambda options: DateGenerator(options.day_first))
GENERATORS.add(Category.AGE.value, lambda options: AgeGenerator(options.age_mode == "aggregate"))
GENERATORS.add(Category.ID.value, lambda options: IdGenerator())
GENERATORS.add(Category.PHONE.value, lambda options: PhoneGenerator())
GENERATORS.add(Category.EMAIL.value, lambda options: EmailGenerator())
GENERATORS.add(Category.URL.value, lambda options: UrlGenerator())
GENERATORS.add(Category.IP.value, lambda options: IpGenerator())


def _place_generator(name: str, module: str = "places") -> GeneratorFactory:
    """Place and vendor generators load Faker pools: their module is imported only when first
    needed."""

    def make(options: SurrogateOptions) -> Generator:
        made: Generator = getattr(import_module(f"radeid.replace.surrogate.{module}"), name)(options.locale)
        return made

    return make


GENERATORS.add(Category.HOSPITAL.value, _place_generator("HospitalGenerator"))
GENERATORS.add(Category.LOCATION.value, _place_generator("LocationGenerator"))
GENERATORS.add(Category.VENDOR.value, _place_generator("VendorGenerator", "vendors"))


class SurrogateReplacer:
    """The default replacer of `radeid deid`: realistic, consistent, keyed surrogates.

    `stats` counts events per instance (documents, spans, unparseable dates, retries), never
    text. The key is the user's secret; it is used through derived subkeys only and never shown.
    """

    def __init__(self, key: bytes, options: SurrogateOptions | None = None, patient_from: str = "") -> None:
        self.options = options if options is not None else SurrogateOptions()
        self._patient_from = patient_from
        self._dictionary = Replacements.load(self.options.replacements)
        self._keyed = Keyed(key)
        self._fixed = self.options.fixed_shift()
        self._table = read_shift_table(self.options.date_shifts) if self.options.date_shifts else {}
        self._finishing = self.options.typo_rate > 0 or self.options.length_preserving
        self._pools = name_pools(self.options.locale)
        self.stats: Counter[str] = Counter()
        self._letters: dict[str, dict[str, str]] = {}
        self._shifts: dict[str, tuple[int, int]] = {}
        self._generators: dict[Category, Generator] = {}
        # a second ("corpus") context is built per document only when some category uses it
        self._scopes = {c: self.options.scope_of(c) for c in Category}
        self._any_corpus = "corpus" in self._scopes.values()

    @classmethod
    def from_config(cls, config: Config, key: bytes | None) -> SurrogateReplacer:
        """The `surrogate` replacement mode: `config.surrogate` options under `key`."""
        if not key:
            raise ValueError("surrogate mode needs a key")
        return cls(key, config.surrogate, config.io.patient_from)

    def __repr__(self) -> str:
        return f"SurrogateReplacer(options={self.options!r})"

    # -- per-scope values (pure functions of key and scope, cached) -------------------------------

    def _letter_map(self, scope: str) -> dict[str, str]:
        found = self._letters.get(scope)
        if found is None:
            if len(self._letters) > SCOPE_CACHE_LIMIT:
                self._letters.clear()
            found = self._letters[scope] = letter_map(self._keyed, scope, self._pools)
        return found

    def date_offset(self, patient_id: str | None, document_id: str = "") -> int:
        """The date shift in days of a patient (or of a document without one); never 0 in
        "patient" mode. For audits and tests: the shift itself is never written anywhere."""
        scope = f"patient:{patient_id}" if patient_id else f"document:{document_id}"
        return self._patient_shifts(scope)[0]

    def _patient_shifts(self, patient_scope: str) -> tuple[int, int]:
        found = self._shifts.get(patient_scope)
        if found is None:
            if len(self._shifts) > SCOPE_CACHE_LIMIT:
                self._shifts.clear()
            stream = self._keyed.stream(patient_scope, "patient-shift")
            if self._fixed is None:
                magnitude = 1 + stream.below(self.options.max_shift_days)
                offset = magnitude if stream.below(2) else -magnitude
            else:
                offset = self._fixed
            if self._table and patient_scope.startswith("patient:"):  # --date-shifts: the user's shift
                offset = self._table.get(patient_scope[len("patient:") :], offset)
            found = self._shifts[patient_scope] = (offset, 1 + stream.below(5))
        return found

    def _generator(self, category: Category) -> Generator:
        gen = self._generators.get(category)
        if gen is None:
            self._generators[category] = gen = GENERATORS.get(category.value)(self.options)
        return gen

    # -- the replacer -----------------------------------------------------------------------------

    def replace(self, document: Document, spans: Sequence[Span]) -> Result:
        """Replace every span (sorted, non-overlapping) of `document` with a surrogate."""
        return self.replace_among(document, spans, spans)

    def replace_among(self, document: Document, spans: Sequence[Span], every: Sequence[Span]) -> Result:
        """Replace `spans`, some of the document's spans `every` (the rest replaced by other modes,
        `[replace.categories]`): `every` is where the patient's MRN is found (`patient_from = "mrn"`)."""
        text = document.text
        spans = list(spans)
        if spans and max([span.end for span in spans]) > len(text):
            raise ValueError("a span reaches past the end of the document text")
        contexts = self._contexts(document, spans, every)
        originals = contexts["patient"].memory.originals
        work = self._facility_names(spans, originals)
        names = self._plan_all_names(document, work, contexts)
        given: list[str | None] = [None] * len(spans)
        if self._dictionary:
            given = [self._dictionary.get(span.category, originals[i]) for i, span in enumerate(spans)]
        ctx_of = {c: contexts[self._scopes[c]] for c in {span.category for span in work}}
        parsed: list[object] = [None] * len(spans)
        for i, span in enumerate(work):
            if given[i] is None and i not in names:
                parsed[i] = self._generator(span.category).parse(originals[i], span, ctx_of[span.category])

        news: list[str] = []
        for i, span in enumerate(work):
            own = given[i]
            if own is not None:  # the user's own replacement, exactly as written
                self.stats["dictionary"] += 1
                news.append(own)
            else:
                news.append(names.get(i) or self._generate(span, parsed[i], originals[i], ctx_of[span.category]))
        fixed = set(names)
        if self._dictionary:
            fixed |= {i for i, own in enumerate(given) if own is not None}
        self._separate(work, parsed, news, fixed, ctx_of)
        if self._finishing:
            news = [
                new if given[i] is not None else self._finish(new, originals[i], work[i], ctx_of[work[i].category])
                for i, new in enumerate(news)
            ]
        replacements = replacements_of(spans, news)
        self.stats["documents"] += 1
        self.stats["spans"] += len(spans)
        return Result.build(document, replacements)

    def _contexts(self, document: Document, spans: list[Span], every: Sequence[Span]) -> dict[str, SurrogateContext]:
        """The document's contexts by scope name: "patient" (the patient, else the document) and
        "corpus" (one scope for the whole corpus), sharing one document memory."""
        patient = document.patient_id
        if not patient and self._patient_from == "mrn":
            patient = mrn_patient(document.text, every)
        # a patient "p1" and a document "p1" without a patient are different scopes
        patient_scope = f"patient:{patient}" if patient else f"document:{document.id}"
        offset, age_shift = self._patient_shifts(patient_scope)
        memory = DocumentMemory.build(document.text, spans)
        contexts: dict[str, SurrogateContext] = {}
        names = (
            (("patient", patient_scope), ("corpus", "corpus")) if self._any_corpus else (("patient", patient_scope),)
        )
        for name, scope in names:
            contexts[name] = SurrogateContext(
                keyed=self._keyed,
                options=self.options,
                document=document,
                scope=scope,
                patient_scope=patient_scope,
                date_offset=offset,
                age_shift=age_shift,
                letters=self._letter_map(scope),
                memory=memory,
                stats=self.stats,
            )
        return contexts

    def _plan_all_names(
        self, document: Document, spans: list[Span], contexts: dict[str, SurrogateContext]
    ) -> dict[int, str]:
        """Person names planned together, or patients and staff apart when their scopes differ."""
        patients, staff = self._scopes[Category.PATIENT], self._scopes[Category.HCW]
        if patients == staff:
            return self._plan_names(document, spans, contexts[patients], _NAME_CATEGORIES)
        names = self._plan_names(document, spans, contexts[patients], frozenset({Category.PATIENT}))
        names.update(self._plan_names(document, spans, contexts[staff], frozenset({Category.HCW}), False))
        return names

    def _facility_names(self, spans: list[Span], originals: list[str]) -> list[Span]:
        """The spans as generated: a person-name span that names a practice or facility
        ("Westbury Family Medicine") is made as a facility, so it stays one (the audit keeps the
        detected category)."""
        locale = self.options.locale
        routed = [
            i
            for i, span in enumerate(spans)
            if span.category in _NAME_CATEGORIES and names_a_facility(originals[i], locale)
        ]
        if not routed:
            return spans
        work = list(spans)
        for i in routed:
            work[i] = dataclasses.replace(spans[i], category=Category.HOSPITAL, subtype=None)
        return work

    def _generate(self, span: Span, parsed: object, original: str, ctx: SurrogateContext) -> str:
        gen = self._generator(span.category)
        new = gen.generate(parsed, ctx, 0)
        if gen.realism_check:
            for attempt in range(1, _MAX_ATTEMPTS):
                if new != original and new.casefold() not in ctx.memory.forbidden:
                    if not leaked_tokens(original, new, span.category):
                        break
                    self.stats["leak_retries"] += 1
                else:
                    self.stats["realism_retries"] += 1
                new = gen.generate(parsed, ctx, attempt)
            else:
                if leaked_tokens(original, new, span.category):
                    self.stats["leaks_left"] += 1
        if self.options.length_preserving and len(new) != len(original) and span.category in _WORD_CATEGORIES:
            new = self._same_length(gen, parsed, original, new, ctx)
        return new

    def _separate(
        self,
        spans: list[Span],
        parsed: list[object],
        news: list[str],
        fixed: set[int],
        ctx_of: dict[Category, SurrogateContext],
    ) -> None:
        """Distinct originals of one category never share a surrogate in a document ("Siemens" and
        "Philips" both "Quantivo" would merge two vendors). Of originals that drew the same fake,
        the one first in folded order keeps it, so the outcome does not depend on text order;
        the others draw again. Dates are exempt: one shift maps distinct dates apart, and two
        spellings of one date rightly meet. Names are kept apart by the name planner; the user's
        own replacements (`fixed` too) are written as given."""
        candidates = [i for i, span in enumerate(spans) if i not in fixed and span.category not in _SEPARATE_EXEMPT]
        if not candidates:
            return
        originals = next(iter(ctx_of.values())).memory.originals
        # one cheap test first: most documents give every candidate its own fake (and a fake
        # shared only by spans of one original text is no clash either)
        fakes = {news[i].casefold() for i in candidates}
        if len(fakes) == len(candidates) or len(fakes) == len(
            {(news[i].casefold(), originals[i].casefold()) for i in candidates}
        ):
            return
        owners: dict[tuple[Category, str], str] = {}
        for i in sorted(candidates, key=lambda i: (fold(originals[i]), i)):
            span, original = spans[i], originals[i]
            ctx = ctx_of[span.category]
            key = fold(original)
            attempt = _SEPARATE_DRAWS_FROM
            while owners.setdefault((span.category, news[i].casefold()), key) != key:
                if attempt >= _SEPARATE_DRAWS_FROM + _MAX_ATTEMPTS:
                    self.stats["shared_left"] += 1
                    break
                self.stats["shared_retries"] += 1
                new = self._generator(span.category).generate(parsed[i], ctx, attempt)
                attempt += 1
                if new.casefold() not in ctx.memory.forbidden and not leaked_tokens(original, new, span.category):
                    news[i] = new

    def _same_length(self, gen: Generator, parsed: object, original: str, first: str, ctx: SurrogateContext) -> str:
        """`--length-preserving`: more keyed draws of the generator (attempts past the realism
        retries: derived streams, so still a pure function of key, scope and original), the
        first of the original's length wins; else the first that fits by dropping whole words;
        else `first`, left to `_fit`'s padding."""
        length = len(original)
        least = len(_RUN.findall(original))
        fallback, closest = "", first
        for attempt in range(_LENGTH_DRAWS_FROM, _LENGTH_DRAWS_FROM + _LENGTH_DRAWS_MAX):
            if attempt >= _LENGTH_DRAWS_FROM + _LENGTH_DRAWS and (fallback or len(closest) < length):
                break  # enough tries: something that fits without cutting a word is at hand
            new = first if attempt == _LENGTH_DRAWS_FROM else gen.generate(parsed, ctx, attempt)
            if gen.realism_check and (new == original or new.casefold() in ctx.memory.forbidden):
                continue
            if len(new) == length:
                return new
            if not fallback and len(new) > length:
                dropped = _drop_words(new, length, least)
                if len(dropped) == length:
                    fallback = dropped
            if len(new) < length and (len(closest) > length or len(new) > len(closest)):
                closest = new  # the nearest shorter one needs the least padding
        return fallback or closest

    def _plan_names(
        self,
        document: Document,
        spans: list[Span],
        ctx: SurrogateContext,
        categories: frozenset[Category],
        emails_too: bool = True,
    ) -> dict[int, str]:
        """All person names of `categories` at once: roles and genders settled from every
        mention, each distinct part mapped once, then every mention rendered in its form."""
        text = document.text
        pools = self._pools
        indexes = [i for i, s in enumerate(spans) if s.category in categories]
        email = Category.EMAIL if emails_too else None  # a local: an enum member costs a lookup per span
        emails = [i for i, s in enumerate(spans) if s.category is email]
        if not indexes and not emails:
            return {}
        out = self._initials(indexes, spans, ctx)  # "MSC/jrt": initials, not names
        if out:
            indexes = [i for i in indexes if i not in out]
            if not indexes and not emails:
                return out
        mentions: list[NameMention] = [
            parse_name(ctx.memory.originals[i], text[max(0, spans[i].start - 12) : spans[i].start], pools)
            for i in indexes
        ]
        settle_roles(mentions, pools)
        settle_genders(mentions, pools, ctx.keyed, ctx.scope, text, [spans[i] for i in indexes])
        lp = self.options.length_preserving
        excluded = {w.norm for m in mentions for w in m.words if len(w.norm) > 1}
        requests = [r for m in mentions for r in mention_requests(m, lp)]
        email_keys: dict[str, tuple[str, str, str]] = {}
        for i in emails:
            local = ctx.memory.originals[i].rpartition("@")[0]
            for m in _EMAIL_WORD.finditer(local):
                norm = fold_name(m.group())
                label = pools.gender.get(norm)
                role = "given" if label else "surname"
                gender = ""
                if role == "given":
                    gender = label if label in ("F", "M", "U") else "U"
                requests.append((role, gender, norm, ascii_initial(m.group()), len(m.group()) * lp))
                email_keys[norm] = (role, gender, norm)
        ctx.memory.name_words = ctx.memory.name_words | excluded
        wide = length_pools(self.options.locale) if lp else None
        parts = plan_parts(requests, pools, ctx.keyed, ctx.scope, ctx.letters, excluded, wide)
        if emails_too:
            ctx.memory.email_words = {norm: parts[key] for norm, key in email_keys.items() if key in parts}

        fallback_letter = self._fallback_for(mentions, ctx)
        for i, mention in zip(indexes, mentions, strict=True):
            original = ctx.memory.originals[i]
            new = render_mention(mention, parts, ctx.letters, fallback_letter)
            if new == original:  # nothing name-like to swap (e.g. a bare title): a fake surname
                stream = ctx.keyed.stream(ctx.scope, "name-fallback", fold(original))
                new = apply_case(stream.choice(pools.surnames), case_style(original))
                self.stats["name_unparsed"] += 1
            out[i] = new
        return out

    def _fallback_for(self, mentions: list[NameMention], ctx: SurrogateContext) -> str:
        """The fallback initial when a mention has an initial outside the scope's map, else "":
        every ASCII initial is in the map, and the keyed draw costs a digest per document."""
        letters = ctx.letters
        if any(w.role == "initial" and w.letter not in letters for m in mentions for w in m.words):
            return self._fallback_letter(ctx)
        return ""

    def _fallback_letter(self, ctx: SurrogateContext) -> str:
        """The initial for a letter outside the scope's permutation (keyed per scope)."""
        rich = self._pools.rich or ("X",)
        return rich[ctx.keyed.stream(ctx.scope, "initial-other").below(len(rich))]

    def _initials(self, indexes: list[int], spans: list[Span], ctx: SurrogateContext) -> dict[int, str]:
        """Transcription initials among the name spans, rendered as initials (`initials.py`)."""
        text = ctx.document.text
        found = [
            i
            for i in indexes
            if text.find("/", max(0, spans[i].start - 1), spans[i].end + 1) >= 0  # the cheap test first
            and is_transcription_initials(text, spans[i].start, spans[i].end)
        ]
        if not found:
            return {}
        fallback = self._fallback_letter(ctx)
        return {i: render_initials(ctx.memory.originals[i], ctx.letters, fallback) for i in found}

    def _finish(self, new: str, original: str, span: Span, ctx: SurrogateContext) -> str:
        """Options applied to every category: typos (training augmentation), then length."""
        options = self.options
        if options.typo_rate > 0 and span.category in _TYPO_CATEGORIES:
            stream = ctx.keyed.stream(ctx.patient_scope, "typo", ctx.document.id, str(span.start))
            if stream.chance(options.typo_rate):
                typo = _typo(new, stream)
                if typo != original:
                    new = typo
                    self.stats["typos"] += 1
        if options.length_preserving and len(new) != len(original):
            if span.category in _WORD_CATEGORIES or span.category in _NAME_CATEGORIES:
                stream = ctx.keyed.stream(ctx.scope, "length-pad", fold(original))
                fitted, how = _fit(new, len(original), stream)
            else:  # dates, ids, numbers: their own format is kept; spaces, or letters trimmed
                fitted, how = _fit_chars(new, len(original)), ""
            if fitted != original:
                new = fitted
                self.stats["length_adjusted"] += 1
                if how:
                    self.stats[f"length_{how}"] += 1
        return new


_SEPARATE_EXEMPT = frozenset({Category.DATE, Category.AGE})
_SEPARATE_DRAWS_FROM = LENGTH_DRAWS_FROM + 256  # past the realism and length draws
_RUN = re.compile(r"[^\W\d_]+")
_WORD = re.compile(r"(?<![\w.'-])[^\W\d_]+\s+")  # a whole word and the space after it
_LENGTH_DRAWS_FROM = LENGTH_DRAWS_FROM  # attempts below this are the realism retries
_LENGTH_DRAWS = 64  # cheap (microseconds each), and only with --length-preserving
_LENGTH_DRAWS_MAX = 192  # while every draw is longer (only a cut word would fit): draw on
# keyed draws of these generators differ in length: drawn again for the original's length
_WORD_CATEGORIES = frozenset({Category.HOSPITAL, Category.LOCATION, Category.VENDOR})
# endings that lengthen a name-like word plausibly (Lake -> Lakes, Lakewood), longest first
_PAD_ENDINGS = ("ville", "field", "wood", "ford", "ton", "ham", "ley", "er", "on", "s")
_VOWELS, _CONSONANTS = "aeio", "nrstl"


def _drop_words(text: str, length: int, least: int = 1) -> str:
    """Leave out whole words (never the last one, the longest of the middle ones first) until
    `text` is at most `length` long, keeping at least `least` words: "New Court Regional Medical
    Center" -> "New Court Medical Center". Returns the shortest it gets."""
    while len(text) > length and len(_RUN.findall(text)) > max(least, 1):
        words = [m for m in _WORD.finditer(text) if m.end() < len(text)]
        if not words:
            break
        middle = words[1:] or words
        m = max(middle, key=lambda w: (w.end() - w.start(), -w.start()))
        if len(text) - (m.end() - m.start()) < length and len(words) > 1:
            fits = [w for w in words if len(text) - (w.end() - w.start()) >= length]
            if fits:  # a shorter word closes the gap without overshooting
                m = min(fits, key=lambda w: len(text) - (w.end() - w.start()) - length)
        text = text[: m.start()] + text[m.end() :]
    return text


def _pad(text: str, missing: int, stream: KeyStream) -> str:
    """Lengthen a name-like word (the first of 3+ letters that is not the last word, which is
    often a type: Street, Center) by a plausible ending, then alternating letters: "88 Ray
    Street" -> "88 Rayton Street"."""
    runs = list(_RUN.finditer(text))
    if not runs:
        return text + " " * missing
    last = next((r for r in runs[:-1] if len(r.group()) >= 3), runs[-1])
    add = ""
    while len(add) < missing:
        left = missing - len(add)
        fitting = [e for e in _PAD_ENDINGS if len(e) <= left]
        if fitting and not add:
            add += fitting[stream.below(min(len(fitting), 3))]
        else:
            add += (_VOWELS if add[-1:] not in _VOWELS else _CONSONANTS)[stream.below(4)]
    word = last.group()
    add = add.upper() if word.isupper() and len(word) > 1 else add
    return text[: last.end()] + add + text[last.end() :]


def _fit_chars(text: str, length: int) -> str:
    """Pad with spaces, or trim the longest letter runs a letter at a time (dates and other
    formatted values: "September 5" keeps its digits and punctuation)."""
    if len(text) <= length:
        return text.ljust(length)
    chars = list(text)
    while len(chars) > length:
        runs = [m.span() for m in _RUN.finditer("".join(chars)) if m.end() - m.start() > 1]
        if not runs:
            return "".join(chars)[:length]
        start, end = max(runs, key=lambda r: (r[1] - r[0], r[0]))
        del chars[end - 1]
    return "".join(chars)


def _fit(text: str, length: int, stream: KeyStream) -> tuple[str, str]:
    """The last resort of `--length-preserving` (the generators' own draws come first): drop
    whole words, then pad the last word with a plausible ending; cut letters only from a single
    word that alone is longer than the original. Returns the text and "" / "padded" / "cut"."""
    if len(text) > length:
        text = _drop_words(text, length, 2)
    if len(text) < length:
        return _pad(text, length - len(text), stream), "padded"
    if len(text) == length:
        return text, ""
    return _fit_chars(text, length), "cut"


def _typo(text: str, stream: KeyStream) -> str:
    """One realistic typing error: swap, drop, double, or hit a neighbouring key."""
    positions = [i for i, c in enumerate(text) if c.isalpha()]
    if len(positions) < 3:
        return text
    i = positions[stream.below(len(positions) - 1)]
    op = stream.below(4)
    if op == 0 and text[i + 1].isalpha():
        return text[:i] + text[i + 1] + text[i] + text[i + 2 :]
    if op == 1:
        return text[:i] + text[i + 1 :]
    if op == 2:
        return text[:i] + text[i] + text[i:]
    near = _KEYBOARD.get(text[i].lower())
    if not near:
        return text[:i] + text[i + 1 :]
    c = near[stream.below(len(near))]
    return text[:i] + (c.upper() if text[i].isupper() else c) + text[i + 1 :]
