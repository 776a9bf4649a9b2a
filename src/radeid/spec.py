"""`PipelineSpec`: everything needed to build a `Deidentifier`, as one small picklable value.

A `Deidentifier` holds compiled rules, automatons and (later) a model session: none of that should
cross a process boundary. Worker processes (the parallel runner's pool, Spark executors) receive a
`PipelineSpec` instead and call `.build()` once per process. Keyed surrogates make this enough:
every random choice is a function of (key, scope, original), so no state is shared between workers.

The spec also fingerprints itself for the resume journal: the configuration (with the content of
every file it names), the mode, the surrogate options and the radeid version, but never the key.
The key is checked separately with a salted, slow hash (`key_check`/`key_matches`), so a journal
left next to an output cannot be used to test guesses of a passphrase cheaply.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from radeid.config import Config, ConfigError

if TYPE_CHECKING:
    from radeid.pipeline import Deidentifier
    from radeid.surrogate import SurrogateOptions

__all__ = ["MODES", "SURROGATE", "PipelineSpec", "canonical"]

SURROGATE = "surrogate"

# scrypt parameters of the key check: ~16 MiB and tens of milliseconds per guess.
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}


def _modes() -> tuple[str, ...]:
    from radeid.replace import REPLACERS

    return tuple(REPLACERS.names())


#: Every replacement mode registered when radeid is imported (`radeid.replace.REPLACERS`).
MODES: tuple[str, ...] = _modes()


@dataclass(frozen=True)
class PipelineSpec:
    """How to build the pipeline: the config (which names the replacement mode and its options)
    and the key.

    The key is left out of `repr`; it does travel (pickled) to worker processes, which is what
    they need it for. A keyed mode (surrogate) without a key is refused here, before any work.
    """

    config: Config = field(default_factory=Config.load)
    key: bytes | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        from radeid.replace import KEYED_MODES

        if self.key is not None:
            if isinstance(self.key, bytearray | memoryview):
                object.__setattr__(self, "key", bytes(self.key))
            if not isinstance(self.key, bytes) or not self.key:
                raise ConfigError("the key must be non-empty bytes")
        if self.mode in KEYED_MODES and self.key is None:
            raise ConfigError(f"{self.mode} mode needs a key (a key file or the RADEID_KEY variable)")
        if self.config.io.pseudonymize_ids and self.key is None:
            raise ConfigError("pseudonymize_ids needs a key (a key file or the RADEID_KEY variable)")

    @classmethod
    def masking(cls, config: Config | None = None, mode: str | None = None) -> PipelineSpec:
        """A mask-mode spec (`mode=None`: the config's own mode, which must then be a mask mode)."""
        config = config or Config.load()
        return cls(config.with_section("replace", mode=mode) if mode else config)

    @classmethod
    def surrogates(
        cls, key: bytes, config: Config | None = None, options: SurrogateOptions | None = None
    ) -> PipelineSpec:
        """A surrogate-mode spec (`options` replace the config's `[surrogate]` section)."""
        config = (config or Config.load()).with_section("replace", mode=SURROGATE)
        if options is not None:
            config = dataclasses.replace(config, surrogate=options)
        return cls(config, key)

    @property
    def mode(self) -> str:
        return self.config.replace.mode

    @property
    def is_surrogate(self) -> bool:
        return self.mode == SURROGATE

    @property
    def surrogate_options(self) -> SurrogateOptions:
        return self.config.surrogate

    def build(self) -> Deidentifier:
        """The `Deidentifier` this spec describes; call it once per process (it loads everything)."""
        from radeid.pipeline import Deidentifier
        from radeid.prebuilt import lookup

        shared = lookup(self.config)  # a worker forked from the warmed fork server (`radeid.prebuilt`)
        if shared is not None:
            return Deidentifier(self.config, key=self.key, detectors=shared[0], resolver=shared[1])
        return Deidentifier(self.config, key=self.key)

    def with_threads(self, threads: int) -> PipelineSpec:
        """This spec with a model limited to `threads` CPU threads, when its config leaves the
        count to the library (`transformer.threads = 0`, i.e. every core).

        N workers each using every core would fight over them; N workers of cores/N threads do not.
        An explicit thread count in the config is kept. The fingerprint does not change: the
        thread count is how fast, not what, the model computes.
        """
        if self.config.transformer.threads != 0 or threads < 1:
            return self
        return dataclasses.replace(self, config=self.config.with_section("detectors.transformer", threads=threads))

    # -- fingerprints -----------------------------------------------------------------------------

    def fingerprint(self) -> str:
        """SHA-256 over what decides the output, the key excepted: a resumed run must match it.

        Includes the content of every file the config names (rule files, word lists, a model
        folder's listing), since changing one changes the output as surely as changing the config.
        """
        from radeid import __version__

        config = self.config
        if config.transformer.threads:  # see `with_threads`
            config = config.with_section("detectors.transformer", threads=0)
        # Where the output, audit, vault and key go or come from is not what the output is; the key
        # file's content must never be hashed here (a fast hash of it would test guesses cheaply).
        config = dataclasses.replace(config, io=dataclasses.replace(config.io, audit="", vault="", key_file=""))
        payload = {
            "radeid": __version__,
            "config": canonical(config),
            "files": _named_files(config),
            "keyed": self.key is not None,
        }
        return hashlib.sha256(_dumps(payload).encode("utf-8")).hexdigest()

    def cache_key(self) -> str:
        """An in-memory identity of the whole spec, key included (for per-process pipeline caches).

        A keyed hash, so it says nothing about the key; never store or log it.
        """
        mac = hmac.new(self.key or b"", self.fingerprint().encode("ascii"), hashlib.sha256)
        return mac.hexdigest()

    def key_check(self) -> dict[str, Any] | None:
        """A salted scrypt hash of the key (None without one), to store in a resume journal."""
        if self.key is None:
            return None
        salt = secrets.token_bytes(16)
        digest = hashlib.scrypt(self.key, salt=salt, **_SCRYPT)
        return {"kdf": "scrypt", **{k: v for k, v in _SCRYPT.items() if k != "dklen"}, "salt": salt.hex(),
                "hash": digest.hex()}  # fmt: skip

    def key_matches(self, check: Mapping[str, Any] | None) -> bool:
        """Whether this spec's key is the one `check` (from `key_check`) was made with."""
        if check is None or self.key is None:
            return check is None and self.key is None
        try:
            salt = bytes.fromhex(str(check["salt"]))
            params = {"n": int(check["n"]), "r": int(check["r"]), "p": int(check["p"])}
            expected = bytes.fromhex(str(check["hash"]))
        except (KeyError, TypeError, ValueError):
            return False
        if check.get("kdf") != "scrypt":
            return False
        digest = hashlib.scrypt(self.key, salt=salt, dklen=len(expected), **params)
        return hmac.compare_digest(digest, expected)


# ---------------------------------------------------------------------------------- canonical form


def canonical(value: Any) -> Any:
    """A JSON-ready, order-independent form of a config value (dataclasses, enums, mappings)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: canonical(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Mapping):
        items = [(canonical(k), canonical(v)) for k, v in value.items()]
        return [[k, v] for k, v in sorted(items, key=lambda kv: _dumps(kv[0]))]
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    if isinstance(value, frozenset | set):
        return sorted((canonical(v) for v in value), key=_dumps)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, bytes):
        return hashlib.sha256(value).hexdigest()  # never a raw secret in a fingerprint
    return repr(value)


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [s for f in dataclasses.fields(value) for s in _strings(getattr(value, f.name))]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


def _named_files(config: Any) -> dict[str, str]:
    """`{path: content digest}` for every string of `config` (or a part of one) that names a file or folder.

    Folders (a model directory) are summarised by file names, sizes and modification times:
    hashing gigabytes of weights at every start would cost more than it protects.
    """
    found: dict[str, str] = {}
    for text in sorted(set(_strings(config))):
        if not text or len(text) > 4096 or "\n" in text:
            continue
        path = Path(text)
        if text == "bundled" and not path.exists():  # the model shipped with radeid (transformer.model)
            from radeid.detect.transformer import bundled_model_path

            path = bundled_model_path()
        try:
            if path.is_file():
                found[text] = _file_digest(path)
            elif path.is_dir():
                listing = hashlib.blake2b(digest_size=16)
                for root, dirs, files in os.walk(path):
                    dirs.sort()
                    for name in sorted(files):
                        st = os.stat(os.path.join(root, name))
                        rel = os.path.relpath(os.path.join(root, name), path)
                        listing.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogatepass"))
                found[text] = "dir:" + listing.hexdigest()
        except OSError:
            found[text] = "unreadable"
    return found


def _file_digest(path: Path) -> str:
    digest = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()
