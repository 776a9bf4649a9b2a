"""Vendor surrogates: devices, software and companies, replaced as one entity, word by word.

Split from `places.py` (issue 13): vendors share its pools (`place_pools`) but not its logic.
"""

from __future__ import annotations

import re
from functools import lru_cache

from radeid.core.document import Span
from radeid.core.resources import bundled_data_path, read_word_list
from radeid.replace.surrogate.base import VALUE_CACHE_LIMIT, SurrogateContext
from radeid.replace.surrogate.brands import (
    any_brand_word,
    brand_token,
    brand_word,
    camel_like,
    is_short,
    pronounceable,
    real_vendor_words,
    scope_bytes,
)
from radeid.replace.surrogate.keyed import SCOPE_CACHE_LIMIT, fold
from radeid.replace.surrogate.places import place_pools, whole_case

__all__ = ["VendorGenerator"]


@lru_cache(maxsize=1)
def _single_word_vendors() -> frozenset[str]:
    """Vendor lexicon entries of one word ("Healthineers", "Siemens"): brands, never generic."""
    terms = read_word_list(bundled_data_path("lexicons", "vendors.txt"))
    return frozenset(fold(t.lstrip("=").lstrip("\\")) for t in terms if " " not in t.strip())


class VendorGenerator:
    """Device, software and company names, replaced as one entity: every brand, series and model
    word becomes an invented one of the same shape (`brands.brand_token`: `LOGIQ E9` -> `MORAX
    C7`, `Hologic 3Dimensions` -> `Tavelo 4Ricanesis`); generic words ("Healthcare", "CT",
    "PACS", "AI") stay; a word that is itself a vendor ("Healthineers") is never generic.

    Words of three letters or more map one to one within a scope (`brands.brand_word`), so
    distinct vendors never merge; what is left (a model number, two shape draws that happen to
    meet) is caught per document: a fake another original of the document already has is drawn
    again."""

    realism_check = True

    def __init__(self, locale: str) -> None:
        self.pools = place_pools(locale)
        self.generic = self.pools.vendor_generic - _single_word_vendors()
        real = real_vendor_words()
        self.brands = tuple(b for b in self.pools.vendor_names if fold(b) not in real)
        # scope -> its keyed bytes, which give every bucket's permutation: pure, so only a cache
        self._scope_bytes: dict[str, bytes] = {}
        # (scope, original, draw, same length) -> the rendered fake: a pure function, and one vendor
        # is named in many reports of a corpus
        self._rendered: dict[tuple[str, str, int, bool], str] = {}

    def parse(self, original: str, span: Span, ctx: SurrogateContext) -> tuple[str, tuple[tuple[str, str, str], ...]]:
        return original, self._tokens(original)

    @lru_cache(maxsize=1 << 14)  # noqa: B019 - one generator per replacer, pure function of the text
    def _tokens(self, original: str) -> tuple[tuple[str, str, str], ...]:
        """(token, folded, kind) with kind keep / word (letters only, not an acronym) / shape; cached."""
        out = []
        for m in re.finditer(r"[^\W_]+|[\W_]+", original):
            tok = m.group()
            low = fold(tok)
            if not tok[0].isalnum() or low in self.generic:
                kind = "keep"
            elif tok.isalpha() and not is_short(tok):
                kind = "word"
            else:
                kind = "shape"
            out.append((tok, low, kind))
        return tuple(out)

    def generate(
        self, parsed: tuple[str, tuple[tuple[str, str, str], ...]], ctx: SurrogateContext, attempt: int
    ) -> str:
        original, tokens = parsed
        owner = fold(original)
        claims = ctx.memory.claims
        new = original
        for draw in range(attempt, attempt + _MAX_DRAWS):
            key = (ctx.scope, original, draw, ctx.options.length_preserving)
            found = self._rendered.get(key)
            if found is None:
                if len(self._rendered) > VALUE_CACHE_LIMIT:
                    self._rendered.clear()
                found = self._rendered[key] = self._render(original, tokens, ctx, draw)
            new = found
            if claims.setdefault(("VENDOR", new.casefold()), owner) == owner:
                break
        return new

    def _render(self, original: str, tokens: tuple[tuple[str, str, str], ...], ctx: SurrogateContext, draw: int) -> str:
        extra = (str(draw),) * bool(draw)
        out = []
        changed = False
        same_length = ctx.options.length_preserving
        for tok, low, kind in tokens:
            if kind == "keep":
                out.append(tok)
                continue
            changed = True
            if kind == "word" and not (same_length and not 4 <= len(tok) <= 11):
                out.append(camel_like(self._word(low, ctx, extra), tok))
                continue
            stream = ctx.keyed.stream(ctx.scope, "vendor", low, *extra)
            if kind == "shape":
                out.append(brand_token(tok, stream, lambda run: self._word(run, ctx, extra)))
            else:  # same length, and no bucket of that length: a made-up word
                out.append(camel_like(pronounceable(len(tok), stream), tok))
        if not changed:  # only generic words: name a brand anyway, so the span still changes
            stream = ctx.keyed.stream(ctx.scope, "vendor", fold(original), *extra)
            return whole_case(original, stream.choice(self.brands))
        return "".join(out)

    def _word(self, low: str, ctx: SurrogateContext, extra: tuple[str, ...]) -> str:
        """The scope's invented word for a folded word (`brands.brand_word`); a redraw (`extra`)
        leaves the one-to-one map for any word of the bucket."""
        if extra:
            value = ctx.keyed.stream(ctx.scope, "vendor-slot", low, *extra).below(1 << 30)
            return any_brand_word(len(low), value)
        keyed_bytes = self._scope_bytes.get(ctx.scope)
        if keyed_bytes is None:
            if len(self._scope_bytes) > SCOPE_CACHE_LIMIT:
                self._scope_bytes.clear()
            keyed_bytes = self._scope_bytes[ctx.scope] = scope_bytes(ctx.keyed.digest(ctx.scope, "vendor-permutation"))
        return brand_word(low, keyed_bytes, lambda: ctx.keyed.stream(ctx.scope, "vendor-slot", low).below(1 << 30))


_MAX_DRAWS = 8  # redraws when a fake is already another original's in this document
