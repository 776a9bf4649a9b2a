"""The re-identification vault: one encrypted Parquet row per replacement, plus one row per document.

(about 580 lines, kept whole for now: writer, reader and the binding of rows share the key schedule and
format constants; the seam is writer vs reader, to split when either grows.)

Why this shape: the de-identified text already holds every surrogate, and
`Result.output_offsets()` says where each one sits, so the vault needs only the replacements
themselves to turn the output back into the original exactly. Nothing of the untouched text is
stored.

File layout (Parquet, format 2). Three kinds of row, told apart by `seq`:

* a document row (`seq = -1`), one per document *including documents without PHI*, so that a
  document missing from the vault, or a vault of another run, is detected: `doc_id` and
  `patient_id` encrypted, `original` = the encrypted number of replacement rows of the document,
  `original_id` = the encrypted id the document had before `pseudonymize_ids` wrote a pseudonym
  as its `doc_id` ("" when the id was not pseudonymized; format 3), `text_digest` = the encrypted
  SHA-256 (hex) of the document's de-identified text (format 4);
* replacement rows (`seq = 0..n-1`), in text order: `start, end` (offsets in the original),
  `out_start, out_end` (in the de-identified text), `category`, `subtype`, `surrogate` (plain: it
  is already in the output) and `original` = AES-GCM(original text of the span);
* one trailer row (`doc_tag = ""`, `seq = -2`), last: the encrypted counts of documents and rows.

    doc_tag     string   HMAC(tag key, doc id), hex: find a document's rows without decrypting
    doc_id      binary   AES-GCM(doc id, as written to the output) on the document row, else null
    patient_id  binary   AES-GCM(patient id) on the document row, else null
    original_id binary   AES-GCM(the id before pseudonymization, or "") on the document row, else null
    text_digest binary   AES-GCM(SHA-256 hex of the de-identified text) on the document row, else null
    seq, start, end, out_start, out_end  int32;  category, subtype, surrogate  string
    original    binary   see above

Crypto: a 32-byte master key = scrypt(user secret, random 16-byte salt, n, r, p); the salt and
cost sit in the Parquet metadata, and the cost read back is bounded (a crafted file cannot ask for
gigabytes or minutes). Encryption and tag keys are HMAC-derived from the master key. Every
ciphertext is nonce (12 bytes: a random per-file prefix and a counter; the key is unique to the
file) || AES-256-GCM(value), with associated data binding it to this file, its field and *every
plain column of its row* (tag, seq, offsets, category, subtype, surrogate). The document row binds
the row count of its document and the trailer the counts of the file, so a row that is moved,
edited, swapped, added or deleted, a document dropped or the file truncated all fail with
`VaultError`: a restore is complete and exact, or it does not happen. A check value (a constant
encrypted under the key) makes a wrong key fail fast with `WrongKeyError`, before any row is
touched. Offsets and categories are plain: they reveal the lengths of the originals, not their
content.

The text digest binds the vault to the de-identified text as a whole (issue 27): without it, only
the surrogates' own positions were checked, so an edit between surrogates that kept the length was
"restored" into a text that was never the original. `reidentify_path` refuses a text whose digest
differs. Vaults of formats 2 and 3 (no digest) stay readable; `VaultContents.binds_text` is False
for them, and `radeid reidentify` says that such an edit cannot be detected.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from radeid.core import metakeys
from radeid.core.document import Result
from radeid.io.commit import Move, apply_moves, fsync_file, temporary_prefix
from radeid.io.errors import naming

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

__all__ = [
    "VaultContents",
    "VaultError",
    "VaultMismatchError",
    "VaultMissingError",
    "VaultRow",
    "VaultWriter",
    "WrongKeyError",
    "read_vault",
    "read_vault_contents",
    "read_vault_ids",
    "reidentify",
    "reidentify_text",
    "text_digest",
]

FORMAT_VERSION = "4"
# format 2 had no original_id column (its ids were never pseudonymized); 2 and 3 no text_digest
_READABLE = (b"2", b"3", b"4")
_AAD = b"radeid-vault-v2"
_DOC_SEQ, _TRAILER_SEQ = -1, -2
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
#: Bounds on the scrypt cost read from a vault (the writer uses n=2**15, r=8, p=1: 32 MiB).
_MAX_SCRYPT_MEMORY = 1 << 30  # 128 * n * r bytes
_MAX_SCRYPT_WORK = 1 << 22  # n * r * p (16x the default)
_CHECK_PLAIN = b"radeid vault key check"
#: Column names of a vault, in order (`_schema` gives their Parquet types).
_COLUMNS = (
    "doc_tag", "doc_id", "patient_id", "original_id", "seq", "start", "end", "out_start", "out_end",
    "category", "subtype", "original", "surrogate", "text_digest",
)  # fmt: skip


@cache
def _schema() -> pa.Schema:
    """The vault's Parquet schema. pyarrow is imported here, not at module level: every `radeid deid`
    process imports this module, and pyarrow (with numpy) costs ~0.2 CPU s to import in each of
    them, while only a run with `--vault` (or `reidentify`) needs it."""
    import pyarrow as pa

    schema = pa.schema(
        [
            ("doc_tag", pa.string()),
            ("doc_id", pa.binary()),
            ("patient_id", pa.binary()),
            ("original_id", pa.binary()),
            ("seq", pa.int32()),
            ("start", pa.int32()),
            ("end", pa.int32()),
            ("out_start", pa.int32()),
            ("out_end", pa.int32()),
            ("category", pa.string()),
            ("subtype", pa.string()),
            ("original", pa.binary()),
            ("surrogate", pa.string()),
            ("text_digest", pa.binary()),
        ]
    )
    assert tuple(schema.names) == _COLUMNS
    return schema


class VaultError(Exception):
    """The vault cannot be used (damaged, altered, or not a radeid vault)."""


class WrongKeyError(VaultError):
    """The key given does not open this vault."""


class VaultMismatchError(VaultError):
    """The de-identified text no longer matches the vault (it was edited afterwards)."""


class VaultMissingError(VaultError):
    """A document is not in the vault, or the vault holds documents the input does not."""


def text_digest(text: str) -> str:
    """SHA-256 (hex) of a de-identified text, as the vault records it (stored encrypted)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class VaultRow:
    """One replacement, decrypted."""

    doc_id: str
    patient_id: str | None
    seq: int
    start: int
    end: int
    out_start: int
    out_end: int
    category: str
    subtype: str | None
    original: str
    surrogate: str


