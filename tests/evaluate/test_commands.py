"""`evaluate` and `compare` through a Typer app of our own, as the main CLI will register them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

import pytest
import typer
from typer.testing import CliRunner

from radeid import Document, Replacement, Result, Span
from radeid.cli import evaluate as commands
from radeid.cli import evaluate_options as cli_options
from radeid.cli.evaluate import register
from radeid.evaluate import resynth

runner = CliRunner()

GOLD = [
    {
        "id": "r1",
        "text": "Dr Smith saw John on 3/4/2019 .",
        "spans": [
            {"start": 3, "end": 8, "category": "HCW"},
            {"start": 13, "end": 17, "category": "PATIENT"},
            {"start": 21, "end": 29, "category": "DATE"},
        ],
    },
    # "CEO" is labelled but not PHI (OTHER): tagging it is neither right nor wrong
    {
        "id": "r2",
        "text": "The CEO Ann called 555-0100 .",
        "spans": [
            {"start": 4, "end": 7, "label": "TITLE", "category": "OTHER"},
            {"start": 8, "end": 11, "category": "PATIENT"},
            {"start": 19, "end": 27, "category": "PHONE"},
        ],
    },
    {"id": "r3", "text": "No acute findings .", "spans": []},
]
PRED_A = [
    {"id": "r1", "spans": [{"start": 21, "end": 29, "category": "DATE", "score": 0.9, "source": "rules"}]},
    {"id": "r2", "spans": [{"start": 19, "end": 27, "category": "PHONE"}]},
    {"id": "r3", "spans": []},
]
PRED_B = [
    {"id": "r1", "spans": [{"start": 3, "end": 8, "category": "HCW"}, {"start": 21, "end": 29, "category": "DATE"}]},
    {"id": "r2", "spans": [{"start": 4, "end": 7, "category": "HCW"}, {"start": 8, "end": 11, "category": "PATIENT"}]},
    {"id": "r3", "spans": []},
]


@pytest.fixture
def app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Test app."""

    register(app)
    return app


@pytest.fixture
def files(tmp_path: Path, write_jsonl) -> SimpleNamespace:
    return SimpleNamespace(
        gold=write_jsonl(tmp_path / "gold.jsonl", GOLD),
        a=write_jsonl(tmp_path / "a.spans.jsonl", PRED_A),
        b=write_jsonl(tmp_path / "b.spans.jsonl", PRED_B),
        dir=tmp_path,
    )


def invoke(app: typer.Typer, *args: object) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def test_evaluate_prints_tables_and_hides_text(app, files) -> None:
    code, out = invoke(app, "evaluate", files.gold, files.b, "--bootstrap", "20")
    assert code == 0, out
    assert "PHI (binary)" in out and "Token level" in out and "core-of-span" in out
    for secret in ("Smith", "John", "Ann", "555"):
        assert secret not in out


def test_evaluate_writes_markdown_json_and_chart(app, files) -> None:
    md, js, png = files.dir / "r.md", files.dir / "r.json", files.dir / "r.png"
    code, out = invoke(
        app, "evaluate", files.gold, files.b, "--bootstrap", "20", "--markdown", md, "--json", js, "--chart", png, "-q"
    )
    assert code == 0, out
    data = json.loads(js.read_text())
    token = data["evaluation"]["levels"]["token"]
    # gold PHI tokens: Smith John 3 / 4 / 2019 | Ann 555 - 0100 (11); "CEO" is ignored
    # b finds Smith, 3 / 4 / 2019 and Ann (7) and tags CEO (not counted): recall 7/11, precision 1
    assert token["PHI"]["recall"] == pytest.approx(7 / 11)
    assert token["PHI"]["precision"] == 1.0
    assert data["evaluation"]["ignored_tokens"] == 1
    assert data["bootstrap"]["resamples"] == 20
    assert "| PHI (binary) | 11 | 7 | 1.000 (" in md.read_text()
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_show_text_reveals_missed_strings(app, files) -> None:
    code, out = invoke(app, "evaluate", files.gold, files.a, "--bootstrap", "0", "--show-text")
    assert code == 0, out
    assert "john" in out.lower() and "smith" in out.lower()


def test_unknown_prediction_ids_are_bad_input(app, files, write_jsonl) -> None:
    pred = write_jsonl(files.dir / "p.jsonl", [*PRED_A, {"id": "ghost", "spans": []}])
    code, out = invoke(app, "evaluate", files.gold, pred, "--bootstrap", "0")
    assert code == 1 and "ghost" in out
    code, out = invoke(app, "evaluate", files.gold, pred, "--bootstrap", "0", "--allow-unknown-ids", "-q")
    assert code == 0 and "ghost" in out


def test_missing_predictions_only_warn(app, files, write_jsonl) -> None:
    pred = write_jsonl(files.dir / "p.jsonl", PRED_A[:2])
    code, out = invoke(app, "evaluate", files.gold, pred, "--bootstrap", "0", "-q")
    assert code == 0 and "r3" in out and "no predictions" in out


