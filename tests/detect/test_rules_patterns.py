"""Positive and hard-negative tables for every family of bundled rules.

Each positive case lists *all* spans the bundled rules must return for the text, as
(exact substring, category[, subtype]); offsets are checked through `text[span.start:span.end]`,
so every span is also checked for being tight. Hard negatives must return no span at all (or
none of the named category).
"""

from __future__ import annotations

import pytest

from radeid.core.categories import Category
from radeid.core.document import Span
from radeid.detect.rules import RuleDetector

Expected = tuple  # (substring, category) or (substring, category, subtype)


@pytest.fixture(scope="module")
def detector() -> RuleDetector:
    return RuleDetector()


def _found(detector: RuleDetector, text: str) -> list[Span]:
    spans = detector.detect_text(text)
    for span in spans:
        piece = text[span.start : span.end]
        assert piece == piece.strip(), f"span {piece!r} has edge whitespace"
        assert "\n" not in piece or span.category is Category.LOCATION, f"span {piece!r} crosses a line"
        assert 0.0 < span.score <= 1.0
        assert span.source.startswith("rules/")
    return spans


def check_exact(detector: RuleDetector, text: str, expected: list[Expected]) -> None:
    spans = _found(detector, text)
    got = {(text[s.start : s.end], s.category.value) for s in spans}
    want = {(e[0], e[1]) for e in expected}
    assert got == want, f"\ntext: {text!r}\nmissing: {sorted(want - got)}\nextra: {sorted(got - want)}"
    for item in expected:
        if len(item) == 3:
            subtypes = {s.subtype for s in spans if text[s.start : s.end] == item[0] and s.category.value == item[1]}
            assert item[2] in subtypes, f"{item[0]!r}: subtype {item[2]!r} not in {subtypes}"


def check_none(detector: RuleDetector, text: str, category: str | None = None) -> None:
    spans = _found(detector, text)
    if category is not None:
        spans = [s for s in spans if s.category.value == category]
    assert not spans, f"{text!r} -> {[(text[s.start : s.end], s.label, s.source) for s in spans]}"


# ---------------------------------------------------------------------------------------- DATE

DATE_POSITIVE = [
    ("Seen on 3/4/19.", [("3/4/19", "DATE")]),
    ("Prior study 03/04/2019 is available.", [("03/04/2019", "DATE")]),
    ("Comparison 2019-03-04.", [("2019-03-04", "DATE")]),
    ("Dated 03.04.2019 and 03-04-2019.", [("03.04.2019", "DATE"), ("03-04-2019", "DATE")]),
    ("Study of 25/12/2019 reviewed.", [("25/12/2019", "DATE")]),
    ("Exam 3/4/2019 10:32 AM.", [("3/4/2019", "DATE")]),
    ("Acquired 2019-03-04T10:32:00Z", [("2019-03-04", "DATE")]),
    ("Seen March 4, 2019 in clinic.", [("March 4, 2019", "DATE")]),
    ("Seen 4 Mar 2019 in clinic.", [("4 Mar 2019", "DATE")]),
    ("SEEN MAR 4 2019.", [("MAR 4 2019", "DATE")]),
    ("Seen 4-MAR-2019, 12-Mar-19.", [("4-MAR-2019", "DATE"), ("12-Mar-19", "DATE")]),
    ("Follow up on Mar. 4th please.", [("Mar. 4th", "DATE")]),
    ("He was admitted on the 4th of March.", [("4th of March", "DATE")]),
    (
        "Surgery on Monday, March 4th, 2019.",
        [("Monday, March 4th, 2019", "DATE"), ("Monday", "DATE"), ("March 4th, 2019", "DATE")],
    ),
    ("Seen Tue, Mar 5 2019.", [("Tue, Mar 5 2019", "DATE"), ("Mar 5 2019", "DATE")]),
    (
        "Seen Monday 4 March 2019 and Wed 3/6/2019.",
        [
            ("Monday 4 March 2019", "DATE"),
            ("Monday", "DATE"),
            ("4 March 2019", "DATE"),
            ("Wed 3/6/2019", "DATE"),
            ("3/6/2019", "DATE"),
        ],
    ),
    ("Not Monday 31/02/2019.", [("Monday", "DATE")]),
    ("Symptoms since March 2019.", [("March 2019", "DATE")]),
    ("CT in June of 2005 was normal.", [("June of 2005", "DATE")]),
    ("Last PSA 3/2019 was normal.", [("3/2019", "DATE")]),
    ("Compared with the study on 3/4.", [("3/4", "DATE")]),
    ("Report dated 3/4 reviewed.", [("3/4", "DATE")]),
    ("Pain from 3/4 until now.", [("3/4", "DATE")]),
    ("Appendectomy in 2019.", [("2019", "DATE", "YEAR")]),
    ("Headaches since 2015, worse lately.", [("2015", "DATE", "YEAR")]),
    ("Compared with prior CT (2018).", [("2018", "DATE", "YEAR")]),
    ("CT 20190304 done on 20190304.", [("20190304", "DATE")]),
    ("Seen on Friday for follow-up.", [("Friday", "DATE", "WEEKDAY")]),
    ("DOB: 12/31/1930", [("12/31/1930", "DATE")]),
    ("The exam of May 5, 2018 showed", [("May 5, 2018", "DATE")]),
    ("Comparison 4-25-10.", [("4-25-10", "DATE")]),
    ("Prior exams: 12-11-09. 9-16-07.", [("12-11-09", "DATE"), ("9-16-07", "DATE")]),
    ("CT abdomen 9-9-14 negative.", [("9-9-14", "DATE")]),
    ("MRI 4.5.22 showed progression.", [("4.5.22", "DATE")]),
    ("Compared to chest 3/2, smaller.", [("3/2", "DATE")]),
    ("Comparison: prior CT abdomen 3/2.", [("3/2", "DATE")]),
    ("Colonoscopy Aug 10, '23.", [("Aug 10, '23", "DATE"), ("23", "DATE", "YEAR")]),
    ("Colonoscopy Sept '21 with polyp.", [("Sept '21", "DATE"), ("21", "DATE", "YEAR")]),
    ("Pap smear '19 normal.", [("19", "DATE", "YEAR")]),
    ("ADMIT 8/22  DC 8/25", [("8/22", "DATE"), ("8/25", "DATE")]),
]

