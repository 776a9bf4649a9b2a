# ruff: noqa: E501  (the lines below are data)
"""Regenerate `unicode_evasion.jsonl`: 49 lines that hide PHI with Unicode tricks (issue 27, point 13).

Each line is written by hand as plain text with its PHI marked `[[CATEGORY|text]]` (names, MRNs,
phone numbers, dates; all invented), plus the trick or tricks applied to every marked span: Cyrillic
or Greek look-alike letters, mathematical bold or sans-serif letters and digits, a Hangul filler
(U+3164) for each space, circled, negative-circled or full-width digits, a right-to-left override
(U+202E) around the reversed text, and invisible characters inserted between the characters:
variation selectors, tag characters (U+E0000 block), the combining grapheme joiner (U+034F), the
Mongolian vowel separator (U+180E), invisible times (U+2062). The script applies the tricks, keeps
each gold span in ORIGINAL offsets (over the characters as stored; for an override, the reversed
text inside the controls) and writes one JSON object per line: `{"id", "tricks", "text", "spans":
[{"start", "end", "category", "text"}]}`. The tricks are the attacker's and are spelt out here on
purpose; radeid's folding (`radeid.detect.normalize`) reads Unicode's confusables table instead.

Used by `tests/test_unicode_evasion.py`. Run: `python tests/data/make_unicode_evasion.py`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "unicode_evasion.jsonl"
MARK = re.compile(r"\[\[([A-Z]+)\|(.+?)\]\]")

_CYRILLIC = dict(zip("aceopxyisjABCEHKMOPTX", "асеорхуіѕјАВСЕНКМОРТХ", strict=True))
_GREEK = dict(zip("ABEHIKMNOPTXYZov", "ΑΒΕΗΙΚΜΝΟΡΤΧΥΖον", strict=True))
_CIRCLED = dict(zip("0123456789", "⓪①②③④⑤⑥⑦⑧⑨", strict=True))
_NEG_CIRCLED = dict(zip("0123456789", "⓿❶❷❸❹❺❻❼❽❾", strict=True))


def _shifted(upper: int, lower: int, digit: int) -> Callable[[str], str]:
    def apply(text: str) -> str:
        out = []
        for ch in text:
            if "A" <= ch <= "Z":
                out.append(chr(upper + ord(ch) - ord("A")))
            elif "a" <= ch <= "z":
                out.append(chr(lower + ord(ch) - ord("a")))
            elif ch.isdigit():
                out.append(chr(digit + int(ch)))
            else:
                out.append(ch)
        return "".join(out)

    return apply


def _mapped(table: dict[str, str]) -> Callable[[str], str]:
    return lambda text: "".join(table.get(ch, ch) for ch in text)


def _inserted(mark: str, every: int = 2) -> Callable[[str], str]:
    """`mark` after every `every`-th character that has a letter or digit on both sides."""

    def apply(text: str) -> str:
        out = []
        for i, ch in enumerate(text):
            out.append(ch)
            if (i + 1) % every == 0 and i + 1 < len(text) and ch.isalnum() and text[i + 1].isalnum():
                out.append(mark)
        return "".join(out)

    return apply


TRICKS: dict[str, Callable[[str], str]] = {
    "cyrillic": _mapped(_CYRILLIC),
    "greek": _mapped(_GREEK),
    "math_bold": _shifted(0x1D400, 0x1D41A, 0x1D7CE),
    "math_sans": _shifted(0x1D5A0, 0x1D5BA, 0x1D7E2),
    "fullwidth": _shifted(0xFF21, 0xFF41, 0xFF10),
    "hangul_space": lambda text: text.replace(" ", "\u3164"),
    "circled": _mapped(_CIRCLED),
    "neg_circled": _mapped(_NEG_CIRCLED),
    "variation_selector": _inserted("\ufe0f"),
    "variation_selector_1": _inserted("\ufe00", 1),
    "tag": _inserted("\U000e0041\U000e0062", 3),
    "cgj": _inserted("\u034f"),
    "mvs": _inserted("\u180e", 3),
    "invisible_times": _inserted("\u2062"),
}
RLO, PDF = "\u202e", "\u202c"  # "rlo": the text stored reversed between these, displayed forwards

# (tricks, markup): tricks apply in order to every marked span; "rlo" last, if at all.
LINES: list[tuple[str, str]] = [
    # names
    ("cyrillic", "Seen by Dr. [[HCW|Jacob Peters]] today."),
    ("cyrillic", "Patient: [[PATIENT|Maria Lopez]]"),
    ("cyrillic", "Name: [[PATIENT|Oscar Haynes]], age 44"),
    ("greek", "Referring physician: Dr. [[HCW|Ellen Ripley]]"),
    ("greek", "Attending: Dr. [[HCW|Kim Park]]"),
    ("greek", "Patient: [[PATIENT|Tom Baxter]]"),
    ("math_bold", "Seen by Dr. [[HCW|John Smith]] today."),
    ("math_bold", "Name: [[PATIENT|Laura Kent]], age 51"),
    ("math_sans", "Signed: [[HCW|Alan Grant]], MD"),
    ("hangul_space", "Seen by Dr. [[HCW|John Smith]] today."),
    ("hangul_space", "Patient: [[PATIENT|Mary Jones]]"),
    ("rlo", "Seen by Dr. [[HCW|John Smith]] today."),
    ("rlo", "Patient: [[PATIENT|Mary Jones]]"),
    ("rlo", "Mr. [[PATIENT|Victor Hugo]] was seen."),
    ("variation_selector", "Seen by Dr. [[HCW|John Smith]] today."),
    ("variation_selector_1", "Patient: [[PATIENT|Mary Jones]]"),
    ("tag", "Seen by Dr. [[HCW|John Smith]] today."),
    ("cgj", "Referring physician: Dr. [[HCW|Ellen Ripley]]"),
    ("mvs", "Patient: [[PATIENT|Mary Jones]]"),
    ("invisible_times", "Seen by Dr. [[HCW|John Smith]] today."),
    ("cyrillic+hangul_space", "Seen by Dr. [[HCW|Jacob Peters]] today."),
    ("greek+tag", "Patient: [[PATIENT|Tom Baxter]]"),
    ("math_bold+cgj", "Signed: [[HCW|Alan Grant]], MD"),
    ("cyrillic+rlo", "Patient: [[PATIENT|Maria Lopez]]"),
    ("cyrillic+variation_selector+mvs", "Seen by Dr. [[HCW|Jacob Peters]] today."),
    # medical record numbers and other identifiers
    ("circled", "MRN: [[ID|4455667]]"),
    ("circled", "Patient MRN [[ID|1462937]] admitted for chest pain."),
    ("circled", "Medical record number: [[ID|4455667]]."),
    ("neg_circled", "MRN: [[ID|7039284]]"),
    ("math_bold", "MRN: [[ID|5512093]]"),
    ("fullwidth+variation_selector", "MRN [[ID|4455667]] admitted"),
    ("circled+variation_selector", "Accession [[ID|74029351]] reviewed."),
    ("cgj", "MRN: [[ID|4455667]]"),
    ("tag", "MRN: [[ID|8830412]]"),
    ("mvs", "SSN [[ID|512-44-8830]]"),
    ("invisible_times", "MRN: [[ID|1234567]]"),
    ("rlo", "MRN: [[ID|4455667]]"),
    ("circled+rlo", "Medical record number: [[ID|9021384]]."),
    # phone numbers
    ("circled", "Phone: [[PHONE|(555) 201-3344]]"),
    ("math_bold", "call [[PHONE|617-555-0199]] today"),
    ("tag", "Tel [[PHONE|555.201.3344]]"),
    ("invisible_times+hangul_space", "Phone: [[PHONE|(555) 201-3344]]"),
    ("rlo", "Fax: [[PHONE|555-442-0198]]"),
    # dates
    ("circled", "DOB: [[DATE|03/04/1961]]"),
    ("math_sans", "Exam date [[DATE|03/04/2019]]."),
    ("cyrillic+cgj", "Seen on [[DATE|March 4, 2019]]."),
    ("greek+mvs", "Seen on [[DATE|March 4, 2019]]."),
    ("fullwidth+tag", "Date of birth: [[DATE|1961-03-04]]"),
    ("rlo", "Comparison: CT from [[DATE|12/01/2018]]."),
]


def apply_tricks(tricks: str, phi: str) -> tuple[str, str, str]:
    """`phi` disguised: (before the gold span, the gold span, after it)."""
    text, before, after = phi, "", ""
    for trick in tricks.split("+"):
        if trick == "rlo":
            text, before, after = text[::-1], RLO, PDF
        else:
            text = TRICKS[trick](text)
    return before, text, after


def build(tricks: str, markup: str) -> tuple[str, list[dict[str, object]]]:
    text, spans, pos = "", [], 0
    for match in MARK.finditer(markup):
        text += markup[pos : match.start()]
        before, gold, after = apply_tricks(tricks, match.group(2))
        if gold == match.group(2):
            raise SystemExit(f"{tricks!r} changes nothing in {match.group(2)!r}")
        text += before
        spans.append({"start": len(text), "end": len(text) + len(gold), "category": match.group(1), "text": gold})
        text += gold + after
        pos = match.end()
    return text + markup[pos:], spans


def render() -> str:
    """The JSONL text of every line (what `main` writes)."""
    if len(LINES) != 49:
        raise SystemExit(f"expected 49 lines, have {len(LINES)}")
    rows = []
    for n, (tricks, markup) in enumerate(LINES, start=1):
        text, spans = build(tricks, markup)
        for span in spans:
            assert text[span["start"] : span["end"]] == span["text"]  # type: ignore[misc]
        rows.append({"id": f"evasion/{n}", "tricks": tricks, "text": text, "spans": spans})
    return "".join(json.dumps(row, ensure_ascii=True) + "\n" for row in rows)


def main() -> None:
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote 49 lines to {OUT}")


if __name__ == "__main__":
    main()
