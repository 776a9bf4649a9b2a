"""Person names: forms, coreference inside a document, consistency across documents, gender."""

from __future__ import annotations

import re

import pytest
from surrogate_helpers import KEY, doc_with

from radeid import Category, Document, Span
from radeid.replace.surrogate import SurrogateOptions, SurrogateReplacer
from radeid.replace.surrogate.names import name_pools

P, H = Category.PATIENT, Category.HCW
POOLS = name_pools("en_US")


def run(text: str, marks, **kw) -> list[str]:  # noqa: ANN001
    options = kw.pop("options", SurrogateOptions())
    doc, spans = doc_with(text, marks, **kw)
    result = SurrogateReplacer(KEY, options).replace(doc, spans)
    return [r.new_text for r in result.replacements]


def words(s: str) -> list[str]:
    return re.findall(r"[^\W\d_]+", s)


COREF_TEXT = (
    "Dr. Jane Smith reviewed the study. Dr. Smith called Jane later. "
    "Signed: J. Smith. Attending: SMITH, JANE. Cc: jane smith."
)
COREF_MARKS = [
    ("Jane Smith", H),
    ("Smith", H, 1),
    ("Jane", H, 1),
    ("J. Smith", H),
    ("SMITH, JANE", H),
    ("jane smith", H),
]


def test_one_person_in_every_form_shares_one_fake_identity() -> None:
    full, surname, given, initial, inverted, lower = run(COREF_TEXT, COREF_MARKS)
    fake_given, fake_surname = full.split()
    assert fake_given != "Jane" and fake_surname != "Smith"
    assert surname == fake_surname  # "Dr. Smith"
    assert given == fake_given  # "Jane"
    assert initial == f"{fake_given[0]}. {fake_surname}"  # initials stay initials
    assert inverted == f"{fake_surname.upper()}, {fake_given.upper()}"  # order and ALL CAPS kept
    assert lower == f"{fake_given.lower()} {fake_surname.lower()}"
    assert fake_given in POOLS.given["F"]  # Jane is female


@pytest.mark.parametrize(
    ("text", "mark", "expected"),
    [
        # (text, span, regex the surrogate must match); {G} {S} are any capitalised word
        ("Dr. Jane Smith, MD signed.", "Dr. Jane Smith, MD", r"Dr\. {G} {S}, MD"),
        ("Seen by Jane Smith, PA-C today.", "Jane Smith, PA-C", r"{G} {S}, PA-C"),
        ("Seen by Smith, Jane, MD today.", "Smith, Jane, MD", r"{S}, {G}, MD"),
        ("Mrs. Mary Smith is here.", "Mrs. Mary Smith", r"Mrs\. {G} {S}"),
        ("Patient Mr. Smith arrived.", "Mr. Smith", r"Mr\. {S}"),
        ("Robert Smith Jr. was seen.", "Robert Smith Jr.", r"{G} {S} Jr\."),
        ("Dr. Mary Smith-Jones read it.", "Mary Smith-Jones", r"{G} {S}-{S}"),
        ("Ludwig van Beethoven composed.", "Ludwig van Beethoven", r"{G} {S}"),  # particle goes with the surname
        ("Signed by J. R. Smith, MD.", "J. R. Smith, MD", r"[A-Z]\. [A-Z]\. {S}, MD"),
        ("Call Dr. O'Brien now.", "O'Brien", r"{S}"),
        ("Ask Smith's nurse.", "Smith's", r"{S}'s"),
        ("Dr. Smith, Jane A. signed.", "Smith, Jane A.", r"{S}, {G} [A-Z]\."),
        ("Nurse JANE DOE-SMITH called.", "JANE DOE-SMITH", r"{GU} {SU}-{SU}"),
        ("Ref: jane.", "jane", r"{GL}"),
    ],
)
def test_name_forms_keep_titles_credentials_order_and_case(text: str, mark: str, expected: str) -> None:
    (new,) = run(text, [(mark, H)])
    pattern = (
        expected.replace("{GU}", r"[A-Z]+")
        .replace("{SU}", r"[A-Z]+")
        .replace("{GL}", r"[a-z]+")
        .replace("{G}", r"[A-Z][a-z]+(?:[A-Z][a-z]+)?")
        .replace("{S}", r"[A-Z][a-z]+(?:[A-Z][a-z]+)?")
    )
    assert re.fullmatch(pattern, new), (mark, new)
    assert new != mark
    original_words = {w.casefold() for w in words(mark) if len(w) > 1}
    kept = {"dr", "mrs", "mr", "md", "pa", "jr", "van"}
    assert not (original_words - kept) & {w.casefold() for w in words(new)}, (mark, new)