DATE_NEGATIVE = [
    "Take 1/2 tab daily.",
    "Heparin 5 mg/kg over 2.5/5 mg.",
    "Dilution 1:10, motor 3/5 strength.",
    "GCS 15. Gleason 3+4. BI-RADS 4. PI-RADS 3.",
    "Compression fracture of T12 and disc bulge at L4-L5 and C5-6.",
    "BP 120/80, 120/80 mmHg.",
    "Mass measures 4.5 x 3.2 cm. Version 1.5.2 of the software.",
    "The time was 10:32.",
    "See series 3 image 45 and series 2/5.",
    "There were 2019 patients in the cohort.",
    "Dose of 2000 mg and 1950 mL.",
    "The findings may represent atelectasis; may 4 views be obtained.",
    "Marked decreased density at the junction, marginal.",
    "T2-weighted images show signal.",
    "Strength improved from 4/5 to 5/5.",
    "Level of 1931 units.",
    "Visual acuity 20/20.",
    "Grade 2 May be reconsidered.",
    "Image 12/45 demonstrates the lesion.",
    "Previously 1.0 cm on 1/2 dose CT. Seen on 3/4 of the images.",
    "Apgar 8-9-10; titrate 3-4-10 mg; follow-up in 3-6 months; G3P2-0-1-2; EF 55-60%.",
    "Compared to prior, strength 4/5; compared to the prior exam 3/4 of the lesion.",
    "Version 1.5.22 of the software.",
    "He is 5'10\" tall; music of the '90s.",
    "Scores 2-3-10 points; 3-4-10 times.",
]


@pytest.mark.parametrize(("text", "expected"), DATE_POSITIVE)
def test_date_positive(detector: RuleDetector, text: str, expected: list[Expected]) -> None:
    check_exact(detector, text, expected)


@pytest.mark.parametrize("text", DATE_NEGATIVE)
def test_date_negative(detector: RuleDetector, text: str) -> None:
    check_none(detector, text)


@pytest.mark.parametrize("text", ["13/13/2019 and 31/02/2019", "02/30/2019", "1/1/1850", "2019-13-01"])
def test_implausible_dates_rejected(detector: RuleDetector, text: str) -> None:
    check_none(detector, text, "DATE")


# ----------------------------------------------------------------------------------- CONTACT

