# ruff: noqa: E501  (the documents below are data: their lines are as long as real report lines)
"""Regenerate the synthetic examples: `<name>.txt` + `<name>.ann` (BRAT standoff) from inline markup.

Why markup instead of hand-typed offsets: every PHI mention is written in place as
`[[CATEGORY|text]]`, so repeated strings, Unicode and edits can never shift an offset. The
script strips the markup, writes the plain text and the T-lines, and refuses to write anything
when a check fails:

- every span satisfies `text[start:end] == annotated text`;
- every category is one of radeid's categories;
- a word of an annotated name, ID, phone, ... that appears again in the same document must be
  annotated there too (catches a forgotten second mention).

Everything here is invented: no real patient, clinician, identifier or contact detail.
Run: `python examples/make_annotations.py` (writes next to this file).
"""

from __future__ import annotations

import sys
from pathlib import Path

from radeid.synth.markup import markup_problems, parse_markup

HERE = Path(__file__).resolve().parent

# Words of annotated spans that may also occur unannotated (generic words inside names).
GENERIC = frozenset(
    """hospital medical center university clinic imaging health regional community institute
    radiology department the and of at for saint st heart cancer valley breast women's womens
    north south east west street avenue road suite drive lane box floor building pavilion one
    viewer family medicine associates neurology service https www example
    de del la las los y universitario clínica centro salud calle avenida servicio radiología
    klinikum universitätsklinikum am""".split()
)


def brat(spans: list[tuple[str, int, int, str]]) -> str:
    lines = [f"T{i}\t{cat} {start} {end}\t{surface}" for i, (cat, start, end, surface) in enumerate(spans, 1)]
    return "\n".join(lines) + "\n"


DOCS: dict[str, str] = {}

DOCS["ct_chest"] = """\
[[HOSPITAL|Riverbend University Hospital]] - Department of Radiology
[[LOCATION|1450 Larkspur Avenue]], [[LOCATION|Alder Falls, OR 97402]]   Tel [[PHONE|(541) 555-0142]]   Fax [[PHONE|(541) 555-0143]]

PATIENT: [[PATIENT|Kowalczyk, Marta]]          MRN: [[ID|RUH-00482913]]
DOB: [[DATE|07/14/1958]]                        SEX: F
ACCESSION: [[ID|CT24-0319-8841]]
EXAM: CT CHEST PULMONARY ANGIOGRAM WITH IV CONTRAST
EXAM DATE/TIME: [[DATE|03/19/2024]] 09:47
ORDERING PHYSICIAN: [[HCW|Naomi Ferreira-Lind]], MD (Emergency Medicine)
SCANNER: [[VENDOR|Siemens SOMATOM Force]]

CLINICAL HISTORY: 65-year-old woman with acute pleuritic chest pain, tachycardia and oxygen
saturation 89% on room air. History of Hodgkin lymphoma treated [[DATE|2009]] with mantle radiation.

TECHNIQUE: Helical CT of the chest after 80 mL iohexol 350 IV at 4.5 mL/s, bolus tracked in the
pulmonary trunk. Axial 1 mm and 3 mm reconstructions, coronal and sagittal MIP images.
CTDIvol 9.8 mGy, DLP 412 mGy-cm.

COMPARISON: CT chest [[DATE|08/22/2022]] and chest radiograph [[DATE|03/18/2024]] from [[HOSPITAL|St. Aldric Medical Center]].

FINDINGS:
Pulmonary arteries: Occlusive filling defects in the right lower lobe segmental and subsegmental
arteries (series 4, image 187) and a nonocclusive defect in the left upper lobe anterior segmental
artery (series 4, image 96). Main pulmonary artery 2.9 cm. RV/LV ratio 1.1 with straightening of
the interventricular septum.
Lungs: Peripheral wedge-shaped consolidation in the right lower lobe measuring 3.4 x 2.1 cm,
compatible with infarct. Paramediastinal fibrosis from prior radiation, unchanged. 4 mm solid
nodule in the left lower lobe (series 5, image 233), stable since [[DATE|2022]]; no follow-up needed
per Fleischner Society guidelines. Scattered Kerley B lines at the bases.
Pleura: Small right pleural effusion. No pneumothorax.
Mediastinum: No lymphadenopathy. Heart normal in size. No pericardial effusion.
Upper abdomen: Limited images unremarkable.
Bones: Mild degenerative change of the thoracic spine; old healed fracture of the left 6th rib.

IMPRESSION:
1. Acute bilateral pulmonary emboli with right lower lobe pulmonary infarct.
2. RV/LV ratio 1.1 with septal straightening, suggesting right heart strain.
3. Stable 4 mm left lower lobe nodule.

CRITICAL RESULT: Findings 1-2 were discussed with Dr. [[HCW|Ferreira-Lind]] by telephone at 10:32 on
[[DATE|03/19/2024]], read back confirmed.

Dictated with [[VENDOR|PowerScribe 360]]. Images available in [[VENDOR|Sectra PACS]].
Electronically signed by: [[HCW|Alan P. Whitcombe]], MD on [[DATE|03/19/2024]] at 10:41
"""

