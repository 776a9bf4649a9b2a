"""The replacer protocol and the registry of replacement modes (`[replace] mode`).

A replacement mode is a factory `(config, key) -> Replacer`, registered by name: `surrogate`
(keyed fakes, `radeid.surrogate`) and the mask modes of `radeid.mask` (tag, numbered, mask,
fixed). Adding a mode touches its own module only: register it in `REPLACERS`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from radeid.document import Document, Result, Span
from radeid.registry import Registry

if TYPE_CHECKING:
    from radeid.config import Config

__all__ = ["KEYED_MODES", "REPLACERS", "Replacer", "ReplacerFactory", "build_replacer"]


@runtime_checkable
class Replacer(Protocol):
    """Replaces every span of a document; spans arrive resolved (sorted, non-overlapping).

    Implementations: `MaskReplacer` (tags, numbered tags, same-length and fixed masks) and
    `SurrogateReplacer` (hide in plain sight). A replacer sees one document at a time and keeps
    no state between documents, so any number of workers can run it in any order.
    """

    def replace(self, document: Document, spans: Sequence[Span]) -> Result: ...


ReplacerFactory = Callable[["Config", "bytes | None"], Replacer]

#: Replacement modes by name; `build_replacer` looks the config's mode up here.
REPLACERS: Registry[ReplacerFactory] = Registry("replacement mode", "replace.mode")
REPLACERS.register_lazy("surrogate", "radeid.surrogate.engine:SurrogateReplacer.from_config")

#: Modes whose output depends on the secret key (they refuse to run without one).
KEYED_MODES: set[str] = {"surrogate"}


def build_replacer(config: Config, key: bytes | None) -> Replacer:
    """The replacer `config.replace.mode` names (a keyed mode needs `key`)."""
    from radeid.config import ConfigError

    mode = config.replace.mode
    if mode in KEYED_MODES and not key:
        raise ConfigError(
            f"{mode} mode needs a key: pass key= (or --key-file / $RADEID_KEY), or choose a mask mode "
            '([replace] mode = "tag")'
        )
    return REPLACERS.get(mode)(config, key)


# The mask modes register themselves when radeid.mask is imported (it is small and has no
# dependencies); importing it here makes every built-in mode known to the registry.
import radeid.mask  # noqa: E402, F401
