"""Layer 10: the batch runner: chunks of the input, the worker pool, the ordered sink, the journal
that makes a run resumable, and the atomic commit of its outputs.

May import every layer below; never a tool or an interface.
"""
