"""`EnsembleDetector`: members' spans combined per unit by votes, weights or a learned combiner."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from radeid.config.config import ConfigError
from radeid.config.sections import EnsembleConfig, ResolverConfig
from radeid.core.categories import Category
from radeid.core.document import Document, Span
from radeid.detect.base import Detector
from radeid.detect.ensemble.combiner import OUTSIDE, Combiner, CombinerError
from radeid.detect.ensemble.features import UnitFeatures
from radeid.detect.ensemble.projection import Projection, Rank, UnitDecision, project, to_spans
from radeid.detect.ensemble.strategies import vote, weighted
from radeid.resolve.protected import ProtectedContent
from radeid.resolve.resolver import DENY_SOURCE, ENSEMBLE_SOURCE, member_source, source_priority

if TYPE_CHECKING:
    from radeid.config.config import Config

__all__ = ["EnsembleDetector", "resolver_rank"]


def resolver_rank(config: ResolverConfig) -> Rank:
    """The resolver's overlap order (source + category priority, then length, then score); an
    ensemble span ranks by its member's source, as in `Resolver.rank`."""

    def rank(span: Span) -> tuple[int, int, float]:
        priority = source_priority(span.source, config.source_priority)
        if not priority and span.source.startswith(ENSEMBLE_SOURCE):
            priority = source_priority(member_source(span.source), config.source_priority)
        priority += config.category_priority.get(span.category, 0)
        return (priority, len(span), span.score)

    return rank