class _Keys:
    """Keys derived from the user's secret for one vault file."""

    def __init__(self, secret: bytes, salt: bytes, n: int, r: int, p: int, file_id: bytes) -> None:
        if not secret:
            raise ValueError("the vault key must be non-empty bytes")
        master = Scrypt(salt=salt, length=32, n=n, r=r, p=p).derive(bytes(secret))
        self.aead = AESGCM(hmac.digest(master, b"radeid/vault/v1/encrypt", "sha256"))
        self._tag_key = hmac.digest(master, b"radeid/vault/v1/doc-tag", "sha256")
        self.file_id = file_id
        self._prefix = os.urandom(4)
        self._counter = 0

    def tag(self, doc_id: str) -> str:
        return hmac.digest(self._tag_key, doc_id.encode("utf-8", "surrogatepass"), "sha256").hex()[:32]

    def _aad(self, field: str, row: Sequence[object]) -> bytes:
        # Every plain column of the row is bound (JSON keeps None, ints and strings apart).
        plain = json.dumps(list(row), ensure_ascii=True, separators=(",", ":")).encode()
        return b"|".join((_AAD, self.file_id, field.encode(), plain))

    def seal(self, value: str, field: str, row: Sequence[object]) -> bytes:
        # The encryption key is unique to this file (random salt), so a counter after a random
        # prefix never repeats a nonce under a key, and costs no system call per value.
        self._counter += 1
        nonce = self._prefix + self._counter.to_bytes(8, "big")
        raw = value.encode("utf-8", "surrogatepass")
        return nonce + self.aead.encrypt(nonce, raw, self._aad(field, row))

    def open(self, blob: bytes, field: str, row: Sequence[object]) -> str:
        plain = self.aead.decrypt(blob[:12], blob[12:], self._aad(field, row))
        return plain.decode("utf-8", "surrogatepass")


