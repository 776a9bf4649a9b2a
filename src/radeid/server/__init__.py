"""Interface: the REST service (`radeid serve`), a thin FastAPI layer over the `Deidentifier`.

May import the library layers and tools; never another interface.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from radeid.core.moved import lazy_exports

if TYPE_CHECKING:
    from radeid.server.app import DEFAULT_MAX_DOCUMENTS as DEFAULT_MAX_DOCUMENTS
    from radeid.server.app import DEFAULT_MAX_REQUEST_BYTES as DEFAULT_MAX_REQUEST_BYTES
    from radeid.server.app import config_digest as config_digest
    from radeid.server.app import create_app as create_app

__all__ = ["DEFAULT_MAX_DOCUMENTS", "DEFAULT_MAX_REQUEST_BYTES", "config_digest", "create_app"]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "DEFAULT_MAX_DOCUMENTS": "radeid.server.app",
        "DEFAULT_MAX_REQUEST_BYTES": "radeid.server.app",
        "config_digest": "radeid.server.app",
        "create_app": "radeid.server.app",
    },
)
