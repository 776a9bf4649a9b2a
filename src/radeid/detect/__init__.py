"""Layer 5: PHI detectors: the transformer model, rules, word lists and the gazetteer, ensembles, and
adapters for other de-identifiers.

May import `radeid.core`, `radeid.config`, `radeid.patterns` and `radeid.resolve`. Detectors only
propose spans; the resolver decides.
"""

from radeid.detect.base import Detector

__all__ = ["Detector"]
