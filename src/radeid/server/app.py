"""radeid's REST service (`radeid serve`): the same `Deidentifier` as `radeid deid`, over HTTP.

FastAPI and uvicorn come with the `server` extra (`pip install 'radeid[server]'`); this module is
imported only by `radeid serve` and by users who call `create_app` themselves.

Kept as one module (about 500 lines): the routes, their request models and the error handlers share
the app's state; the seam, if it grows, is the request models and their validation.

The pipeline is built once, from one `Config` and the server's key, when the app is made; a request's
documents go through `Deidentifier.deidentify` in `pipeline.batch_size` chunks, so a document gets
exactly the text `radeid deid` writes for it with the same key and config. A request may ask for
another replacement mode: one `Deidentifier` per mode is made on first use, sharing the detectors.

Privacy: no document text is ever logged or put in an error body. Validation errors give the location
and message only (FastAPI's default handler echoes the input); failures inside the pipeline answer
500 with the exception type only; the request log line (method, path, status, documents, time) is
radeid's own, uvicorn's access log is off. Request bodies are limited in size before they are parsed
(413), in documents per request (422), and in time (408 when a body has not arrived within the read
timeout; a request head gets as long, see `radeid.server.timeouts`). Text that is not valid Unicode
(a lone `\\ud800` escape) is a 422 at validation. With a token, every `/v1` request must carry
`Authorization: Bearer <token>` (401 otherwise), checked before the body is read.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import hmac
import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Annotated, Any

from fastapi import FastAPI, HTTPException, Request, Security
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field, field_validator

from radeid import __version__
from radeid.config.config import Config, ConfigError
from radeid.core.categories import Category
from radeid.core.document import Document, Result
from radeid.io.audit import audit_rows
from radeid.io.records import bad_unicode
from radeid.pipeline.deidentifier import Deidentifier
from radeid.pipeline.multilingual import build_deidentifier
from radeid.pipeline.spec import canonical
from radeid.replace.base import REPLACERS

__all__ = [
    "DEFAULT_MAX_DOCUMENTS",
    "DEFAULT_MAX_REQUEST_BYTES",
    "DEFAULT_READ_TIMEOUT",
    "config_digest",
    "create_app",
]

DEFAULT_MAX_REQUEST_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_DOCUMENTS = 256
#: Seconds a client has to send a request body (408 after), and a request head (the connection is
#: closed after; see `radeid.server.timeouts`).
DEFAULT_READ_TIMEOUT = 30.0

log = logging.getLogger("radeid.server.app")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


# ------------------------------------------------------------------------------------ the schema


class DocumentIn(BaseModel):
    """One document to de-identify."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="The document's id, echoed in the answer.")
    text: str = Field(description="The report text.")
    patient_id: str | None = Field(
        default=None, description="Keeps surrogates (names, date shifts) consistent across a patient's documents."
    )

    @field_validator("id", "text", "patient_id")
    @classmethod
    def _valid_unicode(cls, value: str | None) -> str | None:
        """A lone `\\ud800` escape parses as JSON but can never be written back as UTF-8: refused
        here (422, the position only), not after the run as an answer that cannot be sent (issue 27)."""
        if value is not None and (at := bad_unicode(value)) is not None:
            raise ValueError(f"not valid Unicode: an unpaired surrogate at character {at}")
        return value


class DeidentifyRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    documents: list[DocumentIn] = Field(description="The documents (at most the server's max_documents).")
    mode: str | None = Field(
        default=None,
        description="Replacement mode for this request (one of `modes` in GET /v1/info); default: the server's.",
        examples=["tag"],
    )


class DetectRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    documents: list[DocumentIn] = Field(description="The documents (at most the server's max_documents).")


class Replacement(BaseModel):
    """One replaced span: where it was, where its replacement is, what it was judged to be; never text."""

    start: int = Field(description="Start offset in the original text.")
    end: int = Field(description="End offset (exclusive) in the original text.")
    category: str
    subtype: str | None = None
    source: str = Field(description="The detector (and rule) that found it.")
    score: float
    out_start: int = Field(description="Start offset of the replacement in the returned text.")
    out_end: int = Field(description="End offset (exclusive) of the replacement in the returned text.")
    replacement_kind: str | None = None


class DocumentOut(BaseModel):
    id: str
    text: str = Field(description="The de-identified text.")
    replacements: list[Replacement]


