"""The RuleDetector engine: loading, user rule files, disabling, settings, determinism, speed."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from radeid.core.categories import Category
from radeid.core.document import Document
from radeid.detect.base import Detector
from radeid.detect.rules import RuleDetector, bundled_rule_files, tighten, trie_regex
from radeid.patterns.validators import luhn_ok, valid_ipv4, valid_npi, valid_ssn


@pytest.fixture(scope="module")
def detector() -> RuleDetector:
    return RuleDetector()


def texts_of(text: str, detector: RuleDetector) -> list[tuple[str, str]]:
    return [(text[s.start : s.end], s.label) for s in detector.detect_text(text)]


def write(tmp_path: Path, body: str, name: str = "user.toml") -> Path:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return path


# ------------------------------------------------------------------------------ interface


def test_protocol_and_names(detector: RuleDetector) -> None:
    assert isinstance(detector, Detector)
    assert detector.name == "rules"
    names = detector.rule_names
    assert len(names) == len(set(names)) > 30
    assert {"date_slash", "phone_us", "id_ssn", "id_mrn", "name_hcw_title", "age_unit_after"} <= set(names)


def test_bundled_files_document_the_schema() -> None:
    files = bundled_rule_files()
    assert files and files[0].name == "00_common.toml"
    head = files[0].read_text(encoding="utf-8").split("\n[macros]")[0]
    for key in ("name", "category", "pattern", "validator", "context_before", "triggers", "window"):
        assert re.search(rf"^#\s+{key}\b", head, re.MULTILINE), key


def test_batch_order_and_empty_documents(detector: RuleDetector) -> None:
    docs = [
        Document("a", "MRN: 1234567"),
        Document("b", ""),
        Document("c", "No PHI here."),
        Document("d", "Call 555-123-4567"),
    ]
    result = detector.detect(docs)
    assert len(result) == 4
    assert [docs[0].text[s.start : s.end] for s in result[0]] == ["1234567"]
    assert result[1] == [] and result[2] == []
    assert [docs[3].text[s.start : s.end] for s in result[3]] == ["555-123-4567"]
    assert all(s.source.startswith("rules/") for spans in result for s in spans)


def test_spans_sorted_and_unique(detector: RuleDetector) -> None:
    text = "MRN: 1234567 MRN: 1234567 on 3/4/2019 and 3/4/2019"
    spans = detector.detect_text(text)
    keys = [(s.start, s.end, s.category) for s in spans]
    assert keys == sorted(keys, key=lambda k: (k[0], k[1], k[2].value))
    assert len(keys) == len(set(keys))
    assert all(s.subtype == "MRN" for s in spans if s.category is Category.ID)


def test_hits_at_text_edges(detector: RuleDetector) -> None:
    assert texts_of("MRN 1234567", detector) == [("1234567", "ID/MRN")]
    assert texts_of("Phone: 555-123-4567", detector) == [("555-123-4567", "PHONE")]
    assert texts_of("123 Main St", detector) == [("123 Main St", "LOCATION/STREET")]


def test_offsets_survive_non_latin1_text(detector: RuleDetector) -> None:
    text = "患者 😀 Ωμέγα — MRN: 7654321; Dr. Ørsted; 😀😀 on 03/04/2019"
    found = texts_of(text, detector)
    assert ("7654321", "ID/MRN") in found
    assert ("Ørsted", "HCW") in found
    assert ("03/04/2019", "DATE") in found


# ------------------------------------------------------------------------------ settings


@pytest.mark.parametrize(
    ("threshold", "text", "expected"),
    [
        (89, "A 92 y/o and a 89 y/o and a 45 y/o.", ["92"]),
        (95, "A 92 y/o and a 97 y/o.", ["97"]),
        (50, "A 62 year old, a 45 year old and age 51.", ["62", "51"]),
    ],
)
def test_age_threshold(threshold: int, text: str, expected: list[str]) -> None:
    detector = RuleDetector(age_threshold=threshold)
    assert [t for t, label in texts_of(text, detector) if label == "AGE"] == expected


def test_disabled_by_name_and_pattern() -> None:
    text = "MRN: 1234567 on 03/04/2019, call 555-123-4567"
    detector = RuleDetector(disabled=["id_mrn", "id_digits_in_context", "date_*"])
    assert "id_mrn" not in detector.rule_names
    assert not any(name.startswith("date_") for name in detector.rule_names)
    assert texts_of(text, detector) == [("555-123-4567", "PHONE")]


def test_disabled_unknown_name_is_an_error() -> None:
    with pytest.raises(ValueError, match="matches no rule"):
        RuleDetector(disabled=["no_such_rule"])


# ---------------------------------------------------------------------------- user files


def test_user_file_adds_rule_macro_and_list(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
[macros]
RADNUM = 'RAD\\d{6}'

[lists]
rad_words = ["radiology number", "rad no"]

[[rule]]
name = "site_rad_number"
category = "ID"
subtype = "ACCESSION"
pattern = '(?i:{{list:rad_words}})[ :]*(?P<phi>{{RADNUM}})'
score = 0.99
""",
    )
    detector = RuleDetector(extra_rule_files=[path])
    assert detector.rule_names[-1] == "site_rad_number"
    text = "Rad No: RAD123456."
    found = [(text[s.start : s.end], s.label, s.score) for s in detector.detect_text(text)]
    assert found == [("RAD123456", "ID/ACCESSION", 0.99)]


