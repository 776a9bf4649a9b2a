"""The detector protocol (batch-first, read-only) and the registry of detectors by name."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from radeid.core.document import Document, Span
from radeid.core.registry import Registry

if TYPE_CHECKING:
    from radeid.config.config import Config

__all__ = ["DETECTORS", "Detector", "DetectorFactory", "build_detector"]


@runtime_checkable
class Detector(Protocol):
    """Proposes PHI spans. Detectors never modify text and may return overlapping spans.

    `detect` takes a batch so that model-based detectors can batch across documents; it returns
    one list of spans per input document, in input order. `Span.source` starts with `name`
    (optionally `name/detail`), which the resolver uses for source priorities.
    """

    name: str

    def detect(self, docs: Sequence[Document]) -> list[list[Span]]: ...


# ---------------------------------------------------------------------------------- the registry

#: Detectors by the name `[pipeline] detectors` uses; a factory `(config) -> Detector` reads its
#: own `[detectors.<name>]` section (`config.detectors[name]`). Built-ins are registered lazily
#: (a model detector imports onnxruntime only when a config names it); a plugin registers its
#: own factory with `DETECTORS.add("name", factory)` or `@DETECTORS.register("name")`.
DetectorFactory = Callable[["Config"], Detector]
DETECTORS: Registry[DetectorFactory] = Registry("detector", "pipeline.detectors")
DETECTORS.register_lazy("rules", "radeid.detect.base:_rules")
DETECTORS.register_lazy("lexicon", "radeid.detect.base:_lexicon")
DETECTORS.register_lazy("transformer", "radeid.detect.base:_transformer")
# Other public de-identifiers (optional extras; see radeid.detect.adapters).
DETECTORS.register_lazy("presidio", "radeid.detect.adapters.presidio:from_config")
DETECTORS.register_lazy("philter", "radeid.detect.adapters.philter:from_config")
DETECTORS.register_lazy("physionet_deid", "radeid.detect.adapters.physionet_deid:from_config")
DETECTORS.register_lazy("spacy_ner", "radeid.detect.adapters.spacy_ner:from_config")
# Members built by name from this registry, voted per token (`[detectors.ensemble]`).
DETECTORS.register_lazy("ensemble", "radeid.detect.ensemble:EnsembleDetector.from_config")


def build_detector(name: str, config: Config) -> Detector:
    """The detector registered as `name`, built from `config`."""
    return DETECTORS.get(name)(config)


def _folded(detector: Detector, config: Config) -> Detector:
    """Rules and word lists match text as a reader sees it (`radeid.detect.normalize`) unless switched off."""
    if not config.pipeline.normalize_unicode:
        return detector
    from radeid.detect.normalize import NormalizingDetector

    return NormalizingDetector(detector)


def _rules(config: Config) -> Detector:
    from radeid.detect.rules import RuleDetector

    section = config.rules
    return _folded(
        RuleDetector(
            extra_rule_files=config.rule_files,
            disabled=section.disabled,
            age_threshold=section.age_threshold,
            language=None,  # config.rule_files starts with the language pack's files
        ),
        config,
    )


def _lexicon(config: Config) -> Detector:
    from radeid.detect.lexicon import LexiconDetector

    section = config.lexicon
    detector = LexiconDetector.from_files(
        hospital_lists=section.hospital_lists,
        vendor_lists=section.vendor_lists,
        deny_lists=section.deny_lists,
        include_bundled=section.include_bundled,
    )
    return _folded(detector, config)


def _transformer(config: Config) -> Detector:
    from radeid.detect.transformer import TransformerDetector

    return TransformerDetector.from_config(config.transformer)
