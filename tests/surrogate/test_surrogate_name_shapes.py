"""Name shapes per language: Spanish and German surrogates keep particles, double surnames,
hyphens and titles in place (data/lang/<code>/names.toml); English names are unchanged."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from surrogate_helpers import KEY, doc_with

from radeid import Category, Document, Span
from radeid.core.resources import bundled_data_path
from radeid.replace.surrogate import SurrogateOptions, SurrogateReplacer
from radeid.replace.surrogate.leaks import leaked_name_words, name_generic_words
from radeid.replace.surrogate.name_parse import parse_name
from radeid.replace.surrogate.name_pools import name_pools
from radeid.replace.surrogate.name_shapes import name_shapes

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

P, H = Category.PATIENT, Category.HCW
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run(text: str, marks, locale: str, key: bytes = KEY) -> list[str]:  # noqa: ANN001
    doc, spans = doc_with(text, marks)
    result = SurrogateReplacer(key, SurrogateOptions(locale=locale)).replace(doc, spans)
    return [r.new_text for r in result.replacements]


def one(original: str, locale: str, category: Category = P, key: bytes = KEY) -> str:
    return run(f"Nombre: {original}.", [(original, category)], locale, key)[0]


def check_shape(new: str, shape: str, locale: str) -> None:
    """`shape` with {G} a first name and {S} a surname of the locale's pools (any case given by
    the shape's own letter: {G}/{S} title case, {GG}/{SS} upper case); every other character as written."""
    pools = name_pools(locale)
    given = set(pools.given["F"]) | set(pools.given["M"]) | set(pools.given["U"])
    names = {"G": given, "S": set(pools.surnames)}
    pattern, slots = "", []
    for piece in re.split(r"(\{[GS]{1,2}\})", shape):
        if piece[:1] == "{":
            pattern += r"([^\W\d_]+)"
            slots.append(piece[1:-1])
        else:
            pattern += re.escape(piece)
    m = re.fullmatch(pattern, new)
    assert m, f"{new!r} does not have the shape {shape!r}"
    for word, slot in zip(m.groups(), slots, strict=True):
        pool = names[slot[0]]
        if len(slot) == 2:
            assert word.isupper() and any(w.upper() == word for w in pool), (word, slot)
        else:
            assert word[0].isupper() and word in pool, (word, slot)


SPANISH = [
    ("Danilo Ramos de Madrid", "{G} {S} de {S}"),
    ("María José García-López", "{G} {G} {S}-{S}"),
    ("Dña. Carmen Ruiz Pérez", "Dña. {G} {S} {S}"),
    ("Ana de la Fuente y Ortega", "{G} de la {S} y {S}"),
    ("Juan del Castillo", "{G} del {S}"),
    ("Pedro de los Santos Martín", "{G} de los {S} {S}"),
    ("Sra. de la Fuente", "Sra. de la {S}"),
    ("Sr. Ramos", "Sr. {S}"),
    ("Carmen Martín León", "{G} {S} {S}"),  # two surnames, though Martín and León are first names too
    ("Ana María Martín Pérez", "{G} {G} {S} {S}"),
    ("Juan Martín de la Fuente", "{G} {S} de la {S}"),
    ("Ramos de Madrid, Danilo", "{S} de {S}, {G}"),
    ("RAMOS DE MADRID, DANILO", "{SS} DE {SS}, {GG}"),
    ("Dr.ª Villalba Crespo", "Dr.ª {S} {S}"),
    ("Juan Ramos de", "{G} {S} de"),  # a span cut after its particle
    ("Hans van der Berg", "{G} {S}"),  # another language's particles go with their surname, as in English
]

GERMAN = [
    ("Friedrich von Hohenberg", "{G} von {S}"),
    ("Prof. Dr. med. Jürgen Meier-Weiß", "Prof. Dr. med. {G} {S}-{S}"),
    ("Karl-Theodor von und zu Guttenberg", "{G}-{G} von und zu {S}"),
    ("Hans vom Berg", "{G} vom {S}"),
    ("Jan van der Meer", "{G} van der {S}"),
    ("Heinrich zu Lindau", "{G} zu {S}"),
    ("Frau Dr. Anna Schmidt", "Frau Dr. {G} {S}"),
    ("Herr von Hohenberg", "Herr von {S}"),
    ("von Hohenberg, Friedrich", "von {S}, {G}"),
    ("Dr. rer. nat. Lena Groß", "Dr. rer. nat. {G} {S}"),
]


@pytest.mark.parametrize(("original", "shape"), SPANISH)
def test_spanish_names_keep_their_particles_and_double_surnames(original: str, shape: str) -> None:
    for key in (KEY, b"another-name-shape-key"):
        new = one(original, "es_ES", key=key)
        check_shape(new, shape, "es_ES")
        assert not leaked_name_words(original, new)


@pytest.mark.parametrize(("original", "shape"), GERMAN)
def test_german_names_keep_von_zu_and_hyphens(original: str, shape: str) -> None:
    for key in (KEY, b"another-name-shape-key"):
        new = one(original, "de_DE", H, key=key)
        check_shape(new, shape, "de_DE")
        assert not leaked_name_words(original, new)


