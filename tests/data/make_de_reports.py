# ruff: noqa: E501  (the reports below are data: their lines are as long as real report lines)
"""Write `de_reports.jsonl`: 15 short German radiology reports and doctor's letters with gold PHI spans.

Written by hand for issue 30 (German language pack): nothing here was produced by radeid or by a
generator. Every name, identifier, address, phone number and date is invented (the institutions
are invented too, apart from a few well-known German hospital names used as facility names). PHI is
marked in place as `[[CATEGORY|text]]`; this script strips the markup, checks every span and
writes one JSON object per report in the shared gold format:

    {"id": "de/<name>", "text": "...", "spans": [{"start", "end", "category", "text"}]}

Gold edges follow `tests/data/README.md`: titles (`Frau`, `Herr`, `Dr. med.`, `Prof.`, `OA`) and cue
words (`geb.`, `Tel.:`) outside the span; an address line is one LOCATION span for street and
number, one for the postcode (with a `D-` prefix when written) and one for the town; ages are PHI
only over 89, and only the number is the AGE span.

Run: `python tests/data/make_de_reports.py` (writes `tests/data/de_reports.jsonl`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from radeid.synth.markup import markup_problems, parse_markup

OUT = Path(__file__).resolve().parent / "de_reports.jsonl"
SECOND_OUT = Path(__file__).resolve().parent / "de_reports_2.jsonl"
HELDOUT_OUT = Path(__file__).resolve().parent / "de_reports_heldout.jsonl"

# Words of annotated spans that may also occur unannotated (generic words inside names).
GENERIC = frozenset(
    """klinikum universitätsklinikum krankenhaus klinik praxis für der die das und von zu am an im
    radiologie innere medizin allgemeinmedizin straße str platz weg allee markt evangelisches
    städtisches kreiskrankenhaus st ring rechts neurologie""".split()
)


REPORTS: dict[str, str] = {}

REPORTS["roentgen_thorax_1"] = """\
Röntgen Thorax p.a. und seitlich
Patientin: Frau [[PATIENT|Hannelore Schwab]], geb. [[DATE|14.02.1941]]
Pat.-Nr.: [[ID|20417736]]   Fall-Nr.: [[ID|88012345]]
Untersuchungsdatum: [[DATE|12.03.2019]]
Zuweiser: Dr. med. [[HCW|Ulrich Kettner]], Praxis für Allgemeinmedizin

Klinische Angaben: Husten seit 10 Tagen, Fieber 38,6 °C, CRP 87 mg/l. Ausschluss Pneumonie.

Befund: Im Vergleich zur Voraufnahme vom [[DATE|3.4.2017]] neu aufgetretene flächige
Verschattung im rechten Unterfeld mit positivem Bronchopneumogramm. Kein Pleuraerguss.
Herz normal groß (CTR 0,48). Mediastinum mittelständig. Degenerative Veränderungen der BWS.

Beurteilung: Bild einer Unterlappenpneumonie rechts. Verlaufskontrolle nach Therapie empfohlen.

OA Dr. [[HCW|Markus Lindqvist]]
[[HOSPITAL|Klinikum Oberhavel-Süd]], Institut für Radiologie
"""

REPORTS["roentgen_thorax_2"] = """\
RÖNTGEN THORAX IM LIEGEN
Name: [[PATIENT|Obermeier]], [[PATIENT|Jürgen]]   Geburtsdatum: [[DATE|02.11.1958]]
Aufnahmenummer: [[ID|2023-0045871]]
Station 4B, [[HOSPITAL|Kreiskrankenhaus Bad Wendelstein]]
Datum: [[DATE|07.01.2024]], 06:45 Uhr

Fragestellung: Lage ZVK? Pneumothorax?

Befund: ZVK über die V. jugularis interna rechts, Spitze in Projektion auf die V. cava superior.
Kein Pneumothorax. Beidseits basale Minderbelüftungen. Magensonde regelrecht im Magen.
Sternalcerclagen nach ACVB-OP. SpO2 laut Station 92 %, AF 22/min.

Beurteilung: Regelrechte Lage des ZVK, kein Pneumothorax.

Dr. [[HCW|Sabine Hölzl]], Assistenzärztin
Befund telefonisch an Herrn Dr. [[HCW|Ferhat Yıldırım]] am [[DATE|07.01.2024]] um 07:10 Uhr übermittelt.
"""

REPORTS["ct_abdomen_1"] = """\
CT Abdomen und Becken mit Kontrastmittel

Patient: Herr [[PATIENT|Klaus-Dieter Wehrmann]], [[AGE|92]] J.
geb. [[DATE|23.06.1931]], wohnhaft [[LOCATION|Musterstraße 12]], [[LOCATION|10115]] [[LOCATION|Berlin]]
Krankenversicherungsnummer: [[ID|A123456780]]
Untersuchung am [[DATE|12. März 2023]] in der [[HOSPITAL|Charité]]