DOCS["ct_abdomen_pelvis"] = """\
[[HOSPITAL|LARKSPUR VALLEY HOSPITAL]]     DIAGNOSTIC IMAGING     PH [[PHONE|503-555-0177]]

NAME: [[PATIENT|ACHTERBERG, DESMOND J]]      MRN: [[ID|00739155]]      ACCT: [[ID|LV20230917-442]]
DOB: [[DATE|02/03/1961]]      EXAM DATE: [[DATE|09/17/2023]] 22:15      ACC#: [[ID|LVH88412077]]
REFERRING: [[HCW|OKONKWO-REYES, SAMUEL]] MD

EXAM: CT ABDOMEN AND PELVIS WITH IV CONTRAST
SCANNER: [[VENDOR|GE REVOLUTION CT]]

HISTORY: RIGHT LOWER QUADRANT PAIN, FEVER 38.6 C, WBC 15.2. BP 120/80.

TECHNIQUE: AXIAL IMAGES FROM THE DOME OF THE DIAPHRAGM TO THE PUBIC SYMPHYSIS AFTER 100 ML
OMNIPAQUE 300 IV. ORAL CONTRAST NOT GIVEN. DLP 688 MGY-CM.

COMPARISON: CT ABDOMEN [[DATE|11/02/2017]].

FINDINGS:
LOWER CHEST: BIBASILAR DEPENDENT ATELECTASIS.
LIVER: 1.2 CM HYPODENSITY IN SEGMENT 7, TOO SMALL TO CHARACTERIZE, UNCHANGED SINCE [[DATE|2017]].
GALLBLADDER AND BILIARY: NO STONES. NO BILIARY DILATATION.
PANCREAS, SPLEEN, ADRENALS: UNREMARKABLE.
KIDNEYS: 2.3 X 2.0 CM LEFT RENAL CYST WITH ONE THIN SEPTATION, BOSNIAK 2F. NO HYDRONEPHROSIS.
BOWEL: THE APPENDIX IS DILATED TO 13 MM WITH WALL HYPERENHANCEMENT, PERIAPPENDICEAL FAT
STRANDING AND A 7 MM APPENDICOLITH AT ITS BASE. NO EXTRALUMINAL GAS. NO DRAINABLE COLLECTION.
PERITONEUM: TRACE FREE FLUID IN MORISON POUCH AND THE PELVIS.
BLADDER: DECOMPRESSED AROUND A FOLEY CATHETER.
VESSELS: MILD AORTOILIAC ATHEROSCLEROSIS. AORTA 2.4 CM.
BONES: SCHMORL NODE AT THE SUPERIOR ENDPLATE OF T12. MILD DISC HEIGHT LOSS AT L4-L5 AND L5-S1.
GRADE 1 ANTEROLISTHESIS OF L4 ON L5.

IMPRESSION:
1. ACUTE NONPERFORATED APPENDICITIS WITH APPENDICOLITH.
2. BOSNIAK 2F LEFT RENAL CYST; FOLLOW-UP CT OR MRI IN 6 MONTHS IS RECOMMENDED.

FINDINGS CALLED TO DR. [[HCW|OKONKWO-REYES]] AT 22:58 ON [[DATE|09/17/2023]] BY DR. [[HCW|VINTERBO]],
WHO ACKNOWLEDGED RECEIPT.

READ BY: [[HCW|HAROLD T. VINTERBO]], MD
ELECTRONICALLY SIGNED [[DATE|09/17/2023]] 23:04 VIA [[VENDOR|NUANCE POWERSCRIBE ONE]]
"""

DOCS["mri_brain"] = """\
[[HOSPITAL|Northgate Imaging]] - a service of [[HOSPITAL|St. Aldric Medical Center]]

Patient: [[PATIENT|Eleanor M. Quist]]
MRN: [[ID|SAM-2209174]]        DOB: [[DATE|11/30/1931]]        Age: [[AGE|92]] y
Accession: [[ID|MR-5510932]]
Exam: MRI BRAIN WITHOUT AND WITH CONTRAST
Date of service: [[DATE|January 8, 2024]], 14:20
Referring: [[HCW|Priyanka Deshmukh]], DO, Neurology
Scanner: [[VENDOR|Siemens MAGNETOM Skyra]] 3T

INDICATION: [[AGE|92]]-year-old woman with Parkinson disease, new confusion and left-sided weakness
since [[DATE|1/6/2024]]. NIH stroke scale 6 in the ED. Glasgow Coma Scale 14.

TECHNIQUE: Sagittal T1, axial T2, FLAIR, DWI/ADC, SWI and T1 MPRAGE before and after
7 mL gadobutrol IV. Post-contrast axial and coronal T1.

COMPARISON: CT head [[DATE|01/06/2024]]. Outside MRI brain [[DATE|03/2019]] from [[HOSPITAL|Mayo Clinic]] (report only).

FINDINGS:
There is restricted diffusion in the right corona radiata and posterior limb of the internal
capsule measuring 1.8 x 0.9 cm, with corresponding FLAIR hyperintensity, consistent with an acute
lacunar infarct. No hemorrhage on SWI. No abnormal enhancement.
Moderate periventricular and subcortical white matter T2/FLAIR hyperintensities (Fazekas 2).
Prominent Virchow-Robin spaces in the basal ganglia. Generalized volume loss appropriate for age.
Mild midbrain atrophy; the substantia nigra is not well delineated.
Ventricles proportionate to sulci. No midline shift. No extra-axial collection.
Cerebellar tonsils lie 3 mm below the foramen magnum, within normal limits (not a Chiari I
malformation). Paranasal sinuses and mastoid air cells clear. Flow voids preserved.

IMPRESSION:
1. Acute right corona radiata / internal capsule lacunar infarct.
2. Moderate chronic small vessel ischemic disease.

The acute infarct was reported to Dr. [[HCW|Deshmukh]] (pager [[PHONE|4417]]) at 15:05 on [[DATE|01/08/2024]].

Electronically signed by [[HCW|Tobias Lindqvist-Mora]], MD, on [[DATE|01/08/2024]] 15:09.
Viewed in [[VENDOR|Visage 7]]. Report ID [[ID|RPT-7730021]].
"""

