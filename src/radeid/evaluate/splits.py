"""Document splits of the development sets that are fixed by the document id alone.

A model trained on part of a labelled set may only be scored on the rest; deciding the split from a
hash of the id (never from file order) keeps it the same on every machine and for every script:
`scripts/build_meddocan_trainset.py` trains on `train`, picks checkpoints on `val`, and
`benchmarks/integrity.py` and `benchmarks/language.py` score `heldout`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from typing import Literal

from radeid.core.categories import Category
from radeid.core.document import Document

__all__ = ["MEDDOCAN_HELD_OUT_MOD", "meddocan_split", "without_policy_ages"]

#: One MEDDOCAN document in this many (by id hash) is held out from the Spanish model's training.
MEDDOCAN_HELD_OUT_MOD = 5


def meddocan_split(doc_id: str) -> Literal["train", "val", "heldout"]:
    """`heldout` when `sha1(id) % 5 == 0`; of the rest, `val` when `(h // 5) % 8 == 0`, else `train`."""
    h = int(hashlib.sha1(doc_id.encode()).hexdigest(), 16)
    if h % MEDDOCAN_HELD_OUT_MOD == 0:
        return "heldout"
    return "val" if (h // MEDDOCAN_HELD_OUT_MOD) % 8 == 0 else "train"


_NUMBER = re.compile(r"\d+")


def without_policy_ages(doc: Document, age_threshold: int = 89) -> Document:
    """`doc` without its gold ages of `age_threshold` or less: radeid's policy makes only older ages PHI,
    while MEDDOCAN labels every age (training and scoring both follow the policy)."""
    kept = []
    for span in doc.spans:
        if span.category is Category.AGE:
            number = _NUMBER.search(doc.text[span.start : span.end])
            if number is None or int(number.group()) <= age_threshold:
                continue
        kept.append(span)
    return dataclasses.replace(doc, spans=tuple(kept))
