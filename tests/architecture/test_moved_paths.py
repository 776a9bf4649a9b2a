"""The flat import paths of radeid 0.2 still work for one release, with a warning naming the new path."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from radeid.core.moved import MOVED_MODULES, MOVED_PACKAGES, new_path


@pytest.mark.parametrize(
    ("old", "new", "name", "warning"),
    [
        ("radeid.keys", "radeid.secure.keys", "load_key", "radeid.keys moved to radeid.secure.keys"),
        ("radeid.mask", "radeid.replace.mask", "mask_mode", "radeid.mask moved to radeid.replace.mask"),
        ("radeid.spec", "radeid.pipeline.spec", "PipelineSpec", "radeid.spec moved to radeid.pipeline.spec"),
        # a module of a moved package: the warning names the package, imported first
        (
            "radeid.surrogate.engine",
            "radeid.replace.surrogate.engine",
            "SurrogateReplacer",
            "radeid.surrogate moved to radeid.replace.surrogate",
        ),
        (
            "radeid.detect.protected",
            "radeid.resolve.protected",
            "ProtectedContent",
            "radeid.detect.protected moved to radeid.resolve.protected",
        ),
    ],
)
def test_an_old_path_is_the_new_module_with_a_deprecation_warning(old: str, new: str, name: str, warning: str) -> None:
    # A fresh interpreter: in this one the old name may already sit in sys.modules.
    code = (
        "import importlib, warnings\n"
        "warnings.simplefilter('error')\n"
        f"new = importlib.import_module({new!r})\n"
        "try:\n"
        f"    importlib.import_module({old!r})\n"
        "except DeprecationWarning as w:\n"
        "    print('warned:', w)\n"
        "warnings.simplefilter('ignore')\n"
        f"old = importlib.import_module({old!r})\n"
        f"print(old is new, hasattr(old, {name!r}), new.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert f"warned: {warning}; the old path goes away in the next release" in out
    assert out.splitlines()[-1] == f"True True {new}"


def test_the_readme_imports_of_0_2_still_work() -> None:
    """What the 0.2 README showed: `from radeid.keys import ...`, `from radeid.spec import ...` and so on."""
    code = (
        "import warnings; warnings.simplefilter('ignore')\n"
        "from radeid.detect.base import DETECTORS, build_detector\n"
        "from radeid.mask import mask_mode\n"
        "from radeid import Document\n"
        "from radeid.config import Config\n"
        "from radeid.detect.ensemble import EnsembleDetector\n"
        "from radeid.keys import decode_key, load_key\n"
        "from radeid.spec import PipelineSpec\n"
        "from radeid.pipeline import Deidentifier\n"
        "print(Deidentifier.__module__, PipelineSpec.__module__, load_key.__module__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["radeid.pipeline.deidentifier", "radeid.pipeline.spec", "radeid.secure.keys"]


def test_every_moved_path_points_at_a_module_that_exists() -> None:
    for new in [*MOVED_MODULES.values(), *MOVED_PACKAGES.values()]:
        assert importlib.util.find_spec(new) is not None, new


def test_paths_that_did_not_move_are_left_alone() -> None:
    assert new_path("radeid.io.jsonl") is None
    assert new_path("radeid.surrogates") is None  # a prefix of a moved package's name is not that package
    assert new_path("radeid.surrogate.names") == "radeid.replace.surrogate.names"
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("radeid.no_such_module")
