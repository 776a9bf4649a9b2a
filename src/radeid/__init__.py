"""radeid: de-identify radiology reports and clinical notes.

The names most programs need are importable from here: the data model (`Document`, `Span`,
`Replacement`, `Result`, `Category`), `Config`, `Deidentifier` and `PipelineSpec`. The last three
are imported on first use (PEP 562), so `import radeid` stays cheap: every batch worker imports
this package, and most of them never need the whole pipeline at import time.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from radeid.core.categories import Category
from radeid.core.document import Document, Replacement, Result, Span
from radeid.core.moved import install as _install_moved_paths

if TYPE_CHECKING:
    from radeid.config.config import Config
    from radeid.pipeline.deidentifier import Deidentifier
    from radeid.pipeline.spec import PipelineSpec

__version__ = "0.2.0"

# The flat module paths of radeid 0.2 (`radeid.keys`, ...) still import, with a DeprecationWarning.
_install_moved_paths()

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
    "Config": "radeid.config.config",
    "Deidentifier": "radeid.pipeline.deidentifier",
    "PipelineSpec": "radeid.pipeline.spec",
}


def __getattr__(name: str) -> Any:
    """Import `Config`, `Deidentifier` and `PipelineSpec` when first asked for."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'radeid' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
