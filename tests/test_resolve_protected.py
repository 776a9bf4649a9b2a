"""The resolver's protected-content step and form checks, and the defects of issue 10 end to end."""

from __future__ import annotations

import pytest

from radeid.config.config import Config
from radeid.core.categories import Category
from radeid.core.document import Document, Span
from radeid.pipeline.deidentifier import Deidentifier
from radeid.resolve.resolver import Resolver

P, H, D, L, HO, A = (
    Category.PATIENT,
    Category.HCW,
    Category.DATE,
    Category.LOCATION,
    Category.HOSPITAL,
    Category.AGE,
)


@pytest.fixture(scope="module")
def resolver() -> Resolver:
    return Resolver.from_config(Config.load())


def resolved(resolver: Resolver, text: str, *spans: tuple[str, Category, str]) -> list[tuple[str, str]]:
    """Resolve spans given as (piece, category, source); the piece's first occurrence is the span."""
    found = []
    for piece, category, source in spans:
        start = text.index(piece)
        found.append(Span(start, start + len(piece), category, source=source))
    return [(text[s.start : s.end], s.category.value) for s in resolver.resolve(text, found)]


def test_a_span_inside_protected_content_is_dropped_from_any_source(resolver: Resolver) -> None:
    assert resolved(resolver, "Temp 98.6 F", ("98", A, "transformer")) == []
    assert resolved(resolver, "Grade 3/6 murmur", ("3/6", D, "transformer")) == []
    assert resolved(resolver, "Sister Mary Joseph nodule", ("Mary Joseph", P, "rules/name_relative")) == []
    assert resolved(resolver, "per Fleischner Society", ("Fleischner Society", HO, "lexicon/hospital")) == []


def test_a_strong_source_beats_protected_content(resolver: Resolver) -> None:
    # a user's deny-list entry and a cued, validated rule are kept inside protected text
    text = "Fleischner Society"
    assert resolved(resolver, text, ("Fleischner", P, "lexicon/deny")) == [("Fleischner", "PATIENT")]
    text = "Dr. Mahurkar catheter"
    assert resolved(resolver, text, ("Mahurkar", H, "rules/name_hcw_title")) == [("Mahurkar", "HCW")]
    assert resolved(resolver, text, ("Mahurkar", H, "transformer")) == []


def test_protected_text_at_an_edge_is_cut_off_and_the_rest_is_checked(resolver: Resolver) -> None:
    # "31 MM" is a measurement; what is left ("OVAL") is one common word, not a street
    assert resolved(resolver, "31 MM OVAL CIRCUMSCRIBED MASS", ("31 MM OVAL", L, "rules/loc_street")) == []
    # "for" is left of the holiday: not a hospital
    assert resolved(resolver, "home for Christmas.", ("for Christmas", HO, "transformer")) == []
    # a clinical word at an edge ("soft") leaves a proper name whole: "Discovery NM" is a scanner
    text = "Scanner: Discovery NM."
    assert resolved(resolver, text, ("Discovery NM", Category.VENDOR, "transformer")) == [("Discovery NM", "VENDOR")]
    # (and a model's piece of a facility name grows to the whole name, "Clinic" included)
    text = "seen at Lakeside General Neurology Clinic"
    assert resolved(resolver, text, ("Lakeside General Neurology", HO, "transformer")) == [
        ("Lakeside General Neurology Clinic", "HOSPITAL")
    ]
    # ... unless the rest is only function words
    assert resolved(resolver, "seen in the ED today", ("the ED", HO, "transformer")) == []


def test_protected_text_strictly_inside_a_span_keeps_the_span(resolver: Resolver) -> None:
    text = "Boston Chest Imaging Center"
    assert resolved(resolver, text, (text, HO, "transformer")) == [(text, "HOSPITAL")]


def test_form_checks_apply_to_model_spans_after_edge_cleaning(resolver: Resolver) -> None:
    assert resolved(resolver, "Home: Christmas", ("Christmas", Category.EMAIL, "transformer")) == []
    assert resolved(resolver, "see Workstation", ("Workstation", Category.URL, "transformer")) == []
    assert resolved(resolver, "discussed on rounds.", ("rounds.", P, "transformer")) == []
    # rules are not form-checked unless cut: a cued single-word name stays
    assert resolved(resolver, "Dictated by: Rounds", ("Rounds", H, "rules/name_hcw_label")) == [("Rounds", "HCW")]


@pytest.fixture(scope="module", params=["default", "no-model"])
def deid(request: pytest.FixtureRequest) -> Deidentifier:
    overrides = {"pipeline": {"detectors": ["rules", "lexicon"]}} if request.param == "no-model" else None
    return Deidentifier(Config.load(overrides=overrides))


# The clinical values and words reported in issue 10: no span at all, with the model or without.
ISSUE_10_PHI_FREE = [
    "Entresto (sacubitril-valsartan 24/26 mg) twice daily.",
    "Pulmonary pressures: PA 38/20 mmHg.",
    "Vitals: Temp 98.6 F, HR 88, BP 128/76.",
    "Grade 3/6 systolic murmur at the apex.",
    "Disc bulge at L4/5 with mild foraminal narrowing.",
    "20/20 vision OU.",
    "Hemoglobin 12/14 over the last two days.",
    "Age 89, retired teacher.",
    "31 MM OVAL CIRCUMSCRIBED MASS IN THE LEFT BREAST.",
    "CHEST PA AND LATERAL",
    "Seen by the consult team (Emergency Medicine).",
    "Neurology was consulted.",
    "Follow up with Hematology/Oncology next week.",
    "Nodule management per Fleischner Society guidelines.",
    "Jackson-Pratt drain in place in the right flank.",
    "Sister Mary Joseph nodule is not seen.",
    "AP projection of the chest was obtained.",
    "Findings were discussed on rounds.",
    "Patient would like to be home for Christmas.",
    "Patient seen in the ED. Glasgow Coma Scale 15.",
    "Diagnosis: cough (ICD-9 786.2).",
]


@pytest.mark.parametrize("text", ISSUE_10_PHI_FREE)
def test_issue_10_clinical_text_is_left_alone(deid: Deidentifier, text: str) -> None:
    spans = deid.detect([Document("t", text)])[0]
    assert [(text[s.start : s.end], s.label, s.source) for s in spans] == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("LEE, SOO-JIN (Ms) was seen today by Dr. Nadia Ahmed.", {"Nadia Ahmed"}),
        ("Questions: (tel. 217.555.0147) any time.", {"217.555.0147"}),
        ("Dr Ahmed's note reviewed; Dr Ahmed agrees.", {"Ahmed"}),
        ("Exam date 2019-07-04T10:15:00, L4/5 level.", {"2019-07-04"}),
        ("Referring: Dr. Omar Patel   Performing sonographer: Kim", {"Omar Patel"}),
        ("DOB 05MAR2019; study date 20190305.", {"05MAR2019", "20190305"}),
    ],
)
def test_issue_10_spans_have_clean_edges(deid: Deidentifier, text: str, expected: set[str]) -> None:
    spans = deid.detect([Document("t", text)])[0]
    pieces = {text[s.start : s.end] for s in spans}
    assert expected <= pieces
    for s in spans:
        piece = text[s.start : s.end]
        assert piece == piece.strip(" .,;:()'") and "  " not in piece and "\t" not in piece, piece
        assert not piece.endswith("'s"), piece
