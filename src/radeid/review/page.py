"""The review page of a run (`radeid review`): one self-contained HTML file that shows each
de-identified document with every replaced span highlighted by category, and lets a reviewer
mark over-redactions and missed PHI and export them as gold JSONL.

The page is built from what `radeid deid` wrote: the output documents, the audit beside them
(`radeid.io.audit`) and, only when the user gives them, the vault and its key (then the page
shows the originals too, and is itself PHI: it is written with mode 0600).

Safety of the page, decided here once:

* Document text is never HTML. Everything the page shows comes from one JSON island
  (`<script type="application/json">`) in which `<`, `>`, `&` and `/` are written as
  `\\u003c`, `\\u003e`, `\\u0026`, `\\/`, so no text can close the element (nor spell a
  URL); the script builds the view with text nodes only (`textContent`, never `innerHTML`).
* An audit that is not this output's (ids the output does not hold, offsets past the text or
  cutting words) is never shown as if it were: `load_review` reports it in `ReviewData.mismatch`,
  the page carries a warning banner, the originals stay out, and `radeid review` exits 2.
* No network: a Content-Security-Policy with `default-src 'none'` admits only the page's own
  inline style and script, by hash; there is no external asset, font or image.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import random
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from radeid import __version__
from radeid.core.categories import Category
from radeid.core.document import Document
from radeid.core.resources import bundled_data_path
from radeid.io.audit import AuditRecord, read_audit
from radeid.io.errors import RadeidIOError
from radeid.io.formats import InputFormat
from radeid.io.readers import ReadOptions, read_documents
from radeid.secure.vault import VaultRow, read_vault

__all__ = [
    "CATEGORY_COLOURS",
    "AuditCheck",
    "ReviewData",
    "ReviewDocument",
    "ReviewError",
    "ReviewSpan",
    "build_page",
    "load_review",
    "write_page",
]

#: One background colour per category (light, so the text stays readable), used by the legend too.
CATEGORY_COLOURS: dict[str, str] = {
    "DATE": "#ffd59e",
    "PATIENT": "#ff9e9e",
    "HCW": "#ffb3d9",
    "HOSPITAL": "#b3d1ff",
    "LOCATION": "#a8e6cf",
    "VENDOR": "#d9c2ff",
    "ID": "#ffe680",
    "PHONE": "#9ee7ff",
    "EMAIL": "#c2f0a8",
    "URL": "#e0e0a0",
    "IP": "#f0c2a8",
    "AGE": "#c8c8ff",
}
assert set(CATEGORY_COLOURS) == {c.value for c in Category}


class ReviewError(RadeidIOError, ValueError):
    """The output, audit and vault do not fit together (names the document, never its text)."""


@dataclass(frozen=True)
class ReviewSpan:
    """One replacement: where it is in the de-identified text, what it was judged to be, and
    (with the vault) the original value and where it is in the original text."""

    out_start: int
    out_end: int
    category: str
    subtype: str | None
    source: str
    score: float
    original: str | None = None
    orig_start: int | None = None
    orig_end: int | None = None

    def to_json(self) -> dict[str, Any]:
        row: dict[str, Any] = {
            "start": self.out_start,
            "end": self.out_end,
            "category": self.category,
            "subtype": self.subtype,
            "source": self.source,
            "score": self.score,
        }
        if self.original is not None:
            row.update(original=self.original, orig_start=self.orig_start, orig_end=self.orig_end)
        return row


@dataclass
class ReviewDocument:
    id: str
    text: str
    spans: list[ReviewSpan]
    original_text: str | None = None

    def to_json(self) -> dict[str, Any]:
        row: dict[str, Any] = {"id": self.id, "text": self.text, "spans": [s.to_json() for s in self.spans]}
        if self.original_text is not None:
            row["original_text"] = self.original_text
        return row


@dataclass
class ReviewData:
    documents: list[ReviewDocument]
    has_originals: bool
    total_documents: int
    sample: int | None = None
    seed: int | None = None
    source_name: str = ""
    notes: list[str] = field(default_factory=list)
    #: How the audit fits the output; `mismatch` says what is wrong (naming both files) when it does not.
    audit_check: AuditCheck | None = None
    mismatch: str | None = None

    def summary(self) -> tuple[list[str], list[str], dict[tuple[str, str], int]]:
        """Categories, sources and the span count of each (category, source) pair."""
        counts: Counter[tuple[str, str]] = Counter((s.category, s.source) for doc in self.documents for s in doc.spans)
        order = [c.value for c in Category]
        categories = sorted({c for c, _ in counts}, key=lambda c: (order.index(c) if c in order else 99, c))
        sources = sorted({s for _, s in counts})
        return categories, sources, dict(counts)


# ------------------------------------------------------------------------------------ loading


def _documents(output: Path, fmt: InputFormat | str | None, options: ReadOptions | None) -> Iterator[Document]:
    for item in read_documents(output, fmt, options or ReadOptions(warn_duplicates=False)):
        if isinstance(item, Document):
            yield item


def sample_documents(docs: Iterable[Document], n: int | None, seed: int) -> tuple[list[Document], int]:
    """`n` documents drawn uniformly with a seeded RNG (reservoir sampling: memory is `n`
    documents), in their file order; all of them when `n` is None. Also returns how many
    documents there were. The same input, `n` and `seed` give the same sample."""
    if n is None:
        everything = list(docs)
        return everything, len(everything)
    rng = random.Random(seed)
    reservoir: list[tuple[int, Document]] = []
    count = 0
    for i, doc in enumerate(docs):
        count += 1
        if len(reservoir) < n:
            reservoir.append((i, doc))
        else:
            j = rng.randrange(i + 1)
            if j < n:
                reservoir[j] = (i, doc)
    return [doc for _, doc in sorted(reservoir, key=lambda pair: pair[0])], count


def _originals(doc: Document, spans: list[ReviewSpan], rows: Sequence[VaultRow]) -> ReviewDocument:
    """Pair each span with its vault row (by output offsets) and rebuild the original text,
    recording where each original value lands in it."""
    by_offsets = {(r.out_start, r.out_end): r for r in rows}
    if len(by_offsets) != len(rows) or set(by_offsets) != {(s.out_start, s.out_end) for s in spans}:
        raise ReviewError(f"document {doc.id!r}: the vault and the audit do not list the same replacements")
    pieces: list[str] = []
    cursor = length = 0
    paired: list[ReviewSpan] = []
    for span in spans:  # sorted by out_start, non-overlapping
        row = by_offsets[(span.out_start, span.out_end)]
        if span.out_start < cursor or doc.text[span.out_start : span.out_end] != row.surrogate:
            raise ReviewError(
                f"document {doc.id!r}: the text at [{span.out_start}, {span.out_end}) is not the surrogate "
                "the vault recorded (was the output edited after de-identification?)"
            )
        gap = doc.text[cursor : span.out_start]
        pieces += [gap, row.original]
        start = length + len(gap)
        length = start + len(row.original)
        cursor = span.out_end
        paired.append(
            ReviewSpan(span.out_start, span.out_end, span.category, span.subtype, span.source, span.score,
                       row.original, start, length)
        )  # fmt: skip
    pieces.append(doc.text[cursor:])
    return ReviewDocument(doc.id, doc.text, paired, "".join(pieces))


def _seen(docs: Iterable[Document], ids: set[str]) -> Iterator[Document]:
    """`docs`, adding each id to `ids` (the sample keeps only some documents; the audit check needs all)."""
    for doc in docs:
        ids.add(doc.id)
        yield doc


#: Above this share of replacements that start or end inside a word, the audit is another run's
#: (a run's own audit: under 1 in 100, a datetime's `T` say; another run's: a third to nine tenths).
SPLIT_WORD_LIMIT = 0.25
#: ... counted only from this many replacements on (a handful proves nothing).
SPLIT_WORD_MIN = 4


@dataclass(frozen=True)
class AuditCheck:
    """How the audit fits the output it is shown with (counts and ids only, never text): an
    audit that lists documents the output does not hold, or whose offsets do not fit the output
    text, is another run's, and the page would show wrong or no replacements."""

    audit_documents: int = 0
    foreign: int = 0
    foreign_example: str | None = None
    unfit: int = 0
    unfit_example: str | None = None
    split: int = 0
    checked: int = 0

    @property
    def split_words(self) -> bool:
        """Too many replacements cut a word in two: the offsets are not this output's."""
        return self.checked >= SPLIT_WORD_MIN and self.split > SPLIT_WORD_LIMIT * self.checked

    @property
    def matches(self) -> bool:
        return not (self.foreign or self.unfit or self.split_words)

    def problems(self) -> list[str]:
        """One phrase per problem found, with its counts and an example id."""
        found: list[str] = []
        if self.foreign == self.audit_documents and self.foreign:
            found.append(
                f"none of its {self.foreign} document id(s) is in the output (e.g. id {self.foreign_example!r})"
            )
        elif self.foreign:
            found.append(
                f"{self.foreign} of its {self.audit_documents} document id(s) are not in the output "
                f"(e.g. id {self.foreign_example!r})"
            )
        if self.unfit:
            found.append(
                f"the replacements of {self.unfit} document(s) do not fit their output text "
                f"(e.g. id {self.unfit_example!r}; shown without replacements)"
            )
        if self.split_words:
            found.append(f"{self.split} of {self.checked} replacements start or end inside a word of the output text")
        return found

    def message(self, audit: str | os.PathLike[str], output: str | os.PathLike[str]) -> str:
        """What is wrong, naming both files."""
        return f"the audit {str(audit)!r} does not match the output {str(output)!r}: " + "; ".join(self.problems())