def _b64(data: bytes) -> bytes:
    return base64.b64encode(data)


class VaultWriter:
    """Write a vault atomically: rows go to a temporary file next to `path` (mode 0600), which
    replaces `path` only when the `with` block ends without an error.

        with VaultWriter(out / "vault.parquet", key) as vault:
            for result in results:
                vault.add(result)
    """

    def __init__(self, path: str | Path, key: bytes, *, scrypt_n: int = 2**15, batch_rows: int = 20_000) -> None:
        self.path = Path(path)
        self._salt = os.urandom(16)
        file_id = os.urandom(16)
        self._keys = _Keys(key, self._salt, scrypt_n, 8, 1, file_id)
        nonce = os.urandom(12)
        check = nonce + self._keys.aead.encrypt(nonce, _CHECK_PLAIN, _AAD + b"|check|" + file_id)
        self._metadata = {
            b"radeid.secure.vault": FORMAT_VERSION.encode(),
            b"radeid.cipher": b"AES-256-GCM",
            b"radeid.kdf": b"scrypt",
            b"radeid.kdf.salt": _b64(self._salt),
            b"radeid.kdf.n": str(scrypt_n).encode(),
            b"radeid.kdf.r": b"8",
            b"radeid.kdf.p": b"1",
            b"radeid.file_id": _b64(file_id),
            b"radeid.check": _b64(check),
        }
        self._batch_rows = batch_rows
        self._columns: dict[str, list[object]] = {name: [] for name in _COLUMNS}
        self._writer: pq.ParquetWriter | None = None
        self._tmp: Path | None = None
        self.rows = 0
        self.documents = 0

    def __enter__(self) -> VaultWriter:
        self.open()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()

    def open(self) -> None:
        """Start the temporary file (done by `with`)."""
        if self._writer is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=temporary_prefix(self.path), suffix=".tmp")
        os.close(fd)  # mkstemp made it 0600; the Parquet writer reopens it
        self._tmp = Path(tmp)
        import pyarrow.parquet as pq

        self._writer = pq.ParquetWriter(tmp, _schema().with_metadata(self._metadata))

    def add(self, result: Result) -> None:
        """Record one de-identified document: its document row, then one row per replacement."""
        if self._writer is None:
            self.open()
        doc = result.document
        if any(_LONE_SURROGATE.search(t) for t in (doc.id, doc.text, doc.patient_id or "", result.text)):
            raise VaultError(
                f"document {doc.id!r} holds an unpaired surrogate code point (not valid Unicode text): it cannot "
                "be stored in the vault (the readers refuse such text; clean it before de-identifying)"
            )
        tag = self._keys.tag(doc.id)
        count = len(result.replacements)
        original_id = str(doc.metadata.get(metakeys.ORIGINAL_ID) or "")
        self._append(
            tag, _DOC_SEQ, None, None, None, None, None, None, None, str(count), doc.id, doc.patient_id, original_id,
            text_digest(result.text),
        )  # fmt: skip
        for seq, (rep, (out_start, out_end)) in enumerate(
            zip(result.replacements, result.output_offsets(), strict=True)
        ):
            span = rep.span
            original = doc.text[span.start : span.end]
            self._append(
                tag, seq, span.start, span.end, out_start, out_end, span.category.value, span.subtype,
                rep.new_text, original, None, None,
            )  # fmt: skip
        self.rows += count
        self.documents += 1
        if len(self._columns["seq"]) >= self._batch_rows:
            with naming(self.path):
                self._flush()

    def _append(
        self,
        tag: str,
        seq: int,
        start: int | None,
        end: int | None,
        out_start: int | None,
        out_end: int | None,
        category: str | None,
        subtype: str | None,
        surrogate: str | None,
        original: str,
        doc_id: str | None,
        patient_id: str | None,
        original_id: str | None = None,
        digest: str | None = None,
    ) -> None:
        row = _plain_row(tag, seq, start, end, out_start, out_end, category, subtype, surrogate)
        cols = self._columns
        seal = self._keys.seal
        cols["doc_tag"].append(tag)
        cols["doc_id"].append(seal(doc_id, "doc_id", row) if doc_id is not None else None)
        cols["patient_id"].append(seal(patient_id, "patient_id", row) if patient_id is not None else None)
        cols["original_id"].append(seal(original_id, "original_id", row) if original_id is not None else None)
        cols["seq"].append(seq)
        cols["start"].append(start)
        cols["end"].append(end)
        cols["out_start"].append(out_start)
        cols["out_end"].append(out_end)
        cols["category"].append(category)
        cols["subtype"].append(subtype)
        cols["original"].append(self._keys.seal(original, "original", row))
        cols["surrogate"].append(surrogate)
        cols["text_digest"].append(seal(digest, "text_digest", row) if digest is not None else None)

    def _flush(self) -> None:
        if self._writer is None or not self._columns["seq"]:
            return
        import pyarrow as pa

        self._writer.write_table(pa.table(self._columns, schema=_schema().with_metadata(self._metadata)))
        self._columns = {name: [] for name in _COLUMNS}

    def close(self) -> None:
        """Finish the file and move it into place (mode 0600, synced)."""
        apply_moves(self.stage())

    def stage(self) -> list[Move]:
        """Finish the temporary file (trailer row, close, mode 0600, fsync) and return the rename
        that puts it in place; applying it is the caller's (see `radeid.io.commit`)."""
        if self._writer is None:
            self.open()
        assert self._writer is not None and self._tmp is not None
        self._append("", _TRAILER_SEQ, None, None, None, None, None, None, None, f"{self.documents},{self.rows}",
                     None, None)  # fmt: skip
        with naming(self.path):
            self._flush()
            self._writer.close()
            self._writer = None
            os.chmod(self._tmp, 0o600)
            fsync_file(self._tmp)
        tmp, self._tmp = self._tmp, None  # from here the temporary belongs to whoever applies the move
        return [Move(tmp, self.path, "file")]

    def abort(self) -> None:
        """Drop the temporary file; `path` is left as it was."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._tmp is not None:
            self._tmp.unlink(missing_ok=True)
            self._tmp = None


def _open_keys(path: Path, key: bytes) -> tuple[_Keys, pq.ParquetFile]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(path)
    except (OSError, pa.ArrowInvalid) as exc:
        raise VaultError(f"{path} is not a readable vault: {exc}") from None
    meta = parquet.schema_arrow.metadata or {}
    version = meta.get(b"radeid.secure.vault")
    if version is not None and version not in _READABLE and version.isdigit():
        raise VaultError(
            f"{path} is a radeid vault of format {version.decode()}; this radeid reads formats 2 and {FORMAT_VERSION}"
        )
    if version not in _READABLE:
        raise VaultError(f"{path} is not a radeid vault (version {FORMAT_VERSION})")
    try:
        salt = base64.b64decode(meta[b"radeid.kdf.salt"])
        n, r, p = (int(meta[k]) for k in (b"radeid.kdf.n", b"radeid.kdf.r", b"radeid.kdf.p"))
        file_id = base64.b64decode(meta[b"radeid.file_id"])
        check = base64.b64decode(meta[b"radeid.check"])
    except (KeyError, ValueError) as exc:
        raise VaultError(f"{path}: vault metadata is damaged ({exc.__class__.__name__})") from None
    if not (n >= 2 and n & (n - 1) == 0 and r >= 1 and p >= 1) or (
        128 * n * r > _MAX_SCRYPT_MEMORY or n * r * p > _MAX_SCRYPT_WORK
    ):
        raise VaultError(f"{path}: vault key-derivation cost (n={n}, r={r}, p={p}) is out of bounds; refused")
    keys = _Keys(key, salt, n, r, p, file_id)
    try:
        ok = keys.aead.decrypt(check[:12], check[12:], _AAD + b"|check|" + file_id) == _CHECK_PLAIN
    except InvalidTag:
        ok = False
    if not ok:
        raise WrongKeyError(
            f"the key does not open the vault {path}: it was written with a different key "
            "(check --key-file / RADEID_KEY); nothing was decrypted"
        )
    return keys, parquet


def _plain_row(tag: str, seq: int, *rest: object) -> tuple[object, ...]:
    return (tag, seq, *rest)


def read_vault(path: str | Path, key: bytes, doc_ids: Iterable[str] | None = None) -> dict[str, list[VaultRow]]:
    """Decrypt a vault: doc id -> its rows in text order (`[]` for a document without PHI). With
    `doc_ids`, only those documents (found by tag, so the others are never decrypted). Raises
    `WrongKeyError` on a wrong key and `VaultError` when any row was altered, added or removed."""
    return read_vault_ids(path, key, doc_ids)[0]


def read_vault_ids(
    path: str | Path, key: bytes, doc_ids: Iterable[str] | None = None
) -> tuple[dict[str, list[VaultRow]], dict[str, str]]:
    """`read_vault`, plus doc id -> the document's original id for every document whose id the
    run pseudonymized (`pseudonymize_ids`): what `radeid reidentify` needs to restore the ids."""
    contents = read_vault_contents(path, key, doc_ids)
    return contents.rows, contents.original_ids


@dataclass(frozen=True)
class VaultContents:
    """A vault opened: rows by doc id, original ids (pseudonymized runs), and the SHA-256 of each
    document's de-identified text (`digests`; empty when `binds_text` is False: formats 2 and 3)."""

    rows: dict[str, list[VaultRow]]
    original_ids: dict[str, str]
    digests: dict[str, str]
    binds_text: bool


