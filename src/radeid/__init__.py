"""radeid: de-identify radiology reports and clinical notes."""

from radeid.categories import Category
from radeid.document import Document, Replacement, Result, Span

__version__ = "0.2.0"

__all__ = ["Category", "Document", "Replacement", "Result", "Span", "__version__"]
