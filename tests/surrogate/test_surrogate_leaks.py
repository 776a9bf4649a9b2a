"""No original word survives its surrogate, and distinct originals never share one.

The property of issue "surrogates that never leak": over the bundled examples (many keys),
benchmarks' synthetic reports and 10,000 reports of `radeid synth`, every replacement is checked:

- places, facilities, vendors, IDs, phones, e-mail, URLs, IPs: no word or number of two
  characters or more of the original reappears, except the generic words of its kind
  (`data/surrogates/generic_tokens.toml`: "Street" at the end of a street name, "Hospital");
- names: no name word of the original reappears (titles, credentials and the particles a Spanish
  or German surrogate keeps may: `leaked_name_words`);
- dates: the value changes (a shifted date may keep its year: that is checked by value); ages are
  left to the age tests, since an age rightly stays when it must agree with a shifted date of birth;
- in one document, two distinct originals of one category never get the same surrogate.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from surrogate_helpers import KEY, doc_with

from radeid import Category, Document, Replacement, Result, Span
from radeid.replace.surrogate import SurrogateReplacer
from radeid.replace.surrogate.keyed import fold
from radeid.replace.surrogate.leaks import leaked_name_words, leaked_tokens

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
_NAMES = {Category.PATIENT, Category.HCW}
_VALUES = {Category.DATE, Category.AGE}


def problems(result: Result) -> Iterator[str]:
    """Every broken property of one result, described without the document text's context."""
    text = result.document.text
    owners: dict[tuple[Category, str], str] = {}
    for r in result.replacements:
        original, new, category = text[r.span.start : r.span.end], r.new_text, r.span.category
        if category in _NAMES:
            kept = set(leaked_name_words(original, new))
        elif category is Category.AGE:
            continue
        elif category in _VALUES:
            kept = {original} if new == original and any(c.isdigit() for c in original) else set()
        else:
            kept = set(leaked_tokens(original, new, category))
        if kept:
            yield f"{category.value} {original!r} -> {new!r} keeps {sorted(kept)}"
        if category in _NAMES or category in _VALUES:
            continue
        owner = owners.setdefault((category, new.casefold()), fold(original))
        if owner != fold(original):
            yield f"{category.value} {original!r} and {owner!r} share {new!r}"


def _check(docs: Iterable[Document], keys: Iterable[bytes]) -> list[str]:
    docs = list(docs)
    found: list[str] = []
    for key in keys:
        replacer = SurrogateReplacer(key)
        for doc in docs:
            found.extend(problems(replacer.replace(doc, doc.spans)))
    return found


def _examples() -> list[Document]:
    docs = []
    for txt in sorted(EXAMPLES.glob("*.txt")):
        text = txt.read_text(encoding="utf-8")
        spans = []
        for line in txt.with_suffix(".ann").read_text(encoding="utf-8").splitlines():
            if line.startswith("T"):
                label, start, end = line.split("\t")[1].split(" ")
                spans.append(Span(int(start), int(end), Category(label)))
        docs.append(Document(txt.stem, text, patient_id=None, spans=tuple(sorted(spans))))
    return docs


# -- the check itself, on hand-written cases --------------------------------------------------------


@pytest.mark.parametrize(
    ("original", "surrogate", "category", "leaked"),
    [
        ("410 Orchard Lane", "521 Orchard Lane", Category.LOCATION, {"orchard"}),
        ("2201 Pike Road, Boston, MA", "2201 Elm Road, Boston, MA", Category.LOCATION, {"2201", "boston", "ma"}),
        ("Park Avenue", "Park Avenue", Category.LOCATION, {"park"}),
        ("Lake Street", "Lake Street", Category.LOCATION, {"lake"}),
        ("River Road", "Birch Road", Category.LOCATION, set()),
        ("78074 Park Point Apt. 231", "98576 Elm Point Apt. 468", Category.LOCATION, set()),
        ("78074 Park Point Apt. 231", "98576 Park Point Apt. 468", Category.LOCATION, {"park"}),
        ("Westbury Family Medicine", "Westbury Family Medicine", Category.HOSPITAL, {"westbury"}),
        ("Mercy Valley Hospital", "Dunmore Valley Hospital", Category.HOSPITAL, {"valley"}),
        ("Siemens Healthineers", "Quantivo Healthineers", Category.VENDOR, {"healthineers"}),
        ("MRN 4481902", "MRN 4481903", Category.ID, set()),
        ("www.smith-radiology.com/pacs", "www.example.com/pacs", Category.URL, set()),
        ("(617) 555-0143", "(617) 555-0188", Category.PHONE, {"617"}),
    ],
)
def test_leaked_tokens(original: str, surrogate: str, category: Category, leaked: set[str]) -> None:
    assert leaked_tokens(original, surrogate, category) == leaked


def test_the_property_check_sees_a_kept_street_name_and_a_shared_vendor() -> None:
    doc, spans = doc_with(
        "Seen at 410 Orchard Lane on Siemens and Philips.",
        [("410 Orchard Lane", Category.LOCATION), ("Siemens", Category.VENDOR), ("Philips", Category.VENDOR)],
    )
    bad = Result.build(
        doc,
        [
            Replacement(spans[0], "521 Orchard Lane"),
            Replacement(spans[1], "Quantivo"),
            Replacement(spans[2], "Quantivo"),
        ],
    )
    assert list(problems(bad)) == [
        "LOCATION '410 Orchard Lane' -> '521 Orchard Lane' keeps ['orchard']",
        "VENDOR 'Philips' and 'siemens' share 'Quantivo'",
    ]


# -- the property ----------------------------------------------------------------------------------


def test_bundled_examples_leak_nothing_under_fifty_keys() -> None:
    keys = [f"leak-test-key-{i:02d}-not-a-secret".encode() for i in range(50)]
    assert _check(_examples(), keys) == []


def test_benchmark_reports_leak_nothing() -> None:
    from synthetic import generate_reports

    assert _check(generate_reports(2000, seed=3), [KEY, b"another-leak-test-key"]) == []


@pytest.mark.slow
def test_ten_thousand_generated_reports_leak_nothing() -> None:
    from radeid.synth.generate import SynthOptions, generate

    assert _check(generate(10_000, SynthOptions(seed=28)), [KEY]) == []


def test_another_languages_street_type_as_an_english_street_name_is_replaced() -> None:
    """ "Wall" is a German street type; in "716 Wall Harbor" it is the street's name."""
    doc, spans = doc_with("Lives at 716 Wall Harbor.", [("716 Wall Harbor", Category.LOCATION)])
    keys = [f"wall-key-{i:02d}".encode() for i in range(50)]
    assert _check([Document(doc.id, doc.text, patient_id=doc.patient_id, spans=tuple(spans))], keys) == []