def read_vault_contents(path: str | Path, key: bytes, doc_ids: Iterable[str] | None = None) -> VaultContents:
    """Everything `radeid reidentify` needs from a vault (see `VaultContents`); errors as `read_vault`."""
    path = Path(path)
    keys, parquet = _open_keys(path, key)
    columns = parquet.schema_arrow.names
    has_original_ids, binds_text = "original_id" in columns, "text_digest" in columns
    original_ids: dict[str, str] = {}
    digests: dict[str, str] = {}
    wanted = {keys.tag(d) for d in doc_ids} if doc_ids is not None else None
    altered = VaultError(f"vault {path}: rows were altered, moved, added or removed; nothing returned")
    heads: dict[str, tuple[str, str | None, int]] = {}  # doc tag -> (doc id, patient id, row count)
    rows: dict[str, list[VaultRow]] = {}  # doc tag -> replacement rows, doc id filled in later
    docs = total = 0
    trailer: str | None = None
    names = ("start", "end", "out_start", "out_end", "category", "subtype", "surrogate")
    try:
        for batch in parquet.iter_batches():
            cols = batch.to_pydict()
            for i, tag in enumerate(cols["doc_tag"]):
                seq = cols["seq"][i]
                if trailer is not None:
                    raise altered  # nothing may follow the trailer
                row = _plain_row(tag, seq, *(cols[name][i] for name in names))
                if seq == _TRAILER_SEQ and tag == "":
                    trailer = keys.open(cols["original"][i], "original", row)
                    continue
                if seq == _DOC_SEQ:
                    docs += 1
                elif seq is not None and seq >= 0:
                    total += 1
                else:
                    raise altered
                if wanted is not None and tag not in wanted:
                    continue
                if seq == _DOC_SEQ:
                    if tag in heads or cols["doc_id"][i] is None:
                        raise altered
                    heads[tag], before, digest = _document_row(keys, cols, i, row, (has_original_ids, binds_text))
                    if before:
                        original_ids[heads[tag][0]] = before
                    if digest is not None:
                        digests[heads[tag][0]] = digest
                    continue
                values: dict[str, Any] = dict(zip(names, row[2:], strict=True))
                rows.setdefault(tag, []).append(
                    VaultRow("", None, seq, original=keys.open(cols["original"][i], "original", row), **values)
                )
    except (InvalidTag, KeyError, TypeError, ValueError):
        raise altered from None
    if trailer != f"{docs},{total}":
        raise altered  # a document or rows were dropped, or the file was cut short
    return VaultContents(_by_document(keys, heads, rows, altered), original_ids, digests, binds_text)