def test_title_inside_or_outside_the_span_gives_the_same_name() -> None:
    inside, outside = run("Dr. Jane Smith. Then Dr. Jane Smith.", [("Dr. Jane Smith", H, 0), ("Jane Smith", H, 1)])
    assert inside == "Dr. " + outside


def test_two_people_sharing_a_first_name_are_not_merged() -> None:
    a, b, c = run(
        "Jane Smith and Jane Doe met. Ms. Doe left.",
        [("Jane Smith", P), ("Jane Doe", P), ("Doe", P, 1)],
    )
    assert a.split()[1] != b.split()[1]  # different people, different fake surnames
    assert c == b.split()[1]  # "Ms. Doe" is Jane Doe, not Jane Smith
    assert a.split()[0] == b.split()[0]  # the shared real first name maps to one fake first name


def test_different_names_never_collide_inside_a_document() -> None:
    text = " ".join(f"{g} {s}." for g, s in zip(POOLS.given["F"][:25], POOLS.surnames[:25], strict=True))
    marks = [(f"{g} {s}", P) for g, s in zip(POOLS.given["F"][:25], POOLS.surnames[:25], strict=True)]
    out = run(text, marks)
    fake_given = [o.split()[0] for o in out]
    fake_surnames = [o.split()[1] for o in out]
    assert len(set(fake_given)) == 25 and len(set(fake_surnames)) == 25
    originals = {w for m, _ in marks for w in m.split()}
    assert not originals & (set(fake_given) | set(fake_surnames))  # never a real name of the document


def test_parts_map_consistently_across_documents_of_one_patient() -> None:
    replacer = SurrogateReplacer(KEY)
    texts = ["Patient Jane Smith seen.", "Mrs. Smith returns.", "J. Smith called.", "SMITH, JANE Q"]
    marks = [("Jane Smith", P), ("Smith", P), ("J. Smith", P), ("SMITH, JANE Q", P)]
    outs = []
    for i, (text, mark) in enumerate(zip(texts, marks, strict=True)):
        doc, spans = doc_with(text, [mark], doc_id=f"doc{i}", patient_id="pt-42")
        outs.append(replacer.replace(doc, spans).replacements[0].new_text)
    given, surname = outs[0].split()
    assert outs[1] == surname
    assert outs[2] == f"{given[0]}. {surname}"
    assert outs[3].startswith(f"{surname.upper()}, {given.upper()} ")


def test_patient_scope_separates_patients_and_corpus_scope_joins_them() -> None:
    def fake(patient: str, scope: str) -> str:
        doc, spans = doc_with("Patient Jane Smith.", [("Jane Smith", P)], patient_id=patient)
        return SurrogateReplacer(KEY, SurrogateOptions(scope=scope)).replace(doc, spans).replacements[0].new_text

    assert fake("p1", "patient") != fake("p2", "patient")
    assert fake("p1", "corpus") == fake("p2", "corpus")


def test_document_id_is_the_scope_without_a_patient() -> None:
    replacer = SurrogateReplacer(KEY)
    doc_a = Document("a", "Jane Smith", spans=())
    doc_b = Document("b", "Jane Smith")
    span = [Span(0, 10, P)]
    assert replacer.replace(doc_a, span).text != replacer.replace(doc_b, span).text
    assert replacer.replace(doc_a, span).text == replacer.replace(Document("a", "Jane Smith"), span).text


@pytest.mark.parametrize(
    ("name", "pool"),
    [("Mary", "F"), ("Elizabeth", "F"), ("Jennifer", "F"), ("John", "M"), ("Robert", "M"), ("Michael", "M")],
)
def test_gender_is_kept(name: str, pool: str) -> None:
    for patient in ("p1", "p2", "p3", "p4"):
        (new,) = run(f"Patient {name} Smith.", [(f"{name} Smith", P)], patient_id=patient)
        assert new.split()[0] in POOLS.given[pool], (name, new)


