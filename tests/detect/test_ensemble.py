"""Ensembles: projection onto shared units, voting arithmetic, the gap rule, exact offsets."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from radeid.config.config import Config, ConfigError
from radeid.config.sections import ResolverConfig
from radeid.core.categories import Category
from radeid.core.document import Document, Span
from radeid.detect.base import DETECTORS, build_detector
from radeid.detect.ensemble import EnsembleDetector, project, resolver_rank
from radeid.detect.ensemble.strategies import weighted
from radeid.resolve.resolver import Resolver, member_source, merge_overlaps

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
P, H, D, HOSP, ID = Category.PATIENT, Category.HCW, Category.DATE, Category.HOSPITAL, Category.ID


class Fake:
    """A member that proposes fixed spans (by substring) for every document."""

    def __init__(self, name: str, *found: tuple[str, Category] | tuple[str, Category, int]) -> None:
        self.name = name
        self.found = found

    def detect(self, docs: Sequence[Document]) -> list[list[Span]]:
        out = []
        for doc in docs:
            spans = []
            for item in self.found:
                piece, category = item[0], item[1]
                start = doc.text.index(piece, item[2] if len(item) == 3 else 0)  # type: ignore[misc]
                spans.append(Span(start, start + len(piece), category, source=f"{self.name}/x"))
            out.append(spans)
        return out


TEXT = "Seen by John Smith on 2020-01-02 at Mercy."


def run(members: Sequence[Fake], strategy: str, text: str = TEXT, **kw: object) -> list[tuple[str, Category]]:
    """The ensemble's spans with their overlaps settled as the resolver settles them."""
    ensemble = EnsembleDetector(members, strategy, **kw)  # type: ignore[arg-type]
    spans = ensemble.detect([Document("d", text)])[0]
    for s in spans:
        assert s.source.startswith(f"ensemble/{ensemble.tag}/")
    return [(text[s.start : s.end], s.category) for s in merge_overlaps(spans, ensemble.rank)]


def test_member_spans_come_back_clipped_to_the_voted_units() -> None:
    spans = EnsembleDetector([A, B, C], "vote:all").detect([Document("d", TEXT)])[0]  # type: ignore[list-item]
    # only "Smith" has three votes: each member's span over it comes back as "Smith", by member
    assert [(TEXT[s.start : s.end], s.category, s.source) for s in spans] == [
        ("Smith", H, "ensemble/vote:all/c/x"),
        ("Smith", P, "ensemble/vote:all/a/x"),
        ("Smith", P, "ensemble/vote:all/b/x"),
    ]


A = Fake("a", ("John Smith", P), ("2020-01-02", D))
B = Fake("b", ("John", P), ("Smith", P), ("Mercy", HOSP))
C = Fake("c", ("Smith", H), ("2020-01-02", D))


def test_vote_k_of_n() -> None:
    assert run([A, B, C], "vote:1") == [("John Smith", P), ("2020-01-02", D), ("Mercy", HOSP)]
    # John: a, b; Smith: a, b, c; the date: a, c; Mercy: b alone
    assert run([A, B, C], "vote:2") == [("John Smith", P), ("2020-01-02", D)]
    # only Smith has three votes; PATIENT outranks HCW in the resolver's category priority
    assert run([A, B, C], "vote:all") == [("Smith", P)]
    assert run([A, B, C], "vote:3") == run([A, B, C], "vote:all")


def test_category_follows_the_resolvers_priorities() -> None:
    rank = resolver_rank(ResolverConfig(category_priority={H: 10, P: 1}))
    assert run([A, B, C], "vote:all", rank=rank) == [("Smith", H)]
    # source priority counts too, as in the resolver: member c's HCW names all of a's "John Smith"
    rank = resolver_rank(ResolverConfig(source_priority={"c": 100}, category_priority={P: 6, H: 5}))
    assert run([A, C], "vote:1", rank=rank) == [("John Smith", H), ("2020-01-02", D)]
    assert run([A, C], "vote:1") == [("John Smith", P), ("2020-01-02", D)]


