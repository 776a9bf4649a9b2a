"""The names the docs show are importable from `radeid` itself, without importing the pipeline early."""

import subprocess
import sys


def test_top_level_names_are_the_library_classes() -> None:
    import radeid
    from radeid.config.config import Config
    from radeid.pipeline.deidentifier import Deidentifier
    from radeid.pipeline.spec import PipelineSpec

    assert radeid.Config is Config
    assert radeid.Deidentifier is Deidentifier
    assert radeid.PipelineSpec is PipelineSpec
    assert set(radeid.__all__) >= {"Config", "Deidentifier", "PipelineSpec", "Document", "Span"}


def test_import_radeid_does_not_load_the_pipeline() -> None:
    code = (
        "import sys, radeid; "
        "print('radeid.pipeline.deidentifier' in sys.modules, 'radeid.config.config' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_unknown_name_is_an_attribute_error() -> None:
    import pytest

    import radeid

    with pytest.raises(AttributeError, match="no_such_name"):
        radeid.no_such_name  # noqa: B018
