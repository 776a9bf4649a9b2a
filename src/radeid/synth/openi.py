"""Real carrier text: Open-i chest X-ray prose with each `XXXX` filled from its context.

The Open-i file is research-only: it is read from a path given at run time and never bundled.
Each run of `XXXX` becomes, by its context, a labelled surrogate (a date, an age over 89, a
clinician's name) or an unlabelled plain word or time, so the real prose around it is kept.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from radeid.core.categories import Category as C

if TYPE_CHECKING:
    from radeid.synth.builder import DocBuilder
    from radeid.synth.parts import Ctx

__all__ = ["load_openi", "openi_report"]

_RUN = re.compile(r"XXXX(?:(?:, | |-)XXXX)*")
_DATE_CUE = re.compile(
    r"(?:dated|on|from|of|since|comparison:?|examination:?|chest,?|lateral,?|views?|study|exam|\d+|and)\s*$", re.I
)
_WORD_AFTER = {"are": "lungs", "is": "heart", "and": "vasculature", "of": "evidence", "examination": "current"}
_WORDS = ("likely", "possible", "mild", "the", "chronic", "minimal", "stable", "prior")


@lru_cache(maxsize=2)
def load_openi(path: str) -> tuple[str, ...]:
    """The report texts of an Open-i JSONL file (kept in memory once per process)."""
    texts: list[str] = []
    with open(path, encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}, line {lineno}: malformed JSON ({exc.msg})") from None
            text = obj.get("text") if isinstance(obj, dict) else None
            if isinstance(text, str) and text.strip():
                texts.append(text)
    if not texts:
        raise ValueError(f"{path}: no report texts found")
    return tuple(texts)


def _fill(b: DocBuilder, ctx: Ctx, before: str, after: str, run: str) -> None:
    """Append the filler for one `XXXX` run, labelled when it stands for PHI."""
    r, f = ctx.rng, ctx.fakes
    line = before.rsplit("\n", 1)[-1].upper()
    if after.startswith(("-year", " year")):
        if ctx.age > 89:
            b.phi(str(ctx.age), C.AGE)
        else:
            b.text(str(ctx.age))
    elif before.endswith(("year-old ", "year old ")):
        b.text(r.choice(("male", "female", "man", "woman")))
    elif after.startswith((" PM", " AM", " p.m", " a.m", " hours", " a", " p")) and before.endswith("at "):
        b.negative(f.time_text().split(" ")[0])
    elif after.startswith((" PM", " AM", " hours")):
        b.negative(f"{r.randrange(1, 12)}:{r.randrange(60):02d}")
    elif before.endswith("x-"):
        b.text("ray")
    elif before.endswith(("Dr. ", "Dr ")):
        b.phi(f.doctor_name(ctx.referrer, titled=True), C.HCW)
    elif "," in run or line.startswith(("COMPARISON", "EXAMINATION")) or _DATE_CUE.search(before[-20:]):
        day = ctx.exam - timedelta(days=r.randrange(0, 900) if line.startswith("COMPARISON") else 0)
        b.phi(f.date_text(day, 3 if "," in run else None), C.DATE)
    else:
        nxt = after.strip().split(" ", 1)[0].strip(".,").lower() if after.strip() else ""
        b.text(_WORD_AFTER.get(nxt) or r.choice(_WORDS))


def openi_report(b: DocBuilder, ctx: Ctx, path: Path) -> None:
    """A synthetic header, one real Open-i report body with its gaps filled, and a signature."""
    from radeid.synth.kinds import REPORT_KINDS
    from radeid.synth.report import header, signature

    texts = load_openi(str(path))
    body = texts[ctx.rng.randrange(len(texts))]
    header(b, ctx, "chest_xray", REPORT_KINDS["chest_xray"])
    cursor = 0
    for match in _RUN.finditer(body):
        b.text(body[cursor : match.start()])
        _fill(
            b,
            ctx,
            body[max(0, match.start() - 40) : match.start()],
            body[match.end() : match.end() + 12],
            match.group(),
        )
        cursor = match.end()
    b.text(body[cursor:].rstrip())
    b.newline(2)
    signature(b, ctx)
