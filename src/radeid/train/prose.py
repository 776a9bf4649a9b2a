"""PHI-free real prose as negative training documents (no spans).

Real report prose teaches the model what clinical text without PHI looks like (exam titles,
"Xray", ICD codes, eponyms, vitals) far better than the synthetic templates. Two development
files are used, each only in part:

- `openi_iu_reports.dev.jsonl` (real chest X-ray reports; removed PHI and many harmless words are
  the literal `XXXX`): every sentence that contains `XXXX` is dropped;
- `mtsamples_subset.jsonl` (transcribed notes; a few real clinician/place names and placeholders
  such as `Dr. XYZ` remain): every sentence that could hold a name, place or date is dropped
  (see `mtsamples_sentence_ok`; deliberately over-cautious).

**Split rule (must not change; the model card repeats it):** a document is usable for training
only when `int(hashlib.sha1(id.encode()).hexdigest(), 16) % 2 == 0`; the other half of each file
is held out for evaluation. Within the usable half, `bucket(id) == "val"` (the next hash bit,
`(h // 2) % 8 == 0`, about 1 in 8) goes to validation instead of training, so the two never overlap.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path

from radeid.core import metakeys
from radeid.core.document import Document

__all__ = [
    "PROSE_SOURCE",
    "bucket",
    "is_training_half",
    "load_prose",
    "mtsamples_sentence_ok",
    "openi_sentence_ok",
    "split_sentences",
]

PROSE_SOURCE = "radeid-prose-negative"

_BOUNDARY = re.compile(r"(?:[.!?]+(?=\s)|\n)\s*")
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")
_TITLE = re.compile(r"\b(?:Dr|Drs|Mr|Mrs|Ms|Miss|Mx|Prof|Sr|Jr|MD|M\.D|D\.O|RN|PA-C|NP|PhD)\b\.?")
_PLACEHOLDER = re.compile(r"\bX{2,}\b|\bXYZ\b|\bABC\b|\bxyz\b|_{2,}|\[.*?\]", re.IGNORECASE)
_DATE_LIKE = re.compile(
    r"\b\d{1,2}[/-]\d{1,2}[/-]\d{2,4}\b"  # 3/14/2009, 03-14-09
    r"|\b\d{4}-\d{2}-\d{2}\b"  # ISO
    r"|\b(?:19|20)\d{2}\b"  # a year
    r"|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+\d"  # March 3
    r"|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b"
    r"|\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b",
    re.IGNORECASE,
)
_CONTACT = re.compile(r"@|https?:|www\.|\b\d{3}[-.)\s]\s?\d{3}[-.]\d{4}\b|#\s?\d{4,}|\b\d{6,}\b")


def _hash(doc_id: str) -> int:
    return int(hashlib.sha1(doc_id.encode()).hexdigest(), 16)


def is_training_half(doc_id: str) -> bool:
    """The split rule: True for the half of a file that may be trained on (the rest is held out)."""
    return _hash(doc_id) % 2 == 0


def bucket(doc_id: str) -> str:
    """`train`, `val` (both inside the training half) or `held_out` (never used for training)."""
    h = _hash(doc_id)
    if h % 2:
        return "held_out"
    return "val" if (h // 2) % 8 == 0 else "train"


def split_sentences(text: str) -> list[str]:
    """Sentences with their trailing whitespace; `"".join(result) == text`."""
    parts: list[str] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        parts.append(text[start : m.end()])
        start = m.end()
    if start < len(text):
        parts.append(text[start:])
    return [p for p in parts if p]


def openi_sentence_ok(sentence: str) -> bool:
    """Open-i: keep a sentence unless it holds the `XXXX` placeholder."""
    return "XXXX" not in sentence.upper() and bool(sentence.strip())


class _Vocab:
    """Lower-case words seen lower-case in the corpus (plus the allow-list), and deny lists of names/places."""

    def __init__(self, texts: Iterable[str]) -> None:
        from radeid.core.resources import bundled_data_path, iter_word_list

        self.words: set[str] = set()
        for text in texts:
            self.words.update(w for w in _WORD.findall(text) if w.islower())
        for term, _ in iter_word_list(bundled_data_path("lexicons", "allow.txt")):
            self.words.update(w.lower() for w in _WORD.findall(term))
        self.deny: set[str] = set()
        for name in ("places.txt", "hospitals.txt", "vendors.txt"):
            for term, _ in iter_word_list(bundled_data_path("lexicons", name)):
                self.deny.update(w.lower() for w in _WORD.findall(term.lstrip("=")) if w[:1].isupper())
        for term, _ in iter_word_list(bundled_data_path("lang", "en", "surrogates", "first_names_gender.tsv")):
            self.deny.add(term.lower())
        self.deny -= {"general", "medical", "center", "hospital", "health", "clinic", "university", "imaging"}


def mtsamples_sentence_ok(sentence: str, vocab: _Vocab) -> bool:
    """Keep an MTSamples sentence only when nothing in it can be a name, place, date or contact.

    Dropped: titles (`Dr.`, `Mr.`, `MD`, ...), placeholders (`XYZ`, `XXX`, `___`, `[...]`), date-like
    text (full dates, years, month + day, weekdays), contacts (phones, emails, URLs, long numbers),
    any capitalised word in the name/place deny lists, any capitalised word not seen lower-case in
    the corpus or the allow-list (even at the start of a sentence: MTSamples glues sections with
    commas, so sentence starts cannot be told reliably; brand names go too), and any all-capitals
    word longer than 5 letters not seen lower-case (short ones are abbreviations).
    """
    if not sentence.strip():
        return False
    if _TITLE.search(sentence) or _PLACEHOLDER.search(sentence) or _DATE_LIKE.search(sentence):
        return False
    if _CONTACT.search(sentence):
        return False
    for m in _WORD.finditer(sentence):
        word = m.group(0)
        if not any(c.isupper() for c in word):
            continue
        low = word.lower().strip("'-")
        if low.endswith("'s"):
            low = low[:-2]
        if low in vocab.deny:
            return False
        if word.isupper():
            if len(word) > 5 and low not in vocab.words and not all(p in vocab.words for p in low.split("-")):
                return False
            continue
        if low not in vocab.words and not all(p in vocab.words for p in low.split("-") if p):
            return False
    return True


def _read(path: Path) -> list[dict[str, object]]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _clean(text: str, keep: Callable[[str], bool]) -> tuple[str, int, int]:
    sentences = split_sentences(text)
    kept = [s for s in sentences if keep(s)]
    out = "".join(kept).strip()
    return out, len(kept), len(sentences)


def load_prose(
    openi: Path | None = None,
    mtsamples: Path | None = None,
    part: str = "train",
    stats: dict[str, int] | None = None,
) -> Iterator[Document]:
    """Negative documents (no spans) from the usable half of each file: `part` is `train` or `val`.

    A document left with no sentence is skipped. `stats` (if given) receives counts per file:
    documents and sentences in the part, and how many survive.
    """
    if part not in ("train", "val"):
        raise ValueError("part must be train or val (the held-out half is never loaded)")
    counts = stats if stats is not None else {}
    sources: list[tuple[str, Path, _Vocab | None]] = []
    if openi is not None:
        sources.append(("openi", Path(openi), None))
    if mtsamples is not None:
        records = _read(Path(mtsamples))
        sources.append(("mtsamples", Path(mtsamples), _Vocab(str(r.get("text", "")) for r in records)))
    for name, path, vocab in sources:
        for record in _read(path):
            doc_id = str(record["id"])
            if bucket(doc_id) != part:
                continue
            text = str(record.get("text", ""))
            if vocab is None:
                out, kept, total = _clean(text, openi_sentence_ok)
            else:
                out, kept, total = _clean(text, partial(mtsamples_sentence_ok, vocab=vocab))
            counts[f"{name}_documents"] = counts.get(f"{name}_documents", 0) + 1
            counts[f"{name}_sentences"] = counts.get(f"{name}_sentences", 0) + total
            counts[f"{name}_sentences_kept"] = counts.get(f"{name}_sentences_kept", 0) + kept
            if not out:
                continue
            counts[f"{name}_documents_kept"] = counts.get(f"{name}_documents_kept", 0) + 1
            metadata = {metakeys.SOURCE: PROSE_SOURCE, metakeys.ORIGIN: name}
            yield Document(id=f"prose-{doc_id}", text=out, metadata=metadata)