CONTACT_POSITIVE = [
    ("Call (555) 123-4567 today.", [("(555) 123-4567", "PHONE")]),
    (
        "Call 555-123-4567, 555.123.4567 or +1 555 123 4567.",
        [("555-123-4567", "PHONE"), ("555.123.4567", "PHONE"), ("+1 555 123 4567", "PHONE")],
    ),
    ("Office 555-123-4567 ext. 12 for questions.", [("555-123-4567 ext. 12", "PHONE")]),
    ("Fax: 555-123-4568", [("555-123-4568", "PHONE", "FAX")]),
    ("Phone: 555-123-4567 Fax: 555-123-4568", [("555-123-4567", "PHONE"), ("555-123-4568", "PHONE", "FAX")]),
    ("Please page pager 4-5678 with results.", [("4-5678", "PHONE", "PAGER")]),
    ("Reached the reading room at ext 5432.", [("5432", "PHONE")]),
    ("Dr. on call, beeper 12345.", [("12345", "PHONE", "PAGER")]),
    ("Reported to Dr. Lee (pager 4417) at 15:05.", [("Lee", "HCW"), ("4417", "PHONE", "PAGER")]),
    ("Tel: +44 20 7946 0958", [("+44 20 7946 0958", "PHONE")]),
    ("Phone:\n0487 98 11 92\n", [("0487 98 11 92", "PHONE")]),
    ("Email jane.smith@example.org for copies.", [("jane.smith@example.org", "EMAIL")]),
    ("See https://pacs.example.com/viewer?id=12) now", [("https://pacs.example.com/viewer?id=12", "URL")]),
    ("Portal www.myhealth.org. Or example.com.", [("www.myhealth.org", "URL"), ("example.com", "URL")]),
    ("Mirror at files.hospital.co.uk today", [("files.hospital.co.uk", "URL")]),
    ("Workstation 192.168.10.25 sent it.", [("192.168.10.25", "IP")]),
    ("Host 10.0.0.1:8080 and fe80::1ff:fe23:4567:890a.", [("10.0.0.1", "IP"), ("fe80::1ff:fe23:4567:890a", "IP")]),
    ("Node 2001:0db8:85a3:0000:0000:8a2e:0370:7334 up", [("2001:0db8:85a3:0000:0000:8a2e:0370:7334", "IP")]),
]

CONTACT_NEGATIVE = [
    "Findings e.g. atelectasis, i.e. collapse, at 10 a.m. today.",
    "Stored as image.dcm and report.pdf in /data/x.nii.",
    "Software version 1.2.3.4 was used.",
    "Pager: see call schedule. Page the team.",
    "Measures 12 x 1234 mm? No, 4.5 x 3.2 cm.",
    "Times 10:32:45 and 12:00.",
    "Octets 256.1.1.1 are invalid.",
    "The extent of disease and external compression; extension 2 cm.",
    "Lobe.No effusion.The heart is normal.",
    "Ratio 1::2 was reported.",
    "Call 911 now.",
]


@pytest.mark.parametrize(("text", "expected"), CONTACT_POSITIVE)
def test_contact_positive(detector: RuleDetector, text: str, expected: list[Expected]) -> None:
    check_exact(detector, text, expected)


@pytest.mark.parametrize("text", CONTACT_NEGATIVE)
def test_contact_negative(detector: RuleDetector, text: str) -> None:
    check_none(detector, text)


# ---------------------------------------------------------------------------------------- IDs

ID_POSITIVE = [
    ("SSN 123-45-6789 on file.", [("123-45-6789", "ID", "SSN")]),
    # area 9xx is an ITIN (or a surrogate SSN): still an identifier
    ("ITIN 912-71-3456 on file.", [("912-71-3456", "ID", "SSN")]),
    ("SSN: 078051120", [("078051120", "ID", "SSN")]),
    ("MRN: 1234567", [("1234567", "ID", "MRN")]),
    ("MRN: AB123456", [("AB123456", "ID", "MRN")]),
    ("MRN#12345678.", [("12345678", "ID", "MRN")]),
    ("Medical record number 1234567.", [("1234567", "ID", "MRN")]),
    ("Accession: CT-2019-004512", [("CT-2019-004512", "ID", "ACCESSION")]),
    ("Acc #: 7654321", [("7654321", "ID", "ACCESSION")]),
    ("Account Number: 55443322", [("55443322", "ID", "ACCOUNT")]),
    ("Encounter #: 556677", [("556677", "ID", "ENCOUNTER")]),
    ("Visit ID 99887766", [("99887766", "ID", "ENCOUNTER")]),
    ("Order #: ORD-778899", [("ORD-778899", "ID", "ORDER")]),
    ("Patient ID: P12345", [("P12345", "ID", "PATIENT_ID")]),
    ("Case number 2019-00123", [("2019-00123", "ID", "STUDY")]),
    ("Study ID: 987654", [("987654", "ID", "STUDY")]),
    ("NPI: 1234567893", [("1234567893", "ID", "NPI")]),
    ("Ref #45678 attached.", [("45678", "ID")]),
    ("card number 4735110554588 is lost", [("4735110554588", "ID", "CARD")]),
    ("Card 4111 1111 1111 1111.", [("4111 1111 1111 1111", "ID", "CARD")]),
    ("Paid with 4111111111111111.", [("4111111111111111", "ID", "CARD")]),
    ("My driver's license number is 5130634.", [("5130634", "ID", "LICENSE")]),
    ("Lead serial #: 123456.", [("123456", "ID", "LICENSE")]),
    ("Reference no. 123456789012 pending.", [("123456789012", "ID")]),
    ("Accession: MG23100201, US23100207", [("MG23100201", "ID", "ACCESSION"), ("US23100207", "ID", "ACCESSION")]),
    ("our ref. CHN-48815", [("CHN-48815", "ID")]),
    (
        "Study Instance UID: 1.2.840.113619.2.55.3.604688119.971.1714723011.482",
        [("1.2.840.113619.2.55.3.604688119.971.1714723011.482", "ID", "UID")],
    ),
    ("Unrelated 98765432101 here.", [("98765432101", "ID")]),
    ("HMO-234567 on file; EM-2554; AB-123456.", [("HMO-234567", "ID"), ("EM-2554", "ID"), ("AB-123456", "ID")]),
    ("Pathology #SF-998877 and S21-4455.", [("SF-998877", "ID"), ("S21-4455", "ID")]),
    ("MRN-1234567 CT CHEST", [("1234567", "ID")]),
    ("Cytology C-20-1109; SP-19-01234; TB-23-019", [("C-20-1109", "ID"), ("SP-19-01234", "ID"), ("TB-23-019", "ID")]),
    ("hmo # hmo-556120", [("hmo-556120", "ID")]),
]