def test_a_surname_with_particles_and_its_short_mentions_agree() -> None:
    text = (
        "Paciente: Danilo Ramos de Madrid. Más tarde el Sr. Ramos volvió; RAMOS firmó. "
        "Hija: Ana de la Fuente y Ortega, la Sra. de la Fuente."
    )
    marks = [
        ("Danilo Ramos de Madrid", P),
        ("Ramos", P, 1),
        ("RAMOS", P),
        ("Ana de la Fuente y Ortega", P),
        ("de la Fuente", P, 1),
    ]
    full, short, upper, ana, fuente = run(text, marks, "es_ES")
    given, first, de, second = full.split()
    assert de == "de" and short == first and upper == first.upper()
    assert fuente == "de la " + ana.split()[3]
    # the same patient in another document, the surname alone: the same fake
    doc, spans = doc_with("Control del Sr. Ramos de Madrid.", [("Ramos de Madrid", P)], doc_id="d2")
    again = SurrogateReplacer(KEY, SurrogateOptions(locale="es_ES")).replace(doc, spans)
    assert again.replacements[0].new_text == f"{first} de {second}"


def test_a_first_surname_that_is_also_a_first_name_agrees_with_its_short_mention() -> None:
    full, short = run(
        "Dra. Carmen Martín León; la Dra. Martín firmó.", [("Carmen Martín León", H), ("Martín", H, 1)], "es_ES"
    )
    assert short == full.split()[1]


def test_titles_of_the_language_tell_the_gender_and_stay_outside_the_name() -> None:
    pools = name_pools("es_ES")
    mention = parse_name("Ramos", "visto por la Sra. ", pools)
    assert mention.has_title and mention.title_gender == "F"
    mention = parse_name("Dña. Carmen Ruiz Pérez", "", pools)
    assert [(w.role, w.norm) for w in mention.words] == [("given", "carmen"), ("surname", "ruiz"), ("surname", "perez")]
    assert mention.title_gender == "F"
    de = name_pools("de_DE")
    assert parse_name("Müller", "Befund: Herr ", de).title_gender == "M"
    assert parse_name("Frau Dr. Kim Müller", "", de).title_gender == "F"


def test_english_names_are_unchanged_byte_for_byte() -> None:
    """The English locale has no name shapes: particles go with their surname, as before."""
    assert name_shapes("en_US") is None and name_pools("en_US").shapes is None
    text = (
        "Patient: Jane van der Berg (Mrs. Berg), seen by Dr. Maria de la Cruz and Prof. Hans von Hohenberg. "
        "DE LA CRUZ, MARIA signed. Ramos de Madrid, Danilo. Ana y Ortega. Dña. Carmen Ruiz Pérez. Later Berg."
    )
    marks = [
        ("Jane van der Berg", P), ("Berg", P, 1), ("Maria de la Cruz", H), ("Hans von Hohenberg", H),
        ("DE LA CRUZ, MARIA", H), ("Ramos de Madrid, Danilo", P), ("Ana y Ortega", P),
        ("Dña. Carmen Ruiz Pérez", H), ("Berg", P, 2),
    ]  # fmt: skip
    expected = {
        False: "Patient: Belinda Kelley (Mrs. Kelley), seen by Dr. Patty Harris and Prof. Mathew Melton. "
        "HARRIS, PATTY signed. James Proctor, Evan. Rose p Ayala. Ebony. Haley Jennings Stone. Later Kelley.",
        True: "Patient: Bethvillener Kemp (Mrs. Kemp), seen by Dr. Penny Hutchinson and Prof. Mark Montanariello. "
        "HUTCHINSON, PENNY signed. Jones Patterson, Edward. Ria p Adkins. Ema. Hayley John Small. Later Kemp.",
    }
    for length_preserving, want in expected.items():
        doc, spans = doc_with(text, marks)
        options = SurrogateOptions(length_preserving=length_preserving)
        assert SurrogateReplacer(KEY, options).replace(doc, spans).text == want


def test_every_particle_title_and_join_of_a_pack_is_a_generic_name_word() -> None:
    """The leak check accepts exactly what the name shapes keep (generic_tokens.toml, [names])."""
    generic = name_generic_words()
    packs = sorted(bundled_data_path("lang").glob("*/names.toml"))
    assert [p.parent.name for p in packs] == ["de", "es"]
    for path in packs:
        with path.open("rb") as handle:
            table = tomllib.load(handle)["names"]
        words = {w.casefold() for p in [*table["particles"], *table["joins"], *table["titles"]] for w in p.split()}
        assert words <= generic, sorted(words - generic)


def test_name_words_other_than_particles_are_still_leaks() -> None:
    assert leaked_name_words("Danilo Ramos de Madrid", "Emiliano Jaén de Plaza") == frozenset()
    assert leaked_name_words("Danilo Ramos de Madrid", "Emiliano Ramos de Plaza") == {"ramos"}
    assert leaked_name_words("Friedrich von Hohenberg", "Raymund von Hohenberg") == {"hohenberg"}


def _example_docs(lang: str) -> list[Document]:
    docs = []
    for txt in sorted((EXAMPLES / lang).glob("*.txt")):
        spans = []
        for line in txt.with_suffix(".ann").read_text(encoding="utf-8").splitlines():
            if line.startswith("T"):
                label, start, end = line.split("\t")[1].split(" ")
                spans.append(Span(int(start), int(end), Category(label)))
        docs.append(Document(txt.stem, txt.read_text(encoding="utf-8"), spans=tuple(sorted(spans))))
    return docs


@pytest.mark.parametrize(("lang", "locale"), [("es", "es_ES"), ("de", "de_DE")])
def test_spanish_and_german_example_names_leak_nothing_under_twenty_keys(lang: str, locale: str) -> None:
    docs = _example_docs(lang)
    assert docs
    found = []
    for i in range(20):
        replacer = SurrogateReplacer(f"shape-leak-key-{i:02d}".encode(), SurrogateOptions(locale=locale))
        for doc in docs:
            for r in replacer.replace(doc, doc.spans).replacements:
                if r.span.category in (P, H):
                    original = doc.text[r.span.start : r.span.end]
                    if leaked_name_words(original, r.new_text):
                        found.append((doc.id, r.span.start))
    assert found == []
