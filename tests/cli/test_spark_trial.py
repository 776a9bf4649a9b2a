"""`radeid spark-deid --limit N` and `--sample N --seed S`: a trial run on Spark (local mode)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="PySpark is not installed (pip install 'radeid[spark]')")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Java is not installed (PySpark needs it)", allow_module_level=True)

pytestmark = pytest.mark.slow


def _ids(folder: Path) -> list[str]:
    return sorted(
        json.loads(line)["id"] for part in folder.glob("part-*.json*") for line in part.read_text().splitlines()
    )


def test_spark_deid_limit_and_sample(tmp_path: Path, write_jsonl, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    monkeypatch.setenv("PYSPARK_DRIVER_PYTHON", sys.executable)
    src = write_jsonl(tmp_path / "in.jsonl", [{"id": f"d{i:02d}", "text": "Seen on 03/04/2019."} for i in range(20)])
    common = ["--mode", "tag", "--master", "local[1]", "--output-format", "jsonl", "--no-audit"]
    code, output = cli("spark-deid", src, tmp_path / "first", *common, "--limit", "5")
    assert code == 0, output
    assert _ids(tmp_path / "first") == ["d00", "d01", "d02", "d03", "d04"]
    drawn = []
    for name, extra in (("a", []), ("b", ["--partitions", "3"]), ("c", [])):
        code, output = cli("spark-deid", src, tmp_path / name, *common, "--sample", "4", "--seed", "3", *extra)
        assert code == 0, output
        drawn.append(_ids(tmp_path / name))
    assert len(drawn[0]) == 4 and drawn[0] == drawn[1] == drawn[2]  # the same rows, however partitioned
    code, output = cli("spark-deid", src, tmp_path / "d", *common, "--sample", "4", "--seed", "4")
    assert code == 0, output
    assert len(_ids(tmp_path / "d")) == 4 and _ids(tmp_path / "d") != drawn[0]
    code, output = cli("spark-deid", src, tmp_path / "e", *common, "--limit", "2", "--sample", "2")
    assert code == 2 and "contradict each other" in output