def test_bad_input_and_usage_errors(app, files, write_jsonl) -> None:
    bad_pred = write_jsonl(files.dir / "bad.jsonl", ['{"id": "r1", "spans": [', *[json.dumps(r) for r in PRED_A]])
    assert invoke(app, "evaluate", files.gold, bad_pred)[0] == 1
    bad_gold = write_jsonl(files.dir / "badgold.jsonl", [*GOLD, {"id": "r9"}])  # no text
    assert invoke(app, "evaluate", bad_gold, files.a)[0] == 1
    past_end = write_jsonl(
        files.dir / "far.jsonl", [{"id": "r3", "spans": [{"start": 0, "end": 999, "category": "ID"}]}]
    )
    assert invoke(app, "evaluate", files.gold, past_end, "--bootstrap", "0")[0] == 1
    assert invoke(app, "evaluate", files.dir / "nope.jsonl", files.a)[0] == 2
    assert invoke(app, "evaluate", files.gold, files.a, "--categories", "DATE,NOPE")[0] == 2
    assert invoke(app, "evaluate", files.gold, files.a, "--tokenizer", "nope")[0] == 2
    assert invoke(app, "evaluate", files.gold, files.a, "--resynthesize", "2")[0] == 2
    assert invoke(app, "evaluate", files.gold, files.a, "--label-map", "nope")[0] == 2
    assert invoke(app, "evaluate", files.gold, files.a, "--bootstrap", "-1")[0] == 2


def test_categories_and_tokenizer_options(app, files) -> None:
    js = files.dir / "r.json"
    code, out = invoke(
        app, "evaluate", files.gold, files.b, "--categories", "date,phone", "--tokenizer", "whitespace",
        "--bootstrap", "0", "--json", js, "-q",
    )  # fmt: skip
    assert code == 0, out
    data = json.loads(js.read_text())["evaluation"]
    assert data["categories"] == ["DATE", "PHONE"] and data["tokenizer"] == "whitespace"
    assert set(data["levels"]["token"]) == {"PHI", "DATE", "PHONE", "micro", "macro"}


class FakePipeline:
    """Stands in for `Deidentifier`: finds a fixed set of strings wherever they occur."""

    config = SimpleNamespace(pipeline=SimpleNamespace(batch_size=2))
    known = {"Smith": "HCW", "3/4/2019": "DATE", "555-0100": "PHONE", "Eve": "PATIENT"}

    def detect(self, docs: Sequence[Document]) -> list[list[Span]]:
        assert all(not d.spans for d in docs), "the pipeline must not see the gold"
        out = []
        for doc in docs:
            spans = []
            for word, category in self.known.items():
                at = doc.text.find(word)
                while at >= 0:
                    spans.append(Span(at, at + len(word), category))
                    at = doc.text.find(word, at + 1)
            out.append(spans)
        return out


class Eve:
    def __init__(self, key: bytes) -> None:
        pass

    def replace(self, document: Document, spans: Sequence[Span]) -> Result:
        return Result.build(document, [Replacement(s, "Eve") for s in spans])


def test_without_predictions_the_pipeline_runs(app, files, monkeypatch) -> None:
    monkeypatch.setattr(commands, "_load_pipeline", lambda err, config, *rest: FakePipeline())
    js = files.dir / "r.json"
    code, out = invoke(app, "evaluate", files.gold, "--bootstrap", "0", "--json", js, "-q")
    assert code == 0, out
    token = json.loads(js.read_text())["evaluation"]["levels"]["token"]
    assert token["PHI"]["recall"] == pytest.approx(9 / 11)  # Smith, 3 / 4 / 2019, 555 - 0100


def test_resynthesize_through_the_cli(app, files, monkeypatch) -> None:
    monkeypatch.setattr(commands, "_load_pipeline", lambda err, config, *rest: FakePipeline())
    monkeypatch.setattr(resynth, "default_replacer_factory", lambda: Eve)
    js, md = files.dir / "r.json", files.dir / "r.md"
    code, out = invoke(
        app, "evaluate", files.gold, "--resynthesize", "3", "--bootstrap", "0", "--json", js, "--markdown", md
    )
    assert code == 0, out
    data = json.loads(js.read_text())["resynthesis"]
    # every gold span becomes "Eve", which the fake pipeline finds (as PATIENT): binary recall 1 in every round
    assert data["rounds"] == 3 and data["keys"] == "seeded"
    assert data["summary"]["token"]["PHI"]["recall"] == {"mean": 1.0, "low": 1.0, "high": 1.0, "rounds": 3}
    assert "Surrogate stability: 3 rounds" in md.read_text()