DOCS["mri_lumbar_spine"] = """\
PATIENT NAME: [[PATIENT|Raghunathan, Priya]]
MEDICAL RECORD #: [[ID|CH-114-09-7732]]    DATE OF BIRTH: [[DATE|1979-05-21]]
EXAM: MRI LUMBAR SPINE WITHOUT CONTRAST    ACCESSION: [[ID|A20240611-0457]]
EXAM DATE: [[DATE|2024-06-11]]
LOCATION: [[HOSPITAL|Cedar Hollow Community Hospital]] Outpatient Imaging, [[LOCATION|88 Wren Street]], [[LOCATION|Marlow, NH]]
REFERRING PROVIDER: [[HCW|Gideon Abernathy-Soto]], PA-C
MAGNET: [[VENDOR|Philips Ingenia]] 1.5T

CLINICAL INFORMATION: Low back pain radiating to the left leg for 8 weeks; left L5 numbness.

TECHNIQUE: Sagittal T1, T2 and STIR; axial T1 and T2 from L1-L2 through S1.

COMPARISON: Lumbar spine radiographs [[DATE|04/02/2024]].

FINDINGS:
Alignment: Normal lordosis. No spondylolisthesis.
Vertebral bodies: Normal marrow signal apart from Modic type 1 endplate change at L4-L5 and a
small Schmorl node at the inferior endplate of L2. Vertebral body heights are maintained.
Conus: Terminates at T12-L1 with normal signal.
T12-L1 through L2-L3: No disc herniation or stenosis.
L3-L4: Mild disc bulge and facet hypertrophy. No stenosis.
L4-L5: Left paracentral disc extrusion measuring 9 x 6 mm, extending 5 mm caudally, compressing
the traversing left L5 nerve root in the lateral recess. Moderate left subarticular stenosis.
Canal 8 mm AP. Mild bilateral foraminal narrowing.
L5-S1: Small central protrusion without nerve root contact.
Incidental 1.4 cm Tarlov cyst at S2. Paraspinal muscles normal.

IMPRESSION:
1. L4-L5 left paracentral extrusion compressing the left L5 nerve root, concordant with symptoms.
2. Modic type 1 change at L4-L5.

Result discussed with [[HCW|Gideon Abernathy-Soto]], PA-C, by phone on [[DATE|06/11/2024]] at 16:45.
Interpreting radiologist: [[HCW|Imogen Castellanos]], MD ([[EMAIL|icastellanos@cedarhollow-health.org]])
Signed [[DATE|06/11/2024]] 17:02
"""

DOCS["chest_xray"] = """\
EXAM: XR CHEST 1 VIEW PORTABLE
PATIENT: [[PATIENT|Vance Oyelaran]]   MRN [[ID|4471920]]   DOB [[DATE|9/9/1949]]
ACC [[ID|XR-24-118402]]   Performed [[DATE|04/27/2024]] 05:12   Location: [[HOSPITAL|Riverbend University Hospital]] MICU
ORDERED BY: [[HCW|Lucia Brandvold]], MD
Equipment: [[VENDOR|Carestream DRX-Revolution]] mobile unit

INDICATION: Intubated patient, line placement.

COMPARISON: [[DATE|04/26/2024]] at 04:50.

FINDINGS:
Endotracheal tube tip 4.5 cm above the carina. Enteric tube courses below the diaphragm, tip
out of the field of view. Right internal jugular Swan-Ganz catheter with tip in the right
interlobar pulmonary artery; recommend withdrawal by about 2 cm. Left subclavian central venous
catheter tip at the cavoatrial junction.
Increased bilateral perihilar airspace opacities and Kerley B lines, consistent with
worsening pulmonary edema. Small bilateral pleural effusions. No pneumothorax.
Heart size cannot be assessed on this AP projection.

IMPRESSION:
1. Swan-Ganz catheter tip in the right interlobar pulmonary artery; withdrawal advised.
2. Worsening pulmonary edema.

Catheter position communicated to Dr. [[HCW|Brandvold]] at 05:40, [[DATE|4/27/2024]], read back.
Reading radiologist: [[HCW|Wen-Li Haugland]], MD   pager [[PHONE|(541) 555-0160]]
Final report [[DATE|04/27/2024]] 05:44
"""

