"""Which language a document is written in, for `[pipeline] language = "auto"`.

Lingua (`lingua-language-detector`, Apache-2.0) is used rather than a hand-written word list:
it is accurate on short and mixed text and needs only the candidate languages' models, which
it loads on first use. It is an extra (`pip install "radeid[lang]"`): only `auto` needs it.
Only the start of a document is read (`_SAMPLE` characters): a report's language shows in its
first lines, and a long letter costs no more than a short one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from radeid.core.errors import ConfigError

__all__ = ["LanguageIdentifier"]

_SAMPLE = 2000
# lingua's names of the languages radeid has packs for, by ISO 639-1 code
_LINGUA_NAMES = {"en": "ENGLISH", "es": "SPANISH", "de": "GERMAN", "fr": "FRENCH", "it": "ITALIAN",
                 "nl": "DUTCH", "pt": "PORTUGUESE", "ca": "CATALAN", "sv": "SWEDISH", "da": "DANISH"}  # fmt: skip


def _lingua() -> Any:
    try:
        import lingua
    except ImportError:
        raise ConfigError(
            'pipeline.language = "auto" needs the language identifier: pip install "radeid[lang]"'
        ) from None
    return lingua


class LanguageIdentifier:
    """Pick one of `candidates` (pack codes) for a text; `fallback` when unsure (below
    `confidence`) or when the text has no letters."""

    def __init__(self, candidates: Sequence[str], fallback: str, confidence: float = 0.75) -> None:
        unknown = [c for c in candidates if c not in _LINGUA_NAMES]
        if unknown:
            raise ConfigError(f"pipeline.languages: no language identification for {', '.join(unknown)}")
        self.candidates = tuple(dict.fromkeys([*candidates, fallback]))
        self.fallback = fallback
        self.confidence = confidence
        self._detector: Any = None
        self._codes: dict[Any, str] = {}

    def _build(self) -> Any:
        lingua = _lingua()
        languages = {getattr(lingua.Language, _LINGUA_NAMES[c]): c for c in self.candidates if c in _LINGUA_NAMES}
        self._codes = languages
        if len(languages) < 2:  # lingua needs two; a single candidate needs no identification
            return None
        return lingua.LanguageDetectorBuilder.from_languages(*languages).build()

    def identify(self, text: str) -> str:
        """The pack code for `text`."""
        if len(self.candidates) == 1:
            return self.candidates[0]
        if self._detector is None:
            self._detector = self._build()
        sample = text[:_SAMPLE]
        if self._detector is None or not any(c.isalpha() for c in sample):
            return self.fallback
        values = self._detector.compute_language_confidence_values(sample)
        if not values or values[0].value < self.confidence:
            return self.fallback
        return self._codes.get(values[0].language, self.fallback)
