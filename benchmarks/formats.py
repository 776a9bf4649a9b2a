"""Structured formats: throughput (records/s) and the recall the structured values add.

For HL7 v2 (`ORU^R01` messages from `radeid.synth.hl7`, written as one MLLP-framed file): read,
de-identify with surrogates and write back, one process, with the rules and word lists only and
with the model too. Then the recall of the patient's name in the report text (OBX-5), with the
PID-5 values seeding detection (as `radeid deid` runs) and without them (the structured spans
removed from each record): a mention counts as caught when one span covers it whole.

For DICOM SR (`radeid.synth.dicom`, one file per report in a folder): files/s for the same read +
de-identify + write, and the recall of the patient's surname in the content tree's text, seeded by
PatientName and without.

For FHIR (`radeid.synth.fhir` Bundles, one a line of an NDJSON file: Patient, Practitioner,
Organization, Encounter, DiagnosticReport and Observation), the same: records/s, and the recall of the
patient's name in `conclusion` and `valueString` with and without the `Patient.name` seeds. Then the
same Bundles as a bulk export (`--export`): a folder with one NDJSON file a resource type, the
references without `display`, so a report's only source of its patient's name is `Patient.ndjson`:
the recall of the patient's surname in the DiagnosticReport and Observation text (the Observation's
is written with no cue), with the run's Patient memory (`radeid.io.fhir_patients`, as `radeid deid`
reads a folder) and without it.

    python benchmarks/formats.py                 # 300 records, rules only and with the model
    python benchmarks/formats.py -n 1000 --no-model
    python benchmarks/formats.py --format fhir -n 100 --no-model
    python benchmarks/formats.py --format fhir -n 300 --no-model --export   # and the bulk-export split
    python benchmarks/formats.py --dicom 100 --no-model   # and 100 DICOM SR files
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from radeid.config.config import Config
from radeid.core import metakeys
from radeid.core.document import Document, Span
from radeid.io.readers import detect_format, read_documents
from radeid.io.writers import open_writer
from radeid.pipeline.deidentifier import Deidentifier
from radeid.synth.fhir import SynthBundle, bundles
from radeid.synth.hl7 import SynthMessage, oru_messages


def _pipeline(model: bool) -> Deidentifier:
    detectors = ["rules", "lexicon", "transformer"] if model else ["rules", "lexicon"]
    return Deidentifier(Config.load(overrides={"pipeline": {"detectors": detectors}}), key=b"\x01" * 32)


def throughput(deid: Deidentifier, src: Path, out: Path) -> tuple[int, float]:
    """Messages and seconds for read + de-identify + write."""
    started = time.perf_counter()
    docs = [d for d in read_documents(src) if isinstance(d, Document)]
    with open_writer(out, detect_format(src), input_path=src) as writer:
        for result in deid.stream(docs):
            writer.write(result)
    return len(docs), time.perf_counter() - started


def _caught(spans: list[Span], mention: tuple[int, int], offset: int) -> bool:
    start, end = mention[0] + offset, mention[1] + offset
    return any(s.start <= start and end <= s.end for s in spans)


def recall(deid: Deidentifier, docs: list[Document], messages: Sequence[SynthMessage | SynthBundle]) -> list[float]:
    """Name mentions in the text caught, with and without the structured seeds: all mentions, and
    the one written with no cue (`radeid.synth.hl7`: the last)."""
    unseeded = [replace(d, metadata={**d.metadata, metakeys.STRUCTURED_SPANS: []}) for d in docs]
    scores: list[float] = []
    for batch in (docs, unseeded):
        found, total, found_bare = 0, 0, 0
        for doc, spans, msg in zip(batch, deid.detect(batch), messages, strict=True):
            offset = doc.text.find(msg.text[:20])  # the record inside its frame: offset 0
            hits = [_caught(spans, mention, offset) for mention in msg.mentions]
            found, total, found_bare = found + sum(hits), total + len(hits), found_bare + hits[-1]
        scores += [found / max(total, 1), found_bare / max(len(batch), 1)]
    return scores


def _records(fmt: str, n: int, folder: Path) -> tuple[Path, Sequence[SynthMessage | SynthBundle], str]:
    """The input file of `n` synthetic records, the records, and what they are called."""
    if fmt == "fhir":
        synth: Sequence[SynthMessage | SynthBundle] = bundles(n, seed=11, per_patient=2, indent=None)
        src = folder / "in.ndjson"
        src.write_bytes("".join(f"{b.text}\n" for b in synth).encode("utf-8"))
        return src, synth, "FHIR Bundles (NDJSON)"
    synth = oru_messages(n, seed=11, per_patient=2)
    src = folder / "in.hl7"
    src.write_bytes("".join(f"\x0b{m.text}\x1c\r" for m in synth).encode("utf-8"))
    return src, synth, "ORU^R01 messages"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=300, help="records (default 300)")
    parser.add_argument("--format", choices=("hl7", "fhir"), default="hl7", help="hl7 (default) or fhir")
    parser.add_argument("--no-model", action="store_true", help="rules and word lists only")
    parser.add_argument("--dicom", type=int, default=0, metavar="N", help="also N DICOM SR files (default none)")
    parser.add_argument("--export", action="store_true", help="fhir: also the Bundles split as a bulk export")
    args = parser.parse_args()
    if args.dicom:
        dicom_main(args.dicom, not args.no_model)
    if args.export:
        export_main(args.n, not args.no_model)
    with tempfile.TemporaryDirectory() as tmp:
        src, synth, what = _records(args.format, args.n, Path(tmp))
        docs = [d for d in read_documents(src) if isinstance(d, Document)]
        print(f"{args.n} {what}, {src.stat().st_size / args.n:.0f} bytes each, one process")
        print(f"{'':<33} {'name recall, seeded':>20} {'without seeds':>14}")
        print(f"{'pipeline':<22} {'records/s':>10} {'all':>10} {'no cue':>9} {'all':>7} {'no cue':>7}")
        for model in (False,) if args.no_model else (False, True):
            deid = _pipeline(model)
            deid.deidentify(docs[:4])  # load the model and the word lists before timing
            count, seconds = throughput(deid, src, Path(tmp) / f"out{src.suffix}")
            scores = recall(deid, docs, synth)
            name = "rules + model" if model else "rules + word lists"
            print(f"{name:<22} {count / seconds:>10.1f} " + " ".join(f"{x:>9.3f}" for x in scores))


def _surname_mentions(doc: Document, surname: str) -> list[tuple[int, int]]:
    """Every mention of `surname` in the narrative ranges of a structured document's text."""
    found: list[tuple[int, int]] = []
    for start, end in doc.metadata[metakeys.NARRATIVE]:
        at = doc.text.find(surname, start, end)
        while at >= 0:
            found.append((at, at + len(surname)))
            at = doc.text.find(surname, at + 1, end)
    return found


