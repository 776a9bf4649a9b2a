"""Detectors and a resolver built once in a process and reused by the pipelines built after it.

Why: the parallel runner's workers fork from a warmed fork server (`radeid.run.worker_start`). Each
worker builds its own `Deidentifier` from its spec, and even with the fork server's `re` cache
warm that costs about 0.15 CPU-seconds per worker (rule and pattern files parsed again, word-list
tries rebuilt). The fork server keeps what it built here (`remember`), and a worker whose config
asks for the same detection reuses it (`lookup`): forked, the worker has its own copy.

Only the built-in rules and word-list detectors are shared; they are pure functions of the config
sections and files that `detection_key` covers (a model, or another detector, is always built).
The replacer is never shared: it holds the key. A process that never calls `remember` (any but
the fork server and its workers) looks nothing up and pays nothing.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING

from radeid.pipeline.fingerprint import canonical, named_files

if TYPE_CHECKING:
    from radeid.config.config import Config
    from radeid.detect.base import Detector
    from radeid.pipeline.deidentifier import Deidentifier
    from radeid.resolve.resolver import Resolver

__all__ = ["SHAREABLE", "detection_key", "lookup", "remember"]

#: Detectors that are a pure function of their config section and the files it names.
SHAREABLE = frozenset({"rules", "lexicon"})

_BUILT: dict[str, tuple[list[Detector], Resolver]] = {}


def detection_key(config: Config) -> str | None:
    """What decides the detectors and the resolver of `config` (their sections and the content of
    every file those name), or None when a detector outside `SHAREABLE` is asked for."""
    names = list(config.pipeline.detectors)
    if not set(names) <= SHAREABLE:
        return None
    # The resolver's form checks read the rules' age threshold, with or without the rules detector.
    sections = {name: config.detectors[name] for name in sorted({*names, "rules"})}
    decisive = {
        "pipeline": dataclasses.replace(config.pipeline, batch_size=0),  # how many at once, not what
        "detectors": sections,
        "resolver": config.resolver,
        "protected": config.protected,
    }
    payload = [canonical(decisive), named_files(decisive)]
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def remember(config: Config, deidentifier: Deidentifier) -> None:
    """Keep `deidentifier`'s detectors and resolver for later pipelines of the same detection."""
    key = detection_key(config)
    if key is not None:
        _BUILT[key] = (list(deidentifier.detectors), deidentifier.resolver)


def lookup(config: Config) -> tuple[list[Detector], Resolver] | None:
    """The detectors and resolver remembered for `config`'s detection, if any."""
    if not _BUILT:
        return None
    key = detection_key(config)
    return _BUILT.get(key) if key is not None else None
