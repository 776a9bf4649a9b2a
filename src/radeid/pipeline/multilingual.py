"""`language = "auto"`: one pipeline per language met, each document routed to its own.

Each language's pipeline is the config as that language's pack makes it (`Config.for_language`),
built on first use, so a corpus in one language loads one model. Results come back in the input
order. The key is shared: a patient's date shift is the same whatever the language of the
document; fake names follow each language's locale.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence

from radeid.config.config import Config
from radeid.config.language import AUTO_LANGUAGE, available_languages
from radeid.core.document import Document, Result, Span
from radeid.detect.base import Detector
from radeid.pipeline.deidentifier import Deidentifier, Explanation
from radeid.pipeline.language_id import LanguageIdentifier
from radeid.resolve.resolver import Resolver

__all__ = ["MultilingualDeidentifier", "build_deidentifier"]


class _MergedStats(Mapping[str, int]):
    """The replacers' event counts summed, read live (the batch runner takes before/after copies)."""

    def __init__(self, owner: MultilingualDeidentifier) -> None:
        self._owner = owner

    def _total(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for deid in self._owner.pipelines.values():
            total.update(getattr(deid.replacer, "stats", {}))
        return total

    def __getitem__(self, key: str) -> int:
        return self._total()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._total())

    def __len__(self) -> int:
        return len(self._total())


class _MergedReplacer:
    def __init__(self, owner: MultilingualDeidentifier) -> None:
        self.stats = _MergedStats(owner)


class MultilingualDeidentifier(Deidentifier):
    """A `Deidentifier` that identifies each document's language and hands it to that
    language's pipeline. `languages` counts the documents given to each."""

    def __init__(self, config: Config, *, key: bytes | None = None) -> None:
        self.config = config
        self._key = key
        pipeline = config.pipeline
        candidates = list(pipeline.languages) or available_languages()
        self.identifier = LanguageIdentifier(candidates, pipeline.fallback_language, pipeline.language_confidence)
        self.pipelines: dict[str, Deidentifier] = {}
        self.languages: Counter[str] = Counter()
        self._replacer = None
        self.detectors = []
        self.resolver = None  # type: ignore[assignment]

    def __repr__(self) -> str:  # never the key
        return (
            f"MultilingualDeidentifier(languages={list(self.identifier.candidates)}, mode={self.config.replace.mode!r})"
        )

    def pipeline_for(self, code: str) -> Deidentifier:
        """The pipeline of language `code`, built on first use."""
        found = self.pipelines.get(code)
        if found is None:
            found = self.pipelines[code] = Deidentifier(self.config.for_language(code), key=self._key)
        return found

    @property
    def replacer(self) -> _MergedReplacer:  # type: ignore[override]
        return _MergedReplacer(self)

    def _route(self, docs: Sequence[Document]) -> dict[str, list[int]]:
        groups: dict[str, list[int]] = {}
        for i, doc in enumerate(docs):
            code = self.identifier.identify(doc.text)
            self.languages[code] += 1
            groups.setdefault(code, []).append(i)
        return groups

    def detect(self, docs: Sequence[Document]) -> list[list[Span]]:
        out: list[list[Span]] = [[] for _ in docs]
        for code, indexes in self._route(docs).items():
            found = self.pipeline_for(code).detect([docs[i] for i in indexes])
            for i, spans in zip(indexes, found, strict=True):
                out[i] = spans
        return out

    def deidentify(self, docs: Sequence[Document]) -> list[Result]:
        out: list[Result | None] = [None] * len(docs)
        for code, indexes in self._route(docs).items():
            found = self.pipeline_for(code).deidentify([docs[i] for i in indexes])
            for i, result in zip(indexes, found, strict=True):
                out[i] = result
        return [r for r in out if r is not None]

    def explain(self, doc: Document) -> Explanation:
        code = self.identifier.identify(doc.text)
        return self.pipeline_for(code).explain(doc)


def build_deidentifier(
    config: Config | None = None,
    *,
    key: bytes | None = None,
    detectors: Sequence[Detector] | None = None,
    resolver: Resolver | None = None,
) -> Deidentifier:
    """The pipeline `config` asks for: a `MultilingualDeidentifier` for `language = "auto"`
    (`detectors` and `resolver` are then per language and cannot be shared), else a `Deidentifier`."""
    config = config or Config.load()
    if config.pipeline.language == AUTO_LANGUAGE:
        return MultilingualDeidentifier(config, key=key)
    return Deidentifier(config, key=key, detectors=detectors, resolver=resolver)
