"""Other public de-identifiers as radeid detectors: Presidio, philter-lite, PhysioNet `deid`, spaCy NER.

Each adapter is an ordinary `Detector` (registered by name in `radeid.detect.base`), so it can run as a
top-level detector or as an ensemble member. Each reads its own `[detectors.<name>]` table (a plain
mapping: these are not built-in sections), imports its library only when built, and names the extra
to install (`pip install "radeid[presidio]"`) when the library is missing.
"""
