"""Per-category replacement modes (`[replace.categories]`): each category replaced by its own mode.

`CategoryReplacer` hands each mode's spans to that mode's replacer (built once per mode from the
config, as `[replace] mode` would build it) and joins the replacements into one result. The mode
`keep` leaves a span's text as it is; the span is still audited, with `replacement_kind` "kept".
Spans of a category whose mode is not the default carry the mode's name as their
`replacement_kind`, so the audit says how each span was replaced. The vault records every span
(kept ones too), so `radeid reidentify` restores a mixed output exactly.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from radeid.config.modes import REPLACERS
from radeid.config.sections import KEEP_MODE
from radeid.core.document import Document, Replacement, Result, Span

if TYPE_CHECKING:
    from radeid.config.config import Config
    from radeid.replace.base import Replacer

__all__ = ["KEPT", "CategoryReplacer"]

#: The `replacement_kind` of a span left as it is.
KEPT = "kept"


class CategoryReplacer:
    """A `Replacer` that dispatches spans by category to one replacer per mode."""

    def __init__(self, config: Config, replacers: dict[str, Replacer]) -> None:
        self.config = config
        self._replacers = replacers
        self.stats: Counter[str] = Counter()  # every mode's replacer's events, summed after each document

    @classmethod
    def from_config(cls, config: Config, key: bytes | None) -> CategoryReplacer:
        """One replacer per mode named by `[replace] mode` and `[replace.categories]` ("keep" needs none)."""
        replacers: dict[str, Replacer] = {}
        for mode in sorted(config.replace.modes() - {KEEP_MODE}):
            own = dataclasses.replace(config, replace=dataclasses.replace(config.replace, mode=mode, categories={}))
            replacers[mode] = REPLACERS.get(mode)(own, key)
        return cls(config, replacers)

    def __repr__(self) -> str:
        return f"CategoryReplacer(modes={sorted(self.config.replace.modes())})"

    def replace(self, document: Document, spans: Sequence[Span]) -> Result:
        """Replace every span of `document` by the mode of its category."""
        options = self.config.replace
        by_mode: dict[str, list[Span]] = {}
        for span in spans:
            by_mode.setdefault(options.mode_of(span.category), []).append(span)
        replacements: list[Replacement] = []
        for mode, own in by_mode.items():
            kind = None if mode == options.mode else mode
            if mode == KEEP_MODE:
                replacements += [Replacement(s, document.text[s.start : s.end], KEPT) for s in own]
                continue
            replacer = self._replacers[mode]
            replace_all = getattr(replacer, "replace_among", None)
            done = replace_all(document, own, spans) if replace_all else replacer.replace(document, own)
            for rep in done.replacements:
                replacements.append(rep if kind is None or rep.kind else dataclasses.replace(rep, kind=kind))
        self.stats.clear()
        for replacer in self._replacers.values():
            self.stats.update(replacer.stats)
        return Result.build(document, replacements)