Anamnese: [[AGE|92]]-jähriger Patient mit akuten Unterbauchschmerzen links seit 2 Tagen,
Leukozyten 14,2 /nl. Bekannte Divertikulose.

Technik: Spiral-CT nach i.v. Gabe von 100 ml Imeron 350, portalvenöse Phase, 1,25 mm Schichtdicke.

Befund: Wandverdicktes Sigma über 8 cm mit entzündlicher Imbibierung des umgebenden Fettgewebes.
Kein Abszess, keine freie Luft. Leber, Milz, Pankreas unauffällig. Nierenzyste links (Bosniak I, 2,1 cm).
Aortensklerose, infrarenale Aorta 2,8 cm.

Beurteilung: Akute unkomplizierte Sigmadivertikulitis (CDD Typ 1b).

Prof. Dr. med. [[HCW|Friedrich von Albrecht]], Chefarzt
"""

REPORTS["ct_abdomen_2"] = """\
Computertomographie des Abdomens
Pat.: [[PATIENT|Renate Koslowski]] (* [[DATE|05.09.1962]])
Adresse: [[LOCATION|Hauptstr. 5a]], [[LOCATION|D-80331]] [[LOCATION|München]]
Tel.: [[PHONE|089 21803344]]
Einweiser: Praxis Dr. [[HCW|Ahrens]], [[LOCATION|Leopoldstraße 40]], [[LOCATION|80802]] [[LOCATION|München]]

Klinische Fragestellung: Staging bei Kolonkarzinom (pT3 N1 M0, Erstdiagnose [[DATE|Oktober 2022]]).

Befund: Im Vergleich zur Voruntersuchung vom [[DATE|14.04.2023]] größenkonstante Leberläsion
in Segment VII (9 mm), am ehesten Zyste. Keine neu aufgetretenen Herde. Keine Lymphadenopathie.
Z. n. Hemikolektomie rechts. Kein Aszites. Lunge in den erfassten Abschnitten frei.

Beurteilung: Kein Anhalt für Rezidiv oder Metastasen. Nächste Kontrolle in 6 Monaten.

Dr. med. [[HCW|Claudia Brenninkmeyer]]
[[HOSPITAL|Klinikum rechts der Isar]] · [[EMAIL|c.brenninkmeyer@radiologie-isar.example.de]]
"""

REPORTS["mrt_schaedel_1"] = """\
MRT Schädel nativ und nach KM
Patientin: [[PATIENT|Ingrid Baumgärtner]], geb. am [[DATE|30.08.1950]]
Pat.-Nr. [[ID|7734012]]
[[HOSPITAL|Universitätsklinikum Freiburg-Ost]], Neuroradiologie
Untersuchung: [[DATE|Montag, 25. Dezember 2023]]

Anamnese: Seit dem Vortag Wortfindungsstörungen und Schwäche des rechten Arms. NIHSS 4.

Technik: 3 Tesla, T2 TSE, FLAIR, DWI (b 1000), SWI, T1 MPRAGE nach 0,1 mmol/kg Gadobutrol, TOF-Angiographie.

Befund: Akute Diffusionsstörung im Versorgungsgebiet der A. cerebri media links (ADC erniedrigt),
ca. 2,4 x 1,8 cm. Keine Einblutung. Mikroangiopathische Marklagerläsionen (Fazekas 2).
Regelrechte Flussignale der großen intrakraniellen Arterien. Keine pathologische KM-Anreicherung.

Beurteilung: Akuter Mediainfarkt links. Keine Blutung.

Befundet von OA Dr. [[HCW|Tobias Renz]] und Dr. [[HCW|Mira Petersen]]
"""

REPORTS["mrt_schaedel_2"] = """\
MRT des Neurokraniums
Name: [[PATIENT|Moritz Feldhaus]], [[DATE|14.7.1988]]
Fall-Nr.: [[ID|1020334455]]
[[HOSPITAL|St. Hedwig-Krankenhaus]], [[LOCATION|Am Markt 3]], [[LOCATION|06108]] [[LOCATION|Halle (Saale)]]

Klinische Angaben: Kopfschmerzen seit [[DATE|März 2019]], Z. n. Commotio im [[DATE|Januar 2019]].
Vorbefund aus der Praxis Dr. [[HCW|Sieglinde Maurer]] liegt vor.

Befund: Unauffälliges Hirnparenchym ohne Diffusionsstörung. Ventrikelsystem normal weit,
Mittellinie erhalten. Kleine Arachnoidalzyste temporal links (12 mm), unverändert zu [[DATE|12.03.19]].
Nasennebenhöhlen frei. Keine Chiari-Malformation.

