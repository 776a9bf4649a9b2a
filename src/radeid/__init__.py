"""radeid: de-identify radiology reports and clinical notes.

The names most programs need are importable from here: the data model (`Document`, `Span`,
`Replacement`, `Result`, `Category`), `Config`, `Deidentifier` and `PipelineSpec`. The last three
are imported on first use (PEP 562), so `import radeid` stays cheap: every batch worker imports
this package, and most of them never need the whole pipeline at import time.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from radeid.categories import Category
from radeid.document import Document, Replacement, Result, Span

if TYPE_CHECKING:
    from radeid.config import Config
    from radeid.pipeline import Deidentifier
    from radeid.spec import PipelineSpec

__version__ = "0.2.0"

__all__ = [
    "Category",
    "Config",
    "Deidentifier",
    "Document",
    "PipelineSpec",
    "Replacement",
    "Result",
    "Span",
    "__version__",
]

# Where each lazily imported name lives.
_LAZY = {
    "Config": "radeid.config",
    "Deidentifier": "radeid.pipeline",
    "PipelineSpec": "radeid.spec",
}


def __getattr__(name: str) -> Any:
    """Import `Config`, `Deidentifier` and `PipelineSpec` when first asked for."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'radeid' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
