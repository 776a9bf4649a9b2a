"""No generated institution is real: draw facility surrogates and check each against the lists.

    python benchmarks/institutions.py [--n 100000]

Every facility type is drawn in turn, each draw from a different original under one key; a hit
(a real name, see `radeid.replace.surrogate.institutions`) is printed and makes the exit status 1.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

from radeid import Document
from radeid.config.sections import SurrogateOptions
from radeid.replace.surrogate.base import SurrogateContext
from radeid.replace.surrogate.institutions import is_real_institution
from radeid.replace.surrogate.keyed import Keyed
from radeid.replace.surrogate.memory import DocumentMemory
from radeid.replace.surrogate.places import HospitalGenerator, _Facility


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args()
    gen = HospitalGenerator("en_US")
    stats: Counter[str] = Counter()
    ctx = SurrogateContext(
        Keyed(b"institutions-benchmark-key"), SurrogateOptions(), Document("d", ""), "corpus", "corpus",
        0, 0, {}, DocumentMemory.build("", []), stats,
    )  # fmt: skip
    kinds = sorted(gen.pools.patterns)
    hits = 0
    start = time.perf_counter()
    names = set()
    for i in range(args.n):
        new = gen.generate(_Facility(f"x{i}", f"x{i}", kinds[i % len(kinds)]), ctx, 0)
        names.add(new)
        if is_real_institution(new):
            hits += 1
            print("REAL:", new)
    seconds = time.perf_counter() - start
    print(f"{args.n:,} draws, {len(names):,} distinct names, {hits} real, "
          f"{stats['real_institution_retries']:,} regenerated on a hit, {seconds:.1f} s")  # fmt: skip
    sys.exit(1 if hits else 0)


if __name__ == "__main__":
    main()
