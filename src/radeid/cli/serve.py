"""`radeid serve`: the REST service (`radeid.server.app`), registered on the main CLI with
`register(app)`. FastAPI and uvicorn are imported only when the command runs."""

from __future__ import annotations

import ipaddress
import logging
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any

import typer

from radeid.cli.errors import fail
from radeid.cli.options import QuietOpt
from radeid.config.config import Config, ConfigError
from radeid.pipeline.spec import MODES

__all__ = ["is_loopback", "read_token", "register", "serve"]


def is_loopback(host: str) -> bool:
    """Whether `host` is a loopback address (`127.0.0.0/8`, `::1`) or `localhost`."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def read_token(path: Path) -> str:
    """The bearer token in a file (surrounding whitespace stripped); never printed."""
    try:
        token = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the token file {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if not token:
        raise ConfigError(f"the token file {path} is empty")
    if len(token) < 16:
        raise ConfigError(f"the token in {path} is too short; use at least 16 random characters")
    return token


def register(app: typer.Typer) -> None:
    """Add `radeid serve` to the command line."""
    app.command("serve")(serve)


def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to bind; anything but loopback needs --token-file.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", "-p", min=0, max=65535, help="Port to listen on.")] = 8000,
    key_file: Annotated[
        Path | None, typer.Option("--key-file", help="Key for surrogates (else $RADEID_KEY); never generated.")
    ] = None,
    token_file: Annotated[
        Path | None,
        typer.Option("--token-file", help="File holding the bearer token clients must send (required off loopback)."),
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", "-c", help="TOML merged over the defaults (the whole job).")
    ] = None,
    no_model: Annotated[
        bool, typer.Option("--no-model", help="Rules and word lists only: no transformer model.")
    ] = False,
    mode: Annotated[
        str | None,
        typer.Option("--mode", "-m", help=f"Default replace.mode: {', '.join(MODES)} (a request may override)."),
    ] = None,
    max_request_mb: Annotated[
        float, typer.Option("--max-request-mb", min=0.001, help="Largest request body, in MiB (413 above).")
    ] = 10.0,
    max_documents: Annotated[
        int, typer.Option("--max-documents", min=1, help="Most documents in one request (422 above).")
    ] = 256,
    request_timeout: Annotated[
        float,
        typer.Option(
            "--request-timeout",
            min=0.01,
            help="Seconds a client has to send a request head (else the connection is closed) and a body (else 408).",
        ),
    ] = 30.0,
    quiet: QuietOpt = False,
) -> None:
    """Serve de-identification over HTTP: POST /v1/deidentify, POST /v1/detect, GET /v1/health, GET /v1/info.

    The pipeline (the same config as `radeid deid`) loads once at start-up. Binds to 127.0.0.1;
    any other address needs --token-file. Document text is never logged.

    Examples:

      radeid serve --key-file site.key --port 8000

      radeid serve --host 0.0.0.0 --port 8443 --key-file site.key --token-file api.token --no-model
    """
    uvicorn = _require_server()
    if token_file is None and not is_loopback(host):
        raise fail(
            f"--host {host} is not a loopback address: pass --token-file (a bearer token clients must send), "
            "or bind to 127.0.0.1"
        )
    limits = (max_request_mb, max_documents, request_timeout)
    api, cfg, token = _build_app(config, mode, key_file, no_model, token_file, limits)
    _announce(f"http://{host}:{port}/v1", token, cfg, quiet)
    _run(uvicorn, api, host, port, request_timeout, "warning" if quiet else "info")


def _announce(url: str, token: str | None, cfg: Config, quiet: bool) -> None:
    """The request log and the start-up line; --quiet: warnings and errors only (no line per request)."""
    level = logging.WARNING if quiet else logging.INFO
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not quiet:
        auth = "bearer token required" if token else "no token (loopback only)"
        typer.echo(f"radeid serve: {url} ({auth}; mode {cfg.replace.mode})", err=True)


def _run(uvicorn: ModuleType, api: Any, host: str, port: int, request_timeout: float, log_level: str = "info") -> None:
    """Serve until stopped. uvicorn's access log is off: radeid logs method, path, status and time
    itself, never text. Slow clients are cut off: a request head within `request_timeout` (the
    protocol), a body within it too (408, the app), an idle keep-alive connection after 5 s (uvicorn)."""
    from radeid.server.timeouts import head_timeout_protocol

    uvicorn.run(
        api,
        host=host,
        port=port,
        access_log=False,
        log_level=log_level,
        server_header=False,
        http=head_timeout_protocol(request_timeout),
        timeout_keep_alive=5,
    )


def _require_server() -> ModuleType:
    """FastAPI and uvicorn are an extra: without them, an error that says how to install them; else uvicorn."""
    try:
        import fastapi  # noqa: F401
        import uvicorn
    except ImportError:
        raise fail("radeid serve needs FastAPI and uvicorn: pip install 'radeid[server]'") from None
    return uvicorn


def _require_key(cfg: Config, found: tuple[bytes, str] | None) -> None:
    """A keyed mode without a key, said in the command line's words (the server never generates one)."""
    from radeid.replace.base import KEYED_MODES
    from radeid.secure.keys import ENV_VAR

    if found is None and cfg.replace.mode in KEYED_MODES:
        raise ConfigError(
            f"{cfg.replace.mode} mode needs a key: pass --key-file FILE or set ${ENV_VAR} (`radeid keygen -o FILE` "
            "makes one), or serve a mask mode: --mode tag"
        )


def _build_app(
    config: Path | None,
    mode: str | None,
    key_file: Path | None,
    no_model: bool,
    token_file: Path | None,
    limits: tuple[float, int, float],
) -> tuple[Any, Config, str | None]:
    """The token, the job's config and key, and the app built once; any of their errors is one line."""
    from radeid.cli.options import job_overrides, load_job_config
    from radeid.secure.keys import load_key

    max_request_mb, max_documents, request_timeout = limits
    try:
        token = read_token(token_file) if token_file is not None else None
        cfg = load_job_config(config, job_overrides(mode=mode, key_file=key_file), no_model=no_model)
        found = load_key(cfg.io.key_file or None)
        _require_key(cfg, found)
        if found and found[1]:
            typer.echo(found[1], err=True)
        from radeid.server.app import create_app

        api = create_app(
            cfg,
            found[0] if found else None,
            token=token,
            max_request_bytes=int(max_request_mb * 1024 * 1024),
            max_documents=max_documents,
            read_timeout=request_timeout,
        )
    except (ConfigError, OSError, ValueError) as exc:
        raise fail(str(exc)) from None
    return api, cfg, token