Beurteilung: Kein Nachweis einer intrakraniellen Pathologie. Arachnoidalzyste ohne Krankheitswert.

Chefarzt Prof. Dr. [[HCW|Henning Scholz-Rabe]]
"""

REPORTS["sono_abdomen_1"] = """\
Sonographie Abdomen
Patient(in): [[PATIENT|Elfriede Nowak]], [[AGE|95]] Jahre
Geburtsdatum: [[DATE|11.11.1928]]
Kostenträger: AOK, Versichertennummer [[ID|K987654321]]
Untersuchung am [[DATE|3.4]]. durch Dr. [[HCW|Lena Bachmann]]

Fragestellung: Cholezystolithiasis? Cholestase?

Befund: Gallenblase mit mehreren Konkrementen bis 14 mm, Wand 3 mm, kein Murphy-Zeichen.
DHC 5 mm. Leber homogen, Größe normal (MCL 14 cm). Nieren beidseits regelrecht, kein Harnstau.
Milz 10 cm. Aorta abdominalis 2,1 cm. Harnblase gefüllt, unauffällig.

Beurteilung: Cholezystolithiasis ohne Zeichen einer Cholezystitis. Keine Cholestase.

[[HOSPITAL|Evangelisches Krankenhaus Lindenberg]], Abteilung Innere Medizin
"""

REPORTS["sono_schilddruese"] = """\
Sonographie der Schilddrüse
Frau [[PATIENT|Aylin Demir]], geb. [[DATE|19.05.1979]]
Aufnahmenummer [[ID|A-2024-118230]]
Überweisung: Dr. med. [[HCW|Jens Hartwig]], Facharzt für Innere Medizin
[[LOCATION|Bahnhofstraße 7]], [[LOCATION|04109]] [[LOCATION|Leipzig]], Tel. [[PHONE|0341 9876543]]

Befund: Schilddrüse rechts 18 ml, links 14 ml, Gesamtvolumen 32 ml (vergrößert).
Im rechten Lappen echoarmer Knoten 11 x 9 mm, glatt begrenzt, TI-RADS 3. Keine Verkalkungen.
Zervikale Lymphknoten unauffällig. TSH 1,2 mU/l, fT4 normal.

Beurteilung: Struma nodosa. Kontrolle in 12 Monaten.

Dr. [[HCW|Nils Oberländer]], Radiologie am [[HOSPITAL|Klinikum Leipzig-Süd]]
"""

REPORTS["arztbrief_1"] = """\
[[HOSPITAL|Universitätsklinikum Tannenfeld]]
Klinik für Kardiologie · [[LOCATION|Robert-Koch-Allee 22]] · [[LOCATION|35039]] [[LOCATION|Marburg]]

Herrn Dr. med. [[HCW|Peter Ostrowski]]
[[LOCATION|Lindenweg 14]]
[[LOCATION|35041]] [[LOCATION|Marburg]]

[[LOCATION|Marburg]], den [[DATE|18.10.2023]]

Sehr geehrter Herr Kollege [[HCW|Ostrowski]],

wir berichten über Ihren Patienten Herrn [[PATIENT|Wolfgang Reichelt]], geb. [[DATE|01.03.1949]],
wohnhaft [[LOCATION|Kirchgasse 2]], [[LOCATION|35094]] [[LOCATION|Lahntal]], der sich vom [[DATE|09.10.2023]] bis
[[DATE|18.10.2023]] in unserer stationären Behandlung befand.

Diagnosen:
1. Akuter NSTEMI, koronare Dreigefäßerkrankung
2. Arterielle Hypertonie, Diabetes mellitus Typ 2 (HbA1c 7,4 %)

Therapie: PCI mit 2 DES in RIVA und RCX am [[DATE|10.10.2023]]. LVEF 45 %.

Medikation bei Entlassung: ASS 100 mg 1-0-0, Ticagrelor 90 mg 1-0-1, Atorvastatin 40 mg 0-0-1.

Mit freundlichen kollegialen Grüßen
Prof. Dr. med. [[HCW|Anja Reinholdt]] (Chefärztin)   OA Dr. [[HCW|Sven Kuhlmann]]   [[HCW|Lea Fuchs]] (Assistenzärztin)
Sekretariat: Tel. [[PHONE|06421 58-66210]], Fax [[PHONE|06421 58-66211]]
"""

REPORTS["arztbrief_2"] = """\
Entlassungsbericht

Patientin: Frau [[PATIENT|Gertrud Albers]], [[AGE|91]] Jahre, geb. [[DATE|07.07.1932]]
KV-Nr.: [[ID|B204518733]]   Fall-Nr. [[ID|55123987]]
Angehörige: Tochter [[PATIENT|Birgit Albers-Kühn]], mobil [[PHONE|0171/1234567]]