DOCS["ultrasound"] = """\
[[HOSPITAL|St. Aldric Medical Center]] | Vascular and General Ultrasound
[[LOCATION|2300 Quarry Road, Suite 110]], [[LOCATION|Brookhaven, VT 05401]] | phone [[PHONE|802-555-0114]] | results fax [[PHONE|802-555-0119]]

Patient: [[PATIENT|Halloran, Beatrix]]    DOB: [[DATE|03/12/1972]]    MRN: [[ID|SAM-3380415]]
Accession: [[ID|US2402150033]]    Exam date: [[DATE|February 15, 2024]]
Ordering: [[HCW|Matthias Greenhalgh]], NP
Sonographer: [[HCW|K. Ambrose-Tillery]], RDMS
System: [[VENDOR|GE LOGIQ E10]]

EXAM: US RIGHT UPPER QUADRANT; US LEFT LOWER EXTREMITY VENOUS DOPPLER

HISTORY: Epigastric and right upper quadrant pain after meals. Left calf swelling.

RIGHT UPPER QUADRANT:
Liver: 16.2 cm, normal echotexture. No focal lesion. Hepatopetal portal venous flow.
Gallbladder: Multiple mobile shadowing stones, the largest 1.6 cm. Wall 2 mm. No pericholecystic
fluid. Sonographic Murphy sign negative.
Common bile duct: 4 mm. Pancreas: Head and body unremarkable; tail obscured by bowel gas.
Right kidney: 10.8 cm, no hydronephrosis.

LEFT LOWER EXTREMITY VENOUS DOPPLER:
The common femoral, femoral, popliteal and calf veins are compressible with normal color flow and
phasic spectral Doppler waveforms. A 4.1 x 1.2 x 2.0 cm Baker cyst is present in the popliteal
fossa, without rupture.

IMPRESSION:
1. Cholelithiasis without sonographic evidence of acute cholecystitis.
2. No deep venous thrombosis in the left lower extremity.
3. Left Baker cyst.

Interpreted by: [[HCW|Rosalind Achebe-Marsh]], MD
Electronically signed [[DATE|02/15/2024]] 11:26
"""

DOCS["mammography"] = """\
[[HOSPITAL|Halvorsen Breast Center]] at [[HOSPITAL|Riverbend University Hospital]]
[[LOCATION|1450 Larkspur Avenue, 3rd floor]], [[LOCATION|Alder Falls, OR 97402]]
Scheduling [[PHONE|(541) 555-0188]]   [[URL|www.riverbend-health.example/breast]]

Name: [[PATIENT|Ingrid Solveig Marchetti]]      DOB: [[DATE|08/05/1966]]      MRN: [[ID|RUH-00917734]]
Exam: DIGITAL BREAST TOMOSYNTHESIS DIAGNOSTIC BILATERAL with left breast ultrasound
Exam date: [[DATE|10/02/2023]]      Accession: [[ID|MG23100201]], [[ID|US23100207]]
Referring physician: [[HCW|Clement Yamaguchi-Holt]], MD
Unit: [[VENDOR|Hologic Selenia Dimensions]]; CAD: [[VENDOR|iCAD ProFound AI]]

HISTORY: 57-year-old woman recalled from screening on [[DATE|09/18/2023]] for a left breast mass.
Mother with breast cancer at 48. No prior biopsy.

COMPARISON: Screening mammograms [[DATE|09/18/2023]], [[DATE|09/06/2022]] and [[DATE|08/30/2021]].

BREAST COMPOSITION: C. The breasts are heterogeneously dense, which may obscure small masses.

MAMMOGRAPHIC FINDINGS:
Left breast: An irregular 1.3 cm mass with spiculated margins at 2 o'clock, middle depth,
6 cm from the nipple persists on spot compression tomosynthesis views. No associated
calcifications. No architectural distortion elsewhere.
Right breast: No suspicious mass, calcification or distortion.

LEFT BREAST ULTRASOUND:
At 2:00, 6 cm from the nipple, there is an irregular hypoechoic mass measuring 1.2 x 1.0 x 0.9 cm
with angular margins and posterior shadowing, corresponding to the mammographic finding.
No suspicious left axillary lymph nodes.

IMPRESSION:
Suspicious left breast mass at 2:00.
BI-RADS 4C: High suspicion for malignancy. Ultrasound-guided core biopsy is recommended.
Right breast: BI-RADS 1, negative.

The results and recommendation were discussed with the patient in person by Dr. [[HCW|Yusupova]] on
[[DATE|10/02/2023]]; biopsy scheduled for [[DATE|10/05/2023]]. Report faxed to Dr. [[HCW|Yamaguchi-Holt]] at [[PHONE|(541) 555-0129]].

Electronically signed by: [[HCW|Dilnoza Yusupova]], MD on [[DATE|10/02/2023]] 13:12
"""