def _document_row(
    keys: _Keys, cols: dict[str, list[Any]], i: int, row: tuple[object, ...], has: tuple[bool, bool]
) -> tuple[tuple[str, str | None, int], str, str | None]:
    """A document row opened: (doc id, patient id, row count), its original id ("" when not
    pseudonymized) and its text digest (None before format 4). `has`: (original ids, digests)."""
    has_original_ids, has_digests = has
    pid_blob = cols["patient_id"][i]
    doc_id = keys.open(cols["doc_id"][i], "doc_id", row)
    head = (
        doc_id,
        keys.open(pid_blob, "patient_id", row) if pid_blob is not None else None,
        int(keys.open(cols["original"][i], "original", row)),
    )
    before = ""
    if has_original_ids:  # format 3: on every document row, "" when not pseudonymized
        before = keys.open(cols["original_id"][i], "original_id", row)
    digest = keys.open(cols["text_digest"][i], "text_digest", row) if has_digests else None
    return head, before, digest


def _by_document(
    keys: _Keys,
    heads: dict[str, tuple[str, str | None, int]],
    rows: dict[str, list[VaultRow]],
    altered: VaultError,
) -> dict[str, list[VaultRow]]:
    """Each document's rows under its id, checked complete (seq 0..n-1) and bound to its tag; else `altered`."""
    out: dict[str, list[VaultRow]] = {}
    if rows.keys() - heads.keys():
        raise altered  # replacement rows of a document without its document row
    for tag, (doc_id, patient, count) in heads.items():
        mine = sorted(rows.get(tag, ()), key=lambda r: r.seq)
        if [r.seq for r in mine] != list(range(count)) or keys.tag(doc_id) != tag:
            raise altered
        if doc_id in out:
            raise altered
        out[doc_id] = [_with_ids(r, doc_id, patient) for r in mine]
    return out