class DeidentifyResponse(BaseModel):
    documents: list[DocumentOut]
    mode: str = Field(description="The replacement mode used.")


class SpanOut(BaseModel):
    start: int
    end: int
    category: str
    subtype: str | None = None
    score: float
    source: str


class DetectedDocument(BaseModel):
    id: str
    spans: list[SpanOut]


class DetectResponse(BaseModel):
    documents: list[DetectedDocument]


class Health(BaseModel):
    status: str = "ok"


class ModelInfo(BaseModel):
    name: str = Field(description="`detectors.transformer.model` of the config.")
    path: str = Field(description="Where it is loaded from (a folder or a hub name).")


class Limits(BaseModel):
    max_request_bytes: int
    max_documents: int
    batch_size: int


class Info(BaseModel):
    radeid: str = Field(description="radeid's version.")
    model: ModelInfo | None = Field(description="The transformer model, or null for a rules-only pipeline.")
    detectors: list[str]
    categories: list[str]
    modes: list[str] = Field(description="Replacement modes a request may ask for.")
    default_mode: str
    keyed: bool = Field(description="Whether the server has a key (surrogate mode needs one).")
    config_digest: str = Field(description="SHA-256 of the canonical config (where files live left out).")
    limits: Limits
    auth: bool = Field(description="Whether requests need a bearer token.")


class ErrorItem(BaseModel):
    loc: list[str | int]
    msg: str
    type: str


class ValidationErrorBody(BaseModel):
    detail: list[ErrorItem]


class ErrorBody(BaseModel):
    detail: str


# ---------------------------------------------------------------------------------- helpers


def config_digest(config: Config) -> str:
    """SHA-256 of the canonical config; where the key, audit and vault live is left out."""
    io = dataclasses.replace(config.io, key_file="", audit="", vault="")
    payload = canonical(dataclasses.replace(config, io=io))
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _model_info(config: Config) -> ModelInfo | None:
    if "transformer" not in config.pipeline.detectors or not config.transformer.model:
        return None
    from radeid.detect.transformer.folder import resolve_model

    return ModelInfo(name=config.transformer.model, path=str(resolve_model(config.transformer.model)))


def _replacements(result: Result) -> list[Replacement]:
    rows = audit_rows(result)  # the one audit serializer: offsets, category, source, score; no text
    return [Replacement(**{k: v for k, v in row.items() if k != "doc_id"}) for row in rows]


def _documents(items: Sequence[DocumentIn]) -> list[Document]:
    return [Document(id=d.id, text=d.text, patient_id=d.patient_id) for d in items]


async def _send_json(
    send: Send, status: int, body: dict[str, Any], headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    data = json.dumps(body).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
                        *headers],
        }
    )  # fmt: skip
    await send({"type": "http.response.body", "body": data})


class _Guard:
    """ASGI middleware around the routes: the token (before the body is read), the body size limit
    (from Content-Length and while reading), the body read timeout (408: a client that stops
    sending holds nothing for long), one log line per request without any text, and a JSON 500
    naming the exception type only for anything the routes did not expect."""

    def __init__(
        self, app: ASGIApp, max_bytes: int, token: str | None, read_timeout: float = DEFAULT_READ_TIMEOUT
    ) -> None:
        self.app, self.max_bytes, self.read_timeout = app, max_bytes, read_timeout
        self.token = token.encode("utf-8") if token is not None else None

    def _authorized(self, headers: dict[bytes, bytes]) -> bool:
        if self.token is None:
            return True
        scheme, _, given = headers.get(b"authorization", b"").partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self.token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started, status = time.monotonic(), [0]
        path = str(scope.get("path", ""))

        async def logged_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = int(message["status"])
            await send(message)

        try:
            await self._guarded(scope, receive, logged_send, path)
        except Exception as exc:  # the type only: a message may quote text
            log.error("%s %s failed: %s", scope.get("method", ""), path, type(exc).__name__)
            if status[0] == 0:
                detail = f"internal error ({type(exc).__name__}); see the server log"
                await _send_json(logged_send, 500, {"detail": detail})
        finally:
            ms = 1000 * (time.monotonic() - started)
            log.info("%s %s %d %.1f ms", scope.get("method", ""), path, status[0], ms)

    async def _guarded(self, scope: Scope, receive: Receive, send: Send, path: str) -> None:
        headers = {k.lower(): v for k, v in scope.get("headers", [])}
        if path.startswith("/v1/") and not self._authorized(headers):
            detail = "missing or wrong bearer token (Authorization: Bearer <token>)"
            await _send_json(send, 401, {"detail": detail}, [(b"www-authenticate", b"Bearer")])
            return
        length = headers.get(b"content-length")
        if length is not None:
            try:
                declared = int(length)
            except ValueError:
                await _send_json(send, 400, {"detail": "invalid Content-Length"})
                return
            if declared > self.max_bytes:
                await _send_json(send, 413, self._too_large())
                return
        body = await self._body(scope, receive, send)
        if body is None:
            return
        sent = [False]

        async def replay() -> Message:
            if not sent[0]:
                sent[0] = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _too_large(self) -> dict[str, str]:
        return {"detail": f"request body over the limit of {self.max_bytes} bytes"}

    async def _body(self, scope: Scope, receive: Receive, send: Send) -> bytes | None:
        """The whole body, bounded in size and in time (nothing is parsed past the limit); None
        when the answer (413, 408) is sent already, or the client left."""
        chunks, size, more = [], 0, scope.get("method") not in ("GET", "HEAD")
        deadline = time.monotonic() + self.read_timeout
        while more:
            try:
                message = await asyncio.wait_for(receive(), max(deadline - time.monotonic(), 0.0))
            except asyncio.TimeoutError:
                detail = f"the request body did not arrive within {self.read_timeout:g} s"
                await _send_json(send, 408, {"detail": detail}, [(b"connection", b"close")])
                return None
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await _send_json(send, 413, self._too_large())
                return None
            chunks.append(chunk)
            more = bool(message.get("more_body", False))
        return b"".join(chunks)


