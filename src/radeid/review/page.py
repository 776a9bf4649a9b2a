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
from dataclasses import dataclass, field
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


class AuditMismatchError(ReviewError):
    """The audit lists documents the output does not hold: it is another run's (a usage error)."""


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


def _audit_records(audit: str | os.PathLike[str], wanted: set[str], every_id: set[str]) -> dict[str, list[AuditRecord]]:
    """The audit records of the `wanted` documents; `AuditMismatchError` when the audit lists a
    document the output (`every_id`) does not hold: another run's audit would show no replacements."""
    records: dict[str, list[AuditRecord]] = {}
    foreign: set[str] = set()
    for record in read_audit(audit):
        if record.doc_id in wanted:
            records.setdefault(record.doc_id, []).append(record)
        elif record.doc_id not in every_id:
            foreign.add(record.doc_id)
    if foreign:
        raise AuditMismatchError(
            f"the audit {str(audit)!r} lists {len(foreign)} document(s) that are not in the output "
            f"(e.g. id {min(foreign)!r}): it is not the audit of this output; pass the run's own --audit"
        )
    return records


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
    its originals. Raises `ReviewError` when an audit span does not fit its document, and
    `WrongKeyError`/`VaultError` from the vault."""
    if (vault is None) != (key is None):
        raise ValueError("the originals need both the vault and its key")
    if sample is not None and sample < 1:
        raise ValueError("--sample must be at least 1")
    every_id: set[str] = set()
    docs, total = sample_documents(_seen(_documents(Path(output), fmt, options), every_id), sample, seed)
    wanted = {doc.id for doc in docs}
    records = _audit_records(audit, wanted, every_id)
    notes: list[str] = []
    vault_rows: Mapping[str, Sequence[VaultRow]] = {}
    if vault is not None and key is not None:
        vault_rows = read_vault(Path(vault), key, doc_ids=wanted)
        missing = wanted - vault_rows.keys()
        if missing:
            raise ReviewError(f"{len(missing)} document(s) of the output are not in the vault (e.g. {min(missing)!r})")
    out: list[ReviewDocument] = []
    for doc in docs:
        spans = sorted(
            (
                ReviewSpan(r.out_start, r.out_end, r.category.value, r.subtype, r.source, r.score)
                for r in records.get(doc.id, ())
            ),
            key=lambda s: (s.out_start, s.out_end),
        )
        cursor = 0
        for span in spans:
            if span.out_end > len(doc.text) or span.out_start < cursor:
                raise ReviewError(
                    f"document {doc.id!r}: audit span [{span.out_start}, {span.out_end}) does not fit the "
                    "output text (is this the audit of this output?)"
                )
            cursor = span.out_end
        if vault is not None:
            out.append(_originals(doc, spans, vault_rows[doc.id]))
        else:
            out.append(ReviewDocument(doc.id, doc.text, spans))
    if sample is not None and total > len(docs):
        notes.append(f"a seeded sample: {len(docs)} of {total} documents (seed {seed})")
    return ReviewData(out, vault is not None, total, sample, seed if sample is not None else None,
                      Path(output).name, notes)  # fmt: skip


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
    sources = sorted({s.source for doc in data.documents for s in doc.spans})
    about = f"{len(data.documents)} document(s) from {data.source_name}"
    if data.notes:
        about += "; " + "; ".join(data.notes)
    values = {
        "CSP": csp.replace("&", "&amp;").replace('"', "&quot;"),
        "STYLE": style,
        "SCRIPT": script,
        "DATA": _json_island(payload),
        "BANNER": _banner(data),
        "SUMMARY": _summary_table(data),
        "ABOUT": esc(about),
        "VERSION": esc(__version__),
        "CATEGORY_FILTERS": "".join(
            f'<label><input type="checkbox" class="f-cat" value="{esc(c)}" checked> '
            f'<span class="hl cat-{esc(c)}">{esc(c)}</span></label> '
            for c in CATEGORY_COLOURS
        ),
        "SOURCE_FILTERS": "".join(
            f'<label><input type="checkbox" class="f-src" value="{esc(s, quote=True)}" checked> {esc(s)}</label> '
            for s in sources
        ),
        "CATEGORY_OPTIONS": "".join(f'<option value="{esc(c)}">{esc(c)}</option>' for c in CATEGORY_COLOURS),
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