def dicom_main(count: int, model: bool) -> None:
    """Files/s and surname recall in the SR text, seeded and not, for `count` synthetic SR files."""
    from radeid.synth.dicom import sr_reports, write_sr

    reports = sr_reports(count, seed=11, per_patient=2)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "sr"
        src.mkdir()
        for n, report in enumerate(reports):
            write_sr(report.dataset, src / f"r{n:05d}.dcm")
        docs = [d for d in read_documents(src, "dicom") if isinstance(d, Document)]
        size = sum(p.stat().st_size for p in src.iterdir()) / count
        print(f"\n{count} DICOM SR files, {size:.0f} bytes each, one process")
        print(f"{'pipeline':<22} {'files/s':>10} {'surname recall, seeded':>23} {'without seeds':>14}")
        for with_model in (False, True) if model else (False,):
            deid = _pipeline(with_model)
            deid.deidentify(docs[:4])
            started = time.perf_counter()
            with open_writer(Path(tmp) / "out", "dicom", input_path=src) as writer:
                for result in deid.stream(docs):
                    writer.write(result)
            seconds = time.perf_counter() - started
            unseeded = [replace(d, metadata={**d.metadata, metakeys.STRUCTURED_SPANS: []}) for d in docs]
            scores = []
            for batch in (docs, unseeded):
                hits = [
                    _caught(spans, mention, 0)
                    for doc, spans, report in zip(batch, deid.detect(batch), reports, strict=True)
                    for mention in _surname_mentions(doc, report.patient.last)
                ]
                scores.append(sum(hits) / max(len(hits), 1))
            name = "rules + model" if with_model else "rules + word lists"
            print(f"{name:<22} {count / seconds:>10.1f} {scores[0]:>23.3f} {scores[1]:>14.3f}")


def _split_export(synth: Sequence[SynthBundle], folder: Path) -> None:
    """The Bundles' resources as a bulk export: one NDJSON file a type, each Patient once, and no
    reference's `display` (many servers write none)."""
    files: dict[str, list[str]] = {}
    seen: set[str] = set()
    for item in synth:
        for entry in json.loads(item.text)["entry"]:
            resource = entry["resource"]
            key = f"{resource['resourceType']}/{resource['id']}"
            if key in seen:
                continue
            seen.add(key)
            if isinstance(resource.get("subject"), dict):
                resource["subject"].pop("display", None)
            files.setdefault(resource["resourceType"], []).append(json.dumps(resource, ensure_ascii=False))
    for kind, lines in files.items():
        (folder / f"{kind}.ndjson").write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")


def export_main(count: int, model: bool) -> None:
    """Surname recall in a bulk export's report text, with the run's Patient memory and without."""
    synth = bundles(count, seed=11, per_patient=2, indent=None)
    surnames = {b.patient_id: b.patient.last for b in synth}
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "export"
        src.mkdir()
        _split_export(synth, src)
        docs = [
            d
            for d in read_documents(src, "fhir")
            if isinstance(d, Document) and d.id.split("/")[0] in ("DiagnosticReport", "Observation")
        ]
        bare = [replace(d, metadata={k: v for k, v in d.metadata.items() if k != metakeys.KNOWN_VALUES}) for d in docs]
        print(f"\n{count} Bundles as a bulk export: {len(docs)} DiagnosticReport and Observation lines, no display")
        print(f"{'':<22} {'surname recall, with the Patient memory':>40} {'without':>16}")
        print(f"{'pipeline':<22} {'all':>20} {'no cue':>19} {'all':>8} {'no cue':>7}")
        for with_model in (False, True) if model else (False,):
            deid = _pipeline(with_model)
            scores: list[float] = []
            for batch in (docs, bare):
                hits: dict[bool, list[bool]] = {False: [], True: []}
                for doc, spans in zip(batch, deid.detect(batch), strict=True):
                    bare_cue = doc.id.startswith("Observation/")  # its one name mention has no cue
                    for mention in _surname_mentions(doc, surnames[str(doc.patient_id)]):
                        hits[bare_cue].append(_caught(spans, mention, 0))
                every = hits[False] + hits[True]
                scores += [sum(every) / max(len(every), 1), sum(hits[True]) / max(len(hits[True]), 1)]
            name = "rules + model" if with_model else "rules + word lists"
            print(f"{name:<22} {scores[0]:>20.3f} {scores[1]:>19.3f} {scores[2]:>8.3f} {scores[3]:>7.3f}")


if __name__ == "__main__":
    main()
