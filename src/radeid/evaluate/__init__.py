"""Tool layer (above the runner, below the interfaces).

Evaluation: tokenisation for token-level scores, metrics, reports."""
