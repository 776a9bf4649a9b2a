"""Pseudonymous document ids (`[io] pseudonymize_ids`, `radeid deid --pseudonymize-ids`).

Document ids and the file names of folder formats are often PHI themselves: exports are named by
MRN, accession number or patient name (`SMITH_JOHN_MRN1234567_2019-03-05.txt`). With the option,
every id is replaced by a keyed pseudonym before anything is written (output, output file names,
audit, vault): `doc-` + 16 hex digits of HMAC-SHA256 under a subkey of the run's key. The same
key gives the same pseudonym in every run, on any machine, so outputs of several runs still join;
another key gives unrelated ones. A pseudonym cannot be turned back into its id without the key
(whoever holds the key can recompute the pseudonym of a candidate id and compare).
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac

from radeid.core import metakeys
from radeid.core.document import Result

__all__ = ["pseudonymize_id", "pseudonymize_result"]

_SUBKEY_LABEL = b"radeid/document-id/v1"


def _subkey(key: bytes) -> bytes:
    return hmac.digest(key, _SUBKEY_LABEL, hashlib.sha256)


def pseudonymize_id(key: bytes, doc_id: str) -> str:
    """`doc-` + 16 hex digits: a keyed, stable pseudonym of `doc_id`."""
    digest = hmac.digest(_subkey(key), doc_id.encode("utf-8", "surrogatepass"), hashlib.sha256)
    return "doc-" + digest.hex()[:16]


def pseudonymize_result(result: Result, key: bytes | None) -> Result:
    """`result` with its document id replaced by its pseudonym (unchanged when `key` is None).

    The one place ids are pseudonymized: the runners (`serial.deidentify_path`,
    `parallel.run`) pass every result through it before the output, the
    audit and the vault see it, so output file names (made from the id) follow. The original id
    stays in `metadata[metakeys.ORIGINAL_ID]`, which only the vault reads (encrypted there, so
    that `radeid reidentify` can restore it); no writer writes it."""
    if key is None:
        return result
    doc = result.document
    metadata = {**doc.metadata, metakeys.ORIGINAL_ID: doc.id}
    document = dataclasses.replace(doc, id=pseudonymize_id(key, doc.id), metadata=metadata)
    return dataclasses.replace(result, document=document)
