"""Fake PHI values for the generator: people, dates, identifiers, contacts, places, vendors.

Names and addresses come from Faker (seeded per document); hospitals and vendors partly from the
bundled lexicons (what real reports mention) and partly made up, so a model trained on the output
does not merely memorise the lexicon. All randomness goes through the `random.Random` given.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from faker import Faker

__all__ = ["REPORT_FINDINGS", "Fakes", "Person", "lexicon_terms", "patient_series"]

T = TypeVar("T")

#: One-line findings of the structured formats' synthetic reports (HL7, FHIR).
REPORT_FINDINGS = (
    "No acute cardiopulmonary process.",
    "Stable 4 mm nodule in the right upper lobe.",
    "Mild degenerative change of the lumbar spine.",
    "No fracture or dislocation.",
    "Small left pleural effusion, unchanged.",
)

_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
_DEPARTMENTS = (
    "Department of Radiology", "Radiology Department", "Diagnostic Imaging", "Department of Medical Imaging",
    "Neuroradiology Section", "Breast Imaging Center", "Emergency Department", "Nuclear Medicine Service",
    "Interventional Radiology Suite", "Cardiology Clinic", "Oncology Clinic", "Vascular Lab",
)  # fmt: skip
_HOSPITAL_FORMS = (
    "{city} General Hospital", "{city} Medical Center", "{city} Regional Medical Center",
    "St. {last} Hospital", "{last} Memorial Hospital", "{city} Community Hospital",
    "University of {city} Medical Center", "{city} Imaging Center", "{last} Children's Hospital",
    "{city} Veterans Affairs Medical Center", "Mount {last} Hospital", "{city} Valley Hospital",
)  # fmt: skip
_CREDENTIALS = ("MD", "M.D.", "DO", "MD, PhD", "NP", "PA-C", "RN", "RT(R)")


@lru_cache(maxsize=4)
def lexicon_terms(name: str, wanted: str = "") -> tuple[str, ...]:
    """Terms of a bundled lexicon (`vendors`, `hospitals`), optionally only those whose label starts
    with `wanted`; short all-capital abbreviations are skipped (they read as noise in prose)."""
    raw = resources.files("radeid.data.lexicons").joinpath(f"{name}.txt").read_text("utf-8")
    terms: list[str] = []
    for line in raw.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        term, _, label = line.partition("\t")
        term = term.lstrip("=").strip()
        if wanted and not label.strip().startswith(wanted):
            continue
        if len(term) < 4 or (term.isupper() and len(term) < 6):
            continue
        terms.append(term)
    return tuple(terms)


@dataclass(frozen=True)
class Person:
    first: str
    last: str
    middle: str
    female: bool

    def forms(self) -> tuple[str, ...]:
        """Ways a report writes this person's name."""
        return (
            f"{self.first} {self.last}",
            f"{self.last}, {self.first}",
            f"{self.first} {self.middle[0]}. {self.last}",
            f"{self.first[0]}. {self.last}",
            f"{self.last}, {self.first} {self.middle[0]}",
        )