def test_user_file_overrides_bundled_rule(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
[[rule]]
name = "id_mrn"
category = "ID"
subtype = "LOCAL_MRN"
pattern = '\\bMRN:\\s*(?P<phi>\\d{3}-\\d{4})'
triggers = ["mrn"]
""",
    )
    detector = RuleDetector(extra_rule_files=[path], disabled=["id_digits_in_context"])
    assert detector.rule_names.count("id_mrn") == 1
    assert texts_of("MRN: 123-4567", detector) == [("123-4567", "ID/LOCAL_MRN")]
    assert texts_of("MRN: 1234567", detector) == []


def test_user_file_can_switch_rules_off_and_extend_lists(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
[lists]
us_state_abbr = ["IL", "ZZ"]

[[rule]]
name = "date_weekday"
category = "DATE"
pattern = 'x'
enabled = false
""",
    )
    detector = RuleDetector(extra_rule_files=[path])
    assert "date_weekday" not in detector.rule_names
    assert texts_of("Seen on Friday.", detector) == []
    # the overridden list changes every bundled rule that uses it
    found = texts_of("Foo, ZZ 12345 and Bar, CA 54321", detector)
    assert ("ZZ", "LOCATION/STATE") in found and ("12345", "LOCATION/ZIP") in found
    assert ("CA", "LOCATION/STATE") not in found


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("[[rule]]\nname = 'x'\ncategory = 'DATE'\npattern = 'a'\nbogus = 1\n", "unknown keys"),
        ("[[rule]]\nname = 'x'\ncategory = 'NOPE'\npattern = 'a'\n", "unknown PHI category"),
        ("[[rule]]\nname = 'x'\ncategory = 'DATE'\npattern = '('\n", "bad pattern"),
        ("[[rule]]\nname = 'x'\ncategory = 'DATE'\npattern = 'a'\nvalidator = 'nope'\n", "unknown validator"),
        ("[[rule]]\nname = 'x'\ncategory = 'DATE'\npattern = '{{NOPE}}'\n", "unknown macro"),
        ("[macros]\nA = '{{B}}'\nB = '{{A}}'\n[[rule]]\nname = 'x'\ncategory = 'DATE'\npattern = '{{A}}'\n", "cycle"),
        ("[[rule]]\nname = 'x'\ncategory = 'DATE'\npattern = 'a'\n" * 2, "defined twice"),
        ("[[rule]]\ncategory = 'DATE'\npattern = 'a'\n", "needs a name"),
        ("[[rule]]\nname = 'x'\ncategory = 'DATE'\n", "missing required key"),
        ("[[rule]]\nname = 'x'\ncategory = 'DATE'\npattern = 'a'\nscore = 1.5\n", "score"),
        ("[macros]\nA = 'a b'\n", "whitespace"),
        ("[[rule]]\nname = 'x'\ncategory = 'DATE'\npattern = '(?P<a>a)'\ngroups = { b = 'DATE' }\n", "does not define"),
        ("[[rule]]\nname = 'x'\ncategory = 'DATE'\npattern = 'a'\nflags = ['FAST']\n", "unknown flag"),
        ("[other]\nx = 1\n", "unknown top-level"),
        ("not toml = = \n", "cannot read"),
    ],
)
def test_bad_user_files_are_reported(tmp_path: Path, body: str, message: str) -> None:
    path = write(tmp_path, body)
    with pytest.raises(ValueError, match=message):
        RuleDetector(extra_rule_files=[path])