def _audit_records(
    audit: str | os.PathLike[str], wanted: set[str], every_id: set[str]
) -> tuple[dict[str, list[AuditRecord]], AuditCheck]:
    """The audit records of the `wanted` documents, and how many documents the audit lists that
    the output (`every_id`) does not hold: another run's audit would show no replacements."""
    records: dict[str, list[AuditRecord]] = {}
    listed: set[str] = set()
    foreign: set[str] = set()
    for record in read_audit(audit):
        listed.add(record.doc_id)
        if record.doc_id in wanted:
            records.setdefault(record.doc_id, []).append(record)
        elif record.doc_id not in every_id:
            foreign.add(record.doc_id)
    return records, AuditCheck(len(listed), len(foreign), min(foreign) if foreign else None)


def _splits_word(text: str, start: int, end: int) -> bool:
    """Whether [start, end) starts or ends inside a word (a replacement of this text never
    should, bar the rare `2019-03-04T10:15`)."""
    inside_start = 0 < start < len(text) and text[start - 1].isalnum() and text[start].isalnum()
    inside_end = 0 < end < len(text) and text[end - 1].isalnum() and text[end].isalnum()
    return inside_start or inside_end


def _fit_spans(docs: Sequence[Document], records: Mapping[str, list[AuditRecord]], check: AuditCheck) -> tuple[
    dict[str, list[ReviewSpan]], AuditCheck
]:  # fmt: skip
    """Each document's spans, sorted; a document whose spans overrun its text or overlap gets
    none (and is counted in the check), and the spans that cut a word are counted."""
    spans_of: dict[str, list[ReviewSpan]] = {}
    unfit: list[str] = []
    split = checked = 0
    for doc in docs:
        spans = sorted(
            (ReviewSpan(r.out_start, r.out_end, r.category.value, r.subtype, r.source, r.score)
             for r in records.get(doc.id, ())),
            key=lambda s: (s.out_start, s.out_end),
        )  # fmt: skip
        ends = [0] + [s.out_end for s in spans]
        if any(s.out_end > len(doc.text) or s.out_start < end for s, end in zip(spans, ends, strict=False)):
            unfit.append(doc.id)
            spans = []
        split += sum(_splits_word(doc.text, s.out_start, s.out_end) for s in spans)
        checked += len(spans)
        spans_of[doc.id] = spans
    example = min(unfit) if unfit else None
    return spans_of, replace(check, unfit=len(unfit), unfit_example=example, split=split, checked=checked)


