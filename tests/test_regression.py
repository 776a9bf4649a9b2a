"""Regression cases as data: `tests/regression/<category>.jsonl`, run through the rules-only pipeline.

Each file holds cases for one PHI category (`date`, `patient`, `hcw`, `hospital`, `location`,
`vendor`, `id`, `phone`, `email`, `url`, `ip`, `age`) plus `protected.jsonl`: clinical text that
must stay unchanged (no span at all). A case is one JSON object per line:

    {"id": "date/slash", "text": "Exam date: 03/04/2019.",
     "spans": [{"start": 11, "end": 21, "category": "DATE"}],
     "known_failure": "optional: why the pipeline gets this wrong today"}

The test runs `Deidentifier` with `[pipeline] detectors = ["rules", "lexicon"]` (no model, so the
result does not depend on model weights) and asserts that the resolved spans equal `spans`
exactly: every PHI in the text, each with its start, end and category, and nothing else.

Adding a case:

1. Pick the file of its main category; give it an id `<file>/<short-name>` unique in the suite.
2. Write the text, and decide by hand what in it is PHI. List *every* PHI span of the text, not
   only the one the case is about. Follow the annotation conventions of `examples/*.ann` and
   the README's span edge rule: titles ("Dr.", "Mrs.") and credentials (", MD") outside a name,
   a possessive "'s" outside, the label outside an ID or a room ("MRN: 1234567" -> "1234567"),
   the time outside an ISO date-time, a street and its "City, ST ZIP" line as two spans, an age
   only when over 89 (the number alone).
3. Compute the offsets from the substrings, never from the pipeline's output, e.g.
   `python -c 'import json,sys; t=sys.argv[1]; print(json.dumps({"start": t.index(sys.argv[2]),
   "end": t.index(sys.argv[2]) + len(sys.argv[2])}))' "Exam date: 03/04/2019." "03/04/2019"`.
4. Run `python -m pytest tests/test_regression.py`. If the case fails and the expectation is
   right, keep it and add `known_failure` with the reason (it then runs as a strict xfail: the
   day the pipeline gets it right the test fails, and the `known_failure` line is removed). Do
   not change an expectation to match what the pipeline does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from radeid.core.categories import Category
from radeid.core.document import Document
from radeid.pipeline.deidentifier import Deidentifier

REGRESSION = Path(__file__).resolve().parent / "regression"
CATEGORY_FILES = [c.value.lower() for c in Category]
FILES = [*CATEGORY_FILES, "protected"]


def _load() -> list[dict]:
    cases = []
    for name in FILES:
        path = REGRESSION / f"{name}.jsonl"
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                case = json.loads(line)
                case["where"] = f"{path.name}:{lineno}"
                cases.append(case)
    return cases


CASES = _load()


def _params() -> list:
    params = []
    for case in CASES:
        marks = []
        if case.get("known_failure"):
            marks.append(pytest.mark.xfail(reason=case["known_failure"], strict=True))
        params.append(pytest.param(case, id=case["id"], marks=marks))
    return params


def _show(text: str, spans: list[tuple[int, int, str]]) -> list[str]:
    return [f"{text[s:e]!r} {c} [{s}:{e}]" for s, e, c in spans]


@pytest.mark.parametrize("case", _params())
def test_regression_case(rules_only: Deidentifier, case: dict) -> None:
    text = case["text"]
    expected = sorted((s["start"], s["end"], Category.parse(s["category"]).value) for s in case["spans"])
    got = sorted((s.start, s.end, s.category.value) for s in rules_only.detect([Document(case["id"], text)])[0])
    assert got == expected, (
        f"{case['where']} {text!r}\n"
        f"missing: {_show(text, sorted(set(expected) - set(got)))}\n"
        f"extra: {_show(text, sorted(set(got) - set(expected)))}"
    )


def test_the_cases_are_well_formed() -> None:
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    for name in FILES:
        count = sum(1 for c in CASES if c["where"].startswith(f"{name}.jsonl:"))
        assert count >= 5, f"{name}.jsonl has {count} cases; keep at least 5 per file"
    for case in CASES:
        assert set(case) <= {"id", "text", "spans", "known_failure", "where"}, case["id"]
        assert case["id"].startswith(case["where"].split(".jsonl")[0] + "/"), case["id"]
        if case["where"].startswith("protected."):
            assert case["spans"] == [], f"{case['id']}: protected text has no PHI"
        previous_end = 0
        for span in sorted(case["spans"], key=lambda s: s["start"]):
            assert previous_end <= span["start"] < span["end"] <= len(case["text"]), case["id"]
            piece = case["text"][span["start"] : span["end"]]
            assert piece == piece.strip(), f"{case['id']}: {piece!r} has edge whitespace"
            Category.parse(span["category"])
            previous_end = span["end"]
