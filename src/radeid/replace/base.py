"""The replacer protocol and the registry of replacement modes (`[replace] mode`).

A replacement mode is a factory `(config, key) -> Replacer`, registered by name: `surrogate`
(keyed fakes, `radeid.replace.surrogate`) and the mask modes of `radeid.replace.mask` (tag, numbered, mask,
fixed). Adding a mode touches its own module only: register it in `REPLACERS`
(`radeid.config.modes`, where `Config.load` checks a mode's name).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from radeid.config.modes import KEYED_MODES, REPLACERS, ReplacerFactory
from radeid.core.document import Document, Result, Span
from radeid.core.errors import ConfigError

if TYPE_CHECKING:
    from radeid.config.config import Config

__all__ = ["KEYED_MODES", "REPLACERS", "Replacer", "ReplacerFactory", "build_replacer"]


@runtime_checkable
class Replacer(Protocol):
    """Replaces every span of a document; spans arrive resolved (sorted, non-overlapping).

    Implementations: `MaskReplacer` (tags, numbered tags, same-length and fixed masks) and
    `SurrogateReplacer` (hide in plain sight). A replacer sees one document at a time and keeps
    no state between documents, so any number of workers can run it in any order.

    `stats` counts events per replacer (dates that could not be read, retries): numbers only,
    never text. The batch runner sums them over every worker for the run's summary; a replacer
    with nothing to count keeps it empty.
    """

    stats: Counter[str]

    def replace(self, document: Document, spans: Sequence[Span]) -> Result: ...


def build_replacer(config: Config, key: bytes | None) -> Replacer:
    """The replacer `config.replace.mode` names, or with `[replace.categories]` one that replaces
    each category by its own mode (a keyed mode needs `key`)."""
    mode = config.replace.mode
    keyed = sorted(config.replace.modes() & KEYED_MODES)
    if keyed and not key:
        raise ConfigError(
            f"{keyed[0]} mode needs a key: pass key= (or --key-file / $RADEID_KEY), or choose a mask mode "
            '([replace] mode = "tag")'
        )
    if config.replace.categories:  # per-category modes: one replacer per mode behind a dispatcher
        from radeid.replace.categories import CategoryReplacer

        return CategoryReplacer.from_config(config, key)
    replacer = REPLACERS.get(mode)(config, key)
    if not isinstance(replacer, Replacer):  # a plugin's replacer: say what it lacks at once, not mid-run
        raise ConfigError(
            f"replacement mode {mode!r} built {type(replacer).__name__}, which lacks `replace` or `stats`"
        )
    return replacer