ID_NEGATIVE = [
    "SSN 666-12-3456, 000-12-3456, 123-00-4567, 123-45-0000.",
    "The patient was seen at follow-up visit 3 months later.",
    "In order of 5 days. Record 12. Exam of the chest.",
    "Lesion #15 and image #1234 and series #2001.",
    "Acidic fluid 12345 mL? (not an ID word)",
    "NPI 1234567890 fails its checksum? (checked by the NPI rule only)",
    "Cardiac silhouette is normal. Accessory fissure. Study limited.",
    "Procedure: 71020 chest two views.",
    "ICD-10 R91.1; COVID-19; T2-weighted; L4-5; C5-6; HbA1c; BI-RADS 4; CA-125; IL-6; HLA-B27; SARS-CoV-2.",
    "G6PD; Tc-99m; F-18 FDG; I-131; Y-90; DVT-2; NYHA-3; CA 19-9 of 1450.",
    "WHO-2016 criteria; JAN-2019; MK-3475 infusion; IM-0001-0012; NCT-01234567; CPT-71046.",
    "anti-12345 and mid-20190 are not IDs; CA-19-9 of 1450; C5-6-7.",
]


@pytest.mark.parametrize(("text", "expected"), ID_POSITIVE)
def test_id_positive(detector: RuleDetector, text: str, expected: list[Expected]) -> None:
    check_exact(detector, text, expected)


@pytest.mark.parametrize("text", ID_NEGATIVE)
def test_id_negative(detector: RuleDetector, text: str) -> None:
    spans = [s for s in detector.detect_text(text) if s.subtype in ("SSN", "NPI") or s.category is Category.ID]
    if text.startswith("NPI 1234567890"):
        assert all(s.subtype != "NPI" for s in spans)
    else:
        assert not spans, [(text[s.start : s.end], s.source) for s in spans]


# ----------------------------------------------------------------------------------- LOCATION

