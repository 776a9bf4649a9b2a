"""Trial runs: the first N documents of an input (`limit`), or a reproducible random sample of N
(`sample`, `seed`), applied where documents are read (`radeid.io.readers.read_documents`), so
every path of a run (one process, the parallel runner's chunks, its final merge, `detect`) sees the
same documents.

How the sample is drawn: reservoir sampling (Algorithm R) over the stream of valid documents, with
`random.Random(seed)`: document i (0-based) enters the reservoir when i < N, else replaces slot
`randrange(i + 1)` when that is below N. One pass, memory for N documents, and the same input,
N and seed give the same documents on every run and machine. The sample is written in input order.
Read issues (bad records) are passed on as they are read, before the sampled documents; bad
records are not documents and are never sampled.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator

from radeid.core.document import Document
from radeid.io.errors import ReadIssue

__all__ = ["first", "sample"]


def first(items: Iterable[Document | ReadIssue], limit: int) -> Iterator[Document | ReadIssue]:
    """The first `limit` documents, with the issues read before them; reading stops there."""
    if limit < 1:
        return
    taken = 0
    for item in items:
        yield item
        if isinstance(item, Document):
            taken += 1
            if taken >= limit:
                return


def sample(items: Iterable[Document | ReadIssue], size: int, seed: int) -> Iterator[Document | ReadIssue]:
    """`size` documents drawn uniformly at random (see the module), in input order, after every issue."""
    rng = random.Random(seed)
    reservoir: list[tuple[int, Document]] = []
    seen = 0
    for item in items:
        if not isinstance(item, Document):
            yield item
            continue
        if seen < size:
            reservoir.append((seen, item))
        else:
            slot = rng.randrange(seen + 1)
            if slot < size:
                reservoir[slot] = (seen, item)
        seen += 1
    for _index, doc in sorted(reservoir, key=lambda pair: pair[0]):
        yield doc