Aufnahme am [[DATE|2. Februar 2024]] über die Notaufnahme nach häuslichem Sturz.

Diagnose: Mediale Schenkelhalsfraktur rechts (Garden III). Osteoporose.

Verlauf: Am [[DATE|03.02.2024]] Implantation einer zementierten Duokopfprothese. Postoperativ
Hb 9,1 g/dl, Transfusion von 2 EK. Mobilisation mit Rollator, Barthel-Index 45 Punkte.
Die [[AGE|91]]-jährige Patientin wird am [[DATE|14.02.2024]] in die geriatrische Rehabilitation
([[HOSPITAL|Reha-Klinik Haus Sonnenhang]]) verlegt.

Dr. med. [[HCW|Konstantin Weiß]], Oberarzt Unfallchirurgie, [[HOSPITAL|Städtisches Klinikum Dorfen]]
"""

REPORTS["arztbrief_3"] = """\
Kurzarztbrief Notaufnahme

Herr [[PATIENT|Stefan Grabowski]], geb. [[DATE|22.12.1975]], Pat.-Nr.: [[ID|3301877]]
Anschrift: [[LOCATION|Friedrich-Ebert-Str. 118]], [[LOCATION|45127]] [[LOCATION|Essen]]
Tel. privat: [[PHONE|+49 201 7781234]]

Vorstellung am [[DATE|5. Juni 2023]] um 23:15 Uhr mit Thoraxschmerz.
RR 165/95 mmHg, HF 98/min, Troponin negativ (2 x), EKG Sinusrhythmus ohne ST-Hebung.
Röntgen Thorax ohne Befund. D-Dimer 0,3 mg/l.

Diagnose: Muskuloskelettaler Thoraxschmerz. Hypertensive Entgleisung.

Empfehlung: Vorstellung beim Hausarzt Dr. [[HCW|Weber]] innerhalb einer Woche, Blutdrucktagebuch.

Dr. [[HCW|Emine Aksoy]], Assistenzärztin
Zentrale Notaufnahme, [[HOSPITAL|Alfried Krupp Krankenhaus]]
"""

REPORTS["ct_thorax"] = """\
CT Thorax mit KM
Patient: Hr. [[PATIENT|Detlef Brandt]]   Geb.-Datum: [[DATE|16.04.1955]]
Fall-Nr.: [[ID|77-440913]]
Auftraggeber: CA Dr. [[HCW|Hartmut Ziegler]], Pneumologie
Datum der Untersuchung: [[DATE|28.11.2022]]

Befund: Im Vergleich zum Vorbefund vom [[DATE|Mai 2022]] größenprogredienter Rundherd im
rechten Oberlappen (jetzt 24 mm, zuvor 17 mm), spikuliert. Mediastinale Lymphknoten bis 14 mm
(Station 4R). Kein Pleuraerguss. Emphysem. Keine Lungenembolie.

Beurteilung: Dringender Verdacht auf Bronchialkarzinom, cT1c N2. Vorstellung im Tumorboard
am [[DATE|01.12.2022]] empfohlen.

Fr. Dr. [[HCW|Katrin Voß]], Radiologie
[[HOSPITAL|Lungenklinik Heckeshorn]], Tel. [[PHONE|030 12345678]]
"""

REPORTS["mrt_knie"] = """\
MRT Kniegelenk rechts
Patientin: [[PATIENT|Julia Maria Schäfer]], *[[DATE|03.03.1996]]
Überweisung durch die Praxis Dr. [[HCW|Thomas Engel]], [[LOCATION|Schillerplatz 1]], [[LOCATION|70173]] [[LOCATION|Stuttgart]]
Tel.: [[PHONE|+49 711 2233445]]

Anamnese: Distorsionstrauma beim Skifahren am [[DATE|27.01.2024]].

Technik: 1,5 T, PD fs cor/sag/tra, T1 cor, T2 sag.

Befund: Ruptur des vorderen Kreuzbandes. Bone bruise am lateralen Femurkondylus und am
posterolateralen Tibiaplateau. Innenmeniskus-Hinterhorn mit horizontalem Riss (Grad 3).
Gelenkerguss. Außenband intakt. Knorpel retropatellar Grad I nach Outerbridge.

Beurteilung: VKB-Ruptur, Innenmeniskusläsion Hinterhorn.

Dr. med. [[HCW|Helga Yilmaz-Brückner]], Fachärztin für Radiologie
[[HOSPITAL|Radiologie am Schlossgarten]]
"""

REPORTS["sono_becken"] = """\
Gynäkologische Sonographie
Frau [[PATIENT|Sophie Lehmann]], geb. [[DATE|09.10.1990]]
Aufnahmenummer: [[ID|0049812231]]
[[HOSPITAL|Frauenklinik St. Marien]], [[LOCATION|Marienplatz 9]], [[LOCATION|93047]] [[LOCATION|Regensburg]]

