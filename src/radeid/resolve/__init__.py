"""Layer 4: one place that decides which proposed spans are PHI.

The resolver (`resolver`), protected content, completion of partial spans, evidence for and against
a span, propagation of a found name to its other mentions, and the decision trace. May import
`radeid.core`, `radeid.config` and `radeid.patterns`; never a detector.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from radeid.core.moved import lazy_exports

if TYPE_CHECKING:
    from radeid.resolve.resolver import Resolver as Resolver
    from radeid.resolve.resolver import normalize_term as normalize_term

__all__ = ["Resolver", "normalize_term"]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Resolver": "radeid.resolve.resolver",
        "normalize_term": "radeid.resolve.resolver",
    },
)