DOCS["nuclear_medicine"] = """\
DEPARTMENT OF NUCLEAR MEDICINE AND MOLECULAR IMAGING
[[HOSPITAL|Halvorsen Cancer Institute]] | [[HOSPITAL|Riverbend University Hospital]]

Patient: [[PATIENT|Tomás Ibáñez-Whitfield]]    MRN: [[ID|RUH-00660218]]    DOB: [[DATE|12/01/1990]]
Study: F-18 FDG PET/CT SKULL BASE TO MID-THIGH    Accession: [[ID|NM-24-20771]]
Date: [[DATE|05/03/2024]]    Referring: [[HCW|Ottilie Branscombe]], MD, Hematology/Oncology
Scanner: [[VENDOR|GE Discovery MI]]    Processing: [[VENDOR|Hermes Hybrid Viewer]]
Study Instance UID: [[ID|1.2.840.113619.2.55.3.604688119.971.1714723011.482]]

INDICATION: Classical Hodgkin lymphoma, nodular sclerosis, stage IIA. Interim restaging after
2 cycles of ABVD (last dose [[DATE|04/19/2024]]).

TECHNIQUE: 10.2 mCi (377 MBq) F-18 FDG IV in the left antecubital vein. Uptake time 62 minutes.
Fasting glucose 94 mg/dL. Low-dose CT for attenuation correction and localization
(120 kVp, CTDIvol 3.1 mGy). Weight 72.5 kg.

COMPARISON: Baseline PET/CT [[DATE|02/26/2024]].

FINDINGS:
Reference: Mediastinal blood pool SUVmax 1.9; liver SUVmax 2.8.
Neck: Left supraclavicular node now 1.1 x 0.8 cm (previously 2.6 x 2.1 cm), SUVmax 2.4
(previously 11.7).
Chest: Anterior mediastinal mass decreased from 7.4 x 4.9 cm to 3.1 x 1.8 cm, SUVmax 2.2
(previously 14.3), below liver uptake. No new nodes. Lungs clear.
Abdomen/pelvis: Physiologic activity. Spleen normal in size without focal uptake.
Musculoskeletal: Diffuse marrow uptake, likely reactive after chemotherapy and G-CSF.

IMPRESSION:
Marked interval response. Residual mediastinal and left supraclavicular uptake above mediastinal
blood pool but below liver: Deauville score 3, consistent with complete metabolic response.

Images sent to the tumor-board archive node at [[IP|10.41.7.23]]. Web viewer:
[[URL|https://pacs.riverbend-health.example/viewer?acc=NM-24-20771]]

Electronically signed by: [[HCW|Farouk Delacroix-Bennett]], MD, PhD on [[DATE|05/03/2024]] 16:37
"""

DOCS["ir_procedure_note"] = """\
INTERVENTIONAL RADIOLOGY PROCEDURE NOTE
[[HOSPITAL|Riverbend University Hospital]], IR Suite 2

Patient: [[PATIENT|Wojciechowski, Hannelore]]   MRN: [[ID|RUH-00301557]]   DOB: [[DATE|06/17/1955]]
Date of procedure: [[DATE|07/22/2024]]
Procedure: Ultrasound- and fluoroscopy-guided placement of a right internal jugular chest port
(single-lumen 8 Fr power-injectable Mediport)
Attending: [[HCW|Caspian Ruiz-Okafor]], MD   Fellow: [[HCW|Yael Bernstein-Kahale]], MD
Referring: [[HCW|Ottilie Branscombe]], MD (Oncology)
Equipment: [[VENDOR|Siemens Artis zee]] angiography system

Indication: Colon adenocarcinoma; port for FOLFOX chemotherapy.
Consent: Risks, benefits and alternatives discussed; written consent obtained from the patient.
Time-out performed at 09:12 with all team members.
Sedation: Moderate sedation with midazolam 2 mg and fentanyl 100 mcg IV in divided doses,
administered by the IR nurse under my supervision. Intraservice time 34 minutes.
Pre-procedure: INR 1.0, platelets 212. BP 132/78, HR 76, SpO2 98%.

Description: The right neck and chest were prepped and draped in sterile fashion. 1% lidocaine
local anesthesia. Under real-time ultrasound guidance the patent, compressible right internal
jugular vein was accessed with a 21-gauge micropuncture needle; a permanent image was stored.
A subcutaneous pocket was created 3 cm below the right clavicle. The catheter was tunneled,
cut to length and placed through a peel-away sheath with the tip at the cavoatrial junction on
fluoroscopy. The port flushed and aspirated easily and was accessed with a 20-gauge, 3/4 inch
Huber needle and locked with 5 mL heparinized saline (100 units/mL). Pocket closed in two layers.
Fluoroscopy time 0.6 minutes. Reference air kerma 4 mGy.

Complications: None immediate. Estimated blood loss: less than 5 mL.
Findings: Port catheter tip at the cavoatrial junction. Ready for use.
Plan: Port may be used today. Remove dressing in 48 hours. Call IR with questions:
[[PHONE|541-555-0151]] (weekdays) or page the on-call IR fellow via the operator at [[PHONE|541-555-0100]].

[[HCW|Caspian Ruiz-Okafor]], MD - [[DATE|07/22/2024]] 10:05
"""