class EnsembleDetector:
    """Runs its members and combines their spans per unit (`radeid.detect.ensemble.projection`).

    `strategy`: "vote:K", "vote:all", "weighted" (with `weights[member][CATEGORY or "*"]` and
    `threshold`) or "learned" (with a `combiner` and the `features` it was fitted with). `rank`
    orders member spans (default: the bundled config's resolver priorities). Spans
    of the user's deny lists (`lexicon/deny`) are the user's decision and pass through unvoted.
    """

    name = "ensemble"

    def __init__(
        self,
        members: Sequence[Detector],
        strategy: str = "vote:1",
        *,
        names: Sequence[str] | None = None,
        weights: Mapping[str, Mapping[str, float]] | None = None,
        threshold: float = 1.0,
        combiner: Combiner | None = None,
        features: UnitFeatures | None = None,
        rank: Rank | None = None,
    ) -> None:
        self.members = list(members)
        self.member_names = tuple(names) if names is not None else tuple(m.name for m in self.members)
        self.settings = EnsembleConfig(
            members=self.member_names,
            strategy=strategy,
            weights=dict(weights or {}),
            threshold=threshold,
            combiner="in memory" if combiner is not None else "",
        )
        self.strategy = self.settings.strategy.strip().lower()
        self.k = self.settings.vote_count()
        if rank is None:  # the shipped priorities (rules over word lists over the model)
            from radeid.config.config import Config

            rank = resolver_rank(Config.load().resolver)
        self.rank = rank
        self.combiner = combiner
        self.features = features
        if self.strategy == "learned":
            if combiner is None:
                raise ConfigError('strategy "learned" needs a combiner')
            if tuple(combiner.members) != self.member_names:
                raise ConfigError(
                    f"the combiner was fitted for members {', '.join(combiner.members)}, "
                    f"not {', '.join(self.member_names)}"
                )
            self.features = features or UnitFeatures(self.member_names)
            if tuple(self.features.names) != tuple(combiner.features):
                raise ConfigError("the combiner's features are not the ones this radeid computes; fit it again")
            self.tag = f"learned:{combiner.model}"
        else:
            self.tag = self.strategy

    @classmethod
    def from_config(cls, config: Config) -> EnsembleDetector:
        """Members built by name from the registry, each from its own `[detectors.<name>]` section."""
        from radeid.detect.base import DETECTORS

        section = config.ensemble
        members: list[Detector] = []
        for name in section.members:
            if name not in DETECTORS:
                raise ConfigError(
                    f"unknown detector {name!r} in detectors.ensemble.members; known: "
                    + ", ".join(n for n in DETECTORS.names() if n != "ensemble")
                )
            members.append(DETECTORS.get(name)(config))
        combiner = features = None
        if section.strategy.strip().lower() == "learned":
            try:
                combiner = Combiner.load(section.combiner)
            except CombinerError as exc:
                raise CombinerError(f"detectors.ensemble.combiner: {exc}") from None
            features = UnitFeatures(section.members, protected_content(config))
        try:
            return cls(
                members,
                section.strategy,
                names=section.members,
                weights=section.weights,
                threshold=section.threshold,
                combiner=combiner,
                features=features,
                rank=resolver_rank(config.resolver),
            )
        except ConfigError as exc:
            where = f" ({section.combiner})" if combiner is not None else ""
            raise ConfigError(f"detectors.ensemble{where}: {exc}") from None

    def __repr__(self) -> str:
        return f"EnsembleDetector(members={list(self.member_names)}, strategy={self.tag!r})"

    def detect(self, docs: Sequence[Document]) -> list[list[Span]]:
        outputs = [member.detect(docs) for member in self.members]
        return self.combine_many([d.text for d in docs], [list(per_doc) for per_doc in zip(*outputs, strict=True)])

    def combine(self, text: str, member_spans: Sequence[Sequence[Span]]) -> list[Span]:
        """One document's spans from its members' spans (one list per member, in member order)."""
        return self.combine_many([text], [member_spans])[0]

    def combine_many(self, texts: Sequence[str], member_spans: Sequence[Sequence[Sequence[Span]]]) -> list[list[Span]]:
        """`combine` for many documents (a learned combiner predicts all of their units at once)."""
        projections: list[Projection] = []
        passed: list[list[Span]] = []
        for text, spans in zip(texts, member_spans, strict=True):
            if len(spans) != len(self.member_names):
                raise ValueError(f"{len(spans)} member outputs for {len(self.member_names)} members")
            voted = [[s for s in found if not s.source.startswith(DENY_SOURCE)] for found in spans]
            passed.append([s for found in spans for s in found if s.source.startswith(DENY_SOURCE)])
            projections.append(project(text, voted, self.rank))
        decisions = self._decide(texts, projections)
        counts = self._has_weight if self.strategy == "weighted" else None
        learned = self.combiner is not None
        return [
            sorted([*deny, *to_spans(p, d, self.tag, counts=counts, learned=learned)])
            for p, d, deny in zip(projections, decisions, passed, strict=True)
        ]

    def _has_weight(self, member: int, span: Span) -> bool:
        """A span of a member whose weight for its category is 0 gave no vote: it is not given back."""
        return self.settings.weight(self.member_names[member], span.category) > 0

    def _decide(self, texts: Sequence[str], projections: Sequence[Projection]) -> list[list[UnitDecision]]:
        if self.k is not None:
            return [vote(p, self.k, self.rank) for p in projections]
        if self.strategy == "weighted":
            names = self.member_names
            settings = self.settings
            return [
                weighted(p, lambda m, c: settings.weight(names[m], c), settings.threshold, self.rank)
                for p in projections
            ]
        assert self.combiner is not None and self.features is not None
        rows = [self.features.rows(text, p) for text, p in zip(texts, projections, strict=True)]
        flat = self.combiner.predict([row for doc in rows for row in doc])
        out: list[list[UnitDecision]] = []
        i = 0
        for doc in rows:
            out.append(
                [
                    UnitDecision(None if label == OUTSIDE else Category.parse(label), p)
                    for label, p in flat[i : i + len(doc)]
                ]
            )
            i += len(doc)
        return out


def protected_content(config: Config) -> ProtectedContent:
    return ProtectedContent.from_files(
        config.protected_files,
        include_bundled=config.protected.include_bundled,
        disabled_classes=config.protected.disabled_classes,
        disabled=config.protected.disabled,
        language=None,  # config.protected_files starts with the language pack's files
    )
