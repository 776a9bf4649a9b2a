"""Evaluation: tokenisation for token-level scores, metrics, reports."""