DOCS["discharge_summary"] = """\
DISCHARGE SUMMARY

[[HOSPITAL|Larkspur Valley Hospital]] - Medicine Service, 5 West
Patient: [[PATIENT|Florian Oduya-Brecht]]     MRN: [[ID|00815302]]     FIN: [[ID|LV2024031104]]
DOB: [[DATE|October 3, 1944]]     Admission: [[DATE|03/11/2024]]     Discharge: [[DATE|03/16/2024]]
Attending: [[HCW|Margit Solheim-Carver]], MD     PCP: [[HCW|Reuben Castellanos]], MD

PRINCIPAL DIAGNOSIS: Acute on chronic heart failure with reduced ejection fraction.
SECONDARY: Parkinson disease; type 2 diabetes mellitus; chronic kidney disease stage 3a;
urinary retention.

HISTORY OF PRESENT ILLNESS: 79-year-old man with ischemic cardiomyopathy (EF 30% on echo
[[DATE|12/2023]]) and Parkinson disease presented with 5 days of dyspnea, orthopnea and 4 kg
weight gain after running out of furosemide. BP 148/92, HR 104, SpO2 90% on room air. BNP 1840.
Chest radiograph showed pulmonary edema with small bilateral effusions.

HOSPITAL COURSE:
1. Heart failure: Diuresed with IV furosemide 80 mg twice daily with net negative 6.1 L. Weight
82.4 kg to 77.9 kg. Restarted on home carvedilol 6.25 mg twice daily; sacubitril-valsartan 24/26 mg
started [[DATE|03/14/2024]]. Discharge weight 77.9 kg.
2. Urinary retention: Foley catheter placed on admission for retention (PVR 640 mL); voiding trial
passed on [[DATE|3/15/2024]] after tamsulosin started.
3. Parkinson disease: Continued carbidopa-levodopa 25/100, 1.5 tablets four times daily, given on
time. Physical therapy recommends a rolling walker.
4. Diabetes: Insulin glargine 14 units nightly; HbA1c 7.4%.

DISCHARGE MEDICATIONS: furosemide 40 mg daily; carvedilol 6.25 mg twice daily;
sacubitril-valsartan 24/26 mg twice daily; tamsulosin 0.4 mg nightly; carbidopa-levodopa 25/100
1.5 tablets four times daily; insulin glargine 14 units nightly.

FOLLOW-UP:
- Heart failure clinic with Dr. [[HCW|Solheim-Carver]] on [[DATE|03/22/2024]] at 09:30,
  [[HOSPITAL|Larkspur Heart Institute]], [[LOCATION|410 Orchard Lane]], [[LOCATION|Westbury, OR 97213]]. Tel [[PHONE|503-555-0190]].
- PCP Dr. [[HCW|Castellanos]] within 2 weeks.
- Daily weights; call if gain of more than 1 kg in a day or 2 kg in a week.
Questions for the heart failure nurse line: [[EMAIL|hf.nurses@larkspurvalley.example]]

Condition at discharge: Stable. Discharged home with his daughter, [[PATIENT|Annika Oduya]]
(phone [[PHONE|503-555-0136]]).

[[HCW|Margit Solheim-Carver]], MD
D: [[DATE|03/16/2024]] 14:02   T: [[DATE|03/16/2024]] 15:40   [[HCW|MSC]]/[[HCW|jrt]]   Job #[[ID|5573019]]
"""

DOCS["progress_note"] = """\
MICU PROGRESS NOTE - Hospital day 4
[[HOSPITAL|Riverbend University Hospital]], Medical ICU
Date: [[DATE|04/28/2024]] 07:30
Patient: [[PATIENT|Vance Oyelaran]], MRN [[ID|4471920]]
Author: [[HCW|Teodora Vlasic]], MD (resident); attending [[HCW|Lucia Brandvold]], MD

S: Intubated and sedated. Per nursing, no acute events overnight. Wife ([[PATIENT|Corinne Oyelaran]],
[[PHONE|541-555-0172]]) updated at bedside yesterday evening.

O:
Vitals: T 37.9 C, HR 96, BP 104/62 (MAP 76) on norepinephrine 0.04 mcg/kg/min, RR 18 (set),
SpO2 95% on FiO2 0.5, PEEP 10.
Swan-Ganz (withdrawn 2 cm yesterday): CVP 12, PA 38/20, PCWP 19, CI 2.1.
I/O: 2.4 L in / 3.1 L out. Foley in place, UOP 1.9 L.
Exam: RASS -2. Coarse breath sounds bilaterally. 1+ bilateral leg edema.
Labs: Na 134, K 3.6, Cr 1.8 (from 2.3), lactate 1.6, WBC 12.8, Hgb 9.1, plt 143.
Imaging: CXR [[DATE|4/27]] with worsening edema; Swan tip now in the right main pulmonary artery.
Micro: Sputum culture [[DATE|4/25]]: Klebsiella pneumoniae, pan-sensitive except ampicillin.

A/P: 74-year-old man with Klebsiella pneumonia, septic and cardiogenic shock.
1. Shock: Wean norepinephrine to MAP > 65. Continue dobutamine 2.5 mcg/kg/min; recheck CI.
2. Pneumonia: Ceftriaxone 2 g daily, day 4 of 7.
3. Hypoxemic respiratory failure: Diurese to net -1 L; SBT when FiO2 0.4, PEEP 5.
4. AKI: Improving; renally dose medications.
5. Prophylaxis: Heparin 5000 units SC q8h, pantoprazole 40 mg daily.
Code status: Full code (confirmed with wife [[DATE|4/27]]).

Orders entered in [[VENDOR|Epic]]. Discussed with Dr. [[HCW|Brandvold]] on rounds.
[[HCW|Teodora Vlasic]], MD, PGY-2, pager [[PHONE|4-2291]]
"""

