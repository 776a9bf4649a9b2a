"""Layer 1 (bottom): the data model and what every layer shares.

Spans, documents, replacements and results (`document`), PHI categories, tokens, named registries,
errors, span edges, bundled resources, label maps and document metadata keys, plus the old import
paths kept for one release (`moved`). Imports nothing from radeid.
"""
