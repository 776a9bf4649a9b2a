"""Masking: replace PHI with tags or mask characters instead of surrogates.

Modes, each registered by name in `MASK_MODES` (and as a replacement mode in
`radeid.replace.base.REPLACERS`): `tag` (`[DATE]`), `numbered` (`[PATIENT-1]`, the same text gets the
same number within a document), `mask` (same length, `*` by default, line breaks kept so layout
survives) and `fixed` (a fixed number of mask characters, which hides the original length too).
Adding a mode is one decorated function here: `@mask_mode("name")`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from radeid.config.sections import MaskConfig
from radeid.core.categories import Category
from radeid.core.document import Document, Replacement, Result, Span
from radeid.core.registry import Registry
from radeid.replace.base import REPLACERS
from radeid.resolve.resolver import normalize_term

if TYPE_CHECKING:
    from radeid.config.config import Config

__all__ = ["MASK_MODES", "MaskReplacer", "MaskState", "mask_mode", "same_length_mask"]


@dataclass
class MaskState:
    """What a mask mode may remember within one document (numbered tags)."""

    numbers: dict[tuple[Category, str], int] = field(default_factory=dict)
    counters: dict[Category, int] = field(default_factory=dict)


#: A mask mode: (span, original text, per-document state, options) -> replacement text.
MaskMode = Callable[[Span, str, MaskState, MaskConfig], str]
MASK_MODES: Registry[MaskMode] = Registry("mask mode", "replace.mode")


def mask_mode(name: str) -> Callable[[MaskMode], MaskMode]:
    """Register a mask mode under `name`, both here and as a replacement mode."""

    def add(render: MaskMode) -> MaskMode:
        MASK_MODES.add(name, render)
        REPLACERS.add(name, MaskReplacer.from_config)
        return render

    return add


class MaskReplacer:
    """A stateless `Replacer`: each document's numbering starts again at 1 for every category."""

    def __init__(self, config: MaskConfig | None = None) -> None:
        self.config = config or MaskConfig(mode="mask")
        self._render = MASK_MODES.get(self.config.mode)
        self.stats: Counter[str] = Counter()  # masks have no events to count

    @classmethod
    def from_config(cls, config: Config, key: bytes | None = None) -> MaskReplacer:
        """The replacer of `config.replace` (masks need no key)."""
        return cls(config.replace)

    def replace(self, document: Document, spans: Sequence[Span]) -> Result:
        state = MaskState()
        replacements = [
            Replacement(span, self._render(span, document.text[span.start : span.end], state, self.config))
            for span in spans
        ]
        return Result.build(document, replacements)


@mask_mode("tag")
def _tag(span: Span, original: str, state: MaskState, options: MaskConfig) -> str:
    return f"[{span.category.value}]"


@mask_mode("numbered")
def _numbered(span: Span, original: str, state: MaskState, options: MaskConfig) -> str:
    key = (span.category, normalize_term(original))
    if key not in state.numbers:
        state.counters[span.category] = state.counters.get(span.category, 0) + 1
        state.numbers[key] = state.counters[span.category]
    return f"[{span.category.value}-{state.numbers[key]}]"


@mask_mode("mask")
def _mask(span: Span, original: str, state: MaskState, options: MaskConfig) -> str:
    return same_length_mask(original, options.char)


@mask_mode("fixed")
def _fixed(span: Span, original: str, state: MaskState, options: MaskConfig) -> str:
    return options.char * options.fixed_length


def same_length_mask(original: str, char: str = "*") -> str:
    """Mask every character but line breaks, so line structure and offsets stay the same."""
    return "".join(ch if ch in "\r\n" else char for ch in original)
