"""Issue 28: addresses and facilities as parts. No original word survives unless it is a generic word
of its kind (a street type, a unit cue, a facility kind), each part keeps its form, and distinct
places of one document never share a surrogate. Every check runs over 50 keys."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from surrogate_helpers import doc_with

from radeid import Category, Document, Span
from radeid.replace.surrogate import SurrogateOptions, SurrogateReplacer

LOC, HOSP, HCW = Category.LOCATION, Category.HOSPITAL, Category.HCW
KEYS = [f"address-test-key-{k:03d}-not-a-secret".encode() for k in range(50)]
#: the words a surrogate may keep: kinds, never names
GENERIC = frozenset(
    "street st road rd avenue ave lane ln suite floor apt hospital family medicine medical center clinic imaging "
    "radiology pediatrics east wing universitario general de del la calle c/ º izq straße str".split()
)
_TOKEN = re.compile(r"c/|[^\W_]+º?", re.I)


def surrogates(
    text: str,
    marks: list[tuple[str, Category]],
    locale: str = "en_US",
    subtypes: dict[str, str] | None = None,
) -> list[list[str]]:
    """Per key: the surrogates of the marked spans, in text order."""
    doc, spans = doc_with(text, marks, subtypes=subtypes)
    options = SurrogateOptions(locale=locale)
    return [[r.new_text for r in SurrogateReplacer(key, options).replace(doc, spans).replacements] for key in KEYS]


def leaked(original: str, new: str) -> set[str]:
    """The non-generic words and numbers of `original` that `new` still holds."""
    old = {t.casefold() for t in _TOKEN.findall(original)} - GENERIC
    return old & {t.casefold() for t in _TOKEN.findall(new)}


def check(
    original: str, form: str, category: Category = LOC, locale: str = "en_US", subtype: str | None = None
) -> None:
    for (new,) in surrogates(f"Seen at {original} today.", [(original, category)], locale, {original: subtype or ""}):
        assert not leaked(original, new), (original, new)
        assert re.fullmatch(form, new), (original, new)


@pytest.mark.parametrize(
    ("original", "form"),
    [
        ("410 Orchard Lane", r"[1-9]\d\d [A-Z][a-z]+ Lane"),
        ("2201 Pike Road", r"[1-9]\d{3} [A-Z][a-z]+ Road"),
        ("12 Park Avenue", r"[1-9]\d [A-Z][a-z]+ Avenue"),
        ("88 Mill Street", r"[1-9]\d [A-Z][a-z]+ Street"),
        ("7 Lake Street", r"[1-9] [A-Z][a-z]+ Street"),
        ("300 Spring Street", r"[1-9]\d\d [A-Z][a-z]+ Street"),
        ("1450 River Road", r"[1-9]\d{3} [A-Z][a-z]+ Road"),
        ("12 Court Street", r"[1-9]\d [A-Z][a-z]+ Street"),  # a street type as the name
        ("5 East Street", r"[1-9] [A-Z][a-z]+ Street"),  # a direction as the name
        ("4 Wing Road", r"[1-9] [A-Z][a-z]+ Road"),  # a unit cue as the name
    ],
)
def test_a_street_name_that_is_also_a_street_word_is_replaced(original: str, form: str) -> None:
    check(original, form)  # before: "410 Orchard Lane" -> "390 Orchard Lane"


@pytest.mark.parametrize("original", ["Park Avenue", "Mill Street", "Lake Street", "Spring Street", "River Road"])
def test_a_street_without_a_number_is_replaced_too(original: str) -> None:
    check(original, r"[A-Z][a-z]+ " + original.split()[1], subtype="STREET")


def test_street_city_and_state_all_change() -> None:  # before: the house number or "Pike" stayed
    original = "2201 Pike Road, Boston, MA"
    check(original, r"[1-9]\d{3} [A-Z][a-z]+ Road, [A-Z][\w .'-]+, [A-Z]{2}")
    # as the rules detect it: the street and "Boston, MA" apart
    text = f"Seen at {original}"
    for street, place in surrogates(text, [("2201 Pike Road", LOC), ("Boston, MA", LOC)], subtypes={
            "2201 Pike Road": "STREET", "Boston, MA": "ADDRESS"}):  # fmt: skip
        assert re.fullmatch(r"[1-9]\d{3} [A-Z][a-z]+ Road", street) and not leaked("2201 Pike Road", street)
        assert re.fullmatch(r"[A-Z][\w .'-]+, [A-Z]{2}", place) and not leaked("Boston, MA", place), place


def test_a_unit_keeps_its_cue_and_shape() -> None:  # before: "8417 Chestnut Robbins, Spring 715, evansfort"
    check("2300 Quarry Road, Suite 110", r"[1-9]\d{3} [A-Z][a-z]+ Road, Suite [1-9]\d\d", subtype="STREET")
    check("2300 Quarry Road, Suite 110", r"[1-9]\d{3} [A-Z][a-z]+ Road, Suite [1-9]\d\d")


def test_a_floor_stays_a_floor() -> None:  # before: "3rd floor" -> "4qu watson"
    for (new,) in surrogates("Room on the 3rd floor.", [("3rd floor", LOC)]):
        m = re.fullmatch(r"(\d)(st|nd|rd|th) floor", new)
        assert m and new != "3rd floor", new
        assert m.group(2) == {"1": "st", "2": "nd", "3": "rd"}.get(m.group(1), "th")


def test_a_floor_and_wing_keep_their_cues() -> None:
    check("2nd Floor, East Wing", r"[1-9](st|nd|rd|th) Floor, East Wing")


def test_a_town_named_like_a_street_stays_a_town() -> None:  # "Falls" is one of Faker's street suffixes
    check("Alder Falls, OR 97402", r"[A-Z][\w .'-]+, [A-Z]{2} \d{5}", subtype="ADDRESS")


def test_a_us_address_with_zip_keeps_every_part() -> None:
    check("55 Fruit St., Boston, MA 02114", r"[1-9]\d [A-Z][a-z]+ St\., [A-Z][\w .'-]+, [A-Z]{2} \d{5}")


@pytest.mark.parametrize("category", [HOSP, HCW])
def test_a_practice_stays_a_practice(category: Category) -> None:
    # before: "Westbury Family Medicine" -> "Christianland" (HOSPITAL), "Alicia Calderon Parsons" (HCW)
    check("Westbury Family Medicine", r"[A-Z][\w'-]+( [A-Z][\w'-]+)? Family Medicine", category)


@pytest.mark.parametrize(
    ("original", "form"),
    [
        ("Massachusetts General Hospital", r"[A-Z][\w'-]+ General Hospital"),
        ("Lakeside Imaging Center", r"[A-Z][\w'-]+ Imaging Center"),
        ("Johns Hopkins Radiology", r"[A-Z][\w'-]+ [A-Z][\w'-]+ Radiology"),
        ("Brookline Pediatrics", r"[A-Z][\w'-]+ Pediatrics"),
    ],
)
def test_facilities_keep_their_kind_words(original: str, form: str) -> None:
    check(original, form, HOSP)


def test_spanish_facilities_are_spanish() -> None:  # before: "Madrid County Hospital"
    check("Hospital Universitario La Paz", r"Hospital Universitario La [A-ZÁÉÍÓÚÑ][\w'-]+", HOSP, "es_ES")
    spanish = r"(Hospital|Centro|Clínica|Policlínica|Consultorio|Instituto|Servicio) [\w ÁÉÍÓÚáéíóúñ'-]+"
    for original in ("Centro de Salud", "Hospital Universitario", "Clínica Dental"):
        for (new,) in surrogates(f"en {original}.", [(original, HOSP)], "es_ES"):
            assert re.fullmatch(spanish, new) and not re.search(r"County|Medical|Center|General Hospital", new), new


def test_spanish_street_keeps_its_type_floor_and_door() -> None:
    check("Calle Mayor 12, 3º B", r"Calle [A-ZÁÉÍÓÚ][\w ]+ [1-9]\d, [1-9]º [A-Z]", locale="es_ES")
    check("C/ Alcalá 45, 2º izq., 28014 Madrid", r"C/ [A-ZÁÉÍÓÚ][\w ]+ [1-9]\d, [1-9]º izq\., \d{5} [A-ZÁÉÍÓÚ][\w ]+",
          locale="es_ES")  # fmt: skip


def test_a_spanish_street_in_an_english_note_keeps_its_type() -> None:
    check("Calle Mayor 12, 3º B", r"Calle [A-Z][\w ]+ [1-9]\d, [1-9]º [A-Z]")


def test_german_street_keeps_strasse_and_the_postcode_before_the_city() -> None:
    check("Hauptstraße 12, 10115 Berlin", r"[A-ZÄÖÜ][a-zäöüß]+straße [1-9]\d, \d{5} [A-ZÄÖÜ][\w .()-]+", locale="de_DE")
    check("Goethestr. 4", r"[A-ZÄÖÜ][a-zäöüß]+str\. [1-9]", locale="de_DE")


def test_distinct_places_of_a_document_never_share_a_surrogate() -> None:
    cities = ["Boston", "Cambridge", "Quincy", "Salem", "Lowell", "Worcester", "Newton", "Medford", "Malden", "Lynn",
              "Revere", "Chelsea", "Somerville", "Waltham", "Brockton", "Framingham", "Natick", "Needham",
              "Dedham", "Milton", "Braintree", "Weymouth", "Hingham", "Andover", "Reading", "Woburn", "Burlington",
              "Lexington", "Concord", "Acton"]  # fmt: skip
    practices = [f"{c} Family Medicine" for c in cities[:15]]
    streets = [f"{10 + i} {c} Street" for i, c in enumerate(cities[:15])]
    marks = [(c, LOC) for c in cities] + [(p, HOSP) for p in practices] + [(s, LOC) for s in streets]
    text = "; ".join(m[0] for m in marks)
    for news in surrogates(text, marks):
        for kind in (news[: len(cities)], news[len(cities) : len(cities) + 15], news[-15:]):
            assert len({n.casefold() for n in kind}) == len(kind), kind


def test_usaddress_is_imported_only_when_an_address_is_read() -> None:
    code = (
        "import sys\n"
        "import radeid.replace.surrogate.places as p\n"
        "assert 'usaddress' not in sys.modules\n"
        "from radeid.replace.surrogate.addresses import label_address\n"
        "label_address('Boston, MA 02114')\n"
        "assert 'usaddress' not in sys.modules\n"
        "label_address('12 Elm Street')\n"
        "assert 'usaddress' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    ("text", "town", "locale"),
    [
        ("Wohnhaft in Leipzig. Anschrift: Hauptstraße 3, 04109 Leipzig. Geboren in Leipzig.", "Leipzig", "de_DE"),
        ("Seen in Boston. Lives at 12 Elm Street, Boston, MA 02114.", "Boston", "en_US"),
    ],
)
def test_one_town_gets_one_surrogate_alone_and_in_an_address(text: str, town: str, locale: str) -> None:
    starts = [m.start() for m in re.finditer(town, text)]
    address = re.search(r"(?:Hauptstraße|12 Elm)[^.]*", text)
    assert address is not None
    alone = [Span(s, s + len(town), Category.LOCATION) for s in starts if not address.start() <= s < address.end()]
    spans = sorted([*alone, Span(address.start(), address.end(), Category.LOCATION)])
    for i in range(20):
        out = SurrogateReplacer(bytes([i]) * 32, SurrogateOptions(locale=locale)).replace(
            Document("d", text, patient_id="p"), spans
        )
        towns = {r.new_text for r in out.replacements if r.span.end - r.span.start == len(town)}
        assert len(towns) == 1 and town not in out.text
        assert next(iter(towns)) in [r.new_text for r in out.replacements if r.span.start == address.start()][0]
