"""PHI detectors: rules, lexicons, and (later) transformer models and ensembles."""

from radeid.detect.base import Detector

__all__ = ["Detector"]
