"""Layer 6: how a found span is replaced: the `Replacer` protocol, mask modes and surrogates (`surrogate/`).

May import the layers below (`core`, `config`, `patterns`, `resolve`, `detect`). Importing this
package registers the mask modes (`mask`).
"""

from radeid.config.modes import KEYED_MODES, REPLACERS, ReplacerFactory
from radeid.replace import mask as mask
from radeid.replace.base import Replacer, build_replacer

__all__ = ["KEYED_MODES", "REPLACERS", "Replacer", "ReplacerFactory", "build_replacer"]
