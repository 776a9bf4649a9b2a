"""The `Deidentifier`: detectors -> resolver -> replacer, built from a `Config`.

The CLI, the batch runner and (later) the server and Spark adapter are thin layers over this class.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import islice

from radeid.config import Config, ConfigError
from radeid.detect.base import Detector
from radeid.document import Document, Result, Span
from radeid.mask import MaskReplacer
from radeid.replace import Replacer
from radeid.resolve import Resolver

DETECTOR_NAMES = ("rules", "lexicon", "transformer")


def build_detector(name: str, config: Config) -> Detector:
    """Create one detector by its config name; heavy modules are imported only when asked for."""
    if name == "rules":
        from radeid.detect.rules import RuleDetector

        return _folded(
            RuleDetector(
                extra_rule_files=config.rules.extra_files,
                disabled=config.rules.disabled,
                age_threshold=config.rules.age_threshold,
            ),
            config,
        )
    if name == "lexicon":
        from radeid.detect.lexicon import LexiconDetector

        return _folded(
            LexiconDetector.from_files(
                hospital_lists=config.lexicon.hospital_lists,
                vendor_lists=config.lexicon.vendor_lists,
                deny_lists=config.lexicon.deny_lists,
                include_bundled=config.lexicon.include_bundled,
            ),
            config,
        )
    if name == "transformer":
        from radeid.detect.transformer import TransformerDetector

        return TransformerDetector.from_config(config.transformer)
    raise ConfigError(f"unknown detector {name!r} in pipeline.detectors; known: {', '.join(DETECTOR_NAMES)}")


def _folded(detector: Detector, config: Config) -> Detector:
    """Rules and word lists match text as a reader sees it (`radeid.normalize`) unless switched off."""
    if not config.pipeline.normalize_unicode:
        return detector
    from radeid.normalize import NormalizingDetector

    return NormalizingDetector(detector)


class Deidentifier:
    """Detect PHI in batches of documents and replace it."""

    def __init__(
        self,
        config: Config | None = None,
        *,
        detectors: Sequence[Detector] | None = None,
        replacer: Replacer | None = None,
    ) -> None:
        self.config = config or Config.load()
        if detectors is None:
            detectors = [build_detector(name, self.config) for name in self.config.pipeline.detectors]
        self.detectors = list(detectors)
        self.resolver = Resolver.from_config(self.config)
        self.replacer: Replacer = replacer or MaskReplacer(self.config.mask)

    def detect(self, docs: Sequence[Document]) -> list[list[Span]]:
        """Resolved spans per document: sorted, non-overlapping, allow-list applied."""
        proposals: list[list[Span]] = [[] for _ in docs]
        for detector in self.detectors:
            for found, spans in zip(proposals, detector.detect(docs), strict=True):
                found.extend(spans)
        return [self.resolver.resolve(doc.text, spans) for doc, spans in zip(docs, proposals, strict=True)]

    def deidentify(self, docs: Sequence[Document]) -> list[Result]:
        return [
            self.replacer.replace(doc, spans) for doc, spans in zip(docs, self.detect(docs), strict=True)
        ]

    def deidentify_text(self, text: str, doc_id: str = "text", patient_id: str | None = None) -> Result:
        """Convenience for one string (the Python API's simplest entry point)."""
        return self.deidentify([Document(id=doc_id, text=text, patient_id=patient_id)])[0]

    def stream(self, docs: Iterable[Document], batch_size: int | None = None) -> Iterator[Result]:
        """De-identify a stream in batches; memory stays bounded by the batch size."""
        size = batch_size or self.config.pipeline.batch_size
        iterator = iter(docs)
        while batch := list(islice(iterator, size)):
            yield from self.deidentify(batch)
