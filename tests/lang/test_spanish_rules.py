"""The Spanish pack's rules (`--lang es`, issue 30): every Spanish date, name/title, ID, phone, address
and facility form is found with its exact offsets and category by the rules alone (the Spanish model
comes on top), and Spanish clinical text gets no span."""

from __future__ import annotations

import pytest

from radeid.config import Config
from radeid.config.language import pack_files
from radeid.core.document import Document
from radeid.pipeline.deidentifier import Deidentifier
from radeid.synth.markup import parse_markup


@pytest.fixture(scope="module")
def spanish_rules() -> Deidentifier:
    return Deidentifier(Config.load(overrides={"pipeline": {"language": "es", "detectors": ["rules", "lexicon"]}}))


FORMS = {
    # dates
    "date_de_month_de_year": "Ingresó el [[DATE|12 de marzo de 2019]] por disnea.",
    "date_weekday": "Se realizó el [[DATE|lunes, 4 de mayo de 2020]] sin incidencias.",
    "date_no_year": "Revisión el [[DATE|3 de marzo]] en consulta.",
    "date_month_year": "Intervenido en [[DATE|octubre del 2022]].",
    "date_abbrev": "TC previo del [[DATE|12-mar-2019]].",
    "date_numeric": "Fecha de nacimiento: [[DATE|20/05/2000]].",
    "date_label_mistyped": "Fecha de Ingreso: [[DATE|26708/2017]].",
    # names, titles and labels
    "nombre_label": "Nombre:  [[PATIENT|Pedro]].",
    "apellidos_label": "Apellidos: [[PATIENT|Jimenez Ramos]].",
    "hija_label": "Hija: [[PATIENT|Ana de la Fuente y Ortega]]. Informe firmado por la Dra. [[HCW|Carmen Ruiz Pérez]].",
    "acompanante_label": "Acompañante: [[PATIENT|Luis Ortega]] (hijo).",
    "paciente_label": "Paciente: [[PATIENT|María de los Ángeles Ruiz de la Torre]]",
    "dna": "Acude acompañada de Dña. [[PATIENT|Rosa Pérez Gil]].",
    "sra": "Se informa a la Sra. [[PATIENT|Lozano]] del resultado.",
    "dra": "Valorada por la Dra. [[HCW|Ana Beltrán López]] en planta.",
    "dr_a": "Informe firmado por la Dr.ª [[HCW|Lucía Gómez]].",
    "dra_glued": "Remitido por: Dra.[[HCW|Cristina Cuerda]]",
    "dra_m": "Remitido por: Dra. [[HCW|Mª Pilar Castro]]",
    "medico_label": "Médico: [[HCW|Luis Moyano Calvo]]  NºCol: [[ID|28 31 23567]].",
    "signature_line": (
        "Remitido por:Dr. [[HCW|Miguel Álvarez Múgica]] Servicio de Urología "
        "[[HOSPITAL|Hospital Universitario La Paz]]."
    ),
    # identifiers
    "nhc": "NHC: [[ID|4763954]].",
    "nass": "NASS: [[ID|47 37584930 84]].",
    "dni": "DNI [[ID|12345678Z]] aportado.",
    "dni_dots": "con documento [[ID|12.345.678-Z]] en vigor",
    "nie": "NIE: [[ID|X1234567L]]",
    "cip": "CIP: [[ID|GARC570312004]]",
    # phones
    "phone_groups": "Contacto: [[PHONE|912 345 678]] (domicilio).",
    "phone_pairs": "llamar al [[PHONE|600 12 34 56]] si empeora",
    "phone_prefix": "Tfno. [[PHONE|+34 912 345 678]]",
    # addresses
    "domicilio": "Domicilio: [[LOCATION|Calle del pez, 28]].",
    "localidad": "Localidad/ Provincia: [[LOCATION|Madrid]].",
    "cp": "CP: [[LOCATION|28001]].",
    "calle_piso": "Vive en [[LOCATION|C/ Mayor 12, 3º B]], [[LOCATION|28013 Madrid]].",
    "avenida": "Centro en [[LOCATION|Avda. de la Constitución 5]] desde 2010.",
    "paseo": "Consulta en [[LOCATION|Paseo de la Castellana 100]].",
    # hospitals
    "hospital_universitario": "Trasladada al [[HOSPITAL|Hospital Universitario Virgen del Rocío]].",
    "hospital_general": "Remitido desde el [[HOSPITAL|Hospital General Universitario Gregorio Marañón]].",
    "centro_de_salud": "Seguimiento en el [[HOSPITAL|Centro de Salud Las Águilas]].",
    "clinica": "Estudio previo en [[HOSPITAL|Clínica Quirón]].",
    # ages over 89 (and not under)
    "age_over": "Mujer de [[AGE|92]] años con disnea.",
    "age_not_phi": "Varón de 67 años, hace 3 años, 45 años de evolución.",
}


@pytest.mark.parametrize("name", list(FORMS))
def test_every_spanish_form_is_found_with_exact_offsets_and_category(spanish_rules: Deidentifier, name: str) -> None:
    text, marked = parse_markup(FORMS[name])
    gold = {(category, start, end) for category, start, end, _ in marked}
    spans = spanish_rules.detect([Document(id=name, text=text)])[0]
    assert {(s.category.value, s.start, s.end) for s in spans} == gold


# Spanish clinical text that holds no PHI: the Spanish rules leave every line alone.
CLINICAL = [
    "TA 165/95 mmHg, FC 98 lpm, FR 22 rpm, SatO2 92 %, Tª 38,6 ºC.",
    "Leucocitos 14.200/mm3, PCR 87 mg/l, Hb 9,1 g/dl, creatinina 1,2 mg/dl.",
    "Lesión de 2,4 x 1,8 cm en segmento VI hepático; TC de tórax sin hallazgos.",
    "Servicio de Urología, Unidad de Nutrición Clínica y Dietética, Clínica de Heridas.",
    "Hospital de Día de Oncología; Servicio de Urgencias; planta 3ª.",
    "Juicio clínico: neumonía. Tratamiento: amoxicilina 1 g cada 8 horas durante 7 días.",
    "Antecedentes: HTA, DM tipo 2, dislipemia. Intervenido hace 10 años de apendicitis.",
]


def test_spanish_clinical_text_gets_no_span(spanish_rules: Deidentifier) -> None:
    spans = spanish_rules.detect([Document(id=str(n), text=line) for n, line in enumerate(CLINICAL)])
    found = {line: [line[s.start : s.end] for s in found] for line, found in zip(CLINICAL, spans, strict=True)}
    assert {line: hits for line, hits in found.items() if hits} == {}


def test_the_spanish_pack_has_its_rules_and_drops_the_english_facility_suffix_rule() -> None:
    config = Config.load(overrides={"pipeline": {"language": "es"}})
    files = [f"{p.parent.parent.name}/{p.name}" for p in pack_files("es", "rules")]
    assert files[-2:] == ["en/names.toml", "es/es.toml"]
    assert "hospital_name_facility" in config.rules.disabled
