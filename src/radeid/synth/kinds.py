"""Report kinds: exam names, technique lines, findings and impressions per modality (plain text).

Only clinical content lives here; PHI is added by `generate.py`. `{size}`/`{dose}` are replaced by a
size/dose, `{lv}` by a vertebral level, `{si}` by a series/image reference (hard negatives).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KINDS", "NOTE_KINDS", "REPORT_KINDS", "KindSpec"]


@dataclass(frozen=True)
class KindSpec:
    exams: tuple[str, ...]
    techniques: tuple[str, ...]
    findings: tuple[str, ...]
    impressions: tuple[str, ...]
    indications: tuple[str, ...]


_CXR = KindSpec(
    exams=("XR CHEST PA AND LATERAL", "Chest radiograph, 2 views", "PORTABLE CHEST 1 VIEW", "CHEST X-RAY AP"),
    techniques=("PA and lateral views of the chest.", "Single portable AP view.", "Frontal and lateral radiographs."),
    findings=(
        "The cardiomediastinal silhouette is within normal limits.",
        "No focal consolidation, pleural effusion or pneumothorax.",
        "Endotracheal tube terminates {size} above the carina.",
        "Right IJ central line tip in the SVC.",
        "Mild bibasilar atelectasis.",
        "Degenerative changes of the thoracic spine.",
        "Lungs are hyperinflated.",
        "Small left pleural effusion, slightly increased.",
        "Nasogastric tube courses below the diaphragm.",
    ),
    impressions=("No acute cardiopulmonary process.", "Mild bibasilar atelectasis.", "Small left effusion."),
    indications=("shortness of breath", "cough and fever", "line placement", "chest pain", "pre-operative evaluation"),
)
_CT = KindSpec(
    exams=(
        "CT CHEST WITH CONTRAST",
        "CT ABDOMEN AND PELVIS WITH IV CONTRAST",
        "CT CHEST ABDOMEN PELVIS W CONTRAST",
        "CTA CHEST PE PROTOCOL",
        "CT HEAD WITHOUT CONTRAST",
    ),
    techniques=(
        "Axial images were obtained from the thoracic inlet through the adrenals after {dose}.",
        "Helical CT of the abdomen and pelvis with coronal and sagittal reformats. {dose}.",
        "Dose reduction technique was used. {dose}.",
    ),
    findings=(
        "There is a {size} nodule in the right upper lobe {si}.",
        "No pulmonary embolism to the segmental level.",
        "The liver is normal in size with a {size} hypodensity too small to characterize.",
        "Gallbladder is unremarkable.",
        "The kidneys enhance symmetrically. No hydronephrosis.",
        "Moderate colonic diverticulosis without diverticulitis.",
        "No free air or free fluid.",
        "Compression deformity of {lv} is unchanged.",
        "Aorta measures {size} at the hiatus.",
        "Mediastinal lymph node measures {size} in short axis {si}.",
        "Small hiatal hernia.",
    ),
    impressions=(
        "No acute intra-abdominal process.",
        "Stable pulmonary nodule; no follow-up needed.",
        "No pulmonary embolism.",
    ),
    indications=("abdominal pain", "weight loss", "staging of lung cancer", "trauma", "suspected pulmonary embolism"),
)
_MRI_BRAIN = KindSpec(
    exams=("MRI BRAIN WITH AND WITHOUT CONTRAST", "MR Brain wo contrast", "MRI BRAIN STROKE PROTOCOL"),
    techniques=(
        "Multiplanar multisequence MR imaging of the brain before and after gadolinium.",
        "Sagittal T1, axial FLAIR, DWI, SWI and post-contrast T1 images.",
    ),
    findings=(
        "No restricted diffusion to suggest acute infarct.",
        "Scattered T2/FLAIR white matter hyperintensities, nonspecific.",
        "Ventricles and sulci are age appropriate.",
        "No abnormal enhancement.",
        "Normal flow voids.",
        "There is a {size} extra-axial lesion along the left convexity {si}.",
        "Mild mucosal thickening of the maxillary sinuses.",
    ),
    impressions=("No acute intracranial abnormality.", "Chronic small vessel ischemic changes.", "Stable meningioma."),
    indications=("headache", "new onset seizure", "dizziness", "memory loss", "follow-up of meningioma"),
)
_MRI_SPINE = KindSpec(
    exams=("MRI LUMBAR SPINE WITHOUT CONTRAST", "MRI CERVICAL SPINE", "MR THORACIC SPINE W/WO"),
    techniques=("Sagittal T1, T2 and STIR and axial T2 images of the spine.",),
    findings=(
        "At {lv}, there is a broad-based disc bulge with mild facet arthropathy.",
        "At {lv}, moderate left foraminal stenosis.",
        "Conus terminates at {lv}.",
        "Vertebral body heights are maintained.",
        "Modic type 1 endplate changes at {lv}.",
        "No cord signal abnormality.",
        "Disc protrusion at {lv} measures {size}.",
    ),
    impressions=("Multilevel degenerative disc disease, worst at {lv}.", "No cord compression."),
    indications=("low back pain with radiculopathy", "neck pain", "numbness in the legs", "trauma"),
)
_US = KindSpec(
    exams=(
        "US ABDOMEN COMPLETE",
        "ULTRASOUND RENAL",
        "US PELVIS TRANSVAGINAL",
        "DUPLEX LOWER EXTREMITY VENOUS",
        "US THYROID",
    ),
    techniques=("Grayscale and color Doppler images were obtained.", "Real-time sonography with spectral Doppler."),
    findings=(
        "The liver is echogenic, consistent with steatosis.",
        "Common bile duct measures {size}.",
        "Right kidney measures {size}; left kidney measures {size}.",
        "No deep venous thrombosis.",
        "Thyroid nodule in the right lobe measures {size}.",
        "Endometrial stripe measures {size}.",
        "No ascites.",
    ),
    impressions=("Hepatic steatosis.", "No DVT.", "Benign-appearing thyroid nodule."),
    indications=(
        "right upper quadrant pain",
        "leg swelling",
        "pelvic pain",
        "elevated creatinine",
        "palpable neck mass",
    ),
)
_MAMMO = KindSpec(
    exams=("BILATERAL SCREENING MAMMOGRAM WITH TOMOSYNTHESIS", "DIAGNOSTIC MAMMOGRAM LEFT", "US BREAST RIGHT"),
    techniques=(
        "Standard CC and MLO views with digital breast tomosynthesis.",
        "Spot compression and magnification views.",
    ),
    findings=(
        "The breasts are heterogeneously dense, which may obscure small masses.",
        "Scattered areas of fibroglandular density.",
        "There is a {size} oval circumscribed mass at 2 o'clock, 4 cm from the nipple.",
        "No suspicious calcifications.",
        "Stable benign-appearing calcifications.",
        "No architectural distortion.",
    ),
    impressions=(
        "BI-RADS 1: Negative.",
        "BI-RADS 2: Benign.",
        "BI-RADS 0: Incomplete, needs additional imaging.",
        "BI-RADS 4: Suspicious. Biopsy recommended.",
    ),
    indications=(
        "screening",
        "palpable lump",
        "follow-up of probably benign finding",
        "family history of breast cancer",
    ),
)
_NM = KindSpec(
    exams=(
        "NM BONE SCAN WHOLE BODY",
        "PET/CT SKULL BASE TO MID THIGH",
        "NM MYOCARDIAL PERFUSION REST/STRESS",
        "NM HIDA SCAN",
    ),
    techniques=(
        "{dose} was administered intravenously and whole body images were acquired.",
        "Fasting glucose 98 mg/dL. {dose}.",
    ),
    findings=(
        "Focal increased uptake in the left 6th rib, likely post-traumatic.",
        "Hypermetabolic mediastinal node, SUV max 8.2.",
        "Physiologic activity in the kidneys and bladder.",
        "Normal gallbladder visualization at 30 minutes.",
        "Ejection fraction 58%.",
        "No reversible perfusion defect.",
    ),
    impressions=(
        "No scintigraphic evidence of osseous metastatic disease.",
        "FDG-avid nodal disease.",
        "Normal study.",
    ),
    indications=("staging of prostate cancer", "chest pain", "right upper quadrant pain", "restaging of lymphoma"),
)
_IR = KindSpec(
    exams=(
        "CT-GUIDED LUNG BIOPSY",
        "ULTRASOUND-GUIDED PARACENTESIS",
        "TUNNELED CENTRAL VENOUS CATHETER PLACEMENT",
        "IVC FILTER PLACEMENT",
    ),
    techniques=(
        "Informed consent was obtained. Time-out was performed. "
        "Moderate sedation with 2 mg midazolam and 100 mcg fentanyl.",
        "The skin was prepped and draped in sterile fashion. 1% lidocaine for local anesthesia.",
    ),
    findings=(
        "Using a 19-gauge coaxial needle, 4 core samples were obtained.",
        "3.2 L of straw-colored fluid was removed.",
        "Catheter tip at the cavoatrial junction.",
        "Fluoroscopy time 2.4 minutes.",
        "No immediate complications.",
        "Estimated blood loss minimal.",
    ),
    impressions=("Successful procedure without immediate complication.", "Specimens sent to pathology."),
    indications=("lung mass", "ascites", "need for long-term access", "DVT with contraindication to anticoagulation"),
)
_NOTE = KindSpec(
    exams=(),
    techniques=(),
    findings=(
        "Patient was started on IV antibiotics with improvement.",
        "Pain controlled with oral analgesics.",
        "Blood pressure 132/84, heart rate 76, SpO2 97% on room air.",
        "Labs notable for creatinine 1.4 and hemoglobin 10.2.",
        "Physical therapy evaluated and recommended home with services.",
        "Tolerating a regular diet.",
        "Metformin 500 mg twice daily was resumed.",
        "Lisinopril 10 mg daily.",
    ),
    impressions=(
        "Community-acquired pneumonia, improving.",
        "Acute on chronic kidney injury.",
        "Chronic low back pain.",
    ),
    indications=("fever and cough", "chest pain", "fall at home", "abdominal pain", "shortness of breath"),
)

REPORT_KINDS: dict[str, KindSpec] = {
    "chest_xray": _CXR,
    "ct": _CT,
    "mri_brain": _MRI_BRAIN,
    "mri_spine": _MRI_SPINE,
    "ultrasound": _US,
    "mammography": _MAMMO,
    "nuclear_medicine": _NM,
    "interventional": _IR,
}
NOTE_KINDS: dict[str, KindSpec] = {"discharge_summary": _NOTE, "progress_note": _NOTE, "consult_letter": _NOTE}
#: Every kind `generate` can make; `openi_chest_xray` needs the Open-i carrier file.
KINDS: tuple[str, ...] = (*REPORT_KINDS, *NOTE_KINDS, "openi_chest_xray")