class Fakes:
    """Per-document fake values. Re-seed with `reset(seed)` for each document."""

    def __init__(self, locale: str = "en_US") -> None:
        # Imported here, not at the top: the CLI imports this package at every start, and a
        # `radeid deid` run never generates anything (Faker costs about 0.07 s to import).
        from faker import Faker

        self.faker: Faker = Faker(locale)
        self.rng = random.Random(0)
        self.day_first = False

    def reset(self, seed: int) -> None:
        self.faker.seed_instance(seed)
        self.rng = random.Random(seed)

    # -- people ---------------------------------------------------------------------------------

    def person(self, female: bool | None = None) -> Person:
        if female is None:
            female = self.rng.random() < 0.5
        first = self.faker.first_name_female() if female else self.faker.first_name_male()
        middle = self.faker.first_name_female() if female else self.faker.first_name_male()
        return Person(first, self.faker.last_name(), middle, female)

    def patient_name(self, person: Person) -> str:
        return self.rng.choice(person.forms()[:3] + (person.forms()[1].upper(),))

    def doctor_name(self, person: Person, titled: bool = False) -> str:
        """After "Dr." reports write given-name-first forms or the bare surname."""
        if titled:
            forms = person.forms()
            return self.rng.choice((forms[0], forms[0], forms[2], forms[3], person.last))
        return self.rng.choice(person.forms())

    def credential(self) -> str:
        return self.rng.choice(_CREDENTIALS[:4])

    # -- dates ----------------------------------------------------------------------------------

    def day(self, start: date, span_days: int) -> date:
        return start + timedelta(days=self.rng.randrange(max(1, span_days)))

    def date_text(self, day: date, style: int | None = None) -> str:
        """A date written in one of the forms reports use."""
        r = self.rng
        style = r.randrange(9) if style is None else style
        m, d, y = day.month, day.day, day.year
        month = _MONTHS[m - 1]
        forms = (
            f"{m:02d}/{d:02d}/{y}",
            f"{m}/{d}/{y}",
            f"{y}-{m:02d}-{d:02d}",
            f"{month} {d}, {y}",
            f"{d:02d}-{month[:3]}-{y}",
            f"{month[:3]} {d} {y}",
            f"{m}/{d}/{y % 100:02d}",
            f"{d} {month} {y}",
            f"{m:02d}-{d:02d}-{y}",
        )
        return forms[style % len(forms)]

    def time_text(self) -> str:
        h, mi = self.rng.randrange(24), self.rng.randrange(60)
        return self.rng.choice(
            (f"{h:02d}:{mi:02d}", f"{h:02d}{mi:02d} hours", f"{(h % 12) or 12}:{mi:02d} {'AM' if h < 12 else 'PM'}")
        )

    def dob(self, exam: date, age: int) -> date:
        return exam - timedelta(days=age * 365 + self.rng.randrange(365))

    # -- identifiers ----------------------------------------------------------------------------

    def digits(self, n: int) -> str:
        return "".join(str(self.rng.randrange(10)) for _ in range(n))

    def mrn(self) -> str:
        r = self.rng
        return r.choice(
            (
                self.digits(r.choice((7, 8, 9))),
                f"{self.digits(3)}-{self.digits(2)}-{self.digits(2)}",
                f"E{self.digits(7)}",
                f"MR{self.digits(6)}",
            )
        )

    def accession(self) -> str:
        r = self.rng
        return r.choice(
            (
                f"{r.choice(('RAD', 'CT', 'MR', 'US', 'XR', 'ACC'))}{self.digits(8)}",
                self.digits(10),
                f"A{self.digits(7)}",
                f"{self.digits(4)}-{self.digits(6)}",
            )
        )

    def account(self) -> str:
        return self.rng.choice((self.digits(10), f"FIN {self.digits(9)}", f"V{self.digits(9)}"))

    def phone(self) -> str:
        a, b, c = f"{self.rng.randrange(201, 989)}", self.digits(3), self.digits(4)
        b = str(self.rng.randrange(2, 10)) + b[1:]
        return self.rng.choice((f"({a}) {b}-{c}", f"{a}-{b}-{c}", f"{a}.{b}.{c}", f"{b}-{c}"))

    def pager(self) -> str:
        return self.rng.choice((self.digits(5), f"{self.digits(3)}-{self.digits(4)}", self.digits(4)))

    def email(self, person: Person, domain: str) -> str:
        user = self.rng.choice(
            (f"{person.first[0]}{person.last}", f"{person.first}.{person.last}", f"{person.last}{self.digits(2)}")
        )
        return f"{user.lower()}@{domain}"

    def domain(self) -> str:
        return self.faker.domain_name()

    def url(self, domain: str) -> str:
        path = self.rng.choice(("pacs/viewer", "radiology/results", "portal/login", "ris/order", "imaging"))
        return self.rng.choice((f"https://{domain}/{path}", f"http://www.{domain}", f"www.{domain}/{path}"))

    def ip(self) -> str:
        r = self.rng
        return r.choice(
            (
                f"10.{r.randrange(256)}.{r.randrange(256)}.{r.randrange(1, 255)}",
                f"192.168.{r.randrange(256)}.{r.randrange(1, 255)}",
                self.faker.ipv4_public(),
            )
        )

    # -- places ---------------------------------------------------------------------------------

    def hospital(self) -> str:
        if self.rng.random() < 0.4:
            return self.rng.choice(lexicon_terms("hospitals"))
        form = self.rng.choice(_HOSPITAL_FORMS)
        return form.format(city=self.faker.city(), last=self.faker.last_name())

    def department(self) -> str:
        return self.rng.choice(_DEPARTMENTS)

    def street(self) -> str:
        return self.faker.street_address()

    def city_state_zip(self) -> tuple[str, str, str]:
        return self.faker.city(), self.faker.state_abbr(include_territories=False), self.faker.zipcode()

    # -- vendors --------------------------------------------------------------------------------

    def vendor(self, kind: str = "") -> str:
        """A vendor term: `kind` = "SOFTWARE", "DEVICE" or "COMPANY" (lexicon subtype)."""
        terms = lexicon_terms("vendors", f"VENDOR/{kind}" if kind else "VENDOR")
        return self.rng.choice(terms)

    def now(self) -> datetime:
        start = datetime(2008, 1, 1)
        return start + timedelta(days=self.rng.randrange(5000), minutes=self.rng.randrange(1440))


def patient_series(count: int, seed: int, per_patient: int, make: Callable[[Fakes, int, T | None], T]) -> list[T]:
    """`count` records made by `make(fakes, number, previous)`, each from its own seed; with
    `per_patient` > 1 each patient has that many records in a row (`previous` is the record before,
    of the same patient, else None), so the HL7, FHIR and DICOM generators draw patients alike."""
    fakes = Fakes()
    out: list[T] = []
    for number in range(count):
        fakes.reset(seed * 1_000_003 + number)
        out.append(make(fakes, number + 1, out[-1] if out and number % per_patient else None))
    return out