Anamnese: Letzte Periode am [[DATE|20.02]]., Unterbauchschmerzen rechts. Beta-HCG negativ.

Befund: Uterus anteflektiert, 7,2 x 4,1 cm, Endometrium 8 mm. Ovar rechts mit einfacher
Zyste 3,4 cm, kein Hinweis auf Torsion (Doppler regelrecht). Ovar links unauffällig.
Keine freie Flüssigkeit im Douglas-Raum.

Beurteilung: Funktionelle Ovarialzyste rechts. Kontrolle nach der nächsten Menstruation.

Untersucherin: Dr. [[HCW|Miriam Haas]]
"""

REPORTS["arztbrief_4"] = """\
Arztbrief Neurologie

Sehr geehrte Frau Dr. [[HCW|Kranz]],

wir berichten über Herrn [[PATIENT|Heinrich zu Lindau]], geb. [[DATE|30.01.1932]], [[AGE|92]] J.,
der am [[DATE|11.03.2024]] mit einer akuten Hemiparese links in unsere Stroke Unit aufgenommen wurde.
Versichertennummer: [[ID|H501234567]]

Befunde: cCT ohne Blutung, CTA mit Verschluss der ACM rechts (M1). Lyse mit rt-PA 0,9 mg/kg
um 14:20 Uhr, anschließend Thrombektomie (TICI 2b). NIHSS bei Aufnahme 12, bei Entlassung 5.
Vorhofflimmern im Langzeit-EKG, CHA2DS2-VASc 5 Punkte.

Procedere: Apixaban 2,5 mg 1-0-1 ab dem [[DATE|18.03.2024]]. Verlegung in die neurologische Frührehabilitation
nach [[LOCATION|Bad Aibling]].

Mit freundlichen Grüßen
OA Dr. [[HCW|Jan-Hendrik Sommer]] und Prof. Dr. med. [[HCW|Beate Lorenz-Hoffmann]]
[[HOSPITAL|Klinikum Rosenheim-Land]], [[LOCATION|Pettenkoferstraße 10]], [[LOCATION|83022]] [[LOCATION|Rosenheim]]
E-Mail: [[EMAIL|neurologie@klinikum-rosenheim-land.example.de]]
"""


# Written after the first German rules, without tuning them to these: measured once (token recall
# 0.80 with rules alone), then the forms missed here were added to the rules. Austrian and Swiss
# forms are in here too.
SECOND: dict[str, str] = {}

SECOND["roentgen_becken"] = """\
Röntgen Becken a.p. und Hüfte links axial
Nachname: [[PATIENT|Kowalczyk]]   Vorname: [[PATIENT|Irmgard]]   Geb.: [[DATE|17.08.1939]]
Auftrags-Nr.: [[ID|RX-4471203]]
Anforderung durch Station 7 (Dr. [[HCW|Pfeiffer]])

Klinische Angaben: Sturz im Pflegeheim [[HOSPITAL|Haus Abendrot]], Schmerzen Leiste links.

Befund: Dislozierte pertrochantäre Femurfraktur links (AO 31-A2). Coxarthrose beidseits
Grad II nach Kellgren-Lawrence. Z. n. Hüft-TEP rechts, Prothese regelrecht ohne Lockerungszeichen.

Beurteilung: Pertrochantäre Fraktur links. Information an den diensthabenden Unfallchirurgen
Herrn Dr. [[HCW|Jovanović]] um 15:40 Uhr.

[[HCW|M. Wendt]], Fachärztin für Radiologie
"""

SECOND["ct_schaedel_notfall"] = """\
CCT nativ (Notfall)
Pat.-Name: [[PATIENT|Erwin Hubmer]]   Geb.-Dat.: [[DATE|1. Jänner 1930]]   Alter: [[AGE|94]]
Aufn.-Nr.: [[ID|2024/118834]]
[[HOSPITAL|Landeskrankenhaus Villach]], [[LOCATION|Nikolaigasse 43]], [[LOCATION|A-9500]] [[LOCATION|Villach]]

Der [[AGE|94]]-jährige Patient wurde vom Notarzt nach Synkope eingeliefert. GCS 14.

Befund: Keine intrakranielle Blutung. Keine frühen Infarktzeichen (ASPECTS 10). Ausgeprägte
Leukenzephalopathie. Globale Atrophie. Keine Fraktur der Kalotte.

Beurteilung: Kein Blutungsnachweis.

Dr. [[HCW|Theresa Gruber-Lang]] / Primarius Dr. [[HCW|Alois Wimmer]]
Telefon Radiologie: [[PHONE|+43 4242 208-0]]
"""

SECOND["mrt_lws"] = """\
MRT der Lendenwirbelsäule

