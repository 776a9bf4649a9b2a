"""The registry of replacement modes (`[replace] mode`).

It lives in the config layer so that `Config.load` can refuse an unknown mode at once, listing every
mode known, a plugin's included, without importing the replacers themselves: the built-in modes are
lazy references into `radeid.replace`, imported only when a pipeline is built. A plugin registers
its mode here (or through `radeid.replace.mask.mask_mode` for a mask mode).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from radeid.core.registry import Registry

if TYPE_CHECKING:
    from radeid.config.config import Config
    from radeid.replace.base import Replacer

__all__ = ["BUILTIN_MASK_MODES", "KEYED_MODES", "REPLACERS", "ReplacerFactory"]

ReplacerFactory = Callable[["Config", "bytes | None"], "Replacer"]

#: Replacement modes by name; `radeid.replace.base.build_replacer` looks the config's mode up here.
REPLACERS: Registry[ReplacerFactory] = Registry("replacement mode", "replace.mode")
REPLACERS.register_lazy("surrogate", "radeid.replace.surrogate.engine:SurrogateReplacer.from_config")

#: The mask modes `radeid.replace.mask` defines (a test checks the two lists agree).
BUILTIN_MASK_MODES = ("fixed", "mask", "numbered", "tag")
for _mode in BUILTIN_MASK_MODES:
    REPLACERS.register_lazy(_mode, "radeid.replace.mask:MaskReplacer.from_config")

#: Modes whose output depends on the secret key (they refuse to run without one).
KEYED_MODES: set[str] = {"surrogate"}
