"""Interface: the review page (`radeid review`): a self-contained HTML page of a run's changes.

May import the library layers and tools; never another interface.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from radeid.core.moved import lazy_exports

if TYPE_CHECKING:
    from radeid.review.page import CATEGORY_COLOURS as CATEGORY_COLOURS
    from radeid.review.page import AuditCheck as AuditCheck
    from radeid.review.page import ReviewData as ReviewData
    from radeid.review.page import ReviewDocument as ReviewDocument
    from radeid.review.page import ReviewError as ReviewError
    from radeid.review.page import ReviewSpan as ReviewSpan
    from radeid.review.page import build_page as build_page
    from radeid.review.page import load_review as load_review
    from radeid.review.page import write_page as write_page

__all__ = [
    "CATEGORY_COLOURS",
    "AuditCheck",
    "ReviewData",
    "ReviewDocument",
    "ReviewError",
    "ReviewSpan",
    "build_page",
    "load_review",
    "write_page",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "CATEGORY_COLOURS": "radeid.review.page",
        "AuditCheck": "radeid.review.page",
        "ReviewData": "radeid.review.page",
        "ReviewDocument": "radeid.review.page",
        "ReviewError": "radeid.review.page",
        "ReviewSpan": "radeid.review.page",
        "build_page": "radeid.review.page",
        "load_review": "radeid.review.page",
        "write_page": "radeid.review.page",
    },
)
