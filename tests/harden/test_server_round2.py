"""Issue 27, point 9: a lone surrogate is a 422 at validation (not a plain-text 500 after the run),
and slow connections are timed out: a request head or body that does not arrive in time."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

SRC = Path(__file__).resolve().parents[2] / "src"
SECRET = "Zebulon Quackenbush"


@pytest.fixture(scope="module")
def client():  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from radeid.cli.options import load_job_config
    from radeid.server.app import create_app

    app = create_app(load_job_config(None, {"replace.mode": "tag"}, no_model=True), None)
    return TestClient(app, raise_server_exceptions=False)


def _raw(client, path: str, body: str):  # type: ignore[no-untyped-def]
    return client.post(path, content=body.encode("ascii"), headers={"content-type": "application/json"})


@pytest.mark.parametrize("path", ["/v1/deidentify", "/v1/detect"])
@pytest.mark.parametrize(
    ("document", "field"),
    [
        (f'{{"id": "a", "text": "{SECRET} x \\ud800"}}', "text"),
        (f'{{"id": "a\\udfff", "text": "{SECRET}"}}', "id"),
        (f'{{"id": "a", "text": "{SECRET}", "patient_id": "p\\ud800"}}', "patient_id"),
    ],
)
def test_lone_surrogate_is_422_json_at_validation(client, path: str, document: str, field: str) -> None:  # type: ignore[no-untyped-def]
    answer = _raw(client, path, f'{{"documents": [{document}]}}')
    assert answer.status_code == 422, answer.text
    assert answer.headers["content-type"] == "application/json"
    (error,) = answer.json()["detail"]
    assert error["loc"] == ["body", "documents", 0, field]
    assert "unpaired surrogate" in error["msg"] and "Quackenbush" not in answer.text


def test_a_surrogate_pair_is_fine(client) -> None:  # type: ignore[no-untyped-def]
    answer = _raw(client, "/v1/deidentify", '{"documents": [{"id": "a", "text": "x \\ud83d\\ude00 y"}]}')
    assert answer.status_code == 200 and answer.json()["documents"][0]["text"] == "x \U0001f600 y"


def test_an_unexpected_failure_is_a_json_500_without_text(monkeypatch: pytest.MonkeyPatch) -> None:
    from fastapi.testclient import TestClient

    from radeid.cli.options import load_job_config
    from radeid.server import app as server_app

    def boom(*_args: object, **_kwargs: object) -> object:
        raise UnicodeEncodeError("utf-8", SECRET, 0, 1, "surrogates not allowed")

    monkeypatch.setattr(server_app, "_replacements", boom)
    api = server_app.create_app(load_job_config(None, {"replace.mode": "tag"}, no_model=True), None)
    answer = TestClient(api, raise_server_exceptions=False).post(
        "/v1/deidentify", json={"documents": [{"id": "a", "text": "ok"}]}
    )
    assert answer.status_code == 500 and answer.headers["content-type"] == "application/json"
    assert "UnicodeEncodeError" in answer.json()["detail"] and "Quackenbush" not in answer.text


def test_a_body_that_stops_coming_is_408() -> None:
    from radeid.server.app import _Guard

    sent: list[dict] = []

    async def app(scope: dict, receive: object, send: object) -> None:  # never reached
        raise AssertionError("the app must not see a body that did not arrive")

    async def receive() -> dict:
        if not sent and not getattr(receive, "first", False):
            receive.first = True  # type: ignore[attr-defined]
            return {"type": "http.request", "body": b'{"documents": [', "more_body": True}
        await asyncio.Event().wait()  # the client stalls
        return {}

    async def send(message: dict) -> None:
        sent.append(message)

    guard = _Guard(app, max_bytes=1000, token=None, read_timeout=0.05)
    scope = {"type": "http", "method": "POST", "path": "/v1/detect", "headers": [(b"content-length", b"900")]}
    asyncio.run(guard(scope, receive, send))  # type: ignore[arg-type]
    assert sent[0]["status"] == 408
    assert json.loads(sent[1]["body"]) == {"detail": "the request body did not arrive within 0.05 s"}


# ------------------------------------------------------------ the real server: slow connections closed


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Path]]:
    folder = tmp_path_factory.mktemp("slow")
    port = _free_port()
    log = folder / "server.log"
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("RADEID_KEY", None)
    command = [sys.executable, "-m", "radeid", "serve", "--port", str(port), "--no-model", "--mode", "tag",
               "--request-timeout", "1"]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                pytest.fail(f"the server exited: {log.read_text()}")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/v1/health").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the server did not start: {log.read_text()}")
            time.sleep(0.2)
        yield port, log
    finally:
        process.terminate()
        process.wait(timeout=20)


def _until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (the socket's own timeout, far
    longer than the server's, fails the test instead of hanging it)."""
    sock.settimeout(30)
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


@pytest.mark.parametrize("head", [b"", b"POST /v1/detect HTTP/1.1\r\nHost: x\r\n"])
def test_a_request_head_that_never_completes_is_closed(slow_server: tuple[int, Path], head: bytes) -> None:
    port, _ = slow_server
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(head)
        assert _until_closed(sock) == b""


def test_a_body_that_never_completes_is_408_and_closed(slow_server: tuple[int, Path]) -> None:
    port, log = slow_server
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(
            b"POST /v1/detect HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n"
            + f'{{"documents": [{{"id": "a", "text": "{SECRET}'.encode()
        )
        answer = _until_closed(sock)
    assert answer.startswith(b"HTTP/1.1 408 ")
    assert b"the request body did not arrive within 1 s" in answer
    assert "POST /v1/detect 408" in log.read_text() and "Quackenbush" not in log.read_text()


def test_a_keep_alive_connection_is_closed_when_idle(slow_server: tuple[int, Path]) -> None:
    port, _ = slow_server
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = _until_closed(sock)
    assert answer.startswith(b"HTTP/1.1 200 ") and answer.endswith(b'{"status":"ok"}')
