"""The German pack (`--lang de`, issue 30): every German date, address, phone, name/title and ID form
is found with its exact offsets and category; the pack's files load; `radeid deid --lang de` on the
German examples writes German surrogates of the same forms."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from radeid.config import Config
from radeid.config.language import pack_files
from radeid.core.document import Document
from radeid.core.tokens import covered_tokens, word_tokens
from radeid.pipeline.deidentifier import Deidentifier
from radeid.pipeline.spec import PipelineSpec
from radeid.synth.markup import parse_markup

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "de"
KEY = bytes(range(32))


@pytest.fixture(scope="module")
def german() -> Deidentifier:
    return Deidentifier(Config.load(overrides={"pipeline": {"language": "de"}}))


# Every form the German pack must find, in a line of a German report; the spans must be exactly these
# (a postcode and its town are one span: the resolver joins same-category neighbours).
FORMS = {
    # dates
    "date_month_name": "Untersuchung am [[DATE|12. März 2019]] in Berlin-Mitte.",
    "date_two_digit_year": "Voraufnahme vom [[DATE|12.03.19]] zum Vergleich.",
    "date_four_digit_year": "Voraufnahme vom [[DATE|12.03.2019]] zum Vergleich.",
    "date_month_year": "Kopfschmerzen seit [[DATE|März 2019]].",
    "date_no_year": "Untersuchung am [[DATE|3.4]]. durch die Kollegen.",
    "date_weekday": "Aufnahme am [[DATE|Montag, 25. Dezember 2023]] über die Notaufnahme.",
    "date_range": "stationär vom [[DATE|2]]. bis [[DATE|16. Februar 2024]].",
    "date_birth_cue": "Frau [[PATIENT|Hannelore Schwab]], geb. [[DATE|14.02.1941]]",
    "date_birth_label": "Geburtsdatum: [[DATE|02.11.1958]]",
    # names, titles and cue words
    "frau": "Befund besprochen mit Frau [[PATIENT|Ingrid Baumgärtner]].",
    "herr": "Herr [[PATIENT|Klaus-Dieter Wehrmann]] wurde aufgenommen.",
    "herrn": "wir berichten über Herrn [[PATIENT|Stefan Grabowski]], der",
    "hr": "Patient: Hr. [[PATIENT|Detlef Brandt]]",
    "fr_dr": "Fr. Dr. [[HCW|Katrin Voß]], Radiologie",
    "prof_dr_med": "Prof. Dr. med. [[HCW|Friedrich von Albrecht]], Chefarzt",
    "dr_med": "Zuweiser: Dr. med. [[HCW|Ulrich Kettner]]",
    "oa": "OA Dr. [[HCW|Markus Lindqvist]]",
    "ca": "Auftraggeber: CA Dr. [[HCW|Hartmut Ziegler]], Pneumologie",
    "oberarzt": "Dr. med. [[HCW|Konstantin Weiß]], Oberarzt Unfallchirurgie",
    "chefarzt": "Chefarzt Prof. Dr. [[HCW|Henning Scholz-Rabe]]",
    "assistenzarzt": "[[HCW|Lea Fuchs]] (Assistenzärztin)",
    "patient_in_label": "Patient(in): [[PATIENT|Elfriede Nowak]]",
    "patientin_label": "Patientin: [[PATIENT|Ingrid Baumgärtner]], geb. am [[DATE|30.08.1950]]",
    "name_last_first": "Name: [[PATIENT|Obermeier, Jürgen]]",
    "particle_zu": "über Herrn [[PATIENT|Heinrich zu Lindau]], der",
    "kollege": "Sehr geehrter Herr Kollege [[HCW|Ostrowski]],",
    "relative": "Angehörige: Tochter [[PATIENT|Birgit Albers-Kühn]]",
    # addresses
    "strasse": "wohnhaft [[LOCATION|Musterstraße 12]], [[LOCATION|10115 Berlin]]",
    "str_abbreviation": "Adresse: [[LOCATION|Hauptstr. 5a]], [[LOCATION|D-80331 München]]",
    "hyphenated_street": "[[LOCATION|Robert-Koch-Allee 22]] · [[LOCATION|35039 Marburg]]",
    "am_markt": "[[LOCATION|Am Markt 3]], [[LOCATION|06108 Halle (Saale)]]",
    "two_word_street": "Anschrift: [[LOCATION|Berliner Straße 5]], [[LOCATION|14467 Potsdam]]",
    "plz_line": "[[LOCATION|35041 Marburg]]",
    "austrian_plz": "[[LOCATION|Nikolaigasse 43]], [[LOCATION|A-9500 Villach]]",
    "letter_place": "[[LOCATION|Marburg]], den [[DATE|18.10.2023]]",
    "bad_town": "Verlegung nach [[LOCATION|Bad Aibling]].",
    # phones
    "phone_berlin": "Lungenklinik, Tel. [[PHONE|030 12345678]]",
    "phone_international": "Tel. privat: [[PHONE|+49 30 1234567]]",
    "phone_mobile_slash": "mobil [[PHONE|0171/1234567]]",
    "phone_tel_colon": "Tel.: [[PHONE|089 21803344]]",
    "phone_extension": "Sekretariat: Tel. [[PHONE|06421 58-66210]]",
    "phone_uncued": "Rückruf unter [[PHONE|+49 711 2233445]] erbeten.",
    # identifiers
    "kvnr": "Krankenversicherungsnummer: [[ID|A123456780]]",
    "kvnr_uncued": "Versichert bei der AOK ([[ID|K987654321]]).",
    "fall_nr": "Fall-Nr.: [[ID|88012345]]",
    "pat_nr": "Pat.-Nr.: [[ID|20417736]]",
    "aufnahmenummer": "Aufnahmenummer: [[ID|2023-0045871]]",
    "aufnahmenummer_letters": "Aufnahmenummer [[ID|A-2024-118230]]",
    "ahv": "AHV-Nr.: [[ID|756.1234.5678.97]]",
    # hospitals
    "klinikum": "[[HOSPITAL|Klinikum Oberhavel-Süd]], Institut für Radiologie",
    "universitaetsklinikum": "[[HOSPITAL|Universitätsklinikum Freiburg-Ost]], Neuroradiologie",
    "krankenhaus_suffix": "Zentrale Notaufnahme, [[HOSPITAL|Alfried Krupp Krankenhaus]]",
    "krankenhaus_prefix": "[[HOSPITAL|Evangelisches Krankenhaus Lindenberg]], Abteilung Innere Medizin",
    "rechts_der_isar": "[[HOSPITAL|Klinikum rechts der Isar]] · Radiologie",
    "praxis_dr": "Einweiser: Praxis Dr. [[HCW|Ahrens]]",
    "charite": "Untersuchung in der [[HOSPITAL|Charité]]",
    "radiologie_am": "[[HOSPITAL|Radiologie am Schlossgarten]]",
    # ages over 89 (and not under)
    "age_jaehrige": "Die [[AGE|92]]-jährige Patientin wird verlegt.",
    "age_j": "Herr [[PATIENT|Wehrmann]], [[AGE|92]] J.",
    "age_jahre": "[[AGE|95]] Jahre alt",
    "age_lebensjahr": "Die Patientin ist im [[AGE|91]]. Lebensjahr.",
    "age_not_phi": "Die 67-jährige Patientin, ein 45 J. alter Patient, 80 Jahre alt.",
}


@pytest.mark.parametrize("name", list(FORMS))
def test_every_german_form_is_found_with_exact_offsets_and_category(german: Deidentifier, name: str) -> None:
    text, marked = parse_markup(FORMS[name])
    gold = {(category, start, end) for category, start, end, _ in marked}
    spans = german.detect([Document(id=name, text=text)])[0]
    assert {(s.category.value, s.start, s.end) for s in spans} == gold


# German clinical text that holds no PHI: the German pack leaves every line alone.
CLINICAL = [
    "RR 165/95 mmHg, HF 98/min, AF 22/min, SpO2 92 %, Temp. 38,6 °C.",
    "Leukozyten 14,2 /nl, CRP 87 mg/l, Hb 9,1 g/dl, HbA1c 7,4 %.",
    "Läsion 2,4 x 1,8 cm, Schichtdicke 1,25 mm, 0,1 mmol/kg Gadobutrol.",
    "ASS 100 mg 1-0-0, Ticagrelor 90 mg 1-0-1, Apixaban 2,5 mg 1-0-1.",
    "NIHSS 4, Fazekas 2, TI-RADS 3, BI-RADS 2, Bosniak I, Garden III, CHA2DS2-VASc 5 Punkte.",
    "Barthel-Index 45 Punkte, Kellgren-Lawrence Grad II, Forrest IIa, Weber B, TICI 2b.",
    "Bandscheibenprotrusion L4/5, Osteochondrose L5/S1, LWK 1, BWK 12, HWK 5/6.",
    "Befund: Unauffällig. Beurteilung: Kein Nachweis einer Pathologie. Anamnese: Husten.",
    "Murphy-Zeichen negativ, Douglas-Raum frei, Chiari-Malformation, Morbus Crohn.",
    "Z. n. Hemikolektomie rechts, Lyse um 14:20 Uhr, Kontrolle in 6 Monaten.",
    "Klinik für Kardiologie, Institut für Radiologie, Abteilung Innere Medizin.",
    "Weihnachten, Ostern, Silvester, am Wochenende, im Frühjahr.",
]


def test_german_clinical_text_gets_no_span(german: Deidentifier) -> None:
    spans = german.detect([Document(id=str(n), text=line) for n, line in enumerate(CLINICAL)])
    found = {line: [line[s.start : s.end] for s in found] for line, found in zip(CLINICAL, spans, strict=True)}
    assert {line: hits for line, hits in found.items() if hits} == {}


def test_the_german_pack_sets_locale_day_first_and_rules_only() -> None:
    config = Config.load(overrides={"pipeline": {"language": "de"}})
    assert config.surrogate.locale == "de_DE" and config.surrogate.day_first is True
    assert "transformer" not in config.pipeline.detectors
    # The German pack extends the English one: its files, then the German pack's own.
    assert [p.parent.parent.name for p in pack_files("de", "rules")] == ["en"] * 8 + ["de"]
    assert [f"{p.parent.parent.name}/{p.name}" for p in pack_files("de", "protected")] == [
        "en/clinical_values.toml",
        "en/clinical_words.toml",
        "de/de.toml",
    ]
    assert pack_files("es", "protected") == pack_files("en", "protected")


def test_pack_rules_come_before_the_users_rule_files(tmp_path: Path) -> None:
    """A user's `extra_files` adds to the pack's rules (and may redefine them by name), never drops them."""
    mine = tmp_path / "mine.toml"
    mine.write_text('[[rule]]\nname = "de_kvnr"\ncategory = "ID"\nenabled = false\npattern = "x"\n', encoding="utf-8")
    config = Config.load(
        overrides={"pipeline": {"language": "de"}, "detectors": {"rules": {"extra_files": [str(mine)]}}}
    )
    assert config.rule_files == (*map(str, pack_files("de", "rules")), str(mine))
    deid = Deidentifier(config)
    text = "Krankenversicherungsnummer: A123456780, Fall-Nr.: 88012345, am 12. März 2019"
    found = {text[s.start : s.end] for s in deid.detect([Document(id="t", text=text)])[0]}
    assert found == {"A123456780", "88012345", "12. März 2019"}  # the cued rule still finds the number
    english = Config.load(overrides={"detectors": {"rules": {"extra_files": [str(mine)]}}})
    assert english.rule_files == (*map(str, pack_files("en", "rules")), str(mine))


def test_protected_pack_files_follow_include_bundled() -> None:
    config = Config.load(overrides={"pipeline": {"language": "de"}})
    assert config.protected_files == tuple(map(str, pack_files("de", "protected")))
    off = Config.load(overrides={"pipeline": {"language": "de"}, "protected": {"include_bundled": False}})
    assert off.protected_files == ()


def _gold(path: Path) -> list[tuple[str, int, int]]:
    rows = []
    for line in path.with_suffix(".ann").read_text(encoding="utf-8").splitlines():
        _, label, _ = line.split("\t")
        category, start, end = label.split()
        rows.append((category, int(start), int(end)))
    return rows


@pytest.mark.parametrize("name", ["roentgen_thorax", "arztbrief_ct"])
def test_every_gold_token_of_the_german_examples_is_found(german: Deidentifier, name: str) -> None:
    path = EXAMPLES / f"{name}.txt"
    text = path.read_text(encoding="utf-8")
    spans = german.detect([Document(id=name, text=text)])[0]
    tokens = word_tokens(text)
    found = covered_tokens(tokens, [(s.start, s.end) for s in spans])
    gold = covered_tokens(tokens, [(a, b) for _, a, b in _gold(path)])
    missed = [text[a:b] for (a, b), g, f in zip(tokens, gold, found, strict=True) if g and not f]
    extra = [text[a:b] for (a, b), g, f in zip(tokens, gold, found, strict=True) if f and not g]
    assert missed == [] and extra == []


GERMAN_MONTHS = "Januar Februar März April Mai Juni Juli August September Oktober November Dezember".split()


@pytest.fixture(scope="module")
def surrogates() -> dict[str, str]:
    spec = PipelineSpec.surrogates(KEY, Config.load(overrides={"pipeline": {"language": "de"}})).build()
    out = {}
    for name in ("roentgen_thorax", "arztbrief_ct"):
        text = (EXAMPLES / f"{name}.txt").read_text(encoding="utf-8")
        out[name] = spec.deidentify([Document(id=name, text=text, patient_id=name)])[0].text
    return out


def test_german_surrogates_keep_the_forms_of_dates_and_ids(surrogates: dict[str, str]) -> None:
    out = surrogates["roentgen_thorax"]
    long_dates = re.findall(r"\b(\d{1,2})\. ([A-Za-zä]+) (\d{4})\b", out)
    assert len(long_dates) == 2 and long_dates[0] == long_dates[1]  # one date, one surrogate
    assert long_dates[0][1] in GERMAN_MONTHS and "3. März 2024" not in out
    assert re.search(r"geb\. (\d\d)\.(\d\d)\.19(\d\d)\n", out)  # DD.MM.YYYY kept
    assert re.search(r"KV-Nr\.: [A-Z]\d{9}\n", out) and "M283746150" not in out
    assert "Annegret" not in out and "Böhmer-Lindström" not in out and "Weidner" not in out
    assert re.search(r"Patientin: Frau \S+ \S+-\S+, geb\.", out)  # a double name stays double


def test_german_street_surrogates_keep_a_german_street_form(surrogates: dict[str, str]) -> None:
    assert re.search(r"Anschrift: \S*(?:straße|str\.|weg|allee|platz|gasse|ring)\S* \d+", surrogates["roentgen_thorax"])


def test_german_postcode_surrogates_keep_their_country_prefix(surrogates: dict[str, str]) -> None:
    assert re.search(r", D-\d{5} [^\n,]+\nTel", surrogates["roentgen_thorax"])


def test_german_phone_surrogates_keep_the_area_code_zero(surrogates: dict[str, str]) -> None:
    assert re.search(r"Tel\.: 0\d{3,4} \d{6,8}\n", surrogates["roentgen_thorax"])


def test_german_month_names_shared_with_english_stay_german() -> None:
    """`22. November 2024` (November is English too) must come back with a German month name."""
    config = Config.load(overrides={"pipeline": {"language": "de"}})
    months = []
    for key in range(8):  # eight keys: eight surrogate dates, so most months differ between the languages
        spec = PipelineSpec.surrogates(bytes([key]) * 32, config).build()
        out = spec.deidentify([Document(id="t", text="Appendektomie am 22. November 2024.", patient_id="p")])[0].text
        found = re.fullmatch(r"Appendektomie am \d{1,2}\. (\w+) \d{4}\.", out)
        months.append(found.group(1) if found else out)
    assert [m for m in months if m not in GERMAN_MONTHS] == []


def test_radeid_deid_lang_de_on_the_german_examples(cli: Callable[..., tuple[int, str]], tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, _ = cli("deid", EXAMPLES, "-o", out, "--lang", "de")
    assert code == 0
    written = (out / "arztbrief_ct.txt").read_text(encoding="utf-8")
    assert "Wilhelm" not in written and "Stetten" not in written and "Fenske" not in written
    assert "22.11.2024" not in written and "2024-118470" not in written
    assert "Ceftriaxon 2 g i.v. 1-0-0" in written and "LWK 4/5" in written  # clinical text untouched