def load_review(
    output: str | os.PathLike[str],
    *,
    audit: str | os.PathLike[str],
    vault: str | os.PathLike[str] | None = None,
    key: bytes | None = None,
    sample: int | None = None,
    seed: int = 0,
    fmt: InputFormat | str | None = None,
    options: ReadOptions | None = None,
) -> ReviewData:
    """Read a run's output (a sample of it with `sample`), its audit and, with `vault` and `key`,
    its originals. An audit that does not match the output is reported in `ReviewData.audit_check`
    (the page then says so and leaves the originals out); raises `WrongKeyError`/`VaultError` from
    the vault and `ReviewError` when the vault does not match the audit."""
    if (vault is None) != (key is None):
        raise ValueError("the originals need both the vault and its key")
    if sample is not None and sample < 1:
        raise ValueError("--sample must be at least 1")
    every_id: set[str] = set()
    docs, total = sample_documents(_seen(_documents(Path(output), fmt, options), every_id), sample, seed)
    wanted = {doc.id for doc in docs}
    records, check = _audit_records(audit, wanted, every_id)
    spans_of, check = _fit_spans(docs, records, check)
    notes: list[str] = []
    if sample is not None and total > len(docs):
        notes.append(f"a seeded sample: {len(docs)} of {total} documents (seed {seed})")
    data = ReviewData([], False, total, sample, seed if sample is not None else None, Path(output).name, notes)
    data.audit_check = check
    data.mismatch = None if check.matches else check.message(audit, output)
    if vault is None or key is None or data.mismatch is not None:  # originals only where the audit fits
        data.documents = [ReviewDocument(doc.id, doc.text, spans_of[doc.id]) for doc in docs]
        return data
    vault_rows = read_vault(Path(vault), key, doc_ids=wanted)
    missing = wanted - vault_rows.keys()
    if missing:
        raise ReviewError(f"{len(missing)} document(s) of the output are not in the vault (e.g. {min(missing)!r})")
    data.documents = [_originals(doc, spans_of[doc.id], vault_rows[doc.id]) for doc in docs]
    data.has_originals = True
    return data