def test_missing_user_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not found"):
        RuleDetector(extra_rule_files=[tmp_path / "missing.toml"])


def test_groups_context_and_subtype_context(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
[[rule]]
name = "kv"
category = "ID"
pattern = '(?P<key>[A-Z]{3})=(?P<val>\\d+)'
groups = { key = "VENDOR/CODE", val = "ID/VALUE" }

[[rule]]
name = "boosted"
category = "ID"
pattern = '\\bZ\\d{4}\\b'
score = 0.5
context_before = ["code"]
context_window = 8
context_required = false
context_score = 0.9

[[rule]]
name = "vetoed"
category = "ID"
pattern = '\\bQ\\d{4}\\b'
negative_before = ["not"]
subtype_context = { HOME = ["home"], WORK = ["work"] }
""",
    )
    detector = RuleDetector(extra_rule_files=[path], disabled=["id_*", "phone_*"])
    text = "ABC=123 code Z1234 and Z5678; home Q1111, work Q2222, not Q3333"
    spans = {text[s.start : s.end]: s for s in detector.detect_text(text)}
    assert spans["ABC"].label == "VENDOR/CODE" and spans["123"].label == "ID/VALUE"
    assert spans["Z1234"].score == 0.9 and spans["Z5678"].score == 0.5
    assert spans["Q1111"].subtype == "HOME" and spans["Q2222"].subtype == "WORK"
    assert "Q3333" not in spans


def test_anchored_rule_only_matches_at_its_trigger(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
[[rule]]
name = "anchored_code"
category = "ID"
subtype = "CODE"
pattern = '(?<![a-z])(?i:code)[ :]*(?P<phi>[A-Z]\\d{3})'
triggers = ["code"]
window = [0, 20]
anchored = true

[[rule]]
name = "anchored_elsewhere"
category = "VENDOR"
pattern = '[A-Z]\\d{3}'
triggers = ["code"]
window = [0, 20]
anchored = true

[[rule]]
name = "windowed_elsewhere"
category = "URL"
pattern = '[A-Z]\\d{3}'
triggers = ["code"]
window = [0, 20]
""",
    )
    detector = RuleDetector(extra_rule_files=[path], disabled=["id_*"])
    found = texts_of("Code: A123 and code B456; xcode C789", detector)
    # anchored: only matches that start at a trigger; windowed: anything in the window after it
    assert [t for t, label in found if label == "ID/CODE"] == ["A123", "B456"]
    assert [t for t, label in found if label == "VENDOR"] == []
    assert [t for t, label in found if label == "URL"] == ["A123", "B456", "C789"]
    bad = write(tmp_path, "[[rule]]\nname = 'x'\ncategory = 'ID'\npattern = 'x'\nanchored = true\n", "bad.toml")
    with pytest.raises(ValueError, match="needs triggers"):
        RuleDetector(extra_rule_files=[bad])