LOCATION_POSITIVE = [
    ("Lives at 123 Main Street.", [("123 Main Street", "LOCATION", "STREET")]),
    (
        "Home: 4500 N. Oak Ave Apt 3B, nearby.",
        [("4500 N. Oak Ave Apt 3B", "LOCATION", "STREET"), ("Apt 3B", "LOCATION", "STREET")],
    ),
    ("Mail to PO Box 123 please.", [("PO Box 123", "LOCATION", "STREET")]),
    (
        "Springfield, IL 62704",
        [
            ("Springfield, IL 62704", "LOCATION", "ADDRESS"),
            ("Springfield", "LOCATION", "CITY"),
            ("IL", "LOCATION", "STATE"),
            ("62704", "LOCATION", "ZIP"),
        ],
    ),
    (
        "SPRINGFIELD, ILLINOIS 62704-1234",
        [
            ("SPRINGFIELD, ILLINOIS 62704-1234", "LOCATION", "ADDRESS"),
            ("SPRINGFIELD", "LOCATION", "CITY"),
            ("ILLINOIS", "LOCATION", "STATE"),
            ("62704-1234", "LOCATION", "ZIP"),
        ],
    ),
    (
        "Clinic, 88 Wren Street, Marlow, NH\n",
        [
            ("88 Wren Street", "LOCATION", "STREET"),
            ("Marlow, NH", "LOCATION", "ADDRESS"),
            ("Marlow", "LOCATION", "CITY"),
            ("NH", "LOCATION", "STATE"),
        ],
    ),
    (
        "1450 Larkspur Avenue, 3rd floor, Alder Falls, OR 97402",
        [
            ("1450 Larkspur Avenue, 3rd floor", "LOCATION", "STREET"),
            ("Alder Falls, OR 97402", "LOCATION", "ADDRESS"),
            ("Alder Falls", "LOCATION", "CITY"),
            ("OR", "LOCATION", "STATE"),
            ("97402", "LOCATION", "ZIP"),
        ],
    ),
    ("ZIP: 62704", [("62704", "LOCATION", "ZIP")]),
    ("zip code 62704-1234.", [("62704-1234", "LOCATION", "ZIP")]),
    (
        "Moved from Springfield, Illinois last year.",
        [("Springfield", "LOCATION", "CITY"), ("Illinois", "LOCATION", "STATE")],
    ),
    ("Unit 4719 Box 7394\nDPO AP 70942", [("Unit 4719 Box 7394", "LOCATION", "STREET"), ("70942", "LOCATION", "ZIP")]),
    (
        "Address: 77 Elm Rd, Boston, MA 02115",
        [
            ("77 Elm Rd, Boston, MA 02115", "LOCATION", "ADDRESS"),
            ("77 Elm Rd", "LOCATION", "STREET"),
            ("Boston, MA 02115", "LOCATION", "ADDRESS"),
            ("Boston", "LOCATION", "CITY"),
            ("MA", "LOCATION", "STATE"),
            ("02115", "LOCATION", "ZIP"),
        ],
    ),
    ("Office at Bahnhofstrasse 12 in town.", [("Bahnhofstrasse 12", "LOCATION", "STREET")]),
    ("Via Roma 131, Milano", [("Via Roma 131", "LOCATION", "STREET")]),
    ("Location: Ward 808\nSex: F", [("808", "LOCATION", "ROOM")]),
    ("LOCATION: BED 518", [("518", "LOCATION", "ROOM")]),
    ("Transferred to Room 4B, then Rm. 12.", [("4B", "LOCATION", "ROOM"), ("12", "LOCATION", "ROOM")]),
    ("0652 Roberts Viaduct", [("0652 Roberts Viaduct", "LOCATION", "STREET")]),
    ("561 TIFFANY PRAIRIE", [("561 TIFFANY PRAIRIE", "LOCATION", "STREET")]),
    ("Moved to room 16 overnight.", [("16", "LOCATION", "ROOM")]),
    ("Pt in rm 402, bed 4B.", [("402", "LOCATION", "ROOM"), ("4B", "LOCATION", "ROOM")]),
    (
        "ER bay 10; isolette 3-22; cubicle 7.",
        [("10", "LOCATION", "ROOM"), ("3-22", "LOCATION", "ROOM"), ("7", "LOCATION", "ROOM")],
    ),
    ("room no. 12", [("12", "LOCATION", "ROOM")]),
    (
        "ROOM: 622-A; Room/Bed: 318-2; Room B-210",
        [("622-A", "LOCATION", "ROOM"), ("318-2", "LOCATION", "ROOM"), ("B-210", "LOCATION", "ROOM")],
    ),
    (
        "Crib 14 in the NICU; hallway bed H12; infusion chair 11",
        [("14", "LOCATION", "ROOM"), ("H12", "LOCATION", "ROOM"), ("11", "LOCATION", "ROOM")],
    ),
]

LOCATION_NEGATIVE = [
    "Compared with 2 prior CT studies.",
    "Seen at 2 Views chest.",
    "ST elevation in leads 2 and 3.",
    "The patient is in no distress.",
    "Lesion 12345 in segment 4.",
    "Unit 3 of the ICU.",
    "On room air. Bed rest for 2 days. Ward round at 9.",
    "Bed 2 mg of morphine",
    "Stable 2 Lung Field markings.",
    "SpO2 95% on room air at room temperature; 2 beds; ER bay.",
    "Head of bed 30 degrees; head of the bed elevated 45; bed 30°; in bed 3 days.",
    "Workstation: reading room 3. Reading Room 2. Taken to operating room 35, Operating Room #2.",
    "Bedroom 2 upstairs.",
]


@pytest.mark.parametrize(("text", "expected"), LOCATION_POSITIVE)
def test_location_positive(detector: RuleDetector, text: str, expected: list[Expected]) -> None:
    check_exact(detector, text, expected)


@pytest.mark.parametrize("text", LOCATION_NEGATIVE)
def test_location_negative(detector: RuleDetector, text: str) -> None:
    check_none(detector, text)


# ---------------------------------------------------------------------------------------- AGE

