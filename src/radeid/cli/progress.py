"""Progress of a long job, for a person or a machine: a bar on a terminal, else a log line now and then.

`--progress auto` (the default, `io.progress`) shows the bar when stderr is a terminal and writes a
line every `--progress-interval` seconds (`io.progress_interval`) when it is not (cron, nohup, a
scheduler's log): documents done, of how many when that is known, the rate and the time left.
`--log-format json` (`io.log_format`) writes each line as one JSON object, for a scheduler to read:
`{"event": "progress", "task": ..., "done": ..., "total": ..., "rate": ..., "eta_s": ...}`, and a last
`{"event": "done", ...}` line. A line holds counts only, never document text or ids.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from types import TracebackType
from typing import Literal

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from radeid.cli.errors import err

ProgressMode = Literal["auto", "bar", "log", "none"]
LogFormat = Literal["text", "json"]


@dataclass(frozen=True)
class ProgressSettings:
    """How a job shows its progress (`io.progress`, `io.progress_interval`, `io.log_format`)."""

    mode: str = "auto"
    interval: float = 30.0
    log_format: str = "text"

    def resolved(self) -> str:
        """`bar`, `log` or `none`: `auto` is the bar on a terminal, log lines elsewhere."""
        if self.mode == "auto":
            return "bar" if err.is_terminal else "log"
        return self.mode


QUIET = ProgressSettings(mode="none")


def _eta_text(seconds: float | None) -> str:
    if seconds is None:
        return ""
    whole = int(round(seconds))
    return f", ETA {whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


class JobProgress:
    """Counts the documents a job reports (`advance`) and shows them as `settings` ask.

    Used as a context manager around the job: the bar is cleared at the end, and in log mode a last
    line (the `done` event) says how many documents were done in how long."""

    def __init__(self, settings: ProgressSettings, label: str, total: int | None) -> None:
        self.label, self.total, self.done = label, total, 0
        self.kind = settings.resolved()
        self.interval = max(settings.interval, 0.0)
        self.json = settings.log_format == "json"
        self.started = self.last = time.monotonic()
        self._bar: Progress | None = None
        if self.kind == "bar":
            self._bar = _bar()
            self._task = self._bar.add_task(label, total=total, rate="")

    def __enter__(self) -> JobProgress:
        if self._bar is not None:
            self._bar.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.__exit__(kind, exc, tb)
        elif self.kind == "log" and kind is None:
            self._line("done")

    def advance(self, n: int) -> None:
        """`n` more documents done (a job's `on_batch`)."""
        self.done += n
        now = time.monotonic()
        if self._bar is not None:
            self._bar.advance(self._task, n)
            self._bar.update(self._task, rate=f"{self._rate(now):,.0f} docs/s" if now > self.started else "")
        elif self.kind == "log" and now - self.last >= self.interval:
            self.last = now
            self._line("progress")

    def _rate(self, now: float) -> float:
        return self.done / max(now - self.started, 1e-9)

    def _line(self, event: str) -> None:
        now = time.monotonic()
        rate = self._rate(now)
        left = (self.total - self.done) / rate if self.total is not None and rate > 0 else None
        if self.json:
            record = {
                "event": event, "task": self.label, "done": self.done, "total": self.total,
                "rate": round(rate, 2), "eta_s": None if left is None else round(max(left, 0.0), 1),
                "elapsed_s": round(now - self.started, 1),
            }  # fmt: skip
            err.print(json.dumps(record), highlight=False, markup=False, soft_wrap=True)
            return
        of = f" of {self.total:,} ({100 * self.done / self.total:.0f}%)" if self.total else ""
        if event == "done":
            err.print(f"{self.label}: done, {self.done:,} documents in {now - self.started:.1f}s", highlight=False)
        else:
            err.print(
                f"{self.label}: {self.done:,}{of} documents, {rate:,.0f} docs/s{_eta_text(left)}", highlight=False
            )


def _bar() -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    )
