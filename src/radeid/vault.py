"""The re-identification vault: one encrypted Parquet row per replacement.

Why this shape: the de-identified text already holds every surrogate, and
`Result.output_offsets()` says where each one sits, so the vault needs only the replacements
themselves to turn the output back into the original exactly. Nothing of the untouched text is
stored.

File layout (Parquet, one row per replacement, rows of a document in text order):

    doc_tag     string   HMAC(tag key, doc id), hex: find a document's rows without decrypting
    doc_id      binary   AES-GCM(doc id) on the document's first row (seq 0), else null: ids
                         can be PHI (accession numbers, MRNs)
    patient_id  binary   AES-GCM(patient id) on the first row, else null
    seq         int32    position of the replacement in its document
    start, end  int32    offsets in the original text
    out_start, out_end   int32 offsets in the de-identified text
    category    string   PHI category; subtype: string or null
    original    binary   AES-GCM(original text of the span)
    surrogate   string   the fake written in the output (plain: it is already in the output)

Crypto: a 32-byte master key = scrypt(user secret, random 16-byte salt, n, r=8, p=1); the salt and
cost sit in the Parquet metadata. Encryption and tag keys are HMAC-derived from the master key.
Every ciphertext is nonce (12 bytes: a random per-file prefix and a counter; the key is unique to
the file) || AES-256-GCM(value), with associated data binding
it to this file, its field, its document tag and its position, so rows cannot be swapped or
moved. A check value (a constant encrypted under the key) makes a wrong key fail fast with
`WrongKeyError`, before any row is touched. Offsets and categories are plain: they reveal the
lengths of the originals, not their content.
"""

from __future__ import annotations

import base64
import hmac
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import pyarrow as pa
import pyarrow.parquet as pq
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from radeid.document import Result

__all__ = [
    "VaultError",
    "VaultMismatchError",
    "VaultRow",
    "VaultWriter",
    "WrongKeyError",
    "read_vault",
    "reidentify",
    "reidentify_text",
]

FORMAT_VERSION = "1"
_CHECK_PLAIN = b"radeid vault key check"
_SCHEMA = pa.schema(
    [
        ("doc_tag", pa.string()),
        ("doc_id", pa.binary()),
        ("patient_id", pa.binary()),
        ("seq", pa.int32()),
        ("start", pa.int32()),
        ("end", pa.int32()),
        ("out_start", pa.int32()),
        ("out_end", pa.int32()),
        ("category", pa.string()),
        ("subtype", pa.string()),
        ("original", pa.binary()),
        ("surrogate", pa.string()),
    ]
)


class VaultError(Exception):
    """The vault cannot be used (damaged, altered, or not a radeid vault)."""


class WrongKeyError(VaultError):
    """The key given does not open this vault."""