AGE_POSITIVE = [
    ("A 92 years old woman.", [("92", "AGE")]),
    ("92 y/o female.", [("92", "AGE")]),
    ("92yo M with cough.", [("92", "AGE")]),
    ("This 92-year-old man.", [("92", "AGE")]),
    ("A 101 yr old man.", [("101", "AGE")]),
    ("Patient age 92.", [("92", "AGE")]),
    ("Mrs. Doe, aged 95.", [("Doe", "PATIENT"), ("95", "AGE")]),
    ("Age: 93", [("93", "AGE")]),
    ("A 90 years of age male.", [("90", "AGE")]),
    ("92 y.o. F", [("92", "AGE")]),
    ("SEX: F    AGE: 095Y", [("95", "AGE")]),
    ("He just turned 93 years old.", [("93", "AGE")]),
    ("She is ninety-one years old.", [("ninety-one", "AGE")]),
    ("ninety two yo female", [("ninety two", "AGE")]),
    ("one hundred and two years old", [("one hundred and two", "AGE")]),
    ("A woman aged ninety-four.", [("ninety-four", "AGE")]),
    ("Age: ninety-three", [("ninety-three", "AGE")]),
    ("A NINETY-FIVE-YEAR-OLD MAN", [("NINETY-FIVE", "AGE")]),
    ("A hundred y/o", [("A hundred", "AGE")]),
    ("The patient is ninety-nine.", [("ninety-nine", "AGE")]),
    ("he's ninety now; turned one hundred last month", [("ninety", "AGE"), ("one hundred", "AGE")]),
    ("Q: How old are you? A: Ninety-one.", [("Ninety-one", "AGE")]),
    ("She celebrated her 100th birthday.", [("100th", "AGE")]),
    ("93 F with AMS, Na 124", [("93", "AGE")]),
    ("Pt (92) fell at home.", [("92", "AGE")]),
]

AGE_NEGATIVE = [
    "A 45 years old woman.",
    "89 y/o male, age 89, 89-year-old.",
    "A 2-year-old and a 12 yo.",
    "Gestational age 38 weeks. Age 92 days? No.",
    "Age 150 is impossible.",
    "aged seventy-two",
    "eighty-nine years old, aged eighty-nine",
    "Ninety percent stenosis; age ninety days; one hundred and two beats.",
    "Two hundred years old building.",
    "HR was ninety-two; saturating ninety-five percent; glucose is one hundred and two; at ninety degrees.",
    "Temp 100 F, afebrile.\n100 F at 0800.",
    "She is eighty-nine years old. Aged seventy-two, she gardens.",
]


@pytest.mark.parametrize(("text", "expected"), AGE_POSITIVE)
def test_age_positive(detector: RuleDetector, text: str, expected: list[Expected]) -> None:
    check_exact(detector, text, expected)


@pytest.mark.parametrize("text", AGE_NEGATIVE)
def test_age_negative(detector: RuleDetector, text: str) -> None:
    check_none(detector, text, "AGE")


# ----------------------------------------------------------------------------------- HOSPITAL

HOSPITAL_POSITIVE = [
    ("Transferred from St. Mary's Hospital.", [("St. Mary's Hospital", "HOSPITAL")]),
    ("At Springfield General Hospital the CT was done.", [("Springfield General Hospital", "HOSPITAL")]),
    ("The Lakeside Medical Center report.", [("Lakeside Medical Center", "HOSPITAL")]),
    ("Seen at Mercy Clinic.", [("Mercy Clinic", "HOSPITAL")]),
    ("From Riverside Imaging Center, outside films.", [("Riverside Imaging Center", "HOSPITAL")]),
    ("University of Iowa Medical Center", [("University of Iowa Medical Center", "HOSPITAL")]),
    ("Department of Radiology at Springfield General Hospital", [("Springfield General Hospital", "HOSPITAL")]),
    (
        "Films from the Hospital of the University of Pennsylvania.",
        [("Hospital of the University of Pennsylvania", "HOSPITAL")],
    ),
    ("SPRINGFIELD GENERAL HOSPITAL", [("SPRINGFIELD GENERAL HOSPITAL", "HOSPITAL")]),
    ("Cedar Hollow Neurology Associates", [("Cedar Hollow Neurology Associates", "HOSPITAL")]),
    (
        "Halvorsen Breast Center at Mercy Hospital.",
        [("Halvorsen Breast Center", "HOSPITAL"), ("Mercy Hospital", "HOSPITAL")],
    ),
]

HOSPITAL_NEGATIVE = [
    "Outside Hospital CT reviewed.",
    "Department of Radiology.",
    "Community Hospital records requested.",
    "Follow up in the Breast Clinic.",
    "BRIEF HOSPITAL COURSE: uneventful.",
    "Findings sent to the outside hospital.",
    "Magnetic Resonance Imaging of the brain.",
    "Pediatric Urology Clinic follow-up.",
    "The patient was hospitalized; clinical history of COPD.",
    "GE Healthcare scanner.",
]


@pytest.mark.parametrize(("text", "expected"), HOSPITAL_POSITIVE)
def test_hospital_positive(detector: RuleDetector, text: str, expected: list[Expected]) -> None:
    check_exact(detector, text, expected)


@pytest.mark.parametrize("text", HOSPITAL_NEGATIVE)
def test_hospital_negative(detector: RuleDetector, text: str) -> None:
    check_none(detector, text, "HOSPITAL")


# -------------------------------------------------------------------------------------- NAMES

