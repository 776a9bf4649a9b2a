# ruff: noqa: E501  (the lines below are data: note lines are as long as they are)
"""Regenerate `recall_regression.jsonl` from the hand-written lines below (issue 25).

Every line was written by hand as realistic note or report text; nothing was produced by radeid,
and every name, number, address and date is invented. Each PHI mention is written in place as
`[[CATEGORY|text]]`, so no offset is ever typed by hand: the script strips the markup, checks every
span and writes one JSON object per line (`{"id", "class", "text", "spans": [{"start", "end",
"category", "text"}]}`, plus `known_failure` where set), refusing to write when a check fails.

A line is either a markup string or `(markup, known_failure)`: the reason, in words, why the
default pipeline misses a gold span (or puts a span on a `hard_negatives` line) today. Such lines
run as strict xfail in `tests/test_recall_regression.py`; when the pipeline is fixed the test
fails and the reason is removed here. Never change a line's gold to match the pipeline.

Span edges (as in `make_integrity_traps.py` and the README): titles (`Dr.`, `Mrs.`) and
credentials (`, MD`) outside a name; a possessive `'s` outside a person's name (an institution's
`'s` is its name: `St. Mary's General`); the label outside an ID or a room (`MRN: 1234567` ->
`1234567`, `room 16` -> `16`); a street and its `City, ST ZIP` line as two LOCATION spans; an age
only when over 89, the number or words alone; the period of an initial inside a name
(`Mary A.`); a year alone is a DATE. `hard_negatives` lines hold no PHI at all.

Run: `python tests/data/make_recall_regression.py` (writes next to this file).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "recall_regression.jsonl"
MARK = re.compile(r"\[\[([A-Z]+)\|(.+?)\]\]")
CATEGORIES = {"DATE", "PATIENT", "HCW", "HOSPITAL", "LOCATION", "VENDOR", "ID", "PHONE", "EMAIL", "URL", "IP", "AGE"}

Line = str | tuple[str, str]

LINES: dict[str, list[Line]] = {
    "city_common_word": [
        "Lives in [[LOCATION|Chicago]] with her son, who helps with her medications.",
        "Transferred from [[LOCATION|Miami]] for a higher level of care.",
        "Was visiting family in [[LOCATION|Buffalo, NY]] when the fall occurred.",
        "Recently returned from [[LOCATION|Rome]]; denies fever, cough or diarrhea.",
        (
            "He drives a truck between [[LOCATION|Phoenix]] and [[LOCATION|Vegas]] and reports long hours seated.",
            "a city whose name is also a common word is not recognised as a place: 'Vegas' (LOCATION) not found",
        ),
        "SOCIAL HISTORY: Retired teacher, moved to [[LOCATION|Seattle]] last year to be near her daughter.",
        "Born in [[LOCATION|Mobile, AL]]; no travel outside the country.",
        (
            "Outside films from [[LOCATION|Reading, PA]] were uploaded for comparison.",
            "a city whose name is also a common word is not recognised as a place: 'Reading, PA' (LOCATION) not found",
        ),
        "Lives alone in [[LOCATION|Orange, CA]], independent with ADLs.",
        "Moved here from [[LOCATION|Independence, MO]] three years ago.",
        "Her daughter in [[LOCATION|Jackson]] is the health care proxy.",
        "Pt from [[LOCATION|Aurora]], here with wife, BP 152/94.",
        "Prior MRI was performed in [[LOCATION|Lincoln]]; report not available.",
        "she works at a bakery in [[LOCATION|austin]] and is on her feet all day",
        "Flew in from [[LOCATION|Denver]] yesterday; mild dyspnea, SpO2 93% on RA.",
        "Plans to return to [[LOCATION|Boston]] after discharge for follow-up.",
        "Lives in [[LOCATION|Columbia, SC]] with spouse; never smoker.",
        "HPI: 58 yo M from [[LOCATION|Buffalo]] presents with chest pain x 2 days, troponin 0.04.",
        (
            "TRANSFERRED FROM [[LOCATION|MOBILE]] BY AIR AMBULANCE, GCS 14 ON ARRIVAL.",
            "a city whose name is also a common word is not recognised as a place: 'MOBILE' (LOCATION) not found",
        ),
        "Q: Where do you live? A: [[LOCATION|Phoenix]], with my sister.",
        "Home: [[LOCATION|Aurora, CO]]",
        (
            "City: [[LOCATION|Independence]]   State: [[LOCATION|KS]]",
            "a city whose name is also a common word is not recognised as a place: 'Independence' (LOCATION) not found",
        ),
        "Handoff: pt's husband is driving down from [[LOCATION|Lincoln, NE]] tonight, ETA 2200.",
        "Travel history: [[LOCATION|Florence, Italy]] two weeks ago; no sick contacts.",
        "Grew up in [[LOCATION|Troy, NY]] and worked in a textile mill for 30 years.",
        "Visiting from [[LOCATION|Athens, GA]] for the weekend, ran out of insulin.",
        "Resides at an assisted living facility in [[LOCATION|Eugene]].",
        "Son lives in [[LOCATION|Salem]] and visits weekly.",
        "Was seen at an urgent care in [[LOCATION|Normal, IL]] on [[DATE|3/2/2022]].",
        (
            "moved here from [[LOCATION|vegas]] about a month ago, no PCP yet",
            "a city whose name is also a common word is not recognised as a place: 'vegas' (LOCATION) not found",
        ),
        "Lives in [[LOCATION|Providence]]; works as a nursing assistant.",
        (
            "Outside CT chest from [[LOCATION|Temple, TX]] shows a 6 mm RUL nodule.",
            "a city whose name is also a common word is not recognised as a place: 'Temple, TX' (LOCATION) found only as 'Temple' LOCATION",
        ),
        "EMS picked her up at home in [[LOCATION|Concord]] after a neighbor called 911.",
        "Next of kin: sister, [[LOCATION|Liberty, MO]].",
        "Originally from [[LOCATION|Victoria, BC]]; immigrated as a child.",
        "She winters in [[LOCATION|Tucson]] and summers in [[LOCATION|Bend]].",
        "Lived in [[LOCATION|Paris]] until age 12; no known TB exposure.",
        "Returning to [[LOCATION|Chicago]] tomorrow and will follow up with her PCP there.",
        "Driving from [[LOCATION|Austin]] to [[LOCATION|Houston]], restrained driver in an MVC at 65 mph.",
        (
            "Residence: [[LOCATION|Springfield]]",
            "a city whose name is also a common word is not recognised as a place: 'Springfield' (LOCATION) not found",
        ),
        "COMPARISON: Outside CT from [[LOCATION|Jackson]] dated [[DATE|04/11/2021]].",
        "Lives with partner in [[LOCATION|Madison]]; 2 drinks per week.",
        "Was camping near [[LOCATION|Phoenix]] when bitten; wound 2 cm, erythema 4 cm.",
        "pt states she is from [[LOCATION|Hope, arkansas]] originally",
        (
            "Works at the port in [[LOCATION|Mobile]]; exposure to diesel fumes for 20 years.",
            "a city whose name is also a common word is not recognised as a place: 'Mobile' (LOCATION) not found",
        ),
        "Hometown: [[LOCATION|Warren, OH]]",
        "He commutes to [[LOCATION|Denver]] daily, 45 minutes each way.",
        "Family in [[LOCATION|Orange]] and [[LOCATION|Irvine]] will help after discharge.",
        (
            "Daughter flying in from [[LOCATION|Reading]] tomorrow to discuss goals of care.",
            "a city whose name is also a common word is not recognised as a place: 'Reading' (LOCATION) not found",
        ),
        "Snowbird: spends winters in [[LOCATION|Naples, FL]] and the rest of the year in [[LOCATION|Rochester]].",
    ],
    "facility_words": [
        "Referred by [[HOSPITAL|Cook County Health]] for further workup of anemia.",
        "Transferred from [[HOSPITAL|St. Mary's General]] with a subdural hematoma.",
        "Admitted to [[HOSPITAL|Mercy Medical Center]] on [[DATE|02/14/2023]] with pneumonia.",
        "Prior imaging at [[HOSPITAL|Lakeside Community Hospital]] is not available.",
        "seen at [[HOSPITAL|5th avenue clinic]] last week for cough",
        "transferred to [[HOSPITAL|st joseph's]] for cath",
        "OUTSIDE FILMS FROM [[HOSPITAL|GOOD SAMARITAN MEDICAL CENTER]] WERE REVIEWED.",
        "Follow-up at [[HOSPITAL|Riverside Family Practice]] in 2 weeks.",
        (
            "Dialysis Monday, Wednesday and Friday at [[HOSPITAL|Valley View Dialysis]].",
            "a facility or company name made of common words is not found in full: 'Valley View Dialysis' (HOSPITAL) not found",
        ),
        (
            "Discharged to [[HOSPITAL|Sunrise Senior Living]] with home PT.",
            "a facility or company name made of common words is not found in full: 'Sunrise Senior Living' (HOSPITAL) found only as 'Sunrise Senior' HOSPITAL",
        ),
        "Pt resides at [[HOSPITAL|Green Meadows Nursing Home]], uses a walker.",
        "Comparison: CT from [[HOSPITAL|Northside Hospital]] dated [[DATE|1/5/2020]].",
        "Inpatient rehab at [[HOSPITAL|Spring Hill Rehabilitation Center]] for 3 weeks.",
        "Hospice care through [[HOSPITAL|Hope Hospice]] was discussed with the family.",
        "Transferred from [[HOSPITAL|Children's Hospital of the Valley]] for ECMO evaluation.",
        "Performed at: [[HOSPITAL|University Medical Center]]",
        "Followed at [[HOSPITAL|Pine Ridge Heart Institute]] for cardiomyopathy, EF 30%.",
        "She fills her prescriptions at [[HOSPITAL|Main Street Pharmacy]].",
        (
            "Employed by [[HOSPITAL|Blue River Logistics]] as a forklift driver.",
            "a facility or company name made of common words is not found in full: 'Blue River Logistics' (HOSPITAL) not found",
        ),
        "ED to ED transfer from [[HOSPITAL|Sacred Heart]].",
        (
            "was at [[HOSPITAL|bayside urgent care]] yesterday, given a z-pack",
            "a facility or company name made of common words is not found in full: 'bayside urgent care' (HOSPITAL) not found",
        ),
        "Outside hospital: [[HOSPITAL|Memorial Regional]]",
        "Previously treated at [[HOSPITAL|Cedar Grove Cancer Center]] with FOLFOX.",
        "MRI brain at [[HOSPITAL|Open Sky Imaging]] in [[LOCATION|Boulder]].",
        "PCP at [[HOSPITAL|Harbor Health]]; last visit [[DATE|March 2023]].",
        "Transported to [[HOSPITAL|Saint Francis]] by ambulance.",
        "Records requested from [[HOSPITAL|Lutheran General]].",
        "Attends [[HOSPITAL|Sunshine Adult Day Care]] on weekdays.",
        "SNF: [[HOSPITAL|Oak Hollow Care Center]]",
        "Biopsy read at [[HOSPITAL|Pathology Associates of the Midwest]].",
        "She is on the transplant list at [[HOSPITAL|Presbyterian]].",
        "CT PERFORMED AT [[HOSPITAL|ST. LUKE'S]] ON [[DATE|07/07/2021]].",
        (
            "Q: Where were you treated before? A: at [[HOSPITAL|county general]], about a year ago.",
            "a facility or company name made of common words is not found in full: 'county general' (HOSPITAL) not found",
        ),
        "Med rec obtained from [[HOSPITAL|Eastside Family Health Center]].",
        (
            "Sent home with [[HOSPITAL|Visiting Nurse Service of Clearwater]] for wound care.",
            "a facility or company name made of common words is not found in full: 'Visiting Nurse Service of Clearwater' (HOSPITAL) found only as 'Clearwater' HOSPITAL",
        ),
        "Cardiology follow-up at [[HOSPITAL|Lakeview Cardiology Associates]].",
        "Works night shift stocking shelves at [[HOSPITAL|Walmart]].",
        "Transferred from [[HOSPITAL|Shriners]] for burn care.",
        "Prior mammogram at [[HOSPITAL|Women's Imaging Center of Fairview]].",
        (
            "Dr. [[HCW|Alvarez]] at [[HOSPITAL|Westside Pediatrics]] referred him.",
            "a facility or company name made of common words is not found in full: 'Westside Pediatrics' (HOSPITAL) found only as 'Westside' LOCATION",
        ),
        "Inpatient psychiatry at [[HOSPITAL|Silver Lake Behavioral Health]] in [[DATE|2019]].",
        "SIGNED AT [[HOSPITAL|MOUNT HOPE MEDICAL CENTER]] RADIOLOGY.",
        "Transferred from [[HOSPITAL|Holy Cross]] with STEMI, door-to-balloon 74 min.",
        "Labs from [[HOSPITAL|Community Memorial]]: Hgb 8.1, plt 96.",
        (
            "pt goes to [[HOSPITAL|third street wellness]] for PT",
            "a facility or company name made of common words is not found in full: 'third street wellness' (HOSPITAL) not found",
        ),
        (
            "Discharge to [[HOSPITAL|Maple Grove Skilled Nursing]], accepting MD Dr. [[HCW|Fenwick]].",
            "a facility or company name made of common words is not found in full: 'Maple Grove Skilled Nursing' (HOSPITAL) found only as 'Maple Grove' LOCATION",
        ),
        "HOSPITAL: [[HOSPITAL|BAPTIST HEALTH SOUTH]]",
        "Rehab potential good; bed offered at [[HOSPITAL|Golden Age Manor]].",
    ],
    "protected_vs_cue": [
        "Insurance: [[ID|TE98765432]]",
        "HICN: [[ID|B123456789]]",
        "Mailing address: [[LOCATION|22 Harbour Road]], [[LOCATION|Lunenburg, NS B0J 2H0]]",
        "Lives at [[LOCATION|1450 Oak Avenue]], 2nd floor, no elevator.",
        "Was carrying a dresser for [[HOSPITAL|Summit Van Lines]] when he felt a pop in his back.",
        "Policy # [[ID|TR4455]]",
        "Temp 98.6, call back number [[PHONE|555-301-2277]].",
        "Medicaid ID: [[ID|QK55213309]]",
        "Member ID [[ID|XJH882019443]], group [[ID|70021]]",
        "Lives at [[LOCATION|1200 Pine Street]]; stairs to enter.",
        "Address: [[LOCATION|14 Mill Lane]], [[LOCATION|Leeds LS6 2QT]]",
        "ZIP [[LOCATION|60614]]",
        "Claim number [[ID|CLM0045521]] for the fall at work.",
        "Employer: [[HOSPITAL|Redwood Van Lines]]",
        "Pharmacy fax [[PHONE|555-442-0198]]; K 4.1, Mg 1.9.",
        "SSN [[ID|512-44-8830]]",
        "Driver's license [[ID|D4452-11903-88]]",
        "Found down outside [[LOCATION|1730 Maple Ave]] at 1730 hours.",
        "BP 120/80, HR 64, pager [[PHONE|555-0147]].",
        "Medicare # [[ID|1EG4-TE5-MK72]]",
        "Lab: [[HOSPITAL|Crescent Labs]], accession [[ID|CL22-00871]]",
        "Vehicle plate [[ID|7KDR221]] per police report.",
        "Pacemaker serial number [[ID|PJN448812S]]",
        "HR 72, RR 16; callback [[PHONE|(555) 210-9987]].",
        "Case #: [[ID|2021-33871]]",
        "MRN [[ID|00123456]] Weight 82 kg",
        "Address: [[LOCATION|310 Hospital Drive]]",
        (
            "Lives on [[LOCATION|Buffalo Road]] with two dogs.",
            "PHI shaped like ordinary words or clinical content is not found: 'Buffalo Road' (LOCATION) not found",
        ),
        "Pt's residence: [[LOCATION|45 Mercy Lane]]",
        "Fell at [[LOCATION|1600 Main St.]] outside the pharmacy.",
        "Emergency contact: wife [[PATIENT|Linda]], [[PHONE|555-212-4400]].",
        "Account: [[ID|88812-004]]",
        "Insurance: [[ID|BCX 9981 2231]]",
        (
            "Postal code [[LOCATION|T2N 4L7]]",
            "PHI shaped like ordinary words or clinical content is not found: 'T2N 4L7' (LOCATION) not found",
        ),
        "Temp 98.6, SpO2 99%, phone [[PHONE|555.787.1212]]",
        "Subscriber #: [[ID|PD77120984]]",
        "Works for [[HOSPITAL|Great Lakes Van Lines]] unloading trucks.",
        "Workers' comp claim [[ID|WC-2291-0034]]",
        "EMPI [[ID|100445982]]",
        "Home address [[LOCATION|800 Harbor View Rd]]; returns home at 0800 daily after night shift.",
        "Lives at [[LOCATION|2200 West 5th Street]], third-floor walk-up.",
        "Insurance member # [[ID|882019443]], copay $20.",
        "HICN [[ID|481220097A]], Part B effective [[DATE|01/01/2018]].",
        "Pulse 88, BP 132/70, home [[PHONE|555 918 4402]].",
        "Home: [[LOCATION|1015 Church Street, Unit 4]]",
        (
            "Her landlord, [[HOSPITAL|Parkview Property Management]], will install grab bars.",
            "PHI shaped like ordinary words or clinical content is not found: 'Parkview Property Management' (HOSPITAL) found only as 'Parkview Property' LOCATION",
        ),
    ],
    "strong_rule_dates": [
        "Chemotherapy [[DATE|04/2020]] - [[DATE|08/2020]]",
        (
            "XRT [[DATE|3/2019]]-[[DATE|6/2019]] to the left breast, 50 Gy in 25 fractions.",
            "a month/year or year range joined by a hyphen (or a season and year) is not read as dates: '3/2019' (DATE) not found; '6/2019' (DATE) not found",
        ),
        "Seen by Dr. [[HCW|Müller]] on [[DATE|03.04.2019]].",
        "Tamoxifen [[DATE|01/2015]] to [[DATE|12/2019]], then letrozole.",
        "FOLFOX x 6 cycles ([[DATE|Jan 2021]] - [[DATE|May 2021]]).",
        (
            "Lived in a group home [[DATE|2010]]-[[DATE|2015]].",
            "a month/year or year range joined by a hyphen (or a season and year) is not read as dates: '2010' (DATE) not found; '2015' (DATE) not found",
        ),
        (
            "Prednisone [[DATE|11/2018]]-[[DATE|02/2019]] for PMR.",
            "a month/year or year range joined by a hyphen (or a season and year) is not read as dates: '11/2018' (DATE) not found; '02/2019' (DATE) not found",
        ),
        "Dr. [[HCW|Schäfer]] (Kardiologie) am [[DATE|12.09.2021]]: EF 45%.",
        "Befund vom [[DATE|05.11.2020]], Dr. [[HCW|Größer]].",
        "Hospitalized [[DATE|June 2017]] for CHF exacerbation.",
        "RT completed [[DATE|10/2016]]; PSA 0.1 since.",
        "Smoked 1 ppd from [[DATE|1975]] until [[DATE|2001]].",
        (
            "Adjuvant capecitabine [[DATE|9/2022]]-[[DATE|2/2023]], 6 cycles.",
            "a month/year or year range joined by a hyphen (or a season and year) is not read as dates: '9/2022' (DATE) not found; '2/2023' (DATE) not found",
        ),
        (
            "Infliximab [[DATE|2014]]-[[DATE|2018]], switched to vedolizumab for loss of response.",
            "a month/year or year range joined by a hyphen (or a season and year) is not read as dates: '2014' (DATE) not found; '2018' (DATE) not found",
        ),
        "CABG x3 in [[DATE|Aug 2012]] at [[HOSPITAL|Meridian Heart Hospital]].",
        (
            "Treatment history: R-CHOP [[DATE|02/2019]]-[[DATE|06/2019]]; auto-SCT [[DATE|11/2019]].",
            "a month/year or year range joined by a hyphen (or a season and year) is not read as dates: '02/2019' (DATE) not found; '06/2019' (DATE) not found",
        ),
        "Cholecystectomy [[DATE|2008]], appendectomy [[DATE|1992]].",
        "ADT from [[DATE|March 2018]] through [[DATE|September 2019]].",
        (
            "Breast cancer dx [[DATE|4/2011]], lumpectomy [[DATE|5/2011]], XRT [[DATE|6/2011]]-[[DATE|8/2011]].",
            "a month/year or year range joined by a hyphen (or a season and year) is not read as dates: '6/2011' (DATE) not found; '8/2011' (DATE) not found",
        ),
        "Frau [[PATIENT|Krüger]] wurde am [[DATE|14.02.2022]] aufgenommen.",
        "Untersuchung vom [[DATE|03.04.2019]] bei Dr. [[HCW|Müller]]: kein Nachweis einer Fraktur.",
        (
            "Pt was in prison [[DATE|2015]] to [[DATE|2019]]; PPD negative on release.",
            "a month/year or year range joined by a hyphen (or a season and year) is not read as dates: '2015' (DATE) not found",
        ),
        "Warfarin [[DATE|Dec 2020]] - [[DATE|Mar 2021]] for provoked DVT.",
        "LAST MENSTRUAL PERIOD: [[DATE|08/2023]]",
        "Radiation [[DATE|07/2010]] - [[DATE|09/2010]], whole brain, 30 Gy.",
        "Dr. [[HCW|Weiß]] (Radiologie), [[DATE|22.06.2020]]: Verdacht auf Pneumonie.",
        "History: hysterectomy ([[DATE|2004]]), TKA right ([[DATE|2016]]), TKA left ([[DATE|2018]]).",
        (
            "Prior therapy: imatinib [[DATE|2009]]-[[DATE|2013]], dasatinib [[DATE|2013]]-present.",
            "a month/year or year range joined by a hyphen (or a season and year) is not read as dates: '2009' (DATE) not found; '2013' (DATE) not found",
        ),
        (
            "Last colonoscopy [[DATE|Fall 2019]]: 2 tubular adenomas.",
            "a month/year or year range joined by a hyphen (or a season and year) is not read as dates: 'Fall 2019' (DATE) not found",
        ),
        "Pregnancy loss [[DATE|11/2021]]; G2P1.",
        "Nivolumab started [[DATE|05/2022]], held [[DATE|09/2022]] for colitis.",
        "ESRD on HD since [[DATE|2/2017]] via left AVF.",
        "Dr. [[HCW|Jürgens]] sah die Patientin zuletzt am [[DATE|7.8.2018]].",
        (
            "Deployed to [[LOCATION|Iraq]] [[DATE|2004]]-[[DATE|2005]]; burn pit exposure.",
            "a month/year or year range joined by a hyphen (or a season and year) is not read as dates: '2004' (DATE) not found; '2005' (DATE) not found",
        ),
        (
            "Chemo [[DATE|4/20]]-[[DATE|8/20]], then maintenance rituximab.",
            "a month/year or year range joined by a hyphen (or a season and year) is not read as dates: '4/20' (DATE) not found; '8/20' (DATE) not found",
        ),
        "XRT [[DATE|Jan-Mar 2016]] to the prostate bed.",
        "Received BCG x6 ([[DATE|10/2019]] - [[DATE|11/2019]]).",
        (
            "Bisphosphonate [[DATE|2012]]-[[DATE|2017]], drug holiday since.",
            "a month/year or year range joined by a hyphen (or a season and year) is not read as dates: '2012' (DATE) not found; '2017' (DATE) not found",
        ),
        "Aufnahme [[DATE|01.03.2023]], Entlassung [[DATE|09.03.2023]].",
        "Smoking: quit [[DATE|5/2015]]; 40 pack-years.",
        "IVF cycles [[DATE|2018]] and [[DATE|2019]], both unsuccessful.",
        (
            "Tx: ABVD [[DATE|8/2006]]-[[DATE|1/2007]] with mantle field XRT [[DATE|2/2007]].",
            "a month/year or year range joined by a hyphen (or a season and year) is not read as dates: '8/2006' (DATE) not found; '1/2007' (DATE) not found",
        ),
    ],
    "short_dates": [
        "Comparison: [[DATE|4-25-10]].",
        (
            "Compared to chest [[DATE|3/2]], the left effusion is smaller.",
            "a short date with no year or a two-digit year is not read as a date here: '3/2' (DATE) not found",
        ),
        "Seen in clinic on [[DATE|5/26]]; BP 138/82.",
        "Last colonoscopy [[DATE|Aug 10, '23]], 2 polyps removed.",
        "Prior exams: [[DATE|12-11-09]]. [[DATE|9-16-07]].",
        (
            "CT abdomen [[DATE|9-9-14]] negative for appendicitis.",
            "a short date with no year or a two-digit year is not read as a date here: '9-9-14' (DATE) not found",
        ),
        "Return visit [[DATE|11/22]] with repeat labs.",
        "seen [[DATE|2/14/21]] for the same complaint",
        "COMPARISON: [[DATE|1/3/19]], [[DATE|6/30/18]].",
        "Drain removed [[DATE|7/4]], afebrile since.",
        "s/p lap chole [[DATE|3/17]], doing well",
        "Hgb 8.2 on [[DATE|10/2]], 9.1 on [[DATE|10/4]] after 1 unit PRBC.",
        "Next dose of zoledronic acid due [[DATE|6/8]].",
        (
            "MRI [[DATE|4.5.22]] showed progression in the left temporal lobe.",
            "a short date with no year or a two-digit year is not read as a date here: '4.5.22' (DATE) not found",
        ),
        "Admitted [[DATE|01/09]] with sepsis, lactate 4.2.",
        "Prior: [[DATE|3-1-21]] CT A/P, no acute findings.",
        "Last seen [[DATE|Jan 5]] in the pulmonary clinic.",
        "Plan: repeat CT chest on [[DATE|12/1]].",
        "INR 2.3 ([[DATE|5/3]]), 3.1 ([[DATE|5/6]]); hold warfarin tonight.",
        (
            "Pap smear '[[DATE|19]] normal, HPV negative.",
            "a short date with no year or a two-digit year is not read as a date here: '19' (DATE) not found",
        ),
        "Started apixaban [[DATE|6/21]] for new AF.",
        (
            "Compared with the [[DATE|8-2-16]] exam, the nodule is stable at 6 mm.",
            "a short date with no year or a two-digit year is not read as a date here: '8-2-16' (DATE) not found",
        ),
        "Echo [[DATE|2/15]]: EF 35-40%, moderate MR.",
        "cxr [[DATE|4/9]] clear",
        "DOB [[DATE|3-4-51]]",
        "Seen by PCP [[DATE|10/31]], started amoxicillin 875 mg BID.",
        "STUDY DATE: [[DATE|6-7-22]]",
        "Colonoscopy [[DATE|Sept '21]] with 3 mm hyperplastic polyp.",
        "K 3.1 on [[DATE|11/3]], repleted with 40 mEq KCl.",
        "Bx [[DATE|2/28]]: Gleason 3+4=7 in 2 of 12 cores.",
        "Prior studies dated [[DATE|5/5/05]] and [[DATE|6/6/06]].",
        "Surgery [[DATE|12/12]], POD 3 today, tolerating diet.",
        "Last dose of chemo [[DATE|9/19]], ANC 800 today.",
        "Discharged [[DATE|3/30]] to home with VNA.",
        "labs [[DATE|1/7]]: Na 131, K 5.2, Cr 1.9",
        "Mammogram [[DATE|10-15-20]] BI-RADS 2.",
        "Q: When did the pain start? A: Around [[DATE|Feb 14]], after I shoveled snow.",
        "EKG [[DATE|4/1]]: NSR 72, no ST changes.",
        "COMPARISON: [[DATE|7/13/99]].",
        "Fall on [[DATE|3/8]] at home, no LOC, on aspirin 81 mg.",
        "Immunizations: flu [[DATE|10/21]], COVID booster [[DATE|11/21]].",
        "Follow-up CT [[DATE|Dec 3]] showed resolution of the abscess.",
        "Holter [[DATE|2-3-17]]: rare PVCs, no pauses.",
        "ADMIT [[DATE|8/22]]  DC [[DATE|8/25]]",
        (
            "Troponin peaked [[DATE|6/4]] at 2.1, now 0.4.",
            "a short date with no year or a two-digit year is not read as a date here: '6/4' (DATE) not found",
        ),
        "Repeat US [[DATE|11-3-19]] unchanged, 1.2 cm cyst.",
    ],
    "prefixed_ids": [
        "Insurance: [[ID|HMO-234567]]",
        "Ref no. [[ID|EM-2554]] for the ambulance transfer.",
        "Work order #[[ID|SF-998877]] for the lift chair.",
        "acct [[ID|AB-123456]]",
        (
            "specimen [[ID|S21-4455]] received in formalin",
            "an ID with a letter prefix and a hyphen is not found in full: 'S21-4455' (ID) not found",
        ),
        "Accession [[ID|CT-22-0045871]]",
        (
            "Path: [[ID|SP-19-01234]]",
            "an ID with a letter prefix and a hyphen is not found in full: 'SP-19-01234' (ID) found only as '01234' ID",
        ),
        "Order [[ID|ORD-7781230]] placed for CT A/P with contrast.",
        "Encounter [[ID|ENC-00982211]]",
        "MRN: [[ID|MR-0042219]]",
        (
            "Neuropath case [[ID|NP-2020-118]] pending.",
            "an ID with a letter prefix and a hyphen is not found in full: 'NP-2020-118' (ID) not found",
        ),
        (
            "Surgical pathology [[ID|SP22-8891]]: benign.",
            "an ID with a letter prefix and a hyphen is not found in full: 'SP22-8891' (ID) found only as '8891' ID",
        ),
        (
            "Flow cytometry [[ID|FC-21-4410]]: no monoclonal B cells.",
            "an ID with a letter prefix and a hyphen is not found in full: 'FC-21-4410' (ID) not found",
        ),
        "FIN [[ID|FN-55102934]]",
        "Requisition #[[ID|RQ-338120]]",
        (
            "Cytology [[ID|C-20-1109]]: atypical cells present.",
            "an ID with a letter prefix and a hyphen is not found in full: 'C-20-1109' (ID) not found",
        ),
        (
            "hmo # [[ID|hmo-556120]]",
            "an ID with a letter prefix and a hyphen is not found in full: 'hmo-556120' (ID) found only as '556120' ID",
        ),
        "Claim [[ID|CLM-2019-44812]] denied; appeal filed.",
        (
            "Prior study [[ID|MRI-88413]] not available in PACS.",
            "an ID with a letter prefix and a hyphen is not found in full: 'MRI-88413' (ID) not found",
        ),
        "Billing acct [[ID|BA-7740-221]]",
        (
            "Referral [[ID|RF-20334]] approved for 6 PT visits.",
            "an ID with a letter prefix and a hyphen is not found in full: 'RF-20334' (ID) not found",
        ),
        "PACS ID [[ID|PX-00912388]]",
        "Lab ID: [[ID|LB-4409127]]",
        "Accession: [[ID|CT-2554]]",
        (
            "Pathology [[ID|S22-15670]]: adenocarcinoma, Gleason 3+4=7.",
            "an ID with a letter prefix and a hyphen is not found in full: 'S22-15670' (ID) found only as '15670' ID",
        ),
        (
            "Bone marrow [[ID|BM-19-0087]]: 5% blasts.",
            "an ID with a letter prefix and a hyphen is not found in full: 'BM-19-0087' (ID) not found",
        ),
        "Prior acc# [[ID|US-338812]], [[ID|US-338813]]",
        "Member [[ID|PPO-88231004]]",
        "Medicaid [[ID|MCD-4471290]]",
        (
            "Tumor board case [[ID|TB-23-019]]",
            "an ID with a letter prefix and a hyphen is not found in full: 'TB-23-019' (ID) not found",
        ),
        (
            "EMS run number [[ID|EMS-22-18830]]",
            "an ID with a letter prefix and a hyphen is not found in full: 'EMS-22-18830' (ID) found only as '22' ID",
        ),
        "Specimen ID: [[ID|SPC-20-99812]]",
        "ACC [[ID|XR-99120045]] CHEST 2 VIEWS",
        "Visit #[[ID|V-0928311]]",
        (
            "Frozen section [[ID|FS-21-221]]: positive margin.",
            "an ID with a letter prefix and a hyphen is not found in full: 'FS-21-221' (ID) not found",
        ),
        (
            "Autopsy [[ID|A-19-044]]",
            "an ID with a letter prefix and a hyphen is not found in full: 'A-19-044' (ID) not found",
        ),
        (
            "Genetic test kit [[ID|GT-771203]] mailed to patient.",
            "an ID with a letter prefix and a hyphen is not found in full: 'GT-771203' (ID) not found",
        ),
        "Chart [[ID|CH-551203]]",
        (
            "Auth # [[ID|PA-55812-B]] valid for 60 days.",
            "an ID with a letter prefix and a hyphen is not found in full: 'PA-55812-B' (ID) found only as '55812-B' ID",
        ),
        "MRN [[ID|E-1123456]]",
        "Acc: [[ID|MG-21-00451]] / [[ID|MG-21-00452]]",
        (
            "Consult [[ID|GI-4471]], EGD scheduled.",
            "an ID with a letter prefix and a hyphen is not found in full: 'GI-4471' (ID) not found",
        ),
        (
            "Sendout [[ID|SO-883201]] to the reference lab.",
            "an ID with a letter prefix and a hyphen is not found in full: 'SO-883201' (ID) found only as 'SO' VENDOR",
        ),
        "pt acct # [[ID|pa-229104]], self pay",
        (
            "ECG [[ID|EKG-2201934]]: sinus bradycardia 52.",
            "an ID with a letter prefix and a hyphen is not found in full: 'EKG-2201934' (ID) found only as '2201934' PHONE",
        ),
    ],
    "names_lower_dialogue": [
        "dr. [[HCW|o'brien]] signed the consent.",
        (
            "Patient: [[PATIENT|jane doe]]",
            "a lower-case name, or a name given as a bare answer, has no cue the rules read and the model misses it: 'jane doe' (PATIENT) not found",
        ),
        "[[PATIENT|jane smith]] called back re: results.",
        (
            "What is your last name? [[PATIENT|Magnusson]]",
            "a lower-case name, or a name given as a bare answer, has no cue the rules read and the model misses it: 'Magnusson' (PATIENT) not found",
        ),
        (
            "Q: And your first name? A: [[PATIENT|Tove]].",
            "a lower-case name, or a name given as a bare answer, has no cue the rules read and the model misses it: 'Tove' (PATIENT) not found",
        ),
        "[[PATIENT|John Carver]] is a 64 yo man with COPD. [[PATIENT|Carver]] reports worse dyspnea. Plan discussed with [[PATIENT|CARVER]] and with [[PATIENT|Carver]]'s wife.",
        (
            "Q: Who is your primary doctor? A: dr [[HCW|patel]]",
            "a lower-case name, or a name given as a bare answer, has no cue the rules read and the model misses it: 'patel' (HCW) not found",
        ),
        "spoke w/ [[PATIENT|maria]] (pt's daughter) by phone",
        "name: [[PATIENT|lopez, ana]]",
        "Q: Can you state your name? A: [[PATIENT|Edwin Harlow]]. Q: Date of birth? A: [[DATE|June 3, 1948]].",
        (
            "Handoff: mr [[PATIENT|kowalski]] in bed [[LOCATION|5]], npo after midnight.",
            "a lower-case name, or a name given as a bare answer, has no cue the rules read and the model misses it: 'kowalski' (PATIENT) not found",
        ),
        (
            "Discussed with [[HCW|greg]] from IR, will place drain in the am.",
            "a lower-case name, or a name given as a bare answer, has no cue the rules read and the model misses it: 'greg' (HCW) not found",
        ),
        (
            "pt [[PATIENT|ruth]] states pain 6/10",
            "a lower-case name, or a name given as a bare answer, has no cue the rules read and the model misses it: 'ruth' (PATIENT) not found",
        ),
        (
            "Called Mrs. [[PATIENT|abernathy]], no answer, left vm.",
            "a lower-case name, or a name given as a bare answer, has no cue the rules read and the model misses it: 'abernathy' (PATIENT) not found",
        ),
        "Nurse: [[HCW|Kelly]]",
        "[[PATIENT|Oskar Lindqvist]] presented with cough. On exam [[PATIENT|Lindqvist]] was afebrile. [[PATIENT|LINDQVIST]]'s CXR is clear.",
        (
            "Caller: [[PATIENT|tom]], son",
            "a lower-case name, or a name given as a bare answer, has no cue the rules read and the model misses it: 'tom' (PATIENT) not found",
        ),
        "Q: Is anyone with you today? A: My husband, [[PATIENT|Walt]].",
        (
            "Patient name: [[PATIENT|dunmore, gerald]]",
            "a lower-case name, or a name given as a bare answer, has no cue the rules read and the model misses it: 'dunmore, gerald' (PATIENT) not found",
        ),
        "seen w/ dr. [[HCW|nguyen]] and dr. [[HCW|fitzgerald]]",
        "[[PATIENT|Bettina]] is doing better today, ate 50% of breakfast.",
        "Hi [[PATIENT|Frank]], your CT looked good. No need to come in.",
        "Ms [[PATIENT|Aucoin]] prefers her first name, [[PATIENT|Delphine]].",
        "What's your name? [[PATIENT|Ravi]]. And your last name? [[PATIENT|Subramaniam]].",
        (
            "per [[HCW|sarah]] (charge rn) pt to go to CT at 1400",
            "a lower-case name, or a name given as a bare answer, has no cue the rules read and the model misses it: 'sarah' (HCW) not found",
        ),
        "[[PATIENT|vance]] c/o nausea overnight, zofran x1",
        "Family meeting with [[PATIENT|Ines Carvalho]] and her brother [[PATIENT|Tiago]].",
        (
            "Attending: [[HCW|hollis, ray]]",
            "a lower-case name, or a name given as a bare answer, has no cue the rules read and the model misses it: 'hollis, ray' (HCW) not found",
        ),
        "cc: dr [[HCW|whitcombe]]",
        "Mr. [[PATIENT|de Vries]] was updated on the plan.",
        "Q: Any family nearby? A: My niece [[PATIENT|Courtney]], she lives close.",
        (
            "Spoke with [[PATIENT|gus mahoney]]'s wife [[PATIENT|deb]] at bedside.",
            "a lower-case name, or a name given as a bare answer, has no cue the rules read and the model misses it: 'gus mahoney' (PATIENT) not found; 'deb' (PATIENT) not found",
        ),
        "PT: [[PATIENT|MCALLISTER, BRIDGET]]",
        "hello this is [[HCW|dana]] from the cath lab calling about mr. [[PATIENT|ferris]]",
        "[[PATIENT|Henrietta Boggs]] prefers to be called [[PATIENT|Hetty]].",
        (
            "Q: Last name? A: [[PATIENT|Oyelaran]]. Q: Can you spell it? A: [[PATIENT|O-Y-E-L-A-R-A-N]].",
            "a lower-case name, or a name given as a bare answer, has no cue the rules read and the model misses it: 'Oyelaran' (PATIENT) not found; 'O-Y-E-L-A-R-A-N' (PATIENT) not found",
        ),
        "pt's wife [[PATIENT|gloria]] at bedside, updated on plan",
        (
            "[[PATIENT|Sorensen]] again refused the 0600 labs; [[PATIENT|sorensen]] agreeable to 0800.",
            "a lower-case name, or a name given as a bare answer, has no cue the rules read and the model misses it: 'sorensen' (PATIENT) not found",
        ),
        "Dr [[HCW|Okafor]] to see. [[HCW|Okafor]] aware of K 5.9.",
        (
            "-- [[HCW|lisa]], RN",
            "a lower-case name, or a name given as a bare answer, has no cue the rules read and the model misses it: 'lisa' (HCW) not found",
        ),
        "Name: [[PATIENT|Wren Halloway]]   Sex: F",
        "Q: What should we call you? A: [[PATIENT|Bud]].",
        "Q: Who brought you in? A: [[PATIENT|Marisol]], my neighbor.",
        "[[PATIENT|Ambrose Quill]] seen today. Mr. [[PATIENT|Quill]] denies chest pain. [[PATIENT|QUILL]]'s daughter asks about discharge.",
        "talked to [[PATIENT|kenji]] and his mom about the cast care",
        "Q: Your name? A: [[PATIENT|Lucia Ferrante]]. Q: Who is [[PATIENT|Paolo]]? A: My son.",
    ],
    "ages_in_words": [
        "She is [[AGE|ninety-one]] years old and lives alone.",
        "aged [[AGE|ninety-four]], independent in ADLs",
        "a [[AGE|102]]-year-old woman with a hip fracture",
        "Age: [[AGE|93]]",
        "[[AGE|ninety two]] yo female with dyspnea",
        "[[AGE|NINETY-SIX]] YEAR OLD MALE WITH FALL.",
        (
            "He turned [[AGE|one hundred]] last month.",
            "an age over 89 without a year-old unit after it is not found: 'one hundred' (AGE) not found",
        ),
        "Pt is a [[AGE|ninety]]-year-old man with urinary retention.",
        "[[AGE|91]] y.o. F w/ CHF, EF 25%",
        "A [[AGE|ninety-eight]] year old man, Cr 1.4.",
        "Age [[AGE|95]] yrs, BMI 19.",
        "[[AGE|100]]-yo woman s/p fall",
        "Centenarian, [[AGE|101]], lives with her granddaughter.",
        "AGE/SEX: [[AGE|92]]/F",
        (
            "[[AGE|93]] F with AMS, Na 124",
            "an age over 89 without a year-old unit after it is not found: '93' (AGE) not found",
        ),
        (
            "[[AGE|94]] M, HR 48, on metoprolol",
            "an age over 89 without a year-old unit after it is not found: '94' (AGE) not found",
        ),
        (
            "The patient is [[AGE|ninety-nine]].",
            "an age over 89 without a year-old unit after it is not found: 'ninety-nine' (AGE) not found",
        ),
        (
            "Q: How old are you? A: [[AGE|Ninety-one]].",
            "an age over 89 without a year-old unit after it is not found: 'Ninety-one' (AGE) not found",
        ),
        "[[AGE|ninety-seven]]-year-old woman with a UTI",
        "Age in years: [[AGE|90]]",
        "a [[AGE|one hundred and two]] year old man",
        "[[AGE|106]] yr old female, DNR",
        "She is a very pleasant [[AGE|ninety five]] year-old lady.",
        "Elderly man ([[AGE|92]] y/o) with confusion.",
        "CLINICAL INDICATION: [[AGE|91]] years old, cough.",
        "[[AGE|NINETY]] Y/O F",
        "[[AGE|96]]-year-old, DNR/DNI, comfort measures",
        (
            "pt is [[AGE|ninety-two]] and still drives",
            "an age over 89 without a year-old unit after it is not found: 'ninety-two' (AGE) not found",
        ),
        "He is [[AGE|90]] years of age.",
        "Age: [[AGE|103]] years",
        (
            "At [[AGE|ninety-four]] she remains sharp and does her own finances.",
            "an age over 89 without a year-old unit after it is not found: 'ninety-four' (AGE) not found",
        ),
        "A [[AGE|ninety-three]]-year-old with a 3.2 cm AAA.",
        "[[AGE|97]] yo M, Cr 1.8, K 5.1",
        "[[AGE|99]] years, female, lives in a nursing home",
        "age [[AGE|91]], BP 150/90, HR 88",
        "[[AGE|ninety-one]] y/o with pneumonia",
        "[[AGE|104]]-year-old with hip fracture, Hgb 9.1",
        "Handoff: bed [[LOCATION|3]] is a [[AGE|ninety-six]] yo with sepsis, lactate 2.1.",
        (
            "Pt ([[AGE|92]]) fell at home.",
            "an age over 89 without a year-old unit after it is not found: '92' (AGE) not found",
        ),
        "Mrs. [[PATIENT|Tolliver]], aged [[AGE|ninety-eight]], is here with her grandson.",
        (
            "She celebrated her [[AGE|100th]] birthday last week.",
            "an age over 89 without a year-old unit after it is not found: '100th' (AGE) not found",
        ),
        "INDICATION: [[AGE|Ninety-two]]-year-old woman, shortness of breath.",
        (
            "he's [[AGE|ninety]] now, used to be a welder",
            "an age over 89 without a year-old unit after it is not found: 'ninety' (AGE) not found",
        ),
        "Age [[AGE|ninety-one]], weight 48 kg, creatinine clearance 22 mL/min.",
    ],
    "rooms_beds": [
        "Patient in room [[LOCATION|16]].",
        "Moved to bay [[LOCATION|10]].",
        "Infant in isolette [[LOCATION|3-22]].",
        "bed [[LOCATION|4B]]",
        "Rm [[LOCATION|402]]",
        "Moved to room [[LOCATION|12]] on 4 West.",
        "ED room [[LOCATION|7]], then hall bed [[LOCATION|H3]].",
        "Portable CXR performed in room [[LOCATION|5112]].",
        "Transfer to MICU bed [[LOCATION|8]].",
        (
            "ROOM: [[LOCATION|622-A]]",
            "the room/bed/bay number after its cue word is not found: '622-A' (LOCATION) not found",
        ),
        "pt in rm [[LOCATION|23]], call light in reach",
        (
            "Room/Bed: [[LOCATION|318-2]]",
            "the room/bed/bay number after its cue word is not found: '318-2' (LOCATION) not found",
        ),
        (
            "Crib [[LOCATION|14]] in the NICU.",
            "the room/bed/bay number after its cue word is not found: '14' (LOCATION) not found",
        ),
        "Bay [[LOCATION|C4]]",
        "Handoff: bed [[LOCATION|12]] - CHF, diuresing, net -1.2 L.",
        "Rm. [[LOCATION|1047]]",
        (
            "Stretcher [[LOCATION|21]], waiting for CT.",
            "the room/bed/bay number after its cue word is not found: '21' (LOCATION) not found",
        ),
        "PACU bay [[LOCATION|3]], Aldrete 9.",
        "Room [[LOCATION|4]]: 72 yo M, BP 150/90.",
        (
            "Infusion chair [[LOCATION|11]]",
            "the room/bed/bay number after its cue word is not found: '11' (LOCATION) not found",
        ),
        "Seen in exam room [[LOCATION|3]].",
        (
            "Bed: [[LOCATION|22B]]",
            "the room/bed/bay number after its cue word is not found: '22B' (LOCATION) not found",
        ),
        "RM [[LOCATION|714]] BED [[LOCATION|1]]",
        "Room number [[LOCATION|205]]",
        "Pt moved from room [[LOCATION|8]] to room [[LOCATION|15]] for contact isolation.",
        "Isolette [[LOCATION|5]], 1.2 kg, on CPAP +5.",
        "in room [[LOCATION|6]] since 0300, pain 4/10",
        "Trauma bay [[LOCATION|2]]",
        "resus bay [[LOCATION|1]]: intubated, GCS 3T",
        "BED #[[LOCATION|19]]",
        (
            "Room [[LOCATION|B-210]]",
            "the room/bed/bay number after its cue word is not found: 'B-210' (LOCATION) not found",
        ),
        "moved to rm [[LOCATION|3]] at 1415",
        "Q: What room is she in? A: Room [[LOCATION|14]].",
        "Bed [[LOCATION|7]] (window side) desats to 88% when supine.",
        "NICU pod 2, isolette [[LOCATION|9]]",
        "Roommate in bed [[LOCATION|2]] is on droplet precautions.",
        "CT performed portably in room [[LOCATION|3318]].",
        "Room [[LOCATION|11]], Bed [[LOCATION|A]]",
        "L&D room [[LOCATION|4]], 6 cm dilated.",
        "Transferred to CCU room [[LOCATION|3]].",
        (
            "Hallway bed [[LOCATION|H12]] in the ED.",
            "the room/bed/bay number after its cue word is not found: 'H12' (LOCATION) not found",
        ),
        "room [[LOCATION|9]] pt pulled his IV again",
        "ROOM [[LOCATION|17]] - SBP 88, paged MD",
        (
            "Cot [[LOCATION|6]] in the observation unit",
            "the room/bed/bay number after its cue word is not found: '6' (LOCATION) not found",
        ),
        "Pt in 5 West, room [[LOCATION|522]], bed [[LOCATION|2]].",
    ],
    "initial_period": [
        "Patient: [[PATIENT|Mary A. Smith]], seen for cough.",
        "seen by [[HCW|J. R. Ortiz]]",
        "signed: [[HCW|Ortiz, Mary A.]]",
        "Dr. [[HCW|K. L. Brandt]] reviewed the images.",
        "Electronically signed by [[HCW|Paul T. Greer]], MD",
        "Attending: [[HCW|Wu, H.]]",
        "[[PATIENT|Edna M.]] was seen in clinic today.",
        "Referring: [[HCW|R. Castillo]], NP",
        "Spoke with [[PATIENT|Thomas J. Keller]]'s daughter.",
        "Dictated by: [[HCW|S. Nakamura]], MD",
        "Pt: [[PATIENT|Doe, John Q.]]",
        (
            "cc: [[HCW|L. M. Fairbanks]], [[HCW|D. Oyelowo]]",
            "a name with initials is not found in full: 'D. Oyelowo' (HCW) found only as 'Oyelowo' PATIENT",
        ),
        (
            "Radiologist: [[HCW|Chen, W. T.]]",
            "a name with initials is not found in full: 'Chen, W. T.' (HCW) found only as 'Chen' HCW",
        ),
        "Reviewed with Dr. [[HCW|E. Vasquez]] at 1530.",
        "Consent witnessed by [[HCW|M. O'Hara]], RN.",
        "NAME: [[PATIENT|GARCIA, LUIS E.]]",
        "Pt [[PATIENT|Anne-Marie C. Dubois]] seen for follow-up.",
        "Transcribed by [[HCW|J. Park]]/[[HCW|K. Lee]]",
        "Read by: [[HCW|F. X. Moreau]], MD; [[DATE|03/15/2019]]",
        "Patient name: [[PATIENT|Sarah B. Whitlock]]",
        "[[PATIENT|Whitlock, Sarah B.]] DOB [[DATE|02/11/1950]]",
        "Interpreted by [[HCW|T. Adeyemi]].",
        (
            "Resident: [[HCW|Rao, P.]]; Fellow: [[HCW|Kim, S. J.]]",
            "a name with initials is not found in full: 'Rao, P.' (HCW) found only as 'Rao' PATIENT",
        ),
        "Signed: [[HCW|Ortiz, Mary A.]] [[DATE|04/02/2021]] 08:15",
        "[[PATIENT|Charles W. Dunmore]] is a 67 yo man with CKD 3.",
        "Mother: [[PATIENT|Lydia R. Okafor]]",
        "Ordering provider: [[HCW|N. Shah]], PA-C",
        "Authenticated by [[HCW|Grace E. Lindholm]], MD",
        "Sonographer: [[HCW|B. Tran]], RDMS",
        (
            "per dr. [[HCW|j. ramos]], ok to advance diet",
            "a name with initials is not found in full: 'j. ramos' (HCW) not found",
        ),
        "Wife, [[PATIENT|Helen T.]], at bedside.",
        "FROM: [[HCW|K. A. Moreno]], MD",
        "Critical result reported to [[HCW|P. Delacroix]], RN at 14:05.",
        (
            "[[HCW|Singh, A.]] (attending) at bedside.",
            "a name with initials is not found in full: 'Singh, A.' (HCW) not found",
        ),
        "Patient [[PATIENT|Joan E. Wexley]] arrived by EMS.",
        "Performed by [[HCW|R. J. Albrecht]] and [[HCW|M. Sato]].",
        "Signed,\n[[HCW|Amelia K. Brandt]], DO",
        "Verified: [[HCW|D. Kowalczyk]] [[DATE|10/10/2022]]",
        "Admitting MD: [[HCW|Hollis, Ray T.]]",
        "Next of kin: [[PATIENT|Marcus L. Reid]] (son)",
        "Ref. phys.: [[HCW|G. Ivanova]]",
        (
            "ATTENDING: [[HCW|O'CONNELL, B.]]",
            'a name with initials is not found in full: "O\'CONNELL, B." (HCW) found only as "O\'CONNELL" HCW',
        ),
        "Case discussed with [[HCW|Mary A.]] from IR.",
        "Pt identified as [[PATIENT|Walter H. Briggs]] by name and DOB.",
        "Findings discussed with Dr. [[HCW|A. Kessler]] by phone.",
    ],
    "categories": [
        "Office [[PHONE|555-123-0199 ext. 4471]] for questions.",
        "Pager: [[PHONE|555-880-2231 x219]]",
        "Email results to [[EMAIL|m.okonkwo@lakesideimaging.org]].",
        "Portal: [[URL|https://mychart.pinecresthealth.org/login]]",
        "Images at [[URL|www.cedarhollowpacs.net/view/55120]]",
        "Modality at [[IP|10.112.4.87]] port 104.",
        "Acquired on a [[VENDOR|GE HealthCare]] scanner.",
        "Scanner: [[VENDOR|Siemens Healthineers]] photon-counting CT, 120 kVp.",
        "Ultrasound: [[VENDOR|Philips EPIQ 7]], linear 12-5 MHz probe.",
        "MRN: [[ID|4471902]]   Acc: [[ID|MR24-0019331]]",
        "SSN: [[ID|431-77-2210]]",
        "Address: [[LOCATION|77 Birchwood Court]], [[LOCATION|Fairhaven, MA 02719]]",
        "ZIP code [[LOCATION|94110]]",
        "DOB: [[DATE|1944-02-29]]",
        "Admitted [[DATE|March 3rd, 2022]] with DKA.",
        "Exam date [[DATE|3 Mar 2022]]",
        "Scan date: [[DATE|2022.03.03]]",
        "DOS [[DATE|03MAR22]]",
        "Procedure on [[DATE|Tuesday, March 8, 2022]].",
        "Study date [[DATE|20220308]]",
        "Fax: [[PHONE|1-555-448-2091]]",
        "Dictated with [[VENDOR|Nuance PowerScribe One]].",
        "Mammography on a [[VENDOR|Hologic 3Dimensions]] unit.",
        "CT: [[VENDOR|Canon Aquilion ONE]], 320-row.",
        "Contrast injector: [[VENDOR|Bayer MEDRAD Stellant]]",
        "[[HOSPITAL|Northfield Regional Medical Center]], [[LOCATION|Northfield, MN 55057]]",
        "Referring: Dr. [[HCW|Imani Brooks]] ([[EMAIL|ibrooks@harborpeds.com]])",
        "Patient [[PATIENT|Teodoro Ruiz]] DOB [[DATE|07/19/1958]] MRN [[ID|6620931]]",
        "IPv6 [[IP|2001:db8:4:1::17]]",
        "Lives at [[LOCATION|12 Rue des Lilas]], [[LOCATION|Lyon]].",
        "Country of birth: [[LOCATION|Guatemala]]",
        "Health plan beneficiary # [[ID|HPB-77120934]]",
        "Nursing license no. [[ID|RN448201]]",
        "Vehicle VIN [[ID|2FMDK3GC4BBA55129]]",
        (
            "Has a [[VENDOR|Medtronic]] pacemaker, MRI conditional.",
            "a span of this category is not found: 'Medtronic' (VENDOR) not found",
        ),
        (
            "[[VENDOR|Boston Scientific]] ICD interrogated: no events.",
            "a span of this category is not found: 'Boston Scientific' (VENDOR) found only as 'Boston' HOSPITAL",
        ),
        "Findings called to Dr. [[HCW|Lang]] at [[PHONE|555-210-3377]] on [[DATE|05/06/2023]] at 10:42.",
        "Results faxed to [[HOSPITAL|Brightwater Pediatrics]] at [[PHONE|(555) 601-9920]].",
        "ACCESSION: [[ID|RAD2023000418]]",
        "Seen [[DATE|Jan. 4, 2021]] in the ED.",
        "Seen [[DATE|4 January 2021]] in the ED.",
        "Seen [[DATE|2021/01/04]] in the ED.",
        "Email: [[EMAIL|PATRICK.HUANG77@MAILBOX.COM]]",
        "Contact [[EMAIL|nurse-line@stbrigidhealth.org]] with questions.",
        "See [[URL|http://10.4.2.19/pacs/viewer]] for the key images.",
        "Server [[IP|192.168.201.14]] timed out during the upload.",
        "Archive: [[VENDOR|Fujifilm Synapse]] PACS",
        "Viewer: [[VENDOR|Agfa Enterprise Imaging]]",
        "MBI [[ID|1EG4TE5MK73]]",
        "Address: [[LOCATION|301 Willow Creek Rd, Apt 5C]], [[LOCATION|Marlow, NH 03456]]",
        "Mail to [[LOCATION|PO Box 4410]], [[LOCATION|Greenvale, NY 11548]].",
        "Telephone encounter with [[PATIENT|Lorraine Petit]] at [[PHONE|555-310-8890]] re: potassium 5.8.",
        "Web: [[URL|www.riverbendortho.com]]",
        "Admission: [[DATE|11/02/2022]]   Discharge: [[DATE|11/09/2022]]",
        "Home phone [[PHONE|555 744 1029]], cell [[PHONE|555-744-3381]]",
        "[[HOSPITAL|Brookside Radiology Associates]] | [[LOCATION|900 Commerce Pkwy]] | [[LOCATION|Dayton, OH 45402]]",
        "Lives in [[LOCATION|Cuyahoga County]].",
        "Signed [[DATE|2023-10-14]]T16:20:00Z",
        "IP address of the uploading device: [[IP|172.20.9.141]]",
        "Contrast media by [[VENDOR|Bracco]], 100 mL Isovue-370.",
        "Portal ID [[ID|pcx-5581-2201]]",
        "Birth date [[DATE|12.08.1939]]",
        "Email [[EMAIL|j_alvarez@westside-peds.net]] or call [[PHONE|555-622-0184]].",
        (
            "Pt [[PATIENT|Nadia Rahimi]] ([[AGE|91]]) at [[LOCATION|43 Lantern Way]].",
            "a span of this category is not found: '91' (AGE) not found",
        ),
        "Scanned on a [[VENDOR|Siemens MAGNETOM Vida]] 3T.",
        "Employer: [[HOSPITAL|Tri-County Feed & Seed]]",
        "Email sent to [[EMAIL|dr.hollis@lakeviewcardio.org]] on [[DATE|9/12/2022]].",
        "Results: [[URL|https://portal.harborhealth.org/results/77120]]",
        "CLINIC PHONE [[PHONE|(555) 482-1100]], OPTION 3",
        "Portable DR by [[VENDOR|Carestream]] sends to [[IP|10.0.44.3]].",
    ],
    "hard_negatives": [
        "Buffalo hump noted on exam.",
        "Meets Rome IV criteria for irritable bowel syndrome.",
        "Images reviewed in Reading room 3.",
        "Mobile x-ray unit used for the portable film.",
        "Normal sinus rhythm at 72 bpm.",
        "Mild orange discoloration of the urine on rifampin.",
        (
            "Bath chair and raised toilet seat recommended by OT.",
            "the model tags ordinary words as PHI: 'Bath' HOSPITAL [0:4] from transformer",
        ),
        "General appearance: well-nourished, in no acute distress.",
        "He went to the county fair and ate two corn dogs.",
        "SpO2 94% on room air.",
        "Bed rest for 24 hours after the procedure.",
        "Temp 98.6 F, HR 80.",
        "TE 90 ms, TR 4000 ms.",
        "DWI with a b-value of 800 s/mm2.",
        "Disc protrusion at L4-5.",
        "Grade 3/6 systolic murmur at the left sternal border.",
        "Medication given at 1450 hours.",
        "Baker cyst measuring 3.1 x 1.2 cm in the popliteal fossa.",
        "Aged seventy-two, she still gardens daily.",
        "Denver shunt placed for refractory ascites.",
        "Boston criteria: probable cerebral amyloid angiopathy.",
        "Jackson-Pratt drain with 30 mL serosanguinous output.",
        "Austin Flint murmur heard at the apex.",
        "Independence in ADLs restored after two weeks of PT.",
        "Columbia Suicide Severity Rating Scale screen negative.",
        (
            "Concord grape juice 8 oz daily, held while on warfarin.",
            "the model tags ordinary words as PHI: 'Concord' HOSPITAL [0:7] from transformer",
        ),
        "Chicago Classification v4.0: type II achalasia.",
        "Miami J collar in place.",
        "Orange juice given for glucose 58.",
        "Seattle Heart Failure Model estimate reviewed with the team.",
        "Reading glasses needed to fill out the form.",
        "Mobile phone left in the locker before the MRI.",
        "Salem sump tube to low intermittent suction.",
        (
            "Short arm cast, plaster of Paris, applied in the ED.",
            "the model tags ordinary words as PHI: 'Paris' HOSPITAL [27:32] from transformer",
        ),
        "Curved Mayo scissors used to open the fascia.",
        (
            "Takes St. John's wort 300 mg daily.",
            "the model tags ordinary words as PHI: 'St. John' HOSPITAL [6:14] from transformer",
        ),
        "Community-acquired pneumonia, CURB-65 score 2.",
        "The general surgery team was consulted.",
        (
            "Hospital day 3, afebrile, tolerating diet.",
            "the model tags ordinary words as PHI: 'Hospital day 3' HOSPITAL [0:14] from transformer",
        ),
        "Room temperature saline flush.",
        "Bed bath given; skin intact.",
        "She is eighty-nine years old.",
        "A 45-year-old man with chest pain.",
        "Eighty-year-old woman with hip pain.",
        "Gravida 3 para 2, G3P2.",
        "Follow-up in 3-6 months.",
        "Take 1-2 tablets every 4-6 hours as needed.",
        "Pain 7/10, improved to 3/10 after analgesia.",
        "Apgars 8 and 9.",
        "C3-4 and C4-5 disc bulges.",
        "Moved to the floor from the ICU.",
        "A Phoenix-like resurgence of symptoms after the steroid taper.",
        "Bethesda category II thyroid cytology.",
        "Meets Milan criteria for transplant.",
        "Revised Atlanta classification: interstitial edematous pancreatitis.",
        (
            "Berlin definition of ARDS: moderate.",
            "the model tags ordinary words as PHI: 'Berlin' HOSPITAL [0:6] from transformer",
        ),
        "Tokyo Guidelines grade II acute cholecystitis.",
        "Richmond Agitation-Sedation Scale -2.",
        "Glasgow Coma Scale 15.",
        "Lyme serology negative.",
        (
            "Rocky Mountain spotted fever considered, doxycycline started.",
            "the model tags ordinary words as PHI: 'Rocky Mountain' HOSPITAL [0:14] from transformer",
        ),
        (
            "West Nile virus IgM negative.",
            "the model tags ordinary words as PHI: 'West' HOSPITAL [0:4] from transformer",
        ),
        "Placed in Trendelenburg position for line placement.",
        "Peau d'orange appearance of the left breast skin.",
        "Normal saline 1 L bolus given.",
        "Hospital course was uncomplicated.",
        "ROOM AIR ABG: PH 7.41, PACO2 39, PAO2 82.",
        "Bedside commode at night.",
        "Follow-up with primary care in 2 weeks.",
        "Sent to the Emergency Department for evaluation.",
        "Ankle-brachial index 0.7 on the right.",
        "Stable 4 mm nodule, series 3 image 45.",
        "BI-RADS 2: benign. Return to annual screening.",
        "Aged 65 or older: pneumococcal vaccine indicated.",
        "Ejection fraction 55-60%, normal wall motion.",
        "Reading of the tuberculin skin test: 0 mm induration at 48 hours.",
        (
            "Jackson Heart Study cohort criteria do not apply.",
            "the model tags ordinary words as PHI: 'Jackson' HOSPITAL [0:7] from transformer",
        ),
        (
            "Aurora-like visual aura before each migraine.",
            "the model tags ordinary words as PHI: 'Aurora' VENDOR [0:6] from transformer",
        ),
    ],
}


def parse(markup: str) -> tuple[str, list[dict[str, object]]]:
    """Strip `[[CAT|text]]` markup: the plain text and gold spans with exact offsets."""
    pieces: list[str] = []
    spans: list[dict[str, object]] = []
    cursor = length = 0
    for match in MARK.finditer(markup):
        before = markup[cursor : match.start()]
        pieces.append(before)
        length += len(before)
        category, surface = match.group(1), match.group(2)
        spans.append({"start": length, "end": length + len(surface), "category": category, "text": surface})
        pieces.append(surface)
        length += len(surface)
        cursor = match.end()
    pieces.append(markup[cursor:])
    return "".join(pieces), spans


def records() -> list[dict[str, object]]:
    """Every line as a gold record, checked; raises `ValueError` on the first problem."""
    out: list[dict[str, object]] = []
    for cls, lines in LINES.items():
        for n, line in enumerate(lines, 1):
            markup, why = (line, "") if isinstance(line, str) else line
            text, spans = parse(markup)
            rid = f"{cls}/{n}"
            if "[[" in text or "]]" in text:
                raise ValueError(f"{rid}: unbalanced markup")
            if (cls == "hard_negatives") == bool(spans):
                raise ValueError(f"{rid}: hard_negatives lines have no spans, every other line has some")
            for span in spans:
                start, end = int(span["start"]), int(span["end"])  # type: ignore[call-overload]
                surface = text[start:end]
                if span["category"] not in CATEGORIES or surface != span["text"] or surface != surface.strip():
                    raise ValueError(f"{rid}: bad span {span}")
            record: dict[str, object] = {"id": rid, "class": cls, "text": text, "spans": spans}
            if why:
                record["known_failure"] = why
            out.append(record)
    return out


def render(items: list[dict[str, object]]) -> str:
    """The JSONL text: one record per line, in the order written above (deterministic)."""
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items)


if __name__ == "__main__":
    OUT.write_text(render(records()), encoding="utf-8")
    print(f"wrote {sum(len(v) for v in LINES.values())} lines to {OUT}")