def test_gap_merges_only_when_one_member_covered_it() -> None:
    split = Fake("s", ("John", P), ("Smith", P))
    whole = Fake("w", ("John Smith", P))
    assert run([split, whole], "vote:2") == [("John Smith", P)]
    assert run([split, Fake("t", ("John", P), ("Smith", P))], "vote:2") == [("John", P), ("Smith", P)]
    names = "Seen by John, Mary and Ann Lee."
    both = [Fake("a", ("John", P), ("Mary", P)), Fake("b", ("John", P), ("Mary", P), ("Ann Lee", P))]
    assert run(both, "vote:1", names) == [("John", P), ("Mary", P), ("Ann Lee", P)]
    # units voted different categories under one member's span stay one span, as overlapping spans
    # do in the resolver: the best-ranked member span names it ("Southern Tunisia": the model says
    # HOSPITAL for both words, the place list LOCATION for "Tunisia")
    mixed = [Fake("a", ("John Smith", P)), Fake("b", ("Smith", H))]
    rank = resolver_rank(ResolverConfig(category_priority={H: 10}))
    assert run(mixed, "vote:1", rank=rank) == [("John Smith", H)]
    apart = [Fake("a", ("John", P)), Fake("b", ("Smith", H))]
    assert run(apart, "vote:1", rank=rank) == [("John", P), ("Smith", H)]
    place = "Trip to Southern Tunisia."
    members = [Fake("model", ("Southern Tunisia", HOSP)), Fake("places", ("Tunisia", Category.LOCATION))]
    rank = resolver_rank(ResolverConfig(source_priority={"places": 20, "model": 10}))
    assert run(members, "vote:1", place, rank=rank) == [("Southern Tunisia", Category.LOCATION)]
    assert run(members, "vote:2", place, rank=rank) == [("Tunisia", Category.LOCATION)]


def test_offsets_are_exact_inside_tokens() -> None:
    text = "Ref MRN12345678 today"
    digits = Fake("a", ("12345678", ID))
    whole = Fake("b", ("MRN12345678", ID))
    ensemble = EnsembleDetector([digits, whole], "vote:2")  # type: ignore[list-item]
    spans = ensemble.detect([Document("d", text)])[0]
    assert [(s.start, s.end, text[s.start : s.end]) for s in spans] == [(7, 15, "12345678")] * 2
    spans = EnsembleDetector([digits, whole], "vote:1").detect([Document("d", text)])[0]  # type: ignore[list-item]
    assert [(s.start, s.end) for s in spans] == [(4, 15), (7, 15)]
    units = project(text, [[Span(7, 15, ID)], [Span(4, 15, ID)]], resolver_rank(ResolverConfig())).units
    assert units == [(0, 3), (4, 7), (7, 15), (16, 21)]


@pytest.mark.parametrize("member", ["rules", "lexicon"])
def test_one_real_member_under_vote_1_gives_back_its_own_spans(member: str) -> None:
    config = Config.load(overrides={"detectors": {"ensemble": {"members": [member], "strategy": "vote:1"}}})
    detector = build_detector(member, config)
    ensemble = build_detector("ensemble", config)
    resolver = Resolver.from_config(config)
    total = 0
    for path in sorted(EXAMPLES.glob("*.txt")):
        doc = Document(path.stem, path.read_text(encoding="utf-8"))
        own = detector.detect([doc])[0]
        voted = ensemble.detect([doc])[0]
        # exactly its own spans, nested ones included ("Marlow, NH 03456" and "NH"), by the member's source
        expected = sorted((s.start, s.end, s.category, s.subtype, f"ensemble/vote:1/{s.source}") for s in own)
        assert sorted((s.start, s.end, s.category, s.subtype, s.source) for s in voted) == expected
        final = [(s.start, s.end, s.category, s.subtype) for s in resolver.resolve(doc.text, own)]
        assert [(s.start, s.end, s.category, s.subtype) for s in resolver.resolve(doc.text, voted)] == final
        total += len(own)
    assert total > (100 if member == "rules" else 5)


def test_weighted_votes_per_member_and_category() -> None:
    weights = {"a": {"*": 1.0}, "b": {"*": 0.4, "HOSPITAL": 1.0}, "c": {"*": 0.5}}
    got = run([A, B, C], "weighted", weights=weights, threshold=1.0)
    # John 1.4, Smith 1.9, the date 1.5, Mercy 1.0 (b's hospital weight)
    assert got == [("John Smith", P), ("2020-01-02", D), ("Mercy", HOSP)]
    got = run([A, B, C], "weighted", weights=weights, threshold=1.45)
    assert got == [("Smith", P), ("2020-01-02", D)]
    projection = project("x y", [[Span(0, 1, P)], [Span(0, 1, P)], [Span(2, 3, P)]], resolver_rank(ResolverConfig()))
    w = [0.1, 0.2, 0.29]
    decisions = weighted(projection, lambda m, c: w[m], 0.3, resolver_rank(ResolverConfig()))
    assert [d.category for d in decisions] == [P, None]  # 0.1 + 0.2 reaches 0.3 (float tolerance)