NAME_POSITIVE = [
    ("Seen by Dr. Jane Smith today.", [("Jane Smith", "HCW")]),
    ("Discussed with Dr Smith.", [("Smith", "HCW")]),
    ("PER DR. SMITH.", [("SMITH", "HCW")]),
    ("Jane Smith, MD", [("Jane Smith", "HCW")]),
    ("Jane Smith, M.D.", [("Jane Smith", "HCW")]),
    ("John Doe, DO", [("John Doe", "HCW")]),
    ("Ann Lee, PA-C", [("Ann Lee", "HCW")]),
    ("Kim Park, RN and Joe Bloggs, NP", [("Kim Park", "HCW"), ("Joe Bloggs", "HCW")]),
    ("Dictated by: Jane Smith", [("Jane Smith", "HCW")]),
    ("Signed by: Jane A. Smith", [("Jane A. Smith", "HCW")]),
    ("Electronically signed by: Jane Smith, MD on 03/04/2019", [("Jane Smith", "HCW"), ("03/04/2019", "DATE")]),
    ("Attending: SMITH, JANE", [("SMITH, JANE", "HCW")]),
    ("Referring physician: Mary-Kate O'Brien", [("Mary-Kate O'Brien", "HCW")]),
    ("Ordering provider: Jan van der Berg", [("Jan van der Berg", "HCW")]),
    ("Radiologist: Angus McDonald", [("Angus McDonald", "HCW")]),
    ("Reviewed by Jane Smith by telephone.", [("Jane Smith", "HCW")]),
    ("Read by Dr. Smith at 10:32.", [("Smith", "HCW")]),
    ("Findings discussed with Jane Smith on 3/4.", [("Jane Smith", "HCW"), ("3/4", "DATE")]),
    ("Results communicated to John Doe.", [("John Doe", "HCW")]),
    ("Called to Amy Wu at 10:32.", [("Amy Wu", "HCW")]),
    ("Notified Dr. Lee's team.", [("Lee", "HCW")]),
    ("Patient: SMITH, JANE A", [("SMITH, JANE A", "PATIENT")]),
    ("Patient name: Jane Smith\nFINDINGS: normal", [("Jane Smith", "PATIENT")]),
    ("Name: Sieuwerd Heuver", [("Sieuwerd Heuver", "PATIENT")]),
    (
        "Mr. Smith is here. Mrs. Jane Doe, Ms. O'Brien, Miss Van der Berg.",
        [("Smith", "PATIENT"), ("Jane Doe", "PATIENT"), ("O'Brien", "PATIENT"), ("Van der Berg", "PATIENT")],
    ),
    ("Dictated by: Jane Smith\nIMPRESSION: normal", [("Jane Smith", "HCW")]),
    ("Dr. Smith's office called.", [("Smith", "HCW")]),
    ("Sonographer: K. Ambrose-Tillery, RDMS", [("K. Ambrose-Tillery", "HCW")]),
    ("Radiologist: SMITH, JANE A, MD", [("SMITH, JANE A", "HCW")]),
    ("RE: Jane Smith\nRE: Chest pain", [("Jane Smith", "PATIENT")]),
    ("Home with his daughter, Annika Oduya.", [("Annika Oduya", "PATIENT", "RELATIVE")]),
    ("Wife (Corinne Oyelaran, 541-555-0172) updated.", [("Corinne Oyelaran", "PATIENT"), ("541-555-0172", "PHONE")]),
    ("Questions to my assistant, Perpetua Lindgren, please.", [("Perpetua Lindgren", "HCW")]),
    ("Discussed with Dr. Amy Wu and Radiology.", [("Amy Wu", "HCW")]),
    ("Signed: Wendy Perez Date: 18-Nov-2019", [("Wendy Perez", "HCW"), ("18-Nov-2019", "DATE")]),
    ("Addended by Martin, Luis W on 09/02/2014", [("Martin, Luis W", "HCW"), ("09/02/2014", "DATE")]),
    ("OPERATORS: HOWELL, ASHLEY C AND DR. LUNA", [("HOWELL, ASHLEY C", "HCW"), ("LUNA", "HCW")]),
    ("FOLLOW-UP: with Brian Green in 1-2 weeks.", [("Brian Green", "HCW")]),
    ("HISTORY OF PRESENT ILLNESS: Andrews is a 61 yo woman", [("Andrews", "PATIENT")]),
    ("SPEARS IS A 50 Y/O MALE WITH COUGH", [("SPEARS", "PATIENT")]),
    ("Jane Smith was a 61-year-old teacher.", [("Jane Smith", "PATIENT")]),
    ("dr. o'brien signed", [("o'brien", "HCW")]),
    ("Reviewed by dr. O'Brien.", [("O'Brien", "HCW")]),
    ("Patient: jane doe", [("jane doe", "PATIENT")]),
    ("pt jane smith called back", [("jane smith", "PATIENT")]),
    ("pt ruth states pain 6/10", [("ruth", "PATIENT")]),
    ("What is your last name? Magnusson", [("Magnusson", "PATIENT")]),
    ("Q: Your name? A: Carla Reyes", [("Carla Reyes", "PATIENT")]),
    ("my name is lena andersson.", [("lena", "PATIENT"), ("lena andersson", "PATIENT")]),
    ("Called Mrs. abernathy, no answer.", [("abernathy", "PATIENT")]),
    ("Attending: hollis, ray", [("hollis, ray", "HCW")]),
    ("-- lisa, RN", [("lisa", "HCW")]),
    ("Discussed with greg from IR.", [("greg", "HCW")]),
    ("Home with his wife deb.", [("deb", "PATIENT", "RELATIVE")]),
]