def test_requires_skips_the_rule_where_its_precondition_is_absent(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
[[rule]]
name = "code_with_hash"
category = "ID"
subtype = "CODE"
pattern = '[A-Z]\\d{3}'
requires = '[#]'
""",
    )
    detector = RuleDetector(extra_rule_files=[path], disabled=["id_*", "date_*"])
    assert [t for t, label in texts_of("Code A123 and B456", detector) if label == "ID/CODE"] == []
    # the precondition may be anywhere in the text; the rule then runs as usual
    found = texts_of("Code A123 and B456 #", detector)
    assert [t for t, label in found if label == "ID/CODE"] == ["A123", "B456"]
    bad = write(tmp_path, "[[rule]]\nname = 'x'\ncategory = 'ID'\npattern = 'x'\nrequires = '(['\n", "bad.toml")
    with pytest.raises(ValueError, match="bad requires"):
        RuleDetector(extra_rule_files=[bad])
    bad = write(tmp_path, "[[rule]]\nname = 'x'\ncategory = 'ID'\npattern = 'x'\nrequires = []\n", "bad.toml")
    with pytest.raises(ValueError, match="empty list"):
        RuleDetector(extra_rule_files=[bad])


def test_requires_as_a_list_runs_the_rule_where_any_of_them_is_found(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
[[rule]]
name = "code_with_mark"
category = "ID"
subtype = "CODE"
pattern = '[A-Z]\\d{3}'
requires = ['[#]', '[*]']
""",
    )
    detector = RuleDetector(extra_rule_files=[path], disabled=["id_*", "date_*"])
    assert [t for t, label in texts_of("Code A123 and B456", detector) if label == "ID/CODE"] == []
    for mark in ("#", "*", "# *"):
        found = texts_of(f"Code A123 and B456 {mark}", detector)
        assert [t for t, label in found if label == "ID/CODE"] == ["A123", "B456"]


def test_bundled_requires_hold_inside_every_match(detector: RuleDetector) -> None:
    """`requires` is speed only: on random texts of the characters the patterns care about, every
    match of a bundled rule that has one contains a match of it (so skipping loses nothing)."""
    import random

    rng = random.Random(11)
    rules = [rule for rule in detector.rules if rule.requires]
    assert rules  # name_transcription_initials
    edges = ["", " ", "\n", "x", "7", ".", "-", "/", ":", "("]

    def word(letters: str) -> str:
        return "".join(rng.choice(letters) for _ in range(rng.randint(0, 5)))

    matched = 0
    for _ in range(3000):
        text = "".join(
            rng.choice(edges) + word("ABMSZ") + rng.choice(["/", ":", "-", " ", ""]) + word("abjrz") + rng.choice(edges)
            for _ in range(rng.randint(1, 3))
        )
        for rule in rules:
            for match in rule.regex.finditer(text):
                matched += 1
                assert any(r.search(text, match.start(), match.end()) for r in rule.requires), (rule.name, text)
    assert matched > 50


def test_transcription_initials_requires_finds_what_the_one_regex_found(detector: RuleDetector) -> None:
    """Its `requires` is one regex per separator (`re` scans for one literal fastest); together
    they must find a text exactly where the single-regex form `[/:](?<=[A-Z][/:])(?=[a-z])` did."""
    import random

    import radeid.detect.rules as rules_module

    (rule,) = [rule for rule in detector.rules if rule.name == "name_transcription_initials"]
    assert len(rule.requires) == 2
    single = re.compile("[/:](?<=[A-Z][/:])(?=[a-z])")
    rng = random.Random(5)
    found = 0
    for _ in range(5000):
        text = "".join(rng.choice("Aaz/:. \n7É") for _ in range(rng.randint(0, 12)))
        expected = single.search(text) is not None
        found += expected
        assert rules_module._found_any(rule.requires, text) is expected, text
    assert found > 50