Patient: [[PATIENT|Yusuf Kaya]], geboren am [[DATE|9. Oktober 1984]]
Anschrift: [[LOCATION|Kolonnenstraße 61]], [[LOCATION|10827]] [[LOCATION|Berlin]]
Telefon: [[PHONE|(030) 4567-890]]

Überweisender Arzt: Dr. med. [[HCW|Gregor Siebert]], Orthopädie

Befund: Bandscheibenprotrusion L4/5 mit Kontakt zur Nervenwurzel L5 rechts. Osteochondrose
L5/S1 (Modic I). Spinalkanal normal weit. Conus medullaris regelrecht auf Höhe LWK 1.

Beurteilung: Diskogene Reizung L5 rechts.

Mit freundlichen Grüßen
[[HCW|Anke Brömmelkamp]]
Fachärztin für Diagnostische Radiologie, [[HOSPITAL|Radiologisches Zentrum Schöneberg]]
"""

SECOND["sono_nieren_ch"] = """\
Sonographie Nieren und ableitende Harnwege
[[HOSPITAL|Universitätsspital Zürich]], Institut für Diagnostische und Interventionelle Radiologie
Patientin: [[PATIENT|Regula Brunner-Suter]], [[DATE|22.11.1961]]
AHV-Nr.: [[ID|756.1234.5678.97]]
Wohnort: [[LOCATION|CH-8047]] [[LOCATION|Zürich]], [[LOCATION|Badenerstrasse 520]]

Befund: Niere rechts 11,2 cm, links 11,8 cm, Parenchym normal breit. Links Nierenbeckenkelchsystem
erweitert (Grad II), Konkrement am pyeloureteralen Übergang 7 mm. Harnblase unauffällig.

Beurteilung: Harnstau links bei Urolithiasis. Bericht per E-Mail an [[EMAIL|urologie.notfall@usz.example.ch]].

Dr. med. [[HCW|Reto Caduff]], Oberarzt
"""

SECOND["arztbrief_pneumo"] = """\
[[HOSPITAL|Fachklinik für Lungenheilkunde Bad Rothenfelde]]

An Frau Dr. med. [[HCW|Annette Wiegand]]
[[HOSPITAL|Gemeinschaftspraxis am Kirchplatz]]
[[LOCATION|Kirchplatz 4]]
[[LOCATION|49214]] [[LOCATION|Bad Rothenfelde]]

Betreff: Ihre Patientin [[PATIENT|Margarete Hülsmann]], * [[DATE|03.06.1933]]

Sehr geehrte Frau Kollegin,

Frau [[PATIENT|Hülsmann]] befand sich vom [[DATE|2]]. bis [[DATE|16. Februar 2024]] in unserer Behandlung.
Die Patientin ist im [[AGE|91]]. Lebensjahr und lebt allein.

Diagnosen: Exazerbierte COPD GOLD 3 / Gruppe E. Respiratorische Globalinsuffizienz.
BGA bei Aufnahme: pO2 52 mmHg, pCO2 58 mmHg, pH 7,31.

Therapie: NIV, Prednisolon 40 mg über 5 Tage, Inhalation mit Salbutamol.

Mit freundlichen Grüßen
Prof. Dr. [[HCW|Ludger Henkemeier]]          [[HCW|Paulina Nowicka]]
Chefarzt                                      Stationsärztin
"""

SECOND["ct_angio"] = """\
CT-Angiographie der Aorta
Name, Vorname: [[PATIENT|Petersen, Uwe]]
Geburtsdatum: [[DATE|28.02.1947]]   Fallnummer: [[ID|40028817]]
Versicherung: Techniker Krankenkasse, Vers.-Nr. [[ID|T445566778]]

Fragestellung: Größenverlauf des bekannten infrarenalen Aortenaneurysmas (Vorbefund [[DATE|08/2022]]).

Befund: Infrarenales Aortenaneurysma, maximaler Querdurchmesser 5,6 cm (zuvor 4,9 cm).
Wandständiger Thrombus. Keine Dissektion, keine Ruptur. Beckenarterien elongiert, frei.

Beurteilung: Deutliche Größenprogredienz, OP-Indikation. Telefonische Mitteilung an
den Gefäßchirurgen, Herrn [[HCW|Wittkowski]], am [[DATE|13.3.2024]].

[[HOSPITAL|Klinikum Nordfriesland]], Klinik für Radiologie, [[LOCATION|Erichsenweg 16]], [[LOCATION|25813]] [[LOCATION|Husum]]
"""

SECOND["mammographie"] = """\
Mammographie beidseits in 2 Ebenen, ergänzende Sonographie

Frau Dr. [[PATIENT|Silke Rautenberg]], geb. [[DATE|11. Mai 1968]], Pat.-ID [[ID|0077123]]
Tel. mobil [[PHONE|0152 33445566]]

