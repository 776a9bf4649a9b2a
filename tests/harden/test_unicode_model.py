"""Issue 12, point 15: a lone surrogate code point must not break the model path."""

from __future__ import annotations

import pytest

from radeid.config.config import Config
from radeid.core.document import Document
from radeid.pipeline.deidentifier import Deidentifier


@pytest.fixture(scope="module")
def with_model() -> Deidentifier:
    return Deidentifier(Config.load(overrides={"replace": {"mode": "tag"}}))


def test_lone_surrogate_through_the_model(with_model: Deidentifier) -> None:
    text = "Seen by Dr. Alan Grant \ud800 on 03/04/2019 \udfff."
    [result] = with_model.deidentify([Document("s", text)])
    for rep in result.replacements:
        assert 0 <= rep.span.start < rep.span.end <= len(text)
    assert "\ud800" in result.text and "\udfff" in result.text
