"""The `Deidentifier`: detectors -> resolver -> replacer, built from a `Config` and a key.

The CLI, the batch runner, the Spark adapter (and the server) are thin layers over this class:
every component is looked up by name in its registry (`radeid.detect.base.DETECTORS`,
`radeid.replace.base.REPLACERS`), so none of them assembles a pipeline of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice

from radeid.config.config import Config
from radeid.core.document import Document, Result, Span
from radeid.detect.base import Detector, build_detector
from radeid.pipeline import structured
from radeid.replace.base import Replacer, build_replacer
from radeid.resolve.resolver import Resolver
from radeid.resolve.trace import Decision


@dataclass(frozen=True)
class Explanation:
    """One document's detection, recorded: proposals per detector, the resolver's decisions, the result."""

    document: Document
    proposals: dict[str, list[Span]]
    decisions: tuple[Decision, ...]
    spans: tuple[Span, ...]


__all__ = ["Deidentifier", "Explanation", "build_detector"]


class Deidentifier:
    """Detect PHI in batches of documents and replace it.

    `Deidentifier(config, key=...)`: the config (default: the bundled one, which is what
    `radeid deid` runs with no options) names the detectors and the replacement mode; the key
    seeds surrogates. Detection needs no key; the replacer is built on first use, so a
    surrogate-mode config without a key fails only when something is to be replaced.
    """

    def __init__(
        self,
        config: Config | None = None,
        *,
        key: bytes | None = None,
        detectors: Sequence[Detector] | None = None,
        replacer: Replacer | None = None,
        resolver: Resolver | None = None,
    ) -> None:
        self.config = config or Config.load()
        self._key = key
        if detectors is None:
            detectors = [build_detector(name, self.config) for name in self.config.pipeline.detectors]
        self.detectors = list(detectors)
        self.resolver = resolver if resolver is not None else Resolver.from_config(self.config)
        self._replacer = replacer

    def __repr__(self) -> str:  # never the key
        return f"Deidentifier(detectors={[d.name for d in self.detectors]}, mode={self.config.replace.mode!r})"

    @property
    def replacer(self) -> Replacer:
        """The replacer of `config.replace.mode` (a `ConfigError` when a keyed mode has no key)."""
        if self._replacer is None:
            self._replacer = build_replacer(self.config, self._key)
        return self._replacer

    def detect(self, docs: Sequence[Document]) -> list[list[Span]]:
        """Resolved spans per document: sorted, non-overlapping, allow-list applied.

        A structured record (HL7: `radeid.pipeline.structured`) is detected on its view, with its
        structured PHI fields as proposals, and keeps only prose detections plus those fields."""
        views = [structured.detection_view(doc) if structured.is_structured(doc) else doc for doc in docs]
        proposals: list[list[Span]] = [[] for _ in docs]
        for detector in self.detectors:
            for found, spans in zip(proposals, detector.detect(views), strict=True):
                found.extend(spans)
        return [self._resolve(doc, view, spans) for doc, view, spans in zip(docs, views, proposals, strict=True)]

    def _resolve(self, doc: Document, view: Document, proposals: list[Span]) -> list[Span]:
        if view is doc:
            return self.resolver.resolve(doc.text, proposals)
        seeded = [*structured.seeds(doc), *structured.known_mentions(doc, view)]
        resolved = self.resolver.resolve(view.text, [*proposals, *seeded])
        return structured.impose(doc, resolved)

    def explain(self, doc: Document) -> Explanation:
        """Every detector's proposals for `doc`, what the resolver did with each, and the result.

        The answer to "why was this not removed?" (`radeid explain`); the same detection as
        `detect`, only recorded.
        """
        view = structured.detection_view(doc) if structured.is_structured(doc) else doc
        proposals: dict[str, list[Span]] = {}
        for detector in self.detectors:
            proposals[detector.name] = list(detector.detect([view])[0])
        if view is not doc:
            proposals[structured.STRUCTURED_SOURCE] = structured.seeds(doc)
            if known := structured.known_mentions(doc, view):
                proposals[structured.KNOWN_SOURCE] = known
        decisions: list[Decision] = []
        final = self.resolver.resolve(view.text, [s for spans in proposals.values() for s in spans], decisions)
        if view is not doc:
            final = structured.impose(doc, final)
        return Explanation(doc, proposals, tuple(decisions), tuple(final))

    def deidentify(self, docs: Sequence[Document]) -> list[Result]:
        results = [self.replacer.replace(doc, spans) for doc, spans in zip(docs, self.detect(docs), strict=True)]
        return [structured.escape_reserved(r) if structured.is_structured(r.document) else r for r in results]

    def deidentify_text(self, text: str, doc_id: str = "text", patient_id: str | None = None) -> Result:
        """Convenience for one string (the Python API's simplest entry point)."""
        return self.deidentify([Document(id=doc_id, text=text, patient_id=patient_id)])[0]

    def stream(self, docs: Iterable[Document], batch_size: int | None = None) -> Iterator[Result]:
        """De-identify a stream in batches; memory stays bounded by the batch size."""
        size = batch_size or self.config.pipeline.batch_size
        iterator = iter(docs)
        while batch := list(islice(iterator, size)):
            yield from self.deidentify(batch)