def test_ambiguous_first_names_get_ambiguous_or_title_driven_fakes() -> None:
    for patient in ("p1", "p2", "p3"):
        (plain,) = run("Seen: Jordan Smith.", [("Jordan Smith", P)], patient_id=patient)
        first = plain.split()[0]
        assert POOLS.gender.get(first.casefold()) == "U" or first[0] != "J"  # ambiguous kept where possible
        (titled,) = run("Seen: Ms. Jordan Smith.", [("Jordan Smith", P)], patient_id=patient)
        assert titled.split()[0] in POOLS.given["F"]  # the title decides
        (mister,) = run("Seen: Mr. Taylor Brown.", [("Taylor Brown", P)], patient_id=patient)
        assert mister.split()[0] in POOLS.given["M"]


def test_unknown_first_name_uses_title_of_the_same_person_elsewhere() -> None:
    first, _ = run("Zorblax Quimby came. Mrs. Quimby left.", [("Zorblax Quimby", P), ("Quimby", P, 1)])
    assert first.split()[0] in POOLS.given["F"]


def test_initials_never_survive_and_single_letters_stay_letters() -> None:
    (new,) = run("By A. B. Clark.", [("A. B. Clark", H)])
    a, b, surname = new.split()
    assert re.fullmatch(r"[A-Z]\.", a) and re.fullmatch(r"[A-Z]\.", b)
    assert a != "A." and b != "B." and surname != "Clark"


def test_length_preserving_names_prefer_same_length_fakes() -> None:
    (new,) = run("Patient Jane Smith.", [("Jane Smith", P)], options=SurrogateOptions(length_preserving=True))
    assert len(new) == len("Jane Smith")


def test_email_local_part_follows_the_name_mapping() -> None:
    full, email = run(
        "Dr. Jane Smith (jane.smith@hospital.org)", [("Jane Smith", H), ("jane.smith@hospital.org", Category.EMAIL)]
    )
    given, surname = full.split()
    assert email == f"{given.lower()}.{surname.lower()}@example.org"


@pytest.mark.parametrize(
    ("text", "marks", "pattern"),
    [
        ("Dictated by: MSC/jrt\nD: 03/05/2019", ["MSC", "jrt"], r"[A-Z]{3}/[a-z]{3}"),
        ("MSC/JRT", ["MSC/JRT"], r"[A-Z]{3}/[A-Z]{3}"),
        ("Transcribed: rb/DMK on 3/5", ["rb", "DMK"], r"[a-z]{2}/[A-Z]{3}"),
    ],
)
def test_transcription_initials_stay_initials_for_many_keys(text: str, marks: list[str], pattern: str) -> None:
    """Issue 28: `MSC/jrt` became `LYNCH/gallegos`; initials stay initials, case kept, every letter
    replaced, the same initials alike in one scope."""
    for k in range(50):
        doc, spans = doc_with(text, [(m, Category.HCW) for m in marks])
        result = SurrogateReplacer(f"initials-key-{k}".encode()).replace(doc, spans)
        joined = "/".join(r.new_text for r in result.replacements)
        original = "/".join(marks)
        assert re.fullmatch(pattern, joined), (k, joined)
        assert all(a.upper() != b.upper() for a, b in zip(original, joined, strict=True) if a.isalpha()), joined


def test_distinct_initials_of_one_document_stay_distinct_and_repeats_agree() -> None:
    text = "MSC/jrt\nAddendum MSC/jrt\ncc: LDM/abe"
    marks = [("MSC", Category.HCW), ("jrt", Category.HCW), ("MSC", Category.HCW, 1), ("jrt", Category.HCW, 1),
             ("LDM", Category.HCW), ("abe", Category.HCW)]  # fmt: skip
    for k in range(50):
        doc, spans = doc_with(text, marks)
        news = [r.new_text for r in SurrogateReplacer(f"initials-key-{k}".encode()).replace(doc, spans).replacements]
        assert news[0] == news[2] and news[1] == news[3]
        assert len({news[0], news[4]}) == 2 and len({news[1], news[5]}) == 2