class VaultMismatchError(VaultError):
    """The de-identified text no longer matches the vault (it was edited afterwards)."""


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

    def _aad(self, field: str, doc_tag: str, seq: int) -> bytes:
        return b"|".join((b"radeid-vault-v1", self.file_id, field.encode(), doc_tag.encode(), str(seq).encode()))

    def seal(self, value: str, field: str, doc_tag: str, seq: int) -> bytes:
        # The encryption key is unique to this file (random salt), so a counter after a random
        # prefix never repeats a nonce under a key, and costs no system call per value.
        self._counter += 1
        nonce = self._prefix + self._counter.to_bytes(8, "big")
        raw = value.encode("utf-8", "surrogatepass")
        return nonce + self.aead.encrypt(nonce, raw, self._aad(field, doc_tag, seq))

    def open(self, blob: bytes, field: str, doc_tag: str, seq: int) -> str:
        plain = self.aead.decrypt(blob[:12], blob[12:], self._aad(field, doc_tag, seq))
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
        check = nonce + self._keys.aead.encrypt(nonce, _CHECK_PLAIN, b"radeid-vault-v1|check|" + file_id)
        self._metadata = {
            b"radeid.vault": FORMAT_VERSION.encode(),
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
        self._columns: dict[str, list[object]] = {name: [] for name in _SCHEMA.names}
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
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp")
        os.close(fd)  # mkstemp made it 0600; the Parquet writer reopens it
        self._tmp = Path(tmp)
        self._writer = pq.ParquetWriter(tmp, _SCHEMA.with_metadata(self._metadata))

    def add(self, result: Result) -> None:
        """Record every replacement of one de-identified document."""
        if self._writer is None:
            self.open()
        doc = result.document
        if not result.replacements:
            return
        tag = self._keys.tag(doc.id)
        cols = self._columns
        for seq, (rep, (out_start, out_end)) in enumerate(
            zip(result.replacements, result.output_offsets(), strict=True)
        ):
            span = rep.span
            first = seq == 0  # ids are stored once per document, on its first row
            cols["doc_tag"].append(tag)
            cols["doc_id"].append(self._keys.seal(doc.id, "doc_id", tag, seq) if first else None)
            cols["patient_id"].append(
                self._keys.seal(doc.patient_id, "patient_id", tag, seq)
                if first and doc.patient_id is not None
                else None
            )
            cols["seq"].append(seq)
            cols["start"].append(span.start)
            cols["end"].append(span.end)
            cols["out_start"].append(out_start)
            cols["out_end"].append(out_end)
            cols["category"].append(span.category.value)
            cols["subtype"].append(span.subtype)
            cols["original"].append(self._keys.seal(doc.text[span.start : span.end], "original", tag, seq))
            cols["surrogate"].append(rep.new_text)
        self.rows += len(result.replacements)
        self.documents += 1
        if len(cols["seq"]) >= self._batch_rows:
            self._flush()

    def _flush(self) -> None:
        if self._writer is None or not self._columns["seq"]:
            return
        self._writer.write_table(pa.table(self._columns, schema=_SCHEMA.with_metadata(self._metadata)))
        self._columns = {name: [] for name in _SCHEMA.names}

    def close(self) -> None:
        """Finish the file and move it into place (mode 0600)."""
        if self._writer is None:
            self.open()
        assert self._writer is not None and self._tmp is not None
        self._flush()
        self._writer.close()
        os.chmod(self._tmp, 0o600)
        os.replace(self._tmp, self.path)
        self._writer = None
        self._tmp = None

    def abort(self) -> None:
        """Drop the temporary file; `path` is left as it was."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._tmp is not None:
            self._tmp.unlink(missing_ok=True)
            self._tmp = None


def _open_keys(path: Path, key: bytes) -> tuple[_Keys, pq.ParquetFile]:
    try:
        parquet = pq.ParquetFile(path)
    except (OSError, pa.ArrowInvalid) as exc:
        raise VaultError(f"{path} is not a readable vault: {exc}") from None
    meta = parquet.schema_arrow.metadata or {}
    if meta.get(b"radeid.vault") != FORMAT_VERSION.encode():
        raise VaultError(f"{path} is not a radeid vault (version {FORMAT_VERSION})")
    try:
        salt = base64.b64decode(meta[b"radeid.kdf.salt"])
        n, r, p = (int(meta[k]) for k in (b"radeid.kdf.n", b"radeid.kdf.r", b"radeid.kdf.p"))
        file_id = base64.b64decode(meta[b"radeid.file_id"])
        check = base64.b64decode(meta[b"radeid.check"])
    except (KeyError, ValueError) as exc:
        raise VaultError(f"{path}: vault metadata is damaged ({exc.__class__.__name__})") from None
    keys = _Keys(key, salt, n, r, p, file_id)
    try:
        ok = keys.aead.decrypt(check[:12], check[12:], b"radeid-vault-v1|check|" + file_id) == _CHECK_PLAIN
    except InvalidTag:
        ok = False
    if not ok:
        raise WrongKeyError(
            f"the key does not open the vault {path}: it was written with a different key "
            "(check --key-file / RADEID_KEY); nothing was decrypted"
        )
    return keys, parquet


def read_vault(path: str | Path, key: bytes, doc_ids: Iterable[str] | None = None) -> dict[str, list[VaultRow]]:
    """Decrypt a vault: doc id -> its rows in text order. With `doc_ids`, only those documents
    (found by tag, so the others are never decrypted). Raises `WrongKeyError` on a wrong key."""
    keys, parquet = _open_keys(Path(path), key)
    wanted = {keys.tag(d) for d in doc_ids} if doc_ids is not None else None
    out: dict[str, list[VaultRow]] = {}
    ids: dict[str, tuple[str, str | None]] = {}  # doc tag -> (doc id, patient id)
    for batch in parquet.iter_batches():
        cols = batch.to_pydict()
        for i, tag in enumerate(cols["doc_tag"]):
            if wanted is not None and tag not in wanted:
                continue
            seq = cols["seq"][i]
            try:
                if seq == 0:
                    pid_blob = cols["patient_id"][i]
                    ids[tag] = (
                        keys.open(cols["doc_id"][i], "doc_id", tag, 0),
                        keys.open(pid_blob, "patient_id", tag, 0) if pid_blob is not None else None,
                    )
                doc_id, patient = ids[tag]
                original = keys.open(cols["original"][i], "original", tag, seq)
            except (InvalidTag, KeyError, TypeError):
                raise VaultError(f"vault {path}: a row was altered or damaged; nothing returned") from None
            out.setdefault(doc_id, []).append(
                VaultRow(
                    doc_id=doc_id,
                    patient_id=patient,
                    seq=seq,
                    start=cols["start"][i],
                    end=cols["end"][i],
                    out_start=cols["out_start"][i],
                    out_end=cols["out_end"][i],
                    category=cols["category"][i],
                    subtype=cols["subtype"][i],
                    original=original,
                    surrogate=cols["surrogate"][i],
                )
            )
    for rows in out.values():
        rows.sort(key=lambda row: row.seq)
    return out


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
    return {doc_id: reidentify_text(text, vault.get(doc_id, ())) for doc_id, text in deid_texts.items()}
