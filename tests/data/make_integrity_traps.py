# ruff: noqa: E501  (the lines below are data: report lines are as long as they are)
"""Regenerate `integrity_traps.jsonl` from the hand-written lines below.

Every line here was written by hand as realistic report text (nothing was produced by radeid).
Each class but `phi_adjacent` is PHI-free: clinical values, codes, eponyms, headings, departments
and words that a de-identifier must leave untouched. `phi_adjacent` lines put invented PHI right
next to such values; each PHI mention is written in place as `[[CATEGORY|text]]`, so no offset is
ever typed by hand. The script strips the markup, checks every span and writes one JSON object
per line in the shared gold format (`{"id", "class", "text", "spans": [{"start", "end",
"category", "text"}]}`), refusing to write when a check fails.

Gold span edges follow the edge rule of `radeid.evaluate.integrity.edge_violations`: no
surrounding punctuation or whitespace, titles (`Dr.`, `Ms`) outside the name, a possessive `'s`
outside, and for an ISO date-time (`2019-07-04T10:15:00`) only the date part `2019-07-04` is the
DATE span (a time of day is not PHI). Every name, number and contact detail is invented.

Run: `python tests/data/make_integrity_traps.py` (writes next to this file).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "integrity_traps.jsonl"
MARK = re.compile(r"\[\[([A-Z]+)\|(.+?)\]\]")
CATEGORIES = {"DATE", "PATIENT", "HCW", "HOSPITAL", "LOCATION", "VENDOR", "ID", "PHONE", "EMAIL", "URL", "IP", "AGE"}

TRAPS: dict[str, list[str]] = {
    "vitals": [
        "Vitals: BP 120/80, HR 72, RR 16, Temp 98.6 F, SpO2 97% on room air.",
        "VITAL SIGNS: T 37.2 C, P 88, R 18, BP 142/91, O2 sat 95% RA.",
        "Temp 98.6, pulse 64, BP 118/76.",
        "BP 165/102 on arrival, repeat 148/88 after labetalol.",
        "Heart rate 110 bpm, sinus tachycardia on telemetry.",
        "Weight 82.4 kg, height 175 cm, BMI 26.9.",
        "Wt 180 lb, Ht 5' 10\", BMI 25.8 kg/m2.",
        "SpO2 88% on 4 L nasal cannula, improved to 93% on 6 L.",
        "Tmax 101.3 F overnight; currently afebrile at 99.1 F.",
        "HR 54, BP 104/62, RR 14, SaO2 99% on 2L NC.",
        "Orthostatic vitals: supine 128/78 HR 70, standing 104/66 HR 96.",
        "MAP 65 on norepinephrine 0.08 mcg/kg/min.",
        "Pain score 7/10, improved to 3/10 after analgesia.",
        "T 36.8 HR 78 BP 132/84 RR 20 SpO2 96%",
        "Blood pressure was 150/95 in the left arm and 146/92 in the right arm.",
        "VS: afebrile, HR 92, BP 110/70, RR 22, sat 94% on\nroom air.",
        "Head circumference 35 cm, length 50 cm, weight 3.4 kg.",
        "CVP 12 mmHg, PCWP 18 mmHg, cardiac index 2.1 L/min/m2.",
    ],
    "doses": [
        "Started sacubitril-valsartan 24/26 mg twice daily.",
        "Increase Entresto to 49/51 mg BID as tolerated.",
        "Heparin drip at 18 units/kg/hr, titrate to anti-Xa 0.3-0.7.",
        "Metoprolol tartrate 25 mg PO BID; lisinopril 10 mg daily.",
        "Received 4 mg IV ondansetron and 1 g acetaminophen.",
        "Insulin glargine 22 units at bedtime, lispro 6 units with meals.",
        "Amoxicillin-clavulanate 875/125 mg every 12 hours for 7 days.",
        "Piperacillin-tazobactam 4.5 g IV q6h.",
        "Trimethoprim-sulfamethoxazole 800/160 mg one tablet twice daily.",
        "100 mL of Omnipaque 350 was administered intravenously at 3 mL/s.",
        "Gadobutrol 7.5 mL IV (0.1 mmol/kg) was given without incident.",
        "Norepinephrine infusion 0.12 mcg/kg/min, vasopressin 0.04 units/min.",
        "Oxycodone 5 mg q4h PRN, max 30 mg per 24 hours.",
        "Prednisone 40 mg daily x 5 days, then taper by 10 mg every 3 days.",
        "Fentanyl 50 mcg and midazolam 1 mg were given for moderate sedation.",
        "Tc-99m MDP 25.3 mCi was injected intravenously.",
        "F-18 FDG 10.2 mCi IV; uptake time 62 minutes; blood glucose 96 mg/dL.",
        "Lidocaine 1% 10 mL was used for local anesthesia;\nno complications.",
    ],
    "fractions_grades": [
        "Grade 3/6 holosystolic murmur at the apex.",
        "There is a II/VI systolic ejection murmur at the right upper sternal border.",
        "Visual acuity 20/20 OD, 20/40 OS.",
        "20/20 vision without correction.",
        "Strength 5/5 in all extremities except 4/5 left hip flexion.",
        "Reflexes 2+ and symmetric, toes downgoing bilaterally.",
        "Biceps 1+, patellar 3+ with 2 beats of clonus.",
        "Epinephrine 1:100,000 was mixed with the local anesthetic.",
        "ANA positive at 1:160, speckled pattern.",
        "Pedal edema 2+ bilaterally to the mid shin.",
        "Pulses 2+ radial, 1+ dorsalis pedis bilaterally.",
        "Cup-to-disc ratio 0.4 OU.",
        "Oriented x3, GCS 15/15.",
        "Fluid restriction 1.5 L/day; I/O 1200/850 over the last shift.",
        "Cardiothoracic ratio 0.55 on the PA view.",
        "Ejection fraction 35-40% with grade 2/4 diastolic dysfunction.",
        "Sensation intact to light touch, 2/2 throughout.",
        "Tanner stage 3/5, bone age consistent with\nchronological age.",
    ],
    "labs": [
        "Hemoglobin 12/14 on serial checks, stable.",
        "Hgb 12.1, Hct 36.4, WBC 8.2, Plt 214.",
        "INR 2.3 on warfarin 5 mg daily.",
        "Na 138, K 4.1, Cl 102, CO2 24, BUN 18, creatinine 1.2, glucose 104.",
        "Creatinine 1.2 mg/dL (baseline 0.9), eGFR 58.",
        "ABG: pH 7.38, PaCO2 42, PaO2 88 on FiO2 0.40.",
        "P/F ratio 220, PaO2/FiO2 consistent with moderate ARDS.",
        "Troponin I 0.04 ng/mL, then 0.38 ng/mL at 6 hours.",
        "BNP 1240 pg/mL, up from 430.",
        "Lactate 4.2 mmol/L, repeat 2.1 after fluids.",
        "HbA1c 8.4%, LDL 132 mg/dL, triglycerides 210.",
        "PSA 6.8 ng/mL, free PSA 12%.",
        "AST 88, ALT 102, alk phos 240, total bilirubin 2.4, albumin 3.1.",
        "TSH 0.02, free T4 2.9.",
        "CA 19-9 of 1450 U/mL; CEA 14.",
        "Ca 10.9, Mg 1.8, Phos 2.2.",
        "D-dimer 2.8 mcg/mL FEU, fibrinogen 410.",
        "CBC: WBC 14.6 with 88% neutrophils; Hgb 9.8;\nplatelets 96.",
    ],
    "measurements": [
        "31 MM OVAL CIRCUMSCRIBED MASS AT 2 O'CLOCK, 4 CM FROM THE NIPPLE.",
        "There is a 3.2 x 2.1 cm hypoechoic nodule in the right lobe.",
        "A 4 mm nodule in the right upper lobe (series 3, image 45).",
        "Axial images were obtained at 4 mm slice intervals.",
        "Spleen measures 14.2 cm in craniocaudal length.",
        "Right kidney 11.3 cm, left kidney 11.8 cm, no hydronephrosis.",
        "Prostate volume 48 cc (4.8 x 4.1 x 4.7 cm).",
        "Postvoid residual 210 mL.",
        "Simple cyst measuring 12 mm with attenuation of 8 HU.",
        "Adrenal nodule 1.8 cm, -12 HU on unenhanced images, consistent with adenoma.",
        "Common bile duct measures 9 mm.",
        "Abdominal aorta measures up to 5.6 cm in diameter.",
        "LV end-diastolic diameter 6.1 cm, LA volume index 48 mL/m2.",
        "Endometrial stripe 14 mm.",
        "Thyroid: right lobe 5.4 x 2.0 x 1.9 cm, left lobe 4.9 x 1.7 x 1.6 cm.",
        "Small effusion, 150 cc estimated.",
        "Subcentimeter lymph nodes, largest 8 mm short axis.",
        "The mass measures 2.4 x 1.9 x 2.2 cm (AP x TV x CC), previously\n1.8 x 1.5 x 1.6 cm.",
    ],
    "spinal_levels": [
        "At L4/5 there is a broad-based disc bulge with moderate canal stenosis.",
        "L4-L5: mild facet arthropathy, no neural foraminal narrowing.",
        "C5-C6 disc osteophyte complex indents the ventral cord.",
        "Compression fracture of T12 with 30% height loss.",
        "L5-S1: left paracentral protrusion contacting the descending S1 nerve root.",
        "C2-3 and C3-4 are unremarkable.",
        "Transitional anatomy: lumbarized S1 segment.",
        "Fusion hardware from L3 through L5 without loosening.",
        "Schmorl node at the superior endplate of L2.",
        "Vertebral body heights of T1 through T12 are maintained.",
        "Mild retrolisthesis of L2 on L3.",
        "C6/7: uncovertebral hypertrophy with moderate right foraminal stenosis.",
        "The conus terminates at L1-2.",
        "Anterolisthesis of L4 on L5, grade 1.",
        "T7-8 disc extrusion without cord compression.",
        "The T11 and T12 ribs are hypoplastic.",
        "L4 L5 S1 are normal in signal.",
        "Interval posterior fusion C4-C7, hardware\nintact.",
    ],
    "scores_scales": [
        "BI-RADS 4: Suspicious. Biopsy should be considered.",
        "ACR BI-RADS Category 2: Benign.",
        "TI-RADS 3, mildly suspicious; follow-up ultrasound advised.",
        "LI-RADS 5 observation in segment 7.",
        "PI-RADS 4 lesion in the left peripheral zone.",
        "Gleason 3+4=7 adenocarcinoma, Grade Group 2.",
        "NYHA III symptoms despite therapy.",
        "GCS 15 on arrival, E4V5M6.",
        "Glasgow Coma Scale 8 at the scene.",
        "CHA2DS2-VASc 3, HAS-BLED 2.",
        "Coronary artery calcium (Agatston) score 410.",
        "APGAR 8/9 at 1 and 5 minutes.",
        "Lung-RADS 3, probably benign.",
        "O-RADS US 4 adnexal lesion.",
        "Modified Rankin Scale 2; NIHSS 6.",
        "Bosniak IIF cystic lesion of the left kidney.",
        "ASA class III, Mallampati II.",
        "Wells score 4.5, PE likely; CT angiography\nrecommended.",
    ],
    "imaging_params": [
        "Technique: 120 kVp, 180 mAs, CTDIvol 12.4 mGy, DLP 486 mGy*cm.",
        "Dose: CTDIvol 8.1 mGy, DLP 312.5 mGy-cm.",
        "Slice thickness 1.25 mm reconstructed at 0.625 mm intervals.",
        "See series 3 image 45 for the dominant nodule.",
        "(series 601, image 112)",
        "Sagittal T2 FSE, TR 3000 TE 102, 4 mm thick, 0.4 mm gap.",
        "DWI b=0 and b=800 s/mm2 with ADC map.",
        "Fluoroscopy time 4.2 minutes; cumulative air kerma 86 mGy; DAP 1420 uGy*m2.",
        "Matrix 512 x 512, FOV 36 cm.",
        "Pitch 0.984, rotation time 0.5 s.",
        "Contrast injected at 4 mL/s with a 25 s scan delay.",
        "1.5 T magnet, 8-channel head coil.",
        "Effective dose approximately 7 mSv.",
        "IMAGE 24 OF SERIES 5 DEMONSTRATES THE LESION.",
        "Flip angle 90 degrees, NEX 2.",
        "Acquisition: 64 x 0.625 mm detector collimation.",
        "Mammographic views: CC and MLO, compression 12 daN.",
        "Total exposure 35 mAs at 28 kVp, AGD\n1.6 mGy.",
    ],
    "codes": [
        "ICD-9 786.2 Cough.",
        "Diagnosis: R91.1 Solitary pulmonary nodule.",
        "ICD-10 R91.1; CPT 71046.",
        "CPT 71260 CT chest with contrast.",
        "LOINC 24627-2 CT chest.",
        "Indication code: 786.50 chest pain, unspecified.",
        "Dx codes: J18.9, I50.9, N17.9.",
        "ICD-10-CM Z87.891 history of nicotine dependence.",
        "CPT 74177, 76700.",
        "Procedure code 36556 central venous catheter placement.",
        "ICD-9 V10.3 personal history of breast cancer.",
        "E11.9 type 2 diabetes without complications.",
        "HCPCS G0297 low dose CT for lung cancer screening.",
        "CPT 77067 screening mammography, bilateral.",
        "SNOMED 233604007 pneumonia.",
        "Modifier 26 professional component.",
        "DRG 291 heart failure and shock with MCC.",
        "Reason for exam: 780.6 fever; ICD-10\nR50.9.",
    ],
    "times": [
        "The examination was performed at 14:32.",
        "Patient arrived at 0830 hours.",
        "Findings were called to the ordering provider at 10:15 AM.",
        "Scan started at 2:05 PM and completed at 2:20 PM.",
        "Symptom onset approximately 0600; last known well 2300.",
        "Heparin held at 22:00 for the procedure.",
        "Medications given at 08:00, 12:00 and 18:00.",
        "Tube position confirmed at 0415.",
        "Contrast injection began at 09:41:12.",
        "Rapid response called at 03:10 for hypotension.",
        "Follow-up imaging at 6 weeks.",
        "Repeat troponin in 3 hours.",
        "CODE STROKE ACTIVATED AT 1147.",
        "Door-to-needle time 38 minutes.",
        "NPO after midnight.",
        "Procedure time 45 minutes; sedation time 52 minutes.",
        "Read at 7:45 pm.",
        "The study was reviewed at 1615 with\nthe team.",
    ],
    "ages_not_phi": [
        "Age 89.",
        "45-year-old man with cough.",
        "72 yo M with progressive dyspnea.",
        "INDICATION: 64 year old female with abnormal mammogram.",
        "A 3-year-old girl with fever.",
        "Age: 57 years",
        "68F with history of breast cancer.",
        "The patient is an 89-year-old woman with hip pain.",
        "Newborn, 2 days old, with bilious vomiting.",
        "81 y/o male, fall from standing.",
        "Patient is 34 weeks pregnant.",
        "Infant of 6 months with stridor.",
        "A 17 year-old presents after a motor vehicle collision.",
        "Age 88 at the time of surgery.",
        "Child, aged 9, with limp.",
        "50 yo F for screening colonoscopy.",
        "Seventy-two-year-old man with hematuria.",
        "CLINICAL HISTORY: 76 YEAR OLD MALE,\nSHORTNESS OF BREATH.",
    ],
    "eponyms": [
        "Follow-up per Fleischner Society guidelines.",
        "Jackson-Pratt drain in the right upper quadrant.",
        "Sister Mary Joseph nodule at the umbilicus.",
        "Small Baker cyst in the popliteal fossa.",
        "Swan-Ganz catheter tip in the right main pulmonary artery.",
        "Attenuation of 45 Hounsfield units.",
        "Positive Murphy sign during scanning.",
        "Kerley B lines at the lung bases.",
        "Foley catheter in place; Hickman line tip at the cavoatrial junction.",
        "Morison pouch contains a small amount of fluid.",
        "Appearance is compatible with Crohn disease of the terminal ileum.",
        "No evidence of Hill-Sachs deformity.",
        "Hartmann pouch is intact.",
        "Findings suggest Paget disease of the pelvis.",
        "Whipple procedure with expected postoperative changes.",
        "Status post Nissen fundoplication.",
        "Schatzki ring at the GE junction.",
        "Left Bankart lesion; Segond fracture\nof the lateral tibial plateau.",
    ],
    "headings": [
        "CHEST PA AND LATERAL",
        "CT ABDOMEN AND PELVIS WITH CONTRAST",
        "FINDINGS:",
        "IMPRESSION:",
        "AP projection of the chest.",
        "MRI BRAIN WITHOUT AND WITH CONTRAST",
        "COMPARISON: None.",
        "TECHNIQUE: Axial and coronal images.",
        "CLINICAL INDICATION: Cough.",
        "US RENAL COMPLETE",
        "XR KNEE 3 VIEWS LEFT",
        "CTA CHEST PE PROTOCOL",
        "NM BONE SCAN WHOLE BODY",
        "MAMMO SCREENING BILATERAL WITH TOMOSYNTHESIS",
        "PORTABLE CHEST, SINGLE VIEW",
        "ADDENDUM:",
        "FINAL REPORT",
        "EXAM: MRI LUMBAR SPINE\nWITHOUT CONTRAST",
    ],
    "departments_specialties": [
        "Patient presented to the Emergency Department with chest pain.",
        "Consult requested from Neurology.",
        "Referring service: (Emergency Medicine)",
        "Followed by Hematology/Oncology for lymphoma.",
        "Admitted to Vascular and General Surgery.",
        "Discussed with the team on rounds.",
        "Procedure performed by Interventional Radiology.",
        "Transferred to the Medical Intensive Care Unit.",
        "Cardiology recommends a stress test.",
        "Seen in the ED. Glasgow Coma Scale 15.",
        "Pulmonary and Critical Care following.",
        "REFERRING DEPARTMENT: ORTHOPEDIC SURGERY",
        "Physical Therapy and Occupational Therapy to evaluate.",
        "Nuclear Medicine was consulted for the ventilation-perfusion scan.",
        "Infectious Disease recommends continuing vancomycin.",
        "Consulting service: Nephrology.",
        "Obstetrics and Gynecology aware of the findings.",
        "Per Pediatric Surgery, NPO and serial\nexams.",
    ],
    "holidays": [
        "Symptoms began around Christmas.",
        "Patient was traveling over Thanksgiving.",
        "Fell on ice on New Year's.",
        "Reports poor intake since the Christmas holidays.",
        "Clinic closed for Thanksgiving; follow-up the week after.",
        "Injury from fireworks over the Fourth of July weekend.",
        "Labor Day weekend cookout, ate undercooked chicken.",
        "Symptoms worse since Easter.",
        "Fasting during Ramadan; adjust insulin.",
        "Return after the New Year holiday.",
        "Diet liberalized for Christmas dinner.",
        "Family visiting for Hanukkah.",
        "Has not been seen since last Thanksgiving.",
        "Memorial Day fall from a ladder.",
        "Halloween costume contact dermatitis.",
        "Christmas Eve onset of chest pain.",
        "Over the Thanksgiving break he had increased dyspnea.",
        "Since New Year's Eve, intermittent fevers\nand chills.",
    ],
    "misc_words": [
        "Images reviewed on the PACS Workstation.",
        "Workstation: reading room 3.",
        "Reconstructions performed on a 3D workstation.",
        "Report dictated with voice recognition; errors may occur.",
        "Prior studies are not available in PACS.",
        "Preliminary report issued by the resident.",
        "Attending radiologist agrees with the findings.",
        "Verified by the attending.",
        "Electronically signed.",
        "Comparison is made to the outside CD.",
        "Patient consented; timeout performed.",
        "Lines and tubes as above.",
        "No acute cardiopulmonary process.",
        "Bilateral lower extremity venous duplex.",
        "Ordering provider notified.",
        "Sterile prep and drape; Chlorhexidine.",
        "Clips, staples, wires and sutures as before.",
        "The study was protocoled by the fellow and\nreviewed by the attending.",
    ],
    "phi_adjacent": [
        "Seen by Dr. [[HCW|Ahmed]] on [[DATE|03/14/2019]]: BP 132/84, HR 76.",
        "[[PATIENT|LEE, SOO-JIN]] (Ms) MRN [[ID|4455667]] Temp 98.6",
        "For questions call the reading room (tel. [[PHONE|217.555.0147]]).",
        "Per Dr [[HCW|Ahmed]]'s note, L4/5 stenosis is unchanged.",
        "Exam [[DATE|2019-07-04]]T10:15:00 L4/5",
        "Prior exam [[DATE|05MAR2019]], 31 MM mass unchanged.",
        "Accession [[ID|77120931]], study date [[DATE|20190305]], 4 mm slices.",
        "INDICATION: a [[AGE|93]]-year-old woman, Age [[AGE|93]], BP 150/90.",
        "Patient [[PATIENT|John Miller]], 2 mm nodule at L4/5.",
        "Dr. [[HCW|Okafor]]   Performing sonographer: [[HCW|T. Brennan]]",
        "Discussed with Dr. [[HCW|Nakamura]] at 14:32 on [[DATE|06/02/2021]]; BI-RADS 4.",
        "MRN: [[ID|88213405]]  DOB: [[DATE|11/02/1957]]  Age: 66  Wt 82 kg",
        "Results called to [[HCW|Gabriela Ortiz]], RN, at 10:15 AM, INR 2.3.",
        "[[PATIENT|Harold Finch]], [[AGE|91]] yo M, Hgb 12/14, creatinine 1.2.",
        "Fax results to [[PHONE|(312) 555-0188]] attn Dr. [[HCW|Walsh]]; CPT 71046.",
        "Referring: Dr. [[HCW|Priya Raman]] (Neurology), GCS 15.",
        "At [[HOSPITAL|St. Brigid Medical Center]] on [[DATE|4/9/2020]], BP 120/80.",
        "Sacubitril-valsartan 24/26 mg started by Dr. [[HCW|Haddad]] on [[DATE|January 5, 2022]].",
        "Compared with CT from [[HOSPITAL|Cedar Hollow Hospital]] dated [[DATE|12/19/2018]]: 3.2 x 2.1 cm.",
        "[[PATIENT|MARTINEZ, ELENA R]]  ACC# [[ID|CT20-551872]]  CT ABDOMEN AND PELVIS WITH CONTRAST",
        "Email report to [[EMAIL|d.kowalski@northfieldrad.org]]; TI-RADS 3.",
        "Images uploaded to [[URL|https://pacs.lakeviewimaging.net/study/88213]] (series 3 image 45).",
        "Murmur 3/6 noted by Dr. [[HCW|Benedetti]] on [[DATE|2/27/2023]].",
        "Mr. [[PATIENT|Oduya]], 20/40 vision OS, Temp 37.2 C.",
        "Pager [[PHONE|4417]] for Dr. [[HCW|Sorensen]]; K 4.1, Na 138.",
        "CT [[DATE|08/16/2022]] 120 kVp, DLP 486 mGy*cm, read by Dr. [[HCW|Faulkner]].",
        "[[PATIENT|Amara Nwosu]] (MRN [[ID|5567123]]) L5-S1 protrusion.",
        "Follow-up with Dr. [[HCW|Castillo]] in Hematology/Oncology on [[DATE|10/03/2024]].",
        "Ms. [[PATIENT|Whitfield]]'s BP was 165/102 at 0830 hours.",
        "[[AGE|94]]-year-old man, Gleason 3+4=7, PSA 6.8.",
        "Age [[AGE|97]]; NYHA III; EF 35%.",
        "Seen [[DATE|3/14]] by Dr. [[HCW|Reyes]]: SpO2 97%, RR 16.",
        "Performed at [[HOSPITAL|Mercy Ridge Hospital]] Emergency Department at 14:32.",
        "Technologist: [[HCW|K. Abernathy]]   CTDIvol 12.4 mGy",
        "PATIENT: [[PATIENT|DOE, MARGARET A]]   DOB: [[DATE|01/22/1941]]   ICD-10 R91.1",
        "Ordering physician [[HCW|Samuel Greer]], MD; indication ICD-9 786.2 cough.",
        "SSN [[ID|123-45-6789]] on the requisition, Temp 98.6 F.",
        "Call [[PHONE|555-867-5309]] with results; troponin 0.04.",
        "Dr. [[HCW|Ahmed]], Dr. [[HCW|Levy]] and the Fleischner Society guideline: 6 mm nodule.",
        "Spoke with the patient's daughter, [[PATIENT|Rosa Delgado]], at 17:05; Hgb 9.8.",
        "Seen in the ED at [[HOSPITAL|Westbrook General Hospital]]. Glasgow Coma Scale 14.",
        "[[PATIENT|Keller, Thomas]] L4-L5 disc bulge; weight 91 kg.",
        "CLINICAL HISTORY: [[AGE|90]] YEAR OLD FEMALE, FALL. BP 110/70.",
        "Signed: [[HCW|Lena Fischer-Obi]], MD  [[DATE|07/30/2020]] 16:45",
        "Referral from [[HOSPITAL|Blue Lake Family Clinic]], [[LOCATION|Maple Falls, WI]]: BI-RADS 0.",
        "Address: [[LOCATION|418 Orchard Lane]], [[LOCATION|Brookfield, OH 44403]]; BMI 31.2.",
        "Prior [[DATE|2019-07-04]] CT showed a 4 mm nodule at series 3 image 45.",
        "[[PATIENT|Ngozi Eze]] received 49/51 mg sacubitril-valsartan on [[DATE|5/1/2021]].",
        "Mrs. [[PATIENT|Castellano]] (Emergency Medicine) 20/20 vision.",
        "Dictated by Dr. [[HCW|Yoon]] on rounds, [[DATE|Nov 3, 2019]], APGAR 8/9.",
        "Exam date: [[DATE|04-Mar-2021]]; LI-RADS 5; AFP 410.",
        "Device: [[VENDOR|Siemens]] SOMATOM, 120 kVp, 180 mAs.",
        "Account [[ID|A00992817]]; C5-C6 fusion.",
        "Case reviewed with Dr. [[HCW|Moreau]] (tel. [[PHONE|617.555.0199]]) at 10:15 AM.",
        "Jackson-Pratt drain placed by Dr. [[HCW|Ibrahim]] on [[DATE|09/09/2022]].",
        "Patient [[PATIENT|Beatrice Lund]], [[AGE|92]] years, Gleason 4+3=7.",
        "Prev. study [[DATE|2018-11-20]], Agatston 410 then.",
        "On [[DATE|12/25/2020]] (Christmas) she fell; Temp 98.6.",
        "Called Dr. [[HCW|O'Neill]] at 2:05 PM; PaO2/FiO2 220.",
        "IP [[IP|10.24.118.6]] workstation; CPT 74177.",
        "Transcribed by [[HCW|J. Park]] [[DATE|03/15/2019]] 08:12",
        "BP 132/84, Dr. [[HCW|Ahmed]]'s patient, HR 76.",
        "Patient ID [[ID|99017723]]  T12 compression fracture.",
        "[[PATIENT|Hiroshi Tanaka]], [[AGE|95]]-year-old, 3.2 x 2.1 cm mass.",
        "Compared to [[DATE|02/2018]]; stable 8 mm node.",
        "Dr. [[HCW|Chen]] / Dr. [[HCW|Patel]] reviewed the\nC2-3 findings on [[DATE|6/6/2023]].",
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
    """Every trap line as a gold record, checked; raises `ValueError` on the first problem."""
    out: list[dict[str, object]] = []
    for cls, lines in TRAPS.items():
        for n, markup in enumerate(lines, 1):
            text, spans = parse(markup)
            rid = f"trap/{cls}/{n}"
            if "[[" in text or "]]" in text:
                raise ValueError(f"{rid}: unbalanced markup")
            if (cls == "phi_adjacent") != bool(spans):
                raise ValueError(f"{rid}: only phi_adjacent lines have (and must have) spans")
            for span in spans:
                start, end = int(span["start"]), int(span["end"])  # type: ignore[call-overload]
                if span["category"] not in CATEGORIES or text[start:end] != span["text"]:
                    raise ValueError(f"{rid}: bad span {span}")
            out.append({"id": rid, "class": cls, "text": text, "spans": spans})
    return out


def render(items: list[dict[str, object]]) -> str:
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items)


if __name__ == "__main__":
    OUT.write_text(render(records()), encoding="utf-8")
    print(f"wrote {sum(len(v) for v in TRAPS.values())} lines to {OUT}")
