"""Shared fixtures: one generated corpus per session (generation is the slow part)."""

from __future__ import annotations

import pytest

from radeid.core.document import Document
from radeid.synth import SynthOptions, generate


@pytest.fixture(scope="session")
def corpus() -> list[Document]:
    return list(generate(400, SynthOptions(seed=11)))