#: Names a validation error may show in its location; any other key of the client's JSON is shown as "?".
_FIELDS = frozenset({"body", "query", "header", "path", "documents", "id", "text", "patient_id", "mode"})


def _loc_part(part: Any) -> int | str:
    if isinstance(part, int):
        return part
    return str(part) if str(part) in _FIELDS else "?"


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    """422 with where and what, never the input (FastAPI's default echoes it, with document text)."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    detail = [
        {"loc": [_loc_part(p) for p in e.get("loc", ())], "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))}
        for e in errors
    ]
    return JSONResponse(status_code=422, content={"detail": detail})


# -------------------------------------------------------------------------------------- the app


class _Pipelines:
    """One `Deidentifier` per replacement mode, sharing the detectors; calls are serialized."""

    def __init__(self, config: Config, key: bytes | None) -> None:
        self.config, self.key = config, key
        self.base = build_deidentifier(config, key=key)
        self.lock = threading.Lock()
        self._by_mode: dict[str, Deidentifier] = {config.replace.mode: self.base}
        _ = self.base.replacer  # a keyed mode without a key fails at start-up, not at the first request

    def for_mode(self, mode: str | None) -> Deidentifier:
        name = mode or self.config.replace.mode
        if name not in REPLACERS:
            raise _invalid("mode", f"unknown mode; known: {', '.join(REPLACERS.names())}")
        found = self._by_mode.get(name)
        if found is None:
            config = self.config.with_section("replace", mode=name)
            found = build_deidentifier(config, key=self.key, detectors=self.base.detectors)
            try:
                _ = found.replacer
            except ConfigError as exc:  # e.g. surrogate mode on a server without a key
                raise _invalid("mode", f"mode {name!r} cannot be used on this server: {exc}") from None
            self._by_mode[name] = found
        return found


_BEARER = HTTPBearer(auto_error=False, description="Needed when the server was started with --token-file.")


def _auth(credentials: Annotated[HTTPAuthorizationCredentials | None, Security(_BEARER)] = None) -> None:
    """Declares the bearer scheme in the schema; `_Guard` has already checked the token."""


Authorized = Annotated[None, Security(_auth)]


def _invalid(field: str, message: str) -> HTTPException:
    """A 422 shaped like a validation error."""
    return HTTPException(422, [{"loc": ["body", field], "msg": message, "type": "value_error"}])


def _chunks(items: Sequence[DocumentIn], size: int) -> list[list[Document]]:
    docs = _documents(items)
    return [docs[i : i + size] for i in range(0, len(docs), size)]


def _failure(exc: Exception, what: str) -> HTTPException:
    log.error("%s failed: %s", what, type(exc).__name__)  # the type only: a message may quote text
    return HTTPException(500, f"{what} failed ({type(exc).__name__}); see the server log")


def create_app(
    config: Config,
    key: bytes | None,
    token: str | None = None,
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
    max_documents: int = DEFAULT_MAX_DOCUMENTS,
    read_timeout: float = DEFAULT_READ_TIMEOUT,
) -> FastAPI:
    """The ASGI app: a FastAPI app behind radeid's guard (token, size limit, body read timeout,
    log). The pipeline is built here, once; a `ConfigError` means the config (or a keyed mode
    without a key) cannot run."""
    if token is not None and not token.strip():
        raise ConfigError("the bearer token is empty")
    pipelines = _Pipelines(config, key)
    api = FastAPI(
        title="radeid",
        version=__version__,
        description="De-identify radiology reports: the pipeline of `radeid deid`, over HTTP.",
        docs_url=None,  # Swagger UI and ReDoc load assets from a CDN; the schema is at /openapi.json
        redoc_url=None,
    )
    api.add_exception_handler(RequestValidationError, _validation_error)
    info = _info(config, key, token, max_request_bytes, max_documents)
    _add_routes(api, pipelines, info, config.pipeline.batch_size, max_documents)
    api.add_middleware(_Guard, max_bytes=max_request_bytes, token=token, read_timeout=read_timeout)
    return api


def _info(config: Config, key: bytes | None, token: str | None, max_request_bytes: int, max_documents: int) -> Info:
    """What GET /v1/info answers: fixed at start-up (versions, model, modes, limits, whether a token is needed)."""
    return Info(
        radeid=__version__,
        model=_model_info(config),
        detectors=list(config.pipeline.detectors),
        categories=[c.value for c in Category],
        modes=REPLACERS.names(),
        default_mode=config.replace.mode,
        keyed=key is not None,
        config_digest=config_digest(config),
        limits=Limits(
            max_request_bytes=max_request_bytes, max_documents=max_documents, batch_size=config.pipeline.batch_size
        ),
        auth=token is not None,
    )


def _add_routes(api: FastAPI, pipelines: _Pipelines, info: Info, batch_size: int, max_documents: int) -> None:
    """The four endpoints (health, info, deidentify, detect), in the order the schema lists them."""
    errors: dict[int | str, dict[str, Any]] = {
        401: {"model": ErrorBody, "description": "Missing or wrong bearer token."},
        408: {"model": ErrorBody, "description": "Request body not received within the read timeout."},
        413: {"model": ErrorBody, "description": "Request body over the size limit."},
        422: {"model": ValidationErrorBody, "description": "Invalid request (no input is echoed)."},
    }

    def check_count(documents: Sequence[DocumentIn]) -> None:
        if len(documents) > max_documents:
            raise _invalid("documents", f"{len(documents)} documents in one request; the limit is {max_documents}")

    @api.get("/v1/health", response_model=Health, responses={401: errors[401]})
    def health(_: Authorized) -> Health:
        return Health()

    @api.get("/v1/info", response_model=Info, responses={401: errors[401]})
    def get_info(_: Authorized) -> Info:
        return info

    @api.post("/v1/deidentify", response_model=DeidentifyResponse, responses=errors)
    def deidentify(request: DeidentifyRequest, _: Authorized) -> DeidentifyResponse:
        """De-identify documents: the text `radeid deid` writes, and every replacement (offsets, no text)."""
        check_count(request.documents)
        with pipelines.lock:
            pipeline = pipelines.for_mode(request.mode)
            try:
                results = [r for chunk in _chunks(request.documents, batch_size) for r in pipeline.deidentify(chunk)]
            except Exception as exc:
                raise _failure(exc, "de-identification") from None
        documents = [DocumentOut(id=r.document.id, text=r.text, replacements=_replacements(r)) for r in results]
        return DeidentifyResponse(documents=documents, mode=pipeline.config.replace.mode)

    @api.post("/v1/detect", response_model=DetectResponse, responses=errors)
    def detect(request: DetectRequest, _: Authorized) -> DetectResponse:
        """Detect PHI without changing anything: the resolved spans of each document (no text)."""
        check_count(request.documents)
        out: list[DetectedDocument] = []
        with pipelines.lock:
            try:
                for chunk in _chunks(request.documents, batch_size):
                    for doc, spans in zip(chunk, pipelines.base.detect(chunk), strict=True):
                        out.append(DetectedDocument(id=doc.id, spans=[SpanOut(**s.to_dict()) for s in spans]))
            except Exception as exc:
                raise _failure(exc, "detection") from None
        return DetectResponse(documents=out)
