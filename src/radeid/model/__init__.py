"""Tool layer (above the runner, below the interfaces).

Model tooling: ONNX export with verification, model info, and small offline test models.

Nothing here is imported by `radeid` itself; torch and transformers load only inside the functions
that need them (the `radeid[train]` extra).
"""
