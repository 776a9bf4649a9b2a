"""Ensembles of detectors: members' spans voted or combined per token, with exact offsets.

`EnsembleDetector` (registered as "ensemble", configured by `[detectors.ensemble]`), the
projection onto shared units, the vote/weighted strategies and learned combiners stored as data
(`radeid ensemble fit`).
"""

from radeid.detect.ensemble.combiner import Combiner, CombinerError, gold_fingerprint
from radeid.detect.ensemble.detector import EnsembleDetector, resolver_rank
from radeid.detect.ensemble.features import UnitFeatures, feature_names
from radeid.detect.ensemble.projection import Projection, UnitDecision, project, to_spans

__all__ = [
    "Combiner",
    "CombinerError",
    "EnsembleDetector",
    "Projection",
    "UnitDecision",
    "UnitFeatures",
    "feature_names",
    "gold_fingerprint",
    "project",
    "resolver_rank",
    "to_spans",
]