# ------------------------------------------------------------------------------------ the page


def _json_island(data: Any) -> str:
    """JSON that cannot end its `<script>` element or start a comment: `<`, `>`, `&` and `/`
    escaped (so a URL in a document does not read as one in the page either)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("/", "\\/")


def _csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def _summary_table(data: ReviewData) -> str:
    categories, sources, counts = data.summary()
    if not categories:
        return "<p>No replacements in these documents.</p>"
    esc = html.escape
    head = "".join(f'<th><span class="hl cat-{esc(c)}">{esc(c)}</span></th>' for c in categories)
    rows = []
    for src in sources:
        cells = "".join(f"<td>{counts.get((c, src), 0)}</td>" for c in categories)
        total = sum(counts.get((c, src), 0) for c in categories)
        rows.append(f"<tr><th>{esc(src)}</th>{cells}<td>{total}</td></tr>")
    totals = "".join(f"<td>{sum(counts.get((c, s), 0) for s in sources)}</td>" for c in categories)
    rows.append(f"<tr><th>all sources</th>{totals}<td>{sum(counts.values())}</td></tr>")
    return (
        '<table id="summary"><thead><tr><th>source \\ category</th>'
        f"{head}<th>all</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _banner(data: ReviewData) -> str:
    if data.has_originals:
        return (
            '<div class="banner phi" id="banner">This page shows ORIGINAL text from the vault: it is '
            "protected health information. Keep it as private as the vault (it was written readable by "
            "you only), never share or upload it, and delete it when the review is done.</div>"
        )
    return (
        '<div class="banner" id="banner">Originals are not shown: only the de-identified text and its '
        "replacements (give <code>--vault</code> and <code>--key-file</code> to see the originals "
        "side by side).</div>"
    )


def _audit_banner(data: ReviewData) -> str:
    """A warning at the top of the page when the audit is not this output's (else nothing)."""
    if data.mismatch is None:
        return ""
    return (
        '<div class="banner mismatch" id="audit-banner" role="alert">Warning: '
        f"{html.escape(data.mismatch)}. The replacements shown here are wrong or missing: review with the "
        "run's own audit (<code>--audit</code>).</div>"
    )


