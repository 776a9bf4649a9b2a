"""Layer 9: secrets: reading the user's key, and the encrypted re-identification vault.

May import the layers below (`core` to `io`).
"""