Anamnese: Familiäre Belastung (Mutter Mammakarzinom mit 52 Jahren). Voraufnahmen vom
[[DATE|Juni 2022]] aus der [[HOSPITAL|Praxis Radiologie Elbvororte]] liegen vor.

Befund: ACR-Dichte C. Keine suspekten Mikroverkalkungen, keine Architekturstörung.
Sonographisch einfache Zyste bei 2 Uhr links (6 mm).

Beurteilung: BI-RADS 2 beidseits. Nächste Kontrolle in 12 Monaten.

Dr. [[HCW|Holger Quast]]
"""

SECOND["arztbrief_gastro"] = """\
Vorläufiger Entlassungsbrief

Patient: Herr [[PATIENT|Ömer Şahin]], [[DATE|04.04.1957]]
[[LOCATION|Weserstr. 12b]], [[LOCATION|28199]] [[LOCATION|Bremen]]
Aufnahmenummer: [[ID|88341207]]

Aufnahme: [[DATE|01.10.2023]]   Entlassung: [[DATE|06.10.2023]]

Diagnose: Obere gastrointestinale Blutung bei Ulcus duodeni (Forrest IIa), Helicobacter positiv.

Verlauf: ÖGD am Aufnahmetag mit Clip-Applikation. Hb bei Aufnahme 7,8 g/dl, Gabe von
2 Erythrozytenkonzentraten. Eradikation nach französischem Schema eingeleitet.

Weiterbehandlung durch den Hausarzt, Herrn Dr. [[HCW|Bernd Tiedemann]], [[LOCATION|Delmestraße 80]], [[LOCATION|Bremen]].

gez. Dr. [[HCW|Maren Ahlers]], Assistenzärztin, für Prof. Dr. [[HCW|Carsten Voigt]]
[[HOSPITAL|Klinikum Bremen-Links der Weser]]
"""


# Written last, after every rule change, and never used to tune anything: the held-out German set.
# (One gold fix after the first run: "Dez. 2023" had been left unmarked; the rules were not changed.)
HELDOUT: dict[str, str] = {}

HELDOUT["ct_thorax_lae"] = """\
CT-Pulmonalisangiographie
Pat.: Frau [[PATIENT|Dorothea Kleinschmidt]]   Geb.-Datum: [[DATE|19.12.1944]]
Aufnahme-Nr.: [[ID|311-208-77]]
[[HOSPITAL|Helios Klinikum Berlin-Buch]], Notaufnahme

Indikation: Akute Dyspnoe, D-Dimer 2,8 mg/l, Wells-Score 6.

Befund: Embolische Füllungsdefekte in den Segmentarterien des rechten Unterlappens und im
Mittellappen. RV/LV-Quotient 1,1. Kein Infarktpneumonie-Nachweis. Kleiner Pleuraerguss rechts.

Beurteilung: Segmentale Lungenarterienembolie rechts ohne Rechtsherzbelastung.
Mitteilung an den Stationsarzt Dr. [[HCW|Benedikt Aurich]] um 02:15 Uhr.

Priv.-Doz. Dr. med. [[HCW|Stefanie Olbrich]]
"""

HELDOUT["mrt_prostata"] = """\
MRT der Prostata (multiparametrisch)
Herr [[PATIENT|Günther Maria Lohse]], * [[DATE|7.9.1949]]
Patienten-ID: [[ID|PID00458812]]
Überweisung: Urologische Gemeinschaftspraxis Dr. [[HCW|Keller]] und Dr. [[HCW|Yüksel]], [[LOCATION|Lange Reihe 88]], [[LOCATION|20099 Hamburg]]

Klinische Angaben: PSA 9,4 ng/ml ([[DATE|Dez. 2023]]: 6,1 ng/ml), Biopsie negativ am [[DATE|05.03.2022]].

Befund: Läsion in der peripheren Zone links dorsolateral Mitte, 11 mm, PI-RADS 4, keine
Kapselüberschreitung. Samenblasen frei. Keine suspekten Lymphknoten.

Beurteilung: PI-RADS 4, MRT-gestützte Fusionsbiopsie empfohlen.

[[HOSPITAL|Asklepios Klinik St. Georg]], Radiologie · Tel. [[PHONE|040/181885-0]]
"""

HELDOUT["arztbrief_onko"] = """\
[[HOSPITAL|Kantonsspital Aarau]] · Onkologie · [[LOCATION|Tellstrasse 25]] · [[LOCATION|CH-5001 Aarau]]

[[LOCATION|Aarau]], den [[DATE|9. Januar 2024]]

Sehr geehrte Frau Kollegin [[HCW|Bachofen]],