def _with_ids(row: VaultRow, doc_id: str, patient_id: str | None) -> VaultRow:
    return VaultRow(
        doc_id, patient_id, row.seq, row.start, row.end, row.out_start, row.out_end, row.category, row.subtype,
        row.original, row.surrogate,
    )  # fmt: skip


def reidentify_text(deid_text: str, rows: Sequence[VaultRow]) -> str:
    """Put the originals back into a de-identified text. Each surrogate must still sit where
    the vault says, else `VaultMismatchError` (the text was edited after de-identification)."""
    pieces: list[str] = []
    cursor = 0
    for row in sorted(rows, key=lambda r: r.out_start):
        if row.out_start < cursor or deid_text[row.out_start : row.out_end] != row.surrogate:
            raise VaultMismatchError(
                f"the text at [{row.out_start}, {row.out_end}) is not the surrogate the vault recorded "
                "for this document: was it edited after de-identification?"
            )
        pieces.append(deid_text[cursor : row.out_start])
        pieces.append(row.original)
        cursor = row.out_end
    pieces.append(deid_text[cursor:])
    return "".join(pieces)


def reidentify(deid_texts: Mapping[str, str], vault: Mapping[str, Sequence[VaultRow]]) -> dict[str, str]:
    """Re-identify many documents (doc id -> de-identified text) with a read vault."""
    missing = [doc_id for doc_id in deid_texts if doc_id not in vault]
    if missing:
        raise VaultMissingError(
            f"{len(missing)} document(s) are not in the vault (e.g. {missing[0]!r}): is it the vault of another run?"
        )
    return {doc_id: reidentify_text(text, vault[doc_id]) for doc_id, text in deid_texts.items()}
