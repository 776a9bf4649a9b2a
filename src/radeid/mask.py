"""Masking: replace PHI with tags or mask characters instead of surrogates.

Modes: `tag` (`[DATE]`), `numbered` (`[PATIENT-1]`, the same text gets the same number within a
document), `mask` (same length, `*` by default, line breaks kept so layout survives) and `fixed`
(a fixed number of mask characters, which hides the original length too).
"""

from __future__ import annotations

from collections.abc import Sequence

from radeid.categories import Category
from radeid.config import MASK_MODES, MaskConfig
from radeid.document import Document, Replacement, Result, Span
from radeid.resolve import normalize_term


class MaskReplacer:
    """A stateless `Replacer`: each document's numbering starts again at 1 for every category."""

    def __init__(self, config: MaskConfig | None = None) -> None:
        self.config = config or MaskConfig()
        if self.config.mode not in MASK_MODES:
            raise ValueError(f"unknown mask mode {self.config.mode!r}; choose one of {', '.join(MASK_MODES)}")

    def replace(self, document: Document, spans: Sequence[Span]) -> Result:
        numbers: dict[tuple[Category, str], int] = {}
        counters: dict[Category, int] = {}
        replacements = []
        for span in spans:
            original = document.text[span.start : span.end]
            replacements.append(Replacement(span, self._render(span, original, numbers, counters)))
        return Result.build(document, replacements)

    def _render(
        self,
        span: Span,
        original: str,
        numbers: dict[tuple[Category, str], int],
        counters: dict[Category, int],
    ) -> str:
        mode = self.config.mode
        if mode == "tag":
            return f"[{span.category.value}]"
        if mode == "numbered":
            key = (span.category, normalize_term(original))
            if key not in numbers:
                counters[span.category] = counters.get(span.category, 0) + 1
                numbers[key] = counters[span.category]
            return f"[{span.category.value}-{numbers[key]}]"
        if mode == "mask":
            return same_length_mask(original, self.config.char)
        return self.config.char * self.config.fixed_length


def same_length_mask(original: str, char: str = "*") -> str:
    """Mask every character but line breaks, so line structure and offsets stay the same."""
    return "".join(ch if ch in "\r\n" else char for ch in original)