DOCS["consult_letter"] = """\
[[HOSPITAL|Cedar Hollow Neurology Associates]]
[[LOCATION|17 Millbrook Terrace, Suite 4]]
[[LOCATION|Marlow, NH 03456]]
Telephone [[PHONE|(603) 555-0128]] · Fax [[PHONE|(603) 555-0129]]

[[DATE|June 24, 2024]]

[[HCW|Reuben Castellanos]], MD
[[HOSPITAL|Westbury Family Medicine]]
[[LOCATION|2201 Pike Road]]
[[LOCATION|Westbury, OR 97213]]

Re: [[PATIENT|Odalys Ferrante-Kuznetsov]], DOB [[DATE|02/29/1984]], our ref. [[ID|CHN-48815]]

Dear Dr. [[HCW|Castellanos]],

Thank you for referring Ms. [[PATIENT|Ferrante-Kuznetsov]], a 40-year-old right-handed woman whom I saw
in clinic on [[DATE|June 20, 2024]] for right facial weakness of sudden onset on [[DATE|June 14]].

She has a history of Graves disease treated with radioactive iodine in [[DATE|2015]] and is now on
levothyroxine 100 mcg daily. There is no history of Hodgkin lymphoma in the family, as was
queried in your letter; her late uncle had non-Hodgkin lymphoma. She had a similar episode of
Bell's palsy on the left side at age 22 that resolved fully.

On examination, blood pressure was 118/76. There was a complete lower motor neuron right facial
palsy (House-Brackmann grade IV of VI) with forehead involvement, reduced taste on the anterior
two-thirds of the tongue and hyperacusis. No vesicles in the ear canal. The remainder of the
neurological examination was normal, including cranial nerves V and VIII and limb strength 5/5.

MRI of the brain with contrast performed on [[DATE|June 21, 2024]] at [[HOSPITAL|Cedar Hollow Community Hospital]]
([[VENDOR|GE Signa Premier]], read by Dr. [[HCW|Imogen Castellanos]]) showed smooth enhancement of the
right facial nerve labyrinthine segment and geniculate ganglion and no mass, consistent with
Bell palsy.

Impression: Right idiopathic facial nerve palsy (Bell palsy), grade IV.

Plan: Prednisone 60 mg daily for 5 days with a 5-day taper, eye protection with lubricating drops
and nightly taping, and follow-up in 6 weeks. If recovery is incomplete at 3 months I will arrange
nerve conduction studies. Her questions can be sent through the portal at
[[URL|https://mychart.cedarhollow-health.example]] or to my assistant, [[HCW|Perpetua Lindgren]], at
[[EMAIL|plindgren@cedarhollow-health.example]].

Yours sincerely,

[[HCW|Anselm Thorvaldsen-Ikeda]], MD, PhD
Consultant Neurologist

cc: [[PATIENT|Odalys Ferrante-Kuznetsov]] (by mail)
"""


# Spanish examples (`radeid deid --lang es`), written to examples/es/. Invented like the ones above.
DOCS["es/rx_torax"] = """\
INFORME DE RADIOLOGÍA
Paciente: Dña. [[PATIENT|Remedios Villalobos Echeverría]]
NHC: [[ID|2048736]]   DNI: [[ID|48213765K]]
Fecha de nacimiento: [[DATE|14/02/1951]]
Domicilio: [[LOCATION|C/ Ribera del Duero 17, 2.º B]], [[LOCATION|47014]] [[LOCATION|Valladolid]]
Teléfono: [[PHONE|+34 983 41 27 65]]
Centro: [[HOSPITAL|Hospital Universitario Sierra de Candelario]], Servicio de Radiología
Fecha de la exploración: [[DATE|3 de marzo de 2024]]
Médico peticionario: Dr. [[HCW|Anselmo Quiroga Beltrán]]

RADIOGRAFÍA DE TÓRAX PA Y LATERAL

Comparación: estudio previo del [[DATE|12/09/2023]].

Hallazgos: Índice cardiotorácico dentro de la normalidad. No se observan consolidaciones ni
derrame pleural. Pequeño granuloma calcificado de 4 mm en el lóbulo superior derecho, sin
cambios respecto al estudio previo. Senos costofrénicos libres. Marcapasos bicameral con
electrodos en aurícula y ventrículo derechos. Temperatura 37,8 ºC y SatO2 94 % según la
hoja de enfermería.

Impresión: Sin hallazgos agudos. Se comunica el resultado a la Dra. [[HCW|Villalba]] por
teléfono el [[DATE|3 de marzo de 2024]].

Informe firmado por: Dra. [[HCW|Inmaculada Villalba Crespo]] (nº de colegiado [[ID|28 28 61947]])
Correo: [[EMAIL|ivillalba@hsc-candelario.example.es]]
"""

