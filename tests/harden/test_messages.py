"""Issue 12, points 2, 6, 7, 9: separators in text, CSV ids, tracebacks, rich markup."""

from __future__ import annotations

from pathlib import Path

import pytest

from radeid.cli.main import app
from radeid.io.errors import ReadIssue
from radeid.io.readers import read_documents


@pytest.mark.parametrize("sep", ["\u2028", "\u2029", "\u0085"])
def test_line_separators_in_text_survive_the_merge_and_resume(
    tmp_path: Path, sep: str, write_jsonl, cli, read_jsonl, reports: list[dict]
) -> None:
    rows = [{"id": "a", "text": f"Seen by Dr. Alan Grant{sep}on 03/04/2019."}, *reports]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    out = tmp_path / "out.jsonl"
    code, output = cli("deid", src, "-o", out, "--no-model", "--mode", "tag", "-w", "1", "-q")
    assert code == 0, output
    got = read_jsonl(out)
    assert [r["id"] for r in got] == ["a", "r1", "r2", "r3"]
    assert sep in got[0]["text"]


def test_broken_csv_row_never_names_text_as_the_id(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    # An unquoted multi-line cell: the second physical line starts with report text.
    src.write_text('id,text\nr1,"fine"\nr2,Patient Jane Doe seen\nSECRETNAME Smith, MRN 123,extra\n', encoding="utf-8")
    issues = [i for i in read_documents(src) if isinstance(i, ReadIssue)]
    assert issues
    for issue in issues:
        assert "SECRETNAME" not in issue.describe()
        assert issue.doc_id is None


def test_typer_never_prints_locals() -> None:
    assert app.pretty_exceptions_show_locals is False
    assert app.pretty_exceptions_enable is False


def test_markup_in_ids_and_paths_is_printed_verbatim(tmp_path: Path, write_jsonl, cli, reports: list[dict]) -> None:
    folder = tmp_path / "in[old]"
    folder.mkdir()
    src = write_jsonl(folder / "c[red]x.jsonl", [{"id": "d[/x]", "text": ""}, *reports])
    code, output = cli("deid", src, "-o", tmp_path / "o.jsonl", "--no-model", "--mode", "tag")
    assert code == 0, output
    flat = output.replace("\n", "")
    assert "d[/x]" in flat
    assert "in[old]" in flat and "c[red]x" in flat
