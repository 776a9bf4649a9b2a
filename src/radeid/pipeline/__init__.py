"""Layer 7: the `Deidentifier` that runs detectors, resolver and replacer; `PipelineSpec`, the
picklable recipe a worker builds it from; prebuilt pipelines and the regex inventory.

May import every layer below (`core` to `replace`); never input/output, the runner or an interface.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from radeid.core.moved import lazy_exports

if TYPE_CHECKING:
    from radeid.pipeline.deidentifier import Deidentifier as Deidentifier
    from radeid.pipeline.deidentifier import Explanation as Explanation
    from radeid.pipeline.deidentifier import build_detector as build_detector
    from radeid.pipeline.spec import PipelineSpec as PipelineSpec

__all__ = ["Deidentifier", "Explanation", "PipelineSpec", "build_detector"]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Deidentifier": "radeid.pipeline.deidentifier",
        "Explanation": "radeid.pipeline.deidentifier",
        "PipelineSpec": "radeid.pipeline.spec",
        "build_detector": "radeid.pipeline.deidentifier",
    },
)
