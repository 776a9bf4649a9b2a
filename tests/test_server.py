"""`radeid serve` (issue 16): the real server, started with `python -m radeid serve` on a free loopback
port, answered over HTTP (httpx); results compared with what `radeid deid` writes for the same key
and config; bad requests (malformed JSON, oversize, too many documents, missing/wrong token) answered
with clear 4xx errors that never echo document text; a schemathesis run over the OpenAPI schema."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

SRC = Path(__file__).resolve().parents[1] / "src"
TOKEN = "test-token-0123456789abcdef"
SECRET = "Zebulon Quackenbush 1234567"  # planted in bad requests: must never come back
DOCS = [
    {
        "id": "r1",
        "text": "MRN: 4455667. Seen by Dr. Alan Grant on 03/04/2019. Call (555) 201-3344.",
        "patient_id": "p1",
    },
    {"id": "r2", "text": "No acute cardiopulmonary process. Stable Parkinson disease.", "patient_id": "p1"},
    {"id": "r3", "text": "Accession: CT-2019-004512. Email results to agrant@jurassic-health.org.", "patient_id": "p2"},
    {"id": "r4", "text": "Patient John Smith, 93 year old male, seen at Mercy Hospital on 2019-05-06."},
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    def __init__(self, url: str, process: subprocess.Popen[bytes], log: Path) -> None:
        self.url, self.process, self.log = url, process, log
        self.auth = {"Authorization": f"Bearer {TOKEN}"}

    def post(self, path: str, body: object, **kwargs: object) -> httpx.Response:
        headers = {**self.auth, **kwargs.pop("headers", {})}  # type: ignore[dict-item]
        return httpx.post(self.url + path, json=body, headers=headers, timeout=30, **kwargs)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("server")
    key = folder / "site.key"
    key.write_text("ab" * 32 + "\n", encoding="ascii")
    key.chmod(0o600)
    token = folder / "api.token"
    token.write_text(TOKEN + "\n", encoding="utf-8")
    port = _free_port()
    log = folder / "server.log"
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("RADEID_KEY", None)
    command = [sys.executable, "-m", "radeid", "serve", "--port", str(port), "--key-file", str(key),
               "--token-file", str(token), "--no-model", "--max-request-mb", "0.05",
               "--max-documents", "8"]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                pytest.fail(f"the server exited: {log.read_text()}")
            try:
                if httpx.get(url + "/v1/health", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the server did not start: {log.read_text()}")
            time.sleep(0.2)
        yield Server(url, process, log)
    finally:
        process.terminate()
        process.wait(timeout=20)


def _cli_deid(
    cli: Callable[..., tuple[int, str]], folder: Path, key: Path, *options: str
) -> tuple[list[dict], list[dict]]:
    source = folder / "in.jsonl"
    source.write_text("".join(json.dumps(d) + "\n" for d in DOCS), encoding="utf-8")
    output = folder / "out.jsonl"
    code, out = cli("deid", source, "-o", output, "--key-file", key, "--no-model", "--workers", "1", "-q", *options)
    assert code == 0, out
    audit = folder / "out.jsonl.audit.jsonl"
    lines = [json.loads(x) for x in output.read_text(encoding="utf-8").splitlines()]
    audit_lines = [json.loads(x) for x in audit.read_text(encoding="utf-8").splitlines()]
    return lines, audit_lines


def _server_key(tmp_path: Path) -> Path:
    key = tmp_path / "site.key"
    key.write_text("ab" * 32 + "\n", encoding="ascii")
    key.chmod(0o600)
    return key


def _same_as_cli(server: Server, cli: Callable[..., tuple[int, str]], tmp_path: Path, mode: str) -> None:
    lines, audit = _cli_deid(cli, tmp_path, _server_key(tmp_path), "--mode", mode)
    body = {"documents": DOCS, "mode": mode}
    answer = server.post("/v1/deidentify", body)
    assert answer.status_code == 200, answer.text
    got = answer.json()
    assert got["mode"] == mode
    assert [d["id"] for d in got["documents"]] == [d["id"] for d in DOCS]
    assert [d["text"] for d in got["documents"]] == [line["text"] for line in lines]
    replacements = [
        {"doc_id": d["id"], **{k: v for k, v in r.items() if v is not None}}
        for d in got["documents"]
        for r in d["replacements"]
    ]
    assert replacements == [{k: v for k, v in row.items() if v is not None} for row in audit]
    assert replacements, "the documents hold PHI"


def test_deidentify_matches_cli_surrogate(server: Server, cli: Callable[..., tuple[int, str]], tmp_path: Path) -> None:
    _same_as_cli(server, cli, tmp_path, "surrogate")


def test_deidentify_matches_cli_tag(server: Server, cli: Callable[..., tuple[int, str]], tmp_path: Path) -> None:
    _same_as_cli(server, cli, tmp_path, "tag")


def test_default_mode_is_the_configs(server: Server) -> None:
    answer = server.post("/v1/deidentify", {"documents": DOCS[:1]})
    assert answer.status_code == 200
    assert answer.json()["mode"] == "surrogate"
    assert "Alan Grant" not in answer.json()["documents"][0]["text"]


def test_detect_gives_spans_without_text(server: Server) -> None:
    answer = server.post("/v1/detect", {"documents": DOCS})
    assert answer.status_code == 200
    documents = answer.json()["documents"]
    assert [d["id"] for d in documents] == [d["id"] for d in DOCS]
    first = documents[0]["spans"]
    assert {"ID", "HCW", "DATE", "PHONE"} <= {s["category"] for s in first}
    assert set(first[0]) == {"start", "end", "category", "subtype", "score", "source"}
    assert documents[1]["spans"] == []


def test_malformed_json_is_422_without_text(server: Server) -> None:
    bad = ('{"documents": [{"id": "x", "text": "' + SECRET + '"}, }').encode()
    answer = httpx.post(
        server.url + "/v1/deidentify", content=bad, headers={**server.auth, "Content-Type": "application/json"}
    )
    assert answer.status_code == 422
    assert SECRET not in answer.text and "Quackenbush" not in answer.text
    assert answer.json()["detail"][0]["type"] == "json_invalid"


@pytest.mark.parametrize(
    "body",
    [
        {"documents": [{"id": "x", "text": [SECRET]}]},  # text not a string: FastAPI would echo the input
        {"documents": [{"id": "x", "text": "ok", SECRET: SECRET}]},  # unknown field, named by the secret
        {"documents": SECRET},
        {"documents": [{"id": "x", "text": "ok"}], "mode": SECRET},
    ],
)
def test_invalid_request_is_422_without_text(server: Server, body: dict) -> None:
    answer = server.post("/v1/deidentify", body)
    assert answer.status_code == 422
    assert "Quackenbush" not in answer.text
    assert answer.json()["detail"][0]["loc"][0] == "body"
    assert "Quackenbush" not in server.log.read_text()


def test_oversize_is_413(server: Server) -> None:
    big = {"documents": [{"id": "x", "text": SECRET * 4000}]}
    answer = server.post("/v1/deidentify", big)
    assert answer.status_code == 413
    assert "Quackenbush" not in answer.text


def test_oversize_without_content_length_is_413(server: Server) -> None:
    def chunks() -> Iterator[bytes]:  # chunked transfer: the limit is checked while reading
        yield b'{"documents": [{"id": "x", "text": "'
        for _ in range(200):
            yield b"A" * 1000
        yield b'"}]}'

    answer = httpx.post(
        server.url + "/v1/detect", content=chunks(), headers={**server.auth, "Content-Type": "application/json"}
    )
    assert answer.status_code == 413


def test_too_many_documents_is_422(server: Server) -> None:
    answer = server.post("/v1/deidentify", {"documents": [{"id": str(i), "text": "x"} for i in range(9)]})
    assert answer.status_code == 422
    assert "limit is 8" in answer.json()["detail"][0]["msg"]


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong-token-0123456789"}, {"Authorization": TOKEN}])
def test_missing_or_wrong_token_is_401(server: Server, headers: dict[str, str]) -> None:
    for path in ("/v1/health", "/v1/info"):
        assert httpx.get(server.url + path, headers=headers).status_code == 401
    answer = httpx.post(server.url + "/v1/deidentify", json={"documents": DOCS}, headers=headers)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == "Bearer"
    assert "Alan" not in answer.text


def test_info(server: Server) -> None:
    from radeid import __version__
    from radeid.cli.options import load_job_config
    from radeid.server.app import config_digest

    info = httpx.get(server.url + "/v1/info", headers=server.auth).json()
    assert info["radeid"] == __version__
    assert info["model"] is None and info["detectors"] == ["rules", "lexicon"]
    assert {"surrogate", "mask", "tag", "numbered", "fixed"} <= set(info["modes"])
    assert "PATIENT" in info["categories"] and info["default_mode"] == "surrogate"
    assert info["keyed"] is True and info["auth"] is True
    assert info["limits"]["max_documents"] == 8
    assert info["config_digest"] == config_digest(load_job_config(None, {}, no_model=True))
    assert "ab" * 32 not in json.dumps(info) and TOKEN not in json.dumps(info)


def test_log_holds_no_text(server: Server) -> None:
    server.post("/v1/deidentify", {"documents": DOCS})
    log = server.log.read_text()
    assert "POST /v1/deidentify 200" in log
    assert "Alan Grant" not in log and "4455667" not in log and TOKEN not in log


def test_model_info_names_the_bundled_model() -> None:
    from radeid.cli.options import load_job_config
    from radeid.server.app import _model_info

    model = _model_info(load_job_config(None, {}))
    assert model is not None and model.name == "bundled" and model.path.endswith("default")


# ----------------------------------------------------------------------------------- start-up


def test_refuses_non_loopback_without_token(cli: Callable[..., tuple[int, str]], tmp_path: Path) -> None:
    code, out = cli("serve", "--host", "0.0.0.0", "--key-file", _server_key(tmp_path), "--no-model")
    assert code == 2
    assert "--token-file" in out


def test_refuses_short_token(cli: Callable[..., tuple[int, str]], tmp_path: Path) -> None:
    token = tmp_path / "t"
    token.write_text("tiny", encoding="utf-8")
    code, out = cli("serve", "--host", "0.0.0.0", "--token-file", token, "--no-model", "--mode", "tag")
    assert code == 2 and "too short" in out and "tiny" not in out  # the token is never printed


def test_surrogate_mode_needs_a_key(cli: Callable[..., tuple[int, str]]) -> None:
    code, out = cli("serve", "--no-model", env={"RADEID_KEY": ""})
    assert code == 2, out
    # the command line's words (issue 29), not the Python API's ("pass key=")
    assert (
        "error: surrogate mode needs a key: pass --key-file FILE or set $RADEID_KEY (`radeid keygen -o FILE` makes "
        "one), or serve a mask mode: --mode tag\n"
    ) in out
    assert "key=" not in out


def test_duplicate_ids_in_one_request_are_422_as_in_deid() -> None:
    from fastapi.testclient import TestClient

    from radeid.cli.options import load_job_config
    from radeid.server.app import create_app

    client = TestClient(create_app(load_job_config(None, {"replace.mode": "tag"}, no_model=True), None))
    docs = [{"id": "a", "text": "Seen by Dr. Alan Grant."}, {"id": "b", "text": "x"}, {"id": "a", "text": "y"}]
    answer = client.post("/v1/deidentify", json={"documents": docs})
    assert answer.status_code == 422
    assert answer.json()["detail"] == [
        {"loc": ["body", "documents", 2, "id"], "type": "value_error",
         "msg": "duplicate document id (the id of documents[0]); ids must be unique in a request, as radeid deid "
                "requires"}
    ]  # fmt: skip
    assert "Grant" not in answer.text
    assert client.post("/v1/deidentify", json={"documents": docs[:2]}).status_code == 200


def test_missing_fastapi_says_what_to_install(
    cli: Callable[..., tuple[int, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "fastapi", None)
    code, out = cli("serve", "--no-model")
    assert code == 2 and "pip install 'radeid[server]'" in out


def test_loopback_hosts() -> None:
    from radeid.cli.serve import is_loopback

    assert all(is_loopback(h) for h in ("127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "10.0.0.1", "example.org"))


def test_surrogate_request_on_a_keyless_server_is_422() -> None:
    from fastapi.testclient import TestClient

    from radeid.cli.options import load_job_config
    from radeid.server.app import create_app

    client = TestClient(create_app(load_job_config(None, {"replace.mode": "tag"}, no_model=True), None))
    answer = client.post("/v1/deidentify", json={"documents": DOCS[:1], "mode": "surrogate"})
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["msg"] == (
        "mode 'surrogate' cannot be used on this server: surrogate mode needs a key; start the server with "
        "--key-file or $RADEID_KEY"
    )
    assert client.post("/v1/deidentify", json={"documents": DOCS[:1]}).json()["mode"] == "tag"


# ---------------------------------------------------------------------------------- schemathesis


def test_openapi_schema_fuzz(server: Server) -> None:
    """schemathesis over the served OpenAPI schema: no 5xx, and answers match their declared schema."""
    schemathesis = pytest.importorskip("schemathesis")
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import response_schema_conformance, status_code_conformance

    schema = schemathesis.openapi.from_url(server.url + "/openapi.json", headers=server.auth)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert {f"{op.method.upper()} {op.path}" for op in operations} == {
        "GET /v1/health", "GET /v1/info", "POST /v1/deidentify", "POST /v1/detect"
    }  # fmt: skip
    strategy = st.one_of([op.as_strategy() for op in operations])
    checks = [not_a_server_error, response_schema_conformance, status_code_conformance]

    @settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def fuzz(case: object) -> None:
        case.call_and_validate(base_url=server.url, headers=server.auth, checks=checks)  # type: ignore[attr-defined]

    before = server.log.read_text().count(" ms\n")
    fuzz()
    assert server.log.read_text().count(" ms\n") - before >= 30  # the requests did reach the server


def test_the_cli_does_not_import_fastapi() -> None:
    """The core install needs no FastAPI: `radeid` imports it only when `serve` runs."""
    code = "import sys, radeid.cli.main; print('fastapi' in sys.modules or 'uvicorn' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "False"