def test_fast_form_of_date_compact_month_finds_what_the_readable_form_finds(detector: RuleDetector) -> None:
    """`\\d(?<![...]\\d)\\d?` (re skips to digits in C) for `(?<![...])\\d{1,2}`: the same matches."""
    import random

    [rule] = [r for r in detector.rules if r.name == "date_compact_month"]
    fast = rule.regex.pattern
    head = r"(?P<d>\d(?<![\w.,/:-]\d)\d?)"
    assert fast.startswith(head)
    readable = re.compile(r"(?<![\w.,/:-])(?P<d>\d{1,2})" + fast[len(head) :], rule.regex.flags)
    rng = random.Random(4)
    pieces = [*"0123456789 .,/:-x", "\u0663", "MAR", "mar", "Jan", "2019", "19", "05"]
    matched = 0
    for _ in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
        want = [m.span("d") + m.span() for m in readable.finditer(text)]
        assert [m.span("d") + m.span() for m in rule.regex.finditer(text)] == want, text
        matched += len(want)
    assert matched > 20


def _window_reference(regex: re.Pattern[str], window: tuple[int, int], hits: list[tuple[int, int]], text: str):
    """The windowed search spelled out: windows around each hit, overlapping or touching ones
    merged, each extended to the end of its last word (at most 64 characters), then scanned."""
    before, after = window
    n, windows = len(text), []
    for start, end in sorted(hits):
        low, high = max(0, start - before), min(n, end + after)
        if windows and low <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(windows[-1][1], high))
        else:
            windows.append((low, high))
    out = []
    for low, high in windows:
        if high < n:
            high = re.compile(r"\S*").match(text, high, min(n, high + 64)).end()
        out.extend(m.span() for m in regex.finditer(text, low, high))
    return out


@pytest.mark.parametrize("pattern", [r"a+b?", r"(?:ab|a)\w*", r"b*", r"\d{2,}|x", r"(?<=a)b+|c"])
def test_window_matches_agree_with_the_spelled_out_search(pattern: str) -> None:
    import random

    from radeid.detect.rules import _window_matches

    rng = random.Random(9)
    regex = re.compile(pattern)
    for _ in range(400):
        text = "".join(rng.choice("aabbc1234 x") for _ in range(rng.randint(0, 40)))
        window = (rng.choice([0, 0, 1, 3, 8]), rng.choice([0, 2, 6, 30]))
        hits = []
        for _ in range(rng.randint(0, 6)):
            s = rng.randint(0, max(0, len(text) - 1))
            hits.append((s, min(len(text), s + rng.randint(0, 4))))
        rule = type("R", (), {"window": window, "regex": regex})()
        got = [m.span() for m in _window_matches(rule, hits, text)]  # type: ignore[arg-type]
        assert got == _window_reference(regex, window, hits, text), (text, window, hits)


# ---------------------------------------------------------------------------- determinism


def test_deterministic_across_instances_and_calls() -> None:
    docs = [Document(str(i), f"Dr. Jane Smith {i}: MRN {1000000 + i}, seen 3/{i % 28 + 1}/2019") for i in range(50)]
    first = RuleDetector().detect(docs)
    second = RuleDetector().detect(docs)
    third = RuleDetector().detect(list(reversed(docs)))
    assert first == second
    assert [[s.to_dict() for s in d] for d in first] == [[s.to_dict() for s in d] for d in second]
    assert list(reversed(third)) == first


# ---------------------------------------------------------------------------------- speed

_REPORT = (
    "EXAMINATION: CT CHEST WITH CONTRAST\nINDICATION: Cough. History of COPD.\n"
    "COMPARISON: None. TECHNIQUE: Axial images were obtained from the thoracic inlet.\n"
    "FINDINGS: 4.5 x 3.2 cm mass (series 3 image 45) in the right upper lobe. T12 compression.\n"
    "Mild cardiomegaly. No pleural effusion. Dose 5 mg/kg. BP 120/80. GCS 15.\n"
    "IMPRESSION: 1. Right upper lobe mass. 2. Findings may represent malignancy.\n\n"
)


