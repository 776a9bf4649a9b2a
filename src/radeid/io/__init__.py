"""Streaming readers and writers for every supported document format."""
