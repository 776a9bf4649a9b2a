"""A deadline for each request head: uvicorn has none (0.54 checked).

uvicorn closes a keep-alive connection that stays idle after a response (`timeout_keep_alive`), but a
connection that sends nothing, or a request head one byte at a time, is held open for ever: a few
hundred of them tie up the server (issue 27, "slowloris"). `head_timeout_protocol(seconds)` is
uvicorn's h11 protocol with one timer more: armed when the connection opens and again after each
response, cancelled when a whole request head has arrived; when it fires, the connection is closed.
The body then has `_Guard`'s read timeout (408, `radeid.server.app`).

It extends uvicorn's `H11Protocol` through the members every version since 0.20 has (`cycle`,
`transport`, `loop`, `connection_made`, `data_received`, `on_response_complete`); the real-server
tests (tests/harden/test_server_round2.py) fail if a uvicorn release changes them.
"""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["head_timeout_protocol"]


def head_timeout_protocol(seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol, closing a connection whose request head takes over `seconds`."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeadTimeoutProtocol(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._in_request():
                self._disarm()  # a whole head arrived: the body has the read timeout of `_Guard`

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and not self._in_request():
                self._arm()  # waiting for the next request head of a keep-alive connection

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _in_request(self) -> bool:
            return self.cycle is not None and not self.cycle.response_complete

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(seconds, self._timed_out)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _timed_out(self) -> None:
            self._head_timer = None
            if not self._in_request() and not self.transport.is_closing():
                self.transport.close()

    return HeadTimeoutProtocol