@pytest.mark.slow
def test_five_megabyte_document_is_fast_and_exact(detector: RuleDetector) -> None:
    body = _REPORT * (5_000_000 // len(_REPORT))
    tail = "Dictated by: Jane Smith, MD on 03/04/2019. MRN: 7654321. Call 555-123-4567."
    text = body + tail
    start = time.perf_counter()
    spans = detector.detect_text(text)
    elapsed = time.perf_counter() - start
    assert elapsed < 30, f"5 MB took {elapsed:.1f}s"
    found = [(text[s.start : s.end], s.label) for s in spans]
    assert found == [
        ("Jane Smith", "HCW"),
        ("03/04/2019", "DATE"),
        ("7654321", "ID/MRN"),
        ("555-123-4567", "PHONE"),
    ]
    assert spans[-1].end == len(text) - 1


@pytest.mark.slow
@pytest.mark.parametrize(
    "text",
    [
        "1" * 40_000,
        "1/" * 20_000,
        "1-2." * 10_000,
        "A " * 20_000,
        "Dr. " + "Smith " * 6_000,
        "Jane Smith, " * 4_000 + "MD",
        "MRN: " + "A-" * 10_000,
        "a@" * 10_000,
        "http://" + "a" * 40_000,
        "Phone: " + "1 " * 20_000,
        "9:" * 20_000,
        "SMITH, " * 6_000,
        "Springfield General " * 4_000 + "Hospital",
        "123 " + "Main " * 8_000 + "Street",
    ],
)
def test_no_catastrophic_backtracking(detector: RuleDetector, text: str) -> None:
    """A guard against hangs, not a speed test: 40,000 characters take under a second when matching
    is linear; quadratic backtracking (1.6e9 steps) or worse blows far past the limit, which
    leaves a tenfold margin for a slow or loaded machine."""
    start = time.perf_counter()
    detector.detect_text(text)
    assert time.perf_counter() - start < 10


# ------------------------------------------------------------------------------- helpers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (" (Jane Smith), ", "Jane Smith"),
        ("(555) 123-4567.", "(555) 123-4567"),
        ("'x1234'", "x1234"),
        ("http://a.com/x)", "http://a.com/x"),
        ("http://a.com/(x)", "http://a.com/(x)"),
        ("--12345--", "12345"),
        ("...", ""),
    ],
)
def test_tighten(text: str, expected: str) -> None:
    start, end = tighten(text, 0, len(text))
    assert text[start:end] == expected


def test_trie_regex_matches_exactly_the_items() -> None:
    items = ["and", "an", "a", "by", "Dr.", "dr", "x-ray", "xr", "as of"]
    regex = re.compile(trie_regex(items) + r"\Z")
    for item in items:
        assert regex.match(item)
    assert regex.match("as   of") and regex.match("as\tof")
    for other in ["b", "anx", "d", "x-", "Dr"]:
        assert not regex.match(other)
    assert re.compile(trie_regex([])).search("anything") is None


def test_validators() -> None:
    assert luhn_ok("4111111111111111") and not luhn_ok("4111111111111112")
    assert valid_npi("1234567893", None, {}) and not valid_npi("1234567890", None, {})  # type: ignore[arg-type]
    assert valid_ssn("123-45-6789", None, {}) and not valid_ssn("666-45-6789", None, {})  # type: ignore[arg-type]
    assert valid_ipv4("255.0.10.1", None, {}) and not valid_ipv4("256.0.0.1", None, {})  # type: ignore[arg-type]
    assert not valid_ipv4("01.2.3.4", None, {})  # type: ignore[arg-type]


def _anchored_reference(regex: re.Pattern[str], window: tuple[int, int], hits: list[tuple[int, int]], text: str):
    """The anchored search spelled out: for each hit (sorted), try `match` at every position from
    `window[0]` before it to just inside it, skipping positions already tried and positions inside
    the previous match; the first non-empty match wins."""
    before, after = window
    n, tried, done_until, out = len(text), set(), -1, []
    for start, end in sorted(hits):
        high = min(n, end + after)
        if high < n:
            high = re.compile(r"\S*").match(text, high, min(n, high + 64)).end()
        for pos in range(max(0, start - before, done_until), min(n, start + 2)):
            if pos in tried:
                continue
            tried.add(pos)
            match = regex.match(text, pos, high)
            if match is not None and match.end() > match.start():
                done_until = match.end()
                out.append(match.span())
                break
    return out


