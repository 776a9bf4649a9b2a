"""Regenerate src/radeid/data/regex_cache/<engine>.bin for the running Python (see radeid.patterns.regex_cache).

Builds the rules, word lists and protected patterns of every bundled language pack, records every
pattern they compile, stores each one's compiled form, and checks each stored form against
`re.compile` before writing; and beside it `<engine>.first-words`, the gates of the bundled
protected patterns (see radeid.patterns.first_words). Run it after editing a bundled rule,
protected pattern, macro or word list that feeds a pattern (`tests/test_regex_cache.py` and
`tests/detect/test_first_words.py` fail until then), once per Python version you want shipped
with a ready cache:

    PYTHONPATH=src python scripts/build_regex_cache.py
"""

from __future__ import annotations

import re

from radeid.patterns import first_words, regex_cache
from radeid.pipeline.regex_inventory import bundled_patterns, bundled_protected_regexes


def main() -> None:
    entries = {}
    for source, flags in bundled_patterns():
        entry = regex_cache.build_entry(source, flags)
        stored = regex_cache.from_entry(source, entry)
        if stored != re.compile(source, flags) or stored.groupindex != re.compile(source, flags).groupindex:
            raise SystemExit(f"stored form differs from re.compile for a pattern of {len(source)} characters")
        entries[(source, flags)] = entry
    path = regex_cache.cache_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(regex_cache.dump(entries))
    print(f"{len(entries)} patterns -> {path} ({path.stat().st_size:,} bytes)")
    gates = first_words.stored_path()
    gates.write_bytes(first_words.dump(bundled_protected_regexes()))
    print(f"first words -> {gates} ({gates.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