def test_deny_list_spans_pass_through_unvoted() -> None:
    deny = Span(8, 12, P, source="lexicon/deny/site")
    member = Fake("b", ("Mercy", HOSP))

    class Deny:
        name = "lexicon"

        def detect(self, docs: Sequence[Document]) -> list[list[Span]]:
            return [[deny] for _ in docs]

    spans = EnsembleDetector([Deny(), member], "vote:all").detect([Document("d", TEXT)])[0]  # type: ignore[list-item]
    assert spans == [deny] and spans[0].source == "lexicon/deny/site"


def test_resolver_reads_the_member_source_of_ensemble_spans() -> None:
    assert member_source("ensemble/vote:2/rules/date_iso") == "rules/date_iso"
    assert member_source("ensemble/vote:2") == "ensemble/vote:2" and member_source("rules/x") == "rules/x"
    config = Config.load()
    resolver = Resolver.from_config(config)
    strong = Span(0, 4, D, source="ensemble/vote:1/rules/date_iso")
    assert resolver.is_strong(strong) and not resolver.is_strong(strong.with_(source="ensemble/vote:1/transformer"))
    # priorities: an ensemble span ranks as its member would
    assert resolver.rank(strong)[0] == resolver.rank(strong.with_(source="rules/date_iso"))[0]
    # form checks: a model-named ensemble span that cannot be its category is dropped, as the model's own
    text = "Phone: call 12 now"
    model_phone = Span(12, 14, Category.PHONE, source="transformer")
    assert resolver.resolve(text, [model_phone]) == []
    assert resolver.resolve(text, [model_phone.with_(source="ensemble/vote:1/transformer")]) == []
    # protected content: a clinical value named by a weak member is vetoed through the ensemble too
    text = "BP 120/80 today"
    weak = Span(3, 9, D, source="ensemble/vote:1/transformer")
    assert resolver.resolve(text, [weak]) == resolver.resolve(text, [weak.with_(source="transformer")]) == []


def test_registered_and_built_from_its_section() -> None:
    assert "ensemble" in DETECTORS
    config = Config.load(
        overrides={
            "pipeline": {"detectors": ["ensemble"]},
            "detectors": {"ensemble": {"members": ["rules", "lexicon"], "strategy": "vote:2"}},
        }
    )
    from radeid.pipeline.deidentifier import Deidentifier

    deid = Deidentifier(config)
    [ensemble] = deid.detectors
    assert isinstance(ensemble, EnsembleDetector) and ensemble.member_names == ("rules", "lexicon")
    assert ensemble.tag == "vote:2"


def _load(ensemble: dict, **other: object) -> Config:
    return Config.load(overrides={"detectors": {"ensemble": ensemble}, **other})


def test_config_errors_say_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="strategy must be vote:K"):
        _load({"strategy": "majority"})
    with pytest.raises(ConfigError, match=r"vote:4: K must be between 1 and the number of members \(3\)"):
        _load({"strategy": "vote:4"})
    with pytest.raises(ConfigError, match="needs combiner"):
        _load({"strategy": "learned"})
    with pytest.raises(ConfigError, match="lists a detector twice"):
        _load({"members": ["rules", "rules"]})
    with pytest.raises(ConfigError, match="not a member"):
        _load({"members": ["rules"], "weights": {"lexicon": {"*": 1.0}}})
    with pytest.raises(ConfigError, match="unknown PHI category"):
        _load({"members": ["rules"], "weights": {"rules": {"NAME": 1.0}}})
    with pytest.raises(ConfigError, match="'rules' and 'ensemble'.*not also run on its own"):
        _load({"members": ["rules", "lexicon"]}, pipeline={"detectors": ["rules", "ensemble"]})
    config = _load({"members": ["rules", "nosuch"]})
    with pytest.raises(ConfigError, match="unknown detector 'nosuch' in detectors.ensemble.members"):
        build_detector("ensemble", config)
    missing = tmp_path / "gone" / "combiner.json"
    config = _load({"members": ["rules"], "strategy": "learned", "combiner": str(missing)})
    with pytest.raises(ConfigError, match=f"combiner file not found: {missing}"):
        build_detector("ensemble", config)


def test_model_options_act_on_the_ensembles_members() -> None:
    """--no-model takes the model out of the ensemble; --model names it without running it twice."""
    from radeid.cli.options import load_job_config

    path = EXAMPLES / "ensemble.toml"
    config = load_job_config(path, {}, no_model=True)
    assert config.pipeline.detectors == ("ensemble",) and config.ensemble.members == ("rules", "lexicon")
    config = load_job_config(path, {"detectors.transformer.model": "some/model"})
    assert config.pipeline.detectors == ("ensemble",) and "transformer" in config.ensemble.members
    assert config.transformer.model == "some/model"