DOCS["es/tc_abdomen"] = """\
TC DE ABDOMEN Y PELVIS CON CONTRASTE
Nombre: [[PATIENT|Baltasar]]   Apellidos: [[PATIENT|de la Fuente Ordóñez]]
NHC: [[ID|551903]]   NASS: [[ID|28 40917736 52]]
Edad: 67 años   Sexo: H
Fecha de ingreso: [[DATE|21/11/2024]]
Hospital: [[HOSPITAL|Clínica San Rafael de Arganda]]

Antecedentes: Paciente de 67 años, hipertenso, intervenido de colecistectomía en [[DATE|2015]].
Remitido por el Dr. [[HCW|Eusebio Marín]] del [[HOSPITAL|Centro de Salud Las Matas]] por dolor en
fosa ilíaca derecha de 48 horas de evolución.

Técnica: Adquisición helicoidal tras la administración de 100 ml de contraste yodado
intravenoso, en fase portal (70 s). Cortes de 5 mm.

Hallazgos: Apéndice engrosado (11 mm) con trabeculación de la grasa periapendicular, sin
colecciones ni neumoperitoneo. Hígado de tamaño normal, sin lesiones focales. Riñones sin
alteraciones. Pequeña hernia de hiato. Cambios degenerativos en L4-L5.

Conclusión: Hallazgos compatibles con apendicitis aguda no complicada. Comentado con el
cirujano de guardia, Dr. [[HCW|Marín]], el [[DATE|22 de noviembre de 2024]] a las 14:30.

Dra. [[HCW|Covadonga Iturralde Sanz]]
Radióloga. [[HOSPITAL|Clínica San Rafael de Arganda]], [[LOCATION|Avda. de Valencia 212]], [[LOCATION|28500]] [[LOCATION|Arganda del Rey]]
Tel. [[PHONE|918 71 33 04]]
"""

# German examples (`radeid deid --lang de`), written to examples/de/. Invented like the ones above.
DOCS["de/roentgen_thorax"] = """\
RADIOLOGISCHER BEFUND
Patientin: Frau [[PATIENT|Annegret Böhmer-Lindström]], geb. [[DATE|14.02.1951]]
Pat.-Nr.: [[ID|4471902]]   KV-Nr.: [[ID|M283746150]]
Anschrift: [[LOCATION|Gartenstraße 17]], [[LOCATION|D-69117]] [[LOCATION|Heidelberg]]
Tel.: [[PHONE|06221 4837261]]
Einrichtung: [[HOSPITAL|Klinikum Neckarhalde]], Institut für Radiologie
Untersuchung am [[DATE|3. März 2024]]
Zuweiser: Dr. med. [[HCW|Joachim Trautwein]]

RÖNTGEN THORAX P.A. UND SEITLICH

Vergleich: Voraufnahme vom [[DATE|12.09.2023]].

Befund: Herz normal groß (CTR 0,47). Keine Infiltrate, kein Pleuraerguss. Verkalkter Granulom-
herd 4 mm im rechten Oberfeld, unverändert. Zweikammer-Schrittmacher mit Elektroden im rechten
Vorhof und Ventrikel. Temperatur laut Pflege 37,8 °C, SpO2 94 %.

Beurteilung: Kein akuter kardiopulmonaler Befund. Telefonische Mitteilung an Frau Dr. [[HCW|Weidner]]
am [[DATE|3. März 2024]].

Prof. Dr. med. [[HCW|Ursula Weidner]], Chefärztin
E-Mail: [[EMAIL|u.weidner@klinikum-neckarhalde.example.de]]
"""

DOCS["de/arztbrief_ct"] = """\
[[HOSPITAL|Universitätsklinikum Auenfeld]] · Klinik für Allgemein- und Viszeralchirurgie
[[LOCATION|Am Klinikpark 3]] · [[LOCATION|04103]] [[LOCATION|Leipzig]]

[[LOCATION|Leipzig]], den [[DATE|22.11.2024]]

Sehr geehrter Herr Kollege [[HCW|Fenske]],

wir berichten über Ihren Patienten Herrn [[PATIENT|Wilhelm von Stetten]], geb. [[DATE|08.05.1932]],
der [[AGE|92]]-jährige Patient wurde am [[DATE|21.11.2024]] mit Schmerzen im rechten Unterbauch
aufgenommen. Fall-Nr.: [[ID|2024-118470]]

CT Abdomen mit KM: Appendix auf 11 mm verdickt, entzündliche Imbibierung des periappendizitischen
Fettgewebes, kein Abszess, keine freie Luft. Leber, Milz und Nieren unauffällig. Degenerative
Veränderungen LWK 4/5.

Diagnose: Akute unkomplizierte Appendizitis.

Therapie: Laparoskopische Appendektomie am [[DATE|22. November 2024]]. Ceftriaxon 2 g i.v. 1-0-0.

Mit freundlichen kollegialen Grüßen
OA Dr. [[HCW|Katharina Meißner]]
Sekretariat: Tel. [[PHONE|0341 97-17200]]
"""


def main() -> int:
    problems: list[str] = []
    outputs: dict[str, tuple[str, str]] = {}
    for name, markup in DOCS.items():
        text, spans = parse_markup(markup)
        problems.extend(markup_problems(name, text, spans, GENERIC))
        outputs[name] = (text, brat(spans))
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    for name, (text, ann) in outputs.items():
        (HERE / name).parent.mkdir(exist_ok=True)
        (HERE / f"{name}.txt").write_text(text, encoding="utf-8", newline="\n")
        (HERE / f"{name}.ann").write_text(ann, encoding="utf-8", newline="\n")
    print(f"wrote {len(outputs)} documents, {sum(a.count(chr(10)) for _, a in outputs.values())} spans")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
