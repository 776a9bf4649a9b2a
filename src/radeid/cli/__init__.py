"""Interface: the `radeid` command, one module per command, over the library's functions.

The top layer: may import anything below. `radeid.cli.main` assembles the Typer app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from radeid.core.moved import lazy_exports

if TYPE_CHECKING:
    from radeid.cli.main import app as app

__all__ = ["app"]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "app": "radeid.cli.main",
    },
)
