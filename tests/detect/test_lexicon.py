"""LexiconDetector: exact offsets, word boundaries, case and Unicode rules, list files, overlaps."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from radeid.core.categories import Category
from radeid.core.document import Document, Span
from radeid.core.resources import bundled_data_path, iter_word_list
from radeid.detect.base import Detector
from radeid.detect.lexicon import (
    LexiconDetector,
    LexiconEntry,
    LexiconFormatError,
    read_lexicon_file,
    spelling_variants,
)

H, V, P = Category.HOSPITAL, Category.VENDOR, Category.PATIENT


def found(detector: LexiconDetector, text: str) -> list[tuple[str, str]]:
    """(matched text, label) pairs, checking every offset against the text on the way."""
    [spans] = detector.detect([Document("d", text)])
    out = []
    for span in spans:
        piece = text[span.start : span.end]
        assert piece and piece == piece.strip(), span
        out.append((piece, span.label))
    return out


@pytest.fixture(scope="module")
def bundled() -> LexiconDetector:
    return LexiconDetector.from_files()


def small(*entries: LexiconEntry) -> LexiconDetector:
    return LexiconDetector(entries)


# ----------------------------------------------------------------------------------- basics


def test_is_a_detector_with_exact_offsets_category_source_and_score() -> None:
    det = small(LexiconEntry("Mayo Clinic", H, list_name="hospitals"), LexiconEntry("Siemens", V))
    text = "Seen at Mayo Clinic; scanner: SIEMENS."
    [spans] = det.detect([Document("a", text)])
    assert isinstance(det, Detector) and det.name == "lexicon"
    assert spans == [Span(8, 19, H), Span(30, 37, V)]
    assert [s.source for s in spans] == ["lexicon/hospitals", "lexicon"]
    assert all(0.85 <= s.score <= 1.0 for s in spans)
    assert [text[s.start : s.end] for s in spans] == ["Mayo Clinic", "SIEMENS"]


def test_empty_inputs() -> None:
    assert LexiconDetector([]).detect([Document("a", "Mayo Clinic")]) == [[]]
    assert small(LexiconEntry("Mayo", H)).detect([]) == []
    assert small(LexiconEntry("Mayo", H)).detect([Document("a", "")]) == [[]]
    with pytest.raises(ValueError):
        LexiconEntry("  ", H)


def test_category_given_as_string_is_parsed() -> None:
    assert LexiconEntry("x", "hospital").category is H  # type: ignore[arg-type]


# --------------------------------------------------------------------------- word boundaries


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("GE", ["GE"]),
        ("(GE)", ["GE"]),
        ("GE-made, GE.", ["GE", "GE"]),
        ("GEL", []),
        ("aGE", []),
        ("GE2", []),
        ("2GE", []),
        ("_GE_", ["GE"]),  # underscore is not a letter or digit
        ("ÉGE", []),  # a non-ASCII letter is a letter
        ("GE\u0301", []),  # a combining accent continues the word
    ],
)
def test_word_boundaries(text: str, expected: list[str]) -> None:
    det = small(LexiconEntry("GE", V, case_sensitive=True))
    assert [t for t, _ in found(det, text)] == expected


def test_boundary_only_checked_where_the_term_edge_is_a_word_character() -> None:
    det = small(LexiconEntry("Viz.ai", V), LexiconEntry("Butterfly iQ+", V), LexiconEntry("M*Modal", V))
    text = "Viz.ai's alert; Butterfly iQ+x probe; dictated in M*Modal."
    assert [t for t, _ in found(det, text)] == ["Viz.ai", "Butterfly iQ+", "M*Modal"]


# ---------------------------------------------------------------------------------- case rules


def test_case_insensitive_by_default() -> None:
    det = small(LexiconEntry("Siemens Healthineers", V))
    text = "siemens healthineers / SIEMENS HEALTHINEERS / Siemens Healthineers"
    assert len(found(det, text)) == 3


def test_case_sensitive_entries_match_only_their_exact_capitalisation() -> None:
    det = small(LexiconEntry("Epic", V, case_sensitive=True), LexiconEntry("MGH", H, case_sensitive=True))
    text = "Results in Epic. An epic effort. EPIC. Transferred from MGH, not mgh or Mgh."
    assert found(det, text) == [("Epic", "VENDOR"), ("MGH", "HOSPITAL")]


def test_case_sensitive_and_insensitive_entries_for_the_same_key() -> None:
    # a user's case-insensitive entry added later wins over a bundled case-sensitive one
    det = small(
        LexiconEntry("Merge", V, case_sensitive=True),
        LexiconEntry("merge", H, list_name="user"),
    )
    assert found(det, "Merge merge") == [("Merge", "HOSPITAL"), ("merge", "HOSPITAL")]
    det = small(
        LexiconEntry("merge", H, list_name="user"),
        LexiconEntry("Merge", V, case_sensitive=True),
    )
    assert found(det, "Merge merge") == [("Merge", "VENDOR"), ("merge", "HOSPITAL")]


# ------------------------------------------------------------------------ Unicode offset safety


def test_offsets_exact_after_characters_whose_lowercase_is_longer() -> None:
    det = small(LexiconEntry("Mayo Clinic", H), LexiconEntry("İstanbul", Category.LOCATION))
    text = "İİİ İZMİR İ Mayo Clinic İ İstanbul, ISTANBUL"
    assert len("İ".lower()) == 2  # the hazard this test is about
    assert found(det, text) == [("Mayo Clinic", "HOSPITAL"), ("İstanbul", "LOCATION"), ("ISTANBUL", "LOCATION")]


def test_accents_fold_one_way() -> None:
    det = small(LexiconEntry("Charité", H), LexiconEntry("Vitrea", V))
    text = "Charité, Charite, CHARITÉ, CHARITE; hemorragia vítrea; Vitrea; Vítrea"
    assert [t for t, _ in found(det, text)] == ["Charité", "Charite", "CHARITÉ", "CHARITE", "Vitrea"]


def test_quotes_dashes_and_odd_spaces() -> None:
    det = small(LexiconEntry("Boston Children's Hospital", H), LexiconEntry("Dana-Farber", H))
    text = "Boston Children\u2019s\u00a0Hospital and Dana\u2013Farber"
    assert [t for t, _ in found(det, text)] == ["Boston Children\u2019s\u00a0Hospital", "Dana\u2013Farber"]


def test_case_sensitive_terms_still_fold_quotes_but_not_case_or_added_accents() -> None:
    det = small(LexiconEntry("St. Mary's", H, case_sensitive=True))
    assert [t for t, _ in found(det, "St. Mary\u2019s | ST. MARY'S | St. Märy's")] == ["St. Mary\u2019s"]


@settings(max_examples=200, deadline=None)
@given(
    prefix=st.text(max_size=30),
    suffix=st.text(max_size=30),
    sep=st.sampled_from([" ", "  ", "\t", "\n", " \r\n ", "\u00a0"]),
)
def test_property_offsets_are_exact_in_any_unicode_surroundings(prefix: str, suffix: str, sep: str) -> None:
    det = small(LexiconEntry("Johns Hopkins Hospital", H))
    text = f"{prefix} Johns{sep}Hopkins Hospital {suffix}"
    [spans] = det.detect([Document("p", text)])
    start = len(prefix) + 1
    expected = Span(start, start + len(f"Johns{sep}Hopkins Hospital"), H)
    assert expected in spans
    for span in spans:
        assert text[span.start : span.end].casefold().startswith("johns")


# ------------------------------------------------------------------------------------ whitespace


def test_whitespace_runs_and_wrapped_lines_but_never_blank_lines() -> None:
    det = small(LexiconEntry("Massachusetts General Hospital", H))
    text = (
        "A Massachusetts   General\r\nHospital; B Massachusetts General\n\nHospital; C Massachusetts\tGeneral Hospital"
    )
    assert [t for t, _ in found(det, text)] == [
        "Massachusetts   General\r\nHospital",
        "Massachusetts\tGeneral Hospital",
    ]


def test_offsets_after_many_collapsed_runs() -> None:
    det = small(LexiconEntry("Mayo Clinic", H))
    chunks = ["x" * random.Random(i).randint(0, 3) + " " * random.Random(i).randint(1, 5) for i in range(50)]
    text = "".join(chunks) + "Mayo \n Clinic " + "  \n\n  ".join(chunks) + "Mayo Clinic"
    assert [t for t, _ in found(det, text)] == ["Mayo \n Clinic", "Mayo Clinic"]


def test_ascii_fold_fast_path_is_the_str_fold() -> None:
    """`_fold` folds ASCII text as bytes (faster); it must equal str.lower() + the str table, and
    the per-character fold that non-ASCII text takes, for every ASCII character."""
    from radeid.detect.lexicon import _ASCII_TABLE, _FOLD_KEEP, _FOLD_LOWER, _fold

    every = "".join(chr(i) for i in range(128))
    for lower in (True, False):
        assert _fold(every, lower) == (every.lower() if lower else every).translate(_ASCII_TABLE)
        folds = _FOLD_LOWER if lower else _FOLD_KEEP
        assert _fold(every, lower) == "".join(folds[char] for char in every)
        assert _fold(every + "\u00e9", lower)[:128] == _fold(every, lower)  # the non-ASCII path


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=" \n\t\r\x0cab\u2028", max_size=40))
def test_collapsed_text_and_offset_map_agree_with_the_spelled_out_rule(text: str) -> None:
    """Every run of 2+ spaces/line breaks (after folding) is one character: the barrier when it
    holds 2+ line breaks, else a space; a lone line break is a space; offsets map back exactly."""
    from radeid.detect.lexicon import _BARRIER, _fold, _Normalized

    folded = _fold(text)
    expected, back = [], []  # collapsed text, original offset of each collapsed position
    for run in re.finditer(r"[ \n]{2,}|[^ \n]+|[ \n]", folded):
        piece = run.group()
        if len(piece) > 1 and piece.strip(" \n") == "":
            expected.append(_BARRIER if piece.count("\n") >= 2 else " ")
            back.append(run.start())
        else:
            expected.append(piece.replace("\n", " "))
            back.extend(range(run.start(), run.end()))
    norm = _Normalized(text)
    assert norm.text == "".join(expected)
    assert [norm.to_original(i) for i in range(len(norm.text))] == back


# -------------------------------------------------------------------------------------- overlaps


def test_longest_match_wins_and_nested_matches_are_dropped() -> None:
    det = small(
        LexiconEntry("GE", V, case_sensitive=True),
        LexiconEntry("GE Healthcare", V, "COMPANY"),
        LexiconEntry("Healthcare", H),
        LexiconEntry("Samsung", V),
        LexiconEntry("Samsung Medical Center", H),
    )
    text = "GE Healthcare scanner at Samsung Medical Center; GE alone."
    assert found(det, text) == [
        ("GE Healthcare", "VENDOR/COMPANY"),
        ("Samsung Medical Center", "HOSPITAL"),
        ("GE", "VENDOR"),
    ]


def test_partial_overlaps_are_all_returned_for_the_resolver() -> None:
    det = small(LexiconEntry("Vue PACS", V), LexiconEntry("PACS Synapse", V))
    assert [t for t, _ in found(det, "Vue PACS Synapse")] == ["Vue PACS", "PACS Synapse"]


def test_identical_offsets_last_added_entry_wins() -> None:
    det = small(LexiconEntry("Mayo", H, list_name="a"), LexiconEntry("mayo", P, list_name="b"))
    [spans] = det.detect([Document("d", "Mrs Mayo")])
    assert [(s.category, s.source) for s in spans] == [(P, "lexicon/b")]


# ------------------------------------------------------------------------------------ list files


def write(path: Path, body: str) -> Path:
    path.write_text(body, encoding="utf-8")
    return path


def test_user_lists_from_files(tmp_path: Path) -> None:
    hospitals = write(tmp_path / "ours.txt", "# our sites\nSaint Elsewhere Hospital\n=RMC\n\n")
    vendors = write(tmp_path / "devices.txt", "Acme Scanner 3000\tVENDOR/DEVICE\n")
    deny = write(
        tmp_path / "names.txt",
        "Jane Doe\tPATIENT\n=Wobbly\tHCW\nA12-3456\tID/MRN\n# comment\n",
    )
    det = LexiconDetector.from_files([hospitals], [vendors], [deny], include_bundled=False)
    text = (
        "Jane Doe (MRN A12-3456) seen by Dr. Wobbly, not wobbly, at St. Elsewhere Hospital "
        "(RMC, not rmc) on an Acme Scanner 3000."
    )
    [spans] = det.detect([Document("d", text)])
    got = [(text[s.start : s.end], s.label, s.source) for s in spans]
    assert got == [
        ("Jane Doe", "PATIENT", "lexicon/deny/names"),
        ("A12-3456", "ID/MRN", "lexicon/deny/names"),
        ("Wobbly", "HCW", "lexicon/deny/names"),
        ("St. Elsewhere Hospital", "HOSPITAL", "lexicon/hospital/ours"),
        ("RMC", "HOSPITAL", "lexicon/hospital/ours"),
        ("Acme Scanner 3000", "VENDOR/DEVICE", "lexicon/vendor/devices"),
    ]
    deny_scores = {s.score for s in spans if s.source.startswith("lexicon/deny")}
    other_scores = {s.score for s in spans if not s.source.startswith("lexicon/deny")}
    assert min(deny_scores) > max(other_scores)


def test_deny_list_overrides_bundled_entry_at_the_same_offsets(tmp_path: Path) -> None:
    deny = write(tmp_path / "deny.txt", "Mayo Clinic\tPATIENT\n")
    det = LexiconDetector.from_files(deny_lists=[deny])
    [spans] = det.detect([Document("d", "seen at Mayo Clinic")])
    assert [(s.category, s.source) for s in spans] == [(P, "lexicon/deny/deny")]


def test_deny_line_without_label_is_an_error_naming_file_and_line(tmp_path: Path) -> None:
    deny = write(tmp_path / "bad.txt", "# header\nJane Doe\tPATIENT\n\nJohn Roe\n")
    with pytest.raises(LexiconFormatError, match=r"bad\.txt:4: deny-list line has no category label"):
        LexiconDetector.from_files(deny_lists=[deny], include_bundled=False)


def test_unknown_label_is_an_error_naming_file_and_line(tmp_path: Path) -> None:
    bad = write(tmp_path / "v.txt", "Acme\tVENDOR\nBeta\tGADGET\n")
    with pytest.raises(LexiconFormatError, match=r"v\.txt:2: .*GADGET"):
        LexiconDetector.from_files(vendor_lists=[bad], include_bundled=False)


def test_escapes_and_markers(tmp_path: Path) -> None:
    path = write(tmp_path / "x.txt", "\\=Equals Corp\n=\\=Strict\n\\\\Back Slash\n  Spaced Term  \n")
    entries = read_lexicon_file(path, V)
    assert [(e.term, e.case_sensitive) for e in entries] == [
        ("=Equals Corp", False),
        ("=Strict", True),
        ("\\Back Slash", False),
        ("Spaced Term", False),
    ]


def test_spelling_variants_of_hospital_names() -> None:
    variants = spelling_variants("St. Jude Children's Research Hospital")
    assert variants[0] == "St. Jude Children's Research Hospital"
    assert "Saint Jude Childrens Research Hospital" in variants
    assert "St Jude Children's Research Hospital" in variants
    assert set(spelling_variants("Baylor Scott & White")) == {"Baylor Scott & White", "Baylor Scott and White"}
    assert spelling_variants("Mayo Clinic") == ["Mayo Clinic"]


# ------------------------------------------------------------------------------- bundled lists


@pytest.mark.parametrize("name", ["hospitals.txt", "vendors.txt", "allow.txt"])
def test_bundled_lists_parse_and_document_the_format(name: str) -> None:
    path = bundled_data_path("lexicons", name)
    head = path.read_text(encoding="utf-8").split("\n", 30)
    assert sum(line.startswith("#") for line in head[:20]) >= 5  # a header explains the file
    terms = [term for term, _ in iter_word_list(path)]
    assert len(terms) > 100
    assert len({t.casefold() for t in terms}) == len(terms), "duplicate terms"


def test_bundled_vendor_and_hospital_lists_load_with_labels() -> None:
    for name, category in (("hospitals.txt", H), ("vendors.txt", V)):
        entries = read_lexicon_file(bundled_data_path("lexicons", name), category)
        assert {e.category for e in entries} == {category}
    subtypes = {e.subtype for e in read_lexicon_file(bundled_data_path("lexicons", "vendors.txt"), V)}
    assert subtypes == {"COMPANY", "DEVICE", "SOFTWARE"}


def test_bundled_positives(bundled: LexiconDetector) -> None:
    text = (
        "MRI performed on a Siemens Magnetom Skyra 3T; CT on a GE Healthcare Discovery CT750 HD. "
        "Dictated with PowerScribe 360 and stored in Sectra PACS; results in Epic. "
        "Outside films from Massachusetts General Hospital (MGH) and Saint Jude Childrens "
        "Research Hospital were reviewed; mammogram on Hologic Selenia Dimensions."
    )
    got = found(bundled, text)
    assert ("Magnetom Skyra", "VENDOR/DEVICE") in got
    assert ("Siemens", "VENDOR/COMPANY") in got
    assert ("GE Healthcare", "VENDOR/COMPANY") in got
    assert ("Discovery CT750 HD", "VENDOR/DEVICE") in got
    assert ("PowerScribe 360", "VENDOR/SOFTWARE") in got
    assert ("Sectra PACS", "VENDOR/SOFTWARE") in got
    assert ("Epic", "VENDOR/SOFTWARE") in got
    assert ("Massachusetts General Hospital", "HOSPITAL") in got
    assert ("MGH", "HOSPITAL") in got
    assert ("Saint Jude Childrens Research Hospital", "HOSPITAL") in got
    assert ("Selenia Dimensions", "VENDOR/DEVICE") in got


@pytest.mark.parametrize(
    "prose",
    [
        "Mild thickening at the GE junction. Hiatal hernia at the ge junction.",
        "An epic struggle with the merge of two lesions; no vision changes.",
        "Discovery of a new nodule marks a revolution in management; vantage point unchanged.",
        "Dimensions 4.5 x 3.2 cm. Radiant heat. Fluency of speech normal. Synapse.",
        "History of ICAD. St. Jude valve in the aortic position. R-CHOP chemotherapy.",
        "MSK pain. CCF and BMC noted. UVA exposure. NIH stroke scale 4. optima, optimal.",
        "The lesion mimics a cyst. Anterior commissure intact. Definition as above.",
        "Hemorragia vítrea. Atrium and ventricle normal. Providence of the finding.",
        "canon of care. A prism effect. dragon. aera. prisma. innova. CANON.",
    ],
)
def test_bundled_lists_ignore_ordinary_report_prose(bundled: LexiconDetector, prose: str) -> None:
    assert found(bundled, prose) == []


def test_allow_list_keeps_ambiguous_surnames_out_of_single_word_entries() -> None:
    terms = {t.casefold() for t, _ in iter_word_list(bundled_data_path("lexicons", "allow.txt"))}
    risky_words = "jones smith bell baker graves barrett addison down murphy turner wilson hartmann"
    risky_words += " fowler glasgow denver stanford willis"
    for risky in risky_words.split():
        assert risky not in terms, risky
    for multi in ("jones fracture", "bell's palsy", "baker cyst", "graves disease", "glasgow coma scale"):
        assert multi in terms, multi
    for single in ("parkinson", "hodgkin", "crohn", "foley", "swan-ganz", "doppler", "bi-rads", "l4-l5"):
        assert single in terms, single
    assert not any(t.startswith("=") for t in terms)
    assert all("\t" not in t for t in terms)


# ------------------------------------------------------------------------------- batch and speed


def test_many_documents_in_a_batch_keep_order(bundled: LexiconDetector) -> None:
    rng = random.Random(7)
    names = ["Mayo Clinic", "Cleveland Clinic", "Sectra", "Philips", "UCSF"]
    docs, expected = [], []
    for i in range(1000):
        picks = rng.sample(names, rng.randint(0, 3))
        docs.append(Document(str(i), "Report. " + " then ".join(picks) + "."))
        expected.append(picks)
    results = bundled.detect(docs)
    assert len(results) == len(docs)
    for doc, spans, picks in zip(docs, results, expected, strict=True):
        assert [doc.text[s.start : s.end] for s in spans] == picks


def test_speed_sanity(bundled: LexiconDetector) -> None:
    """Not a benchmark: a few thousand report-sized texts must go through without trouble."""
    body = (
        "FINDINGS: The heart size is normal. No focal consolidation, pleural effusion or "
        "pneumothorax. Degenerative changes of the thoracic spine. Images obtained on a "
        "Siemens Somatom Force at Mayo Clinic.\n\nIMPRESSION: No acute cardiopulmonary process.\n"
    ) * 3
    docs = [Document(str(i), body) for i in range(3000)]
    t0 = time.perf_counter()
    results = bundled.detect(docs)
    elapsed = time.perf_counter() - t0
    assert all(len(spans) == 9 for spans in results)
    print(f"lexicon: {len(docs) / max(elapsed, 1e-9):.0f} docs/s")


def test_every_bundled_term_finds_itself(bundled: LexiconDetector) -> None:
    """Catches a term that a typo, a marker or the folding rules would make unmatchable."""
    for name, category in (("hospitals.txt", H), ("vendors.txt", V)):
        entries = read_lexicon_file(bundled_data_path("lexicons", name), category, variants=category is H)
        docs = [Document(str(i), f"Seen at {e.term} today.") for i, e in enumerate(entries)]
        start = len("Seen at ")
        for entry, spans in zip(entries, bundled.detect(docs), strict=True):
            assert any(s.start <= start and s.end >= start + len(entry.term) for s in spans), entry.term


def test_bundled_places_are_case_sensitive_locations() -> None:
    detector = LexiconDetector.from_files()
    text = "Moved from Indiana to Bangladesh in May; indiana ink stain. Chad Jordan seen."
    spans = detector.detect([Document("p", text)])[0]
    found = {(text[s.start : s.end], s.category, s.subtype) for s in spans}
    assert ("Indiana", Category.LOCATION, "STATE") in found
    assert ("Bangladesh", Category.LOCATION, "COUNTRY") in found
    assert all(text[s.start : s.end] not in ("indiana", "Chad", "Jordan") for s in spans)