def test_key_file_must_hold_enough_bytes(app, files, monkeypatch) -> None:
    monkeypatch.setattr(commands, "_load_pipeline", lambda err, config, *rest: FakePipeline())
    monkeypatch.setattr(resynth, "default_replacer_factory", lambda: Eve)
    short = files.dir / "short.key"
    short.write_bytes(b"\xff\x01\x02")  # three raw bytes: too few
    assert invoke(app, "evaluate", files.gold, "--resynthesize", "1", "--key-file", short)[0] == 2
    good = files.dir / "good.key"
    good.write_bytes(b"k" * 32)  # text: a passphrase, stretched with scrypt as `radeid deid` does
    code, out = invoke(app, "evaluate", files.gold, "--resynthesize", "1", "--key-file", good, "--bootstrap", "0")
    assert code == 0, out


def test_a_key_file_means_the_same_key_bytes_as_in_deid(app, files, monkeypatch) -> None:
    """Issue 11: `evaluate` read a hex key file as its raw text bytes while `deid` decoded it."""
    seen: list[bytes] = []

    def resynthesize_spy(*args, master_key=None, **kwargs):
        seen.append(master_key)
        raise resynth.ResynthesisUnavailable("stop here")

    monkeypatch.setattr(commands, "_load_pipeline", lambda err, config, *rest: FakePipeline())
    monkeypatch.setattr(resynth, "resynthesize", resynthesize_spy)
    key = files.dir / "hex.key"
    key.write_text(bytes(range(32)).hex() + "\n")
    invoke(app, "evaluate", files.gold, "--resynthesize", "1", "--key-file", key, "--bootstrap", "0")
    assert seen == [bytes(range(32))]  # the key `radeid deid --key-file` uses, not the file's 65 text bytes


def test_brat_gold_with_a_label_map(app, tmp_path: Path, write_jsonl) -> None:
    gold = tmp_path / "brat"
    gold.mkdir()
    (gold / "n1.txt").write_text("Seen by Dr Grant today .", encoding="utf-8")
    (gold / "n1.ann").write_text("T1\tDOCTOR 11 16\tGrant\nT2\tPROFESSION 0 4\tSeen\n", encoding="utf-8")
    pred = write_jsonl(tmp_path / "p.jsonl", [{"id": "n1", "spans": [{"start": 11, "end": 16, "category": "HCW"}]}])
    js = tmp_path / "r.json"
    code, out = invoke(app, "evaluate", gold, pred, "--label-map", "i2b2_2014", "--bootstrap", "0", "--json", js)
    assert code == 0, out
    levels = json.loads(js.read_text())["evaluation"]["levels"]
    assert levels["exact"]["HCW"]["f1"] == 1.0  # DOCTOR -> HCW


def test_compare(app, files) -> None:
    md, js = files.dir / "c.md", files.dir / "c.json"
    code, out = invoke(
        app, "compare", files.gold, files.a, files.b, "--names", "rules,hybrid", "--markdown", md, "--json", js
    )
    assert code == 0, out
    assert "hybrid vs rules" in out and "Wilcoxon" in out
    data = json.loads(js.read_text())["comparison"]
    assert data["names"] == ["rules", "hybrid"] and data["tests"][0]["key"] == "PHI"
    assert data["family_size"] == len(data["tests"])
    assert "Bonferroni" in md.read_text()
    assert invoke(app, "compare", files.gold, files.a, files.b, "--names", "justone")[0] == 2
    assert invoke(app, "compare", files.gold, files.a, files.b, "--level", "overlap", "-q")[0] == 0


def test_help_has_examples(app) -> None:
    for command in ("evaluate", "compare"):
        code, out = invoke(app, command, "--help")
        assert code == 0 and "Examples" in out


def test_missing_eval_extra_is_a_usage_error_with_a_hint(app, files, monkeypatch) -> None:
    real = cli_options.importlib.util.find_spec
    monkeypatch.setattr(cli_options.importlib.util, "find_spec", lambda name: None if name == "scipy" else real(name))
    code, out = invoke(app, "compare", files.gold, files.a, files.b)
    assert code == 2 and "radeid[eval]" in out
    assert invoke(app, "evaluate", files.gold, files.a, "--bootstrap", "0", "-q")[0] == 0  # no scipy needed


PRESIDIO = Path(__file__).resolve().parents[3] / "shared" / "data" / "presidio_synth.dev.jsonl"


@pytest.mark.slow
@pytest.mark.skipif(not PRESIDIO.exists(), reason="shared development data not present")
def test_default_pipeline_on_presidio_synth(app, tmp_path: Path) -> None:
    js = tmp_path / "r.json"
    code, out = invoke(app, "evaluate", PRESIDIO, "--bootstrap", "20", "--json", js, "-q")
    assert code == 0, out
    data = json.loads(js.read_text())["evaluation"]
    assert data["documents"] == 808
    assert data["ignored_tokens"] > 0  # Presidio TITLE/NRP (category OTHER) are not scored
    assert 0.0 < data["levels"]["token"]["PHI"]["f1"] <= 1.0