@pytest.mark.parametrize("pattern", [r"a+b?", r"(?:ab|a)\w*", r"b*", r"\d{2,}|x", r"(?<=a)b+|c"])
def test_anchored_matches_agree_with_the_spelled_out_search(pattern: str) -> None:
    """Overlapping hits, hits inside earlier matches, windows that reach back, empty matches."""
    import random

    from radeid.detect.rules import _anchored_matches

    rng = random.Random(5)
    regex = re.compile(pattern)
    for _ in range(400):
        text = "".join(rng.choice("aabbc1234 x") for _ in range(rng.randint(0, 40)))
        window = (rng.choice([0, 0, 1, 3, 8]), rng.choice([0, 2, 6, 30]))
        hits = []
        for _ in range(rng.randint(0, 6)):
            s = rng.randint(0, max(0, len(text) - 1))
            hits.append((s, min(len(text), s + rng.randint(0, 4))))
        rule = type("R", (), {"window": window, "regex": regex, "word_start": False})()
        got = [m.span() for m in _anchored_matches(rule, hits, text)]  # type: ignore[arg-type]
        assert got == _anchored_reference(regex, window, hits, text), (text, window, hits)


@pytest.mark.parametrize("pattern", [r"(?<![\w.])(?:rm|Rm|room)\.?[ ]*\d+", r"(?<!\w)r\w*", r"\b(?:r|m)+\d?"])
def test_word_start_skips_only_hits_that_cannot_match(pattern: str) -> None:
    """`word_start`: hits right after a word character are skipped; for a pattern that cannot match
    there, the matches are those of the full search, whatever the hits."""
    import random

    from radeid.detect.rules import _anchored_matches

    rng = random.Random(11)
    regex = re.compile(pattern)
    for _ in range(600):
        text = "".join(rng.choice(["rm", "Rm", "room", "no", "_", ".", " ", "(", "12", "é", "x"]) for _ in range(12))
        window = (0, rng.choice([0, 3, 20]))
        # hits where a trigger may start: on a word character (inside a word or not)
        starts = [i for i, ch in enumerate(text) if ch.isalnum()]
        hits = [(s, min(len(text), s + rng.randint(1, 4))) for s in rng.sample(starts, min(len(starts), 5))]
        rule = type("R", (), {"window": window, "regex": regex, "word_start": True})()
        got = [m.span() for m in _anchored_matches(rule, hits, text)]  # type: ignore[arg-type]
        assert got == _anchored_reference(regex, window, hits, text), (text, window, hits)


def test_word_start_rules_begin_with_a_word_lookbehind(tmp_path: Path) -> None:
    """Every bundled `word_start` rule starts with a lookbehind that refuses a word character (so
    it cannot match right after one), and the key is refused where it cannot hold."""
    from re import _constants as sre  # type: ignore[attr-defined]
    from re import _parser  # type: ignore[attr-defined]

    flagged = [rule for rule in RuleDetector().rules if rule.word_start]
    assert [rule.name for rule in flagged] == ["loc_room"]
    for rule in flagged:
        op, (direction, body) = _parser.parse(rule.regex.pattern, rule.regex.flags).data[0]
        assert op is sre.ASSERT_NOT and direction == -1
        ((kind, items),) = body.data
        assert kind is sre.IN and (sre.CATEGORY, sre.CATEGORY_WORD) in items
    bad = write(
        tmp_path,
        "[[rule]]\nname = 'x'\ncategory = 'ID'\npattern = 'x'\ntriggers = ['x']\nwindow = [5, 9]\n"
        "anchored = true\nword_start = true\n",
        "bad.toml",
    )
    with pytest.raises(ValueError, match="word_start"):
        RuleDetector(extra_rule_files=[bad])