wir berichten über Ihre gemeinsame Patientin Frau [[PATIENT|Verena Zünd-Hofer]], geb. [[DATE|28.04.1958]],
wohnhaft in [[LOCATION|Buchs]], die wir am [[DATE|8.1.2024]] zur Fortsetzung der Chemotherapie sahen.

Diagnose: Mammakarzinom links, ED [[DATE|03/2023]], pT2 pN1a M0, G3, HER2 positiv.

Verlauf: 4. Zyklus Trastuzumab/Pertuzumab gut vertragen. Leukozyten 4,2 G/l, Hb 118 g/l.
Nächster Termin am [[DATE|30.01.2024]] um 08:30 Uhr.

Freundliche Grüsse
Dr. med. [[HCW|Lukas Brändli]], Oberarzt
"""

HELDOUT["roentgen_hand"] = """\
Röntgen Hand links in 2 Ebenen
Name: [[PATIENT|Mia Sophie Hartmann]]   Geburtsdatum: [[DATE|21.06.2016]]
Fallnummer: [[ID|9002741]]
Mutter: Frau [[PATIENT|Jennifer Hartmann]], Tel. [[PHONE|0157 88776655]]

Anamnese: Sturz vom Trampolin am [[DATE|Sonntag, 14. Juli 2024]].

Befund: Nicht dislozierte Fraktur der distalen Radiusmetaphyse (Wulstfraktur). Epiphysenfugen
regelrecht. Kein Gelenkerguss.

Beurteilung: Wulstfraktur distaler Radius links. Ruhigstellung im Unterarmgips für 3 Wochen.

[[HCW|Jonas Wegener]], Assistenzarzt Kinderradiologie, [[HOSPITAL|Kinderklinik Am Sonnenberg]]
"""

HELDOUT["sono_leber"] = """\
Abdomensonographie
Patient: [[PATIENT|Ahmet Çelik]], [[DATE|1.12.1969]], [[LOCATION|Wiener Straße 4]], [[LOCATION|01219 Dresden]]
Versichertennr.: [[ID|C730294815]]
Hausarzt: Dr. [[HCW|Reinhold Pätzold]], Tel. [[PHONE|0351 4711223]]

Befund: Leber vergrößert (MCL 17 cm), Parenchym echoreich verdichtet, Steatosis hepatis Grad II.
Keine fokalen Läsionen. Pfortader 12 mm, Fluss hepatopetal. Milz 12,5 cm. Kein Aszites.

Beurteilung: Hepatomegalie mit Steatose. Kontrolle in 6 Monaten, Befund an Dr. [[HCW|Pätzold]] gefaxt.

Untersucher: Dr. rer. nat. Dr. med. [[HCW|Friederike Lau]], [[HOSPITAL|Städtisches Klinikum Dresden]]
"""

HELDOUT["arztbrief_geriatrie"] = """\
Entlassungsbrief Geriatrie

Patient: Herr [[PATIENT|Friedhelm Rohde]], [[AGE|96]] Jahre, geb. [[DATE|11.03.1928]]
Ehefrau: [[PATIENT|Liselotte Rohde]], [[LOCATION|Am Lindenplatz 7]], [[LOCATION|48143 Münster]]
KV-Nummer: [[ID|R482910375]]

Aufenthalt vom [[DATE|02.05.2024]] bis [[DATE|21.05.2024]] im [[HOSPITAL|St. Franziskus-Hospital]].

Diagnosen: Exsikkose, Delir bei Harnwegsinfekt, Demenz vom Alzheimer-Typ (MMST 17 Punkte).

Verlauf: Der [[AGE|96]]-jährige Patient wurde nach Rehydratation und Antibiose mit Cefuroxim
500 mg 1-0-1 mobilisiert. Barthel-Index bei Entlassung 55 Punkte.

Mit freundlichen Grüßen
Dr. [[HCW|Hanna Vogelsang]] (Oberärztin)
"""


def main() -> int:
    problems: list[str] = []
    sets: dict[Path, list[dict[str, object]]] = {OUT: [], SECOND_OUT: [], HELDOUT_OUT: []}
    for out, prefix, reports in (
        (OUT, "de", REPORTS),
        (SECOND_OUT, "de2", SECOND),
        (HELDOUT_OUT, "de-heldout", HELDOUT),
    ):
        for name, markup in reports.items():
            text, spans = parse_markup(markup)
            problems.extend(markup_problems(name, text, spans, GENERIC))
            sets[out].append({"id": f"{prefix}/{name}", "text": text,
                              "spans": [{"start": s, "end": e, "category": c, "text": t} for c, s, e, t in spans]})  # fmt: skip
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    for out, rows in sets.items():
        with open(out, "w", encoding="utf-8", newline="\n") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"wrote {len(rows)} reports, {sum(len(r['spans']) for r in rows)} spans to {out.name}")  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
