"""Layer 3: what text looks like: pattern and rule files, the compiled-regex cache, first-word gates,
validators, word tables and the place gazetteer.

May import `radeid.core` and `radeid.config`. The form checks (`forms`) sit here rather than with the
resolver because the validators and the gazetteer, which the detectors use too, read its word tables.
"""
