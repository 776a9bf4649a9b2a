"""Vendor surrogates: devices, software and companies, replaced as one entity, word by word.

Split from `places.py` (issue 13): vendors share its pools (`place_pools`) but not its logic.
"""

from __future__ import annotations

import re
from functools import lru_cache

from radeid.core.document import Span
from radeid.core.resources import bundled_data_path, read_word_list
from radeid.replace.surrogate.base import SurrogateContext
from radeid.replace.surrogate.brands import brand_token, pronounceable, real_vendor_words
from radeid.replace.surrogate.keyed import KeyStream, apply_case, case_style, fold
from radeid.replace.surrogate.places import place_pools, whole_case

__all__ = ["VendorGenerator"]


@lru_cache(maxsize=1)
def _single_word_vendors() -> frozenset[str]:
    """Vendor lexicon entries of one word ("Healthineers", "Siemens"): brands, never generic."""
    terms = read_word_list(bundled_data_path("lexicons", "vendors.txt"))
    return frozenset(fold(t.lstrip("=").lstrip("\\")) for t in terms if " " not in t.strip())


class VendorGenerator:
    """Device, software and company names, replaced as one entity: every brand, series and model
    word becomes an invented one of the same shape (`brands.brand_token`: `LOGIQ E9` -> `VERIX
    C7`, `Hologic 3Dimensions` -> `Calderix 4Spectra`); generic words ("Healthcare", "CT",
    "PACS") stay; a word that is itself a vendor ("Healthineers") is never generic."""

    realism_check = True

    def __init__(self, locale: str) -> None:
        self.pools = place_pools(locale)
        self.generic = self.pools.vendor_generic - _single_word_vendors()
        real = real_vendor_words()
        self.brands = tuple(b for b in self.pools.vendor_names if fold(b) not in real)
        self.brands_by_len: dict[int, tuple[str, ...]] = {}
        for b in self.brands:
            self.brands_by_len[len(b)] = (*self.brands_by_len.get(len(b), ()), b)

    def parse(self, original: str, span: Span, ctx: SurrogateContext) -> tuple[str, tuple[tuple[str, str, str], ...]]:
        return original, self._tokens(original)

    @lru_cache(maxsize=1 << 14)  # noqa: B019 - one generator per replacer, pure function of the text
    def _tokens(self, original: str) -> tuple[tuple[str, str, str], ...]:
        """(token, folded, kind) with kind keep / brand (a capitalised word) / shape; cached."""
        out = []
        for m in re.finditer(r"[^\W_]+|[\W_]+", original):
            tok = m.group()
            low = fold(tok)
            if not tok[0].isalnum() or low in self.generic:
                kind = "keep"
            elif tok.isalpha() and tok[0].isupper() and tok[1:].islower() and len(tok) > 2:
                kind = "brand"
            else:
                kind = "shape"
            out.append((tok, low, kind))
        return tuple(out)

    def generate(
        self, parsed: tuple[str, tuple[tuple[str, str, str], ...]], ctx: SurrogateContext, attempt: int
    ) -> str:
        original, tokens = parsed
        extra = (str(attempt),) * bool(attempt)
        out = []
        changed = False
        for tok, low, kind in tokens:
            if kind == "keep":
                out.append(tok)
                continue
            stream = ctx.keyed.stream(ctx.scope, "vendor", low, *extra)
            changed = True
            if kind == "shape":
                out.append(brand_token(tok, stream))
            else:
                out.append(apply_case(self._brand(tok, low, stream, ctx.options.length_preserving), case_style(tok)))
        if not changed:  # only generic words: name a brand anyway, so the span still changes
            stream = ctx.keyed.stream(ctx.scope, "vendor", fold(original), *extra)
            return whole_case(original, stream.choice(self.brands))
        return "".join(out)

    def _brand(self, tok: str, low: str, stream: KeyStream, same_length: bool) -> str:
        """An invented brand for a capitalised word; with `--length-preserving` one of the same
        length (the list's, else a pronounceable word of that length), so no word is cut."""
        pool = self.brands_by_len.get(len(tok), ()) if same_length else self.brands
        if not pool:
            return pronounceable(len(tok), stream).capitalize()
        brand = stream.choice(pool)
        if fold(brand) == low:
            brand = stream.choice(pool)
        return brand