def _filters(data: ReviewData) -> dict[str, str]:
    """The category and detector filter checkboxes, each with its count of replacements."""
    esc = html.escape
    by_category = Counter(s.category for doc in data.documents for s in doc.spans)
    by_source = Counter(s.source for doc in data.documents for s in doc.spans)
    return {
        "CATEGORY_COUNT": str(len(CATEGORY_COLOURS)),
        "SOURCE_COUNT": str(len(by_source)),
        "CATEGORY_FILTERS": "".join(
            f'<label><input type="checkbox" class="f-cat" value="{esc(c)}" checked> '
            f'<span class="hl cat-{esc(c)}">{esc(c)}</span> <span class="n">{by_category[c]}</span></label>\n'
            for c in CATEGORY_COLOURS
        ),
        "SOURCE_FILTERS": "".join(
            f'<label><input type="checkbox" class="f-src" value="{esc(s, quote=True)}" checked> {esc(s)} '
            f'<span class="n">{by_source[s]}</span></label>\n'
            for s in sorted(by_source)
        ),
    }


def build_page(data: ReviewData) -> str:
    """The whole page, as one HTML string (no external resource of any kind)."""
    folder = bundled_data_path("review")
    template = (folder / "page.html").read_text(encoding="utf-8")
    colours = "".join(
        f".cat-{cat}{{background:{colour}}}\n.legend .cat-{cat}{{background:{colour}}}\n"
        for cat, colour in CATEGORY_COLOURS.items()
    )
    style = (folder / "page.css").read_text(encoding="utf-8") + colours
    script = (folder / "page.js").read_text(encoding="utf-8")
    csp = (
        f"default-src 'none'; style-src {_csp_hash(style)}; script-src {_csp_hash(script)}; "
        "img-src 'none'; connect-src 'none'; font-src 'none'; media-src 'none'; object-src 'none'; "
        "frame-src 'none'; worker-src 'none'; form-action 'none'; base-uri 'none'"
    )
    payload = {
        "documents": [doc.to_json() for doc in data.documents],
        "has_originals": data.has_originals,
        "categories": list(CATEGORY_COLOURS),
    }
    esc = html.escape
    about = f"{len(data.documents)} document(s) from {data.source_name}"
    if data.notes:
        about += "; " + "; ".join(data.notes)
    values = {
        "CSP": csp.replace("&", "&amp;").replace('"', "&quot;"),
        "STYLE": style,
        "SCRIPT": script,
        "DATA": _json_island(payload),
        "BANNER": _banner(data),
        "AUDIT_BANNER": _audit_banner(data),
        "SUMMARY": _summary_table(data),
        "ABOUT": esc(about),
        "VERSION": esc(__version__),
        "CATEGORY_OPTIONS": "".join(f'<option value="{esc(c)}">{esc(c)}</option>' for c in CATEGORY_COLOURS),
        **_filters(data),
    }
    # One pass, so a value (a document's text in DATA) is never itself searched for placeholders.
    return re.sub(r"\{\{([A-Z_]+)\}\}", lambda m: values[m.group(1)], template)


def write_page(path: str | os.PathLike[str], page: str, *, private: bool) -> None:
    """Write the page; readable by the owner only (0600) when `private` (it holds originals).
    Written to a temporary file beside it first, so a failed write leaves no partial page."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if private else 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(page)
        if private:
            os.chmod(tmp, 0o600)  # whatever the umask did
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