NAME_NEGATIVE = [
    "Parkinson disease. Crohn disease. Hodgkin lymphoma.",
    "Exam name: CHEST PA AND LATERAL",
    "XRAY CHEST PA AND LATERAL.",
    "Findings discussed with Surgery. Seen by Doppler examination.",
    "Patient is a 45-year-old man. She is a 50 yo. This is a 3 year old.",
    "Signed: see attestation. Follow-up with Cardiology in 2 weeks.",
    "Findings were discussed with the patient.",
    "2600 cc IV crystalloid.",
    "MR imaging of the brain. MS lesions. MR ANGIOGRAM.",
    "Discussed with ED physician.",
    "Chest, PA and lateral views.",
    "Attending Physician Signature: see below.",
    "Referring Physician: Self",
    "RE: Follow-up CT",
    "Son was present. Discussed with the nurse practitioner.",
    "Patient: alert and oriented. Patient: lethargic, confused. Patient: doing well.",
    "pt will call back; pt may go home; pt rose from bed; pt is alert.",
    "Name: unknown. Name: none. What is your name? Declined. What is your name? I don't know.",
    "Moderate mr jet; TE 90 ms echo; mr angiography; DR traccional.",
    "Discussed with family at bedside; spoke with mom; her daughter rose to the occasion.",
    "Dictated by: pending review. Attending: none. Referring physician: emergency department.",
    "Results called to charge nurse, RN. dr. will see.",
]


@pytest.mark.parametrize(("text", "expected"), NAME_POSITIVE)
def test_name_positive(detector: RuleDetector, text: str, expected: list[Expected]) -> None:
    check_exact(detector, text, expected)


@pytest.mark.parametrize("text", NAME_NEGATIVE)
def test_name_negative(detector: RuleDetector, text: str) -> None:
    check_none(detector, text)


def test_name_never_crosses_line_break(detector: RuleDetector) -> None:
    text = "Dictated by: Jane\nSmith reviewed"
    spans = detector.detect_text(text)
    assert [text[s.start : s.end] for s in spans] == ["Jane"]


# ---------------------------------------------------------------------- a whole report at once

REPORT = """\
Patient: SMITH, JANE A    MRN: 1234567    Acc #: CT-2019-004512
DOB: 03/04/1931 (92 y/o F)    Exam date: 03/04/2019 10:32
Referring physician: John Doe, MD    Phone (555) 123-4567

EXAMINATION: CT CHEST WITHOUT CONTRAST
COMPARISON: 02/01/2018.
FINDINGS: 4.5 x 3.2 cm mass in the right upper lobe (series 3 image 45). L4-L5 degenerative change.
IMPRESSION: Findings discussed with Dr. Amy Wu by telephone at 10:40 on 3/4/2019.

Dictated by: Jane Smith, MD on 03/04/2019 10:45
"""


def test_whole_report(detector: RuleDetector) -> None:
    spans = _found(detector, REPORT)
    got = {(REPORT[s.start : s.end], s.category.value) for s in spans}
    assert got == {
        ("SMITH, JANE A", "PATIENT"),
        ("1234567", "ID"),
        ("CT-2019-004512", "ID"),
        ("03/04/1931", "DATE"),
        ("92", "AGE"),
        ("03/04/2019", "DATE"),
        ("John Doe", "HCW"),
        ("(555) 123-4567", "PHONE"),
        ("02/01/2018", "DATE"),
        ("Amy Wu", "HCW"),
        ("3/4/2019", "DATE"),
        ("Jane Smith", "HCW"),
    }


_INITIALS = "Job 4471 D: 03/04/2019\nMSC/jrt dictated\nJD:kl T: 03/05\nand x/MSC/jrt, AB:cd/ef, Note:ab job"


def test_transcription_initials_exact_offsets(detector: RuleDetector) -> None:
    """Initials beside D:/T:/Job lines, at their exact offsets; none glued to a word or a path."""
    got = sorted(
        (s.start, s.end, _INITIALS[s.start : s.end]) for s in detector.detect_text(_INITIALS) if s.subtype == "INITIALS"
    )
    assert got == [(23, 26, "MSC"), (27, 30, "jrt"), (40, 42, "JD"), (43, 45, "kl")]
