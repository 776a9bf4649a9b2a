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
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from radeid.config.config import Config, ConfigError
from radeid.config.language import AUTO_LANGUAGE
from radeid.pipeline.fingerprint import canonical, dumps_canonical, named_files

if TYPE_CHECKING:
    from radeid.pipeline.deidentifier import Deidentifier
    from radeid.replace.surrogate import SurrogateOptions

__all__ = ["MODES", "SURROGATE", "PipelineSpec", "canonical"]

SURROGATE = "surrogate"

# scrypt parameters of the key check: ~16 MiB and tens of milliseconds per guess.
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}


def _modes() -> tuple[str, ...]:
    from radeid.replace.base import REPLACERS

    return tuple(REPLACERS.names())


#: Every replacement mode registered when radeid is imported (`radeid.replace.base.REPLACERS`).
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
        from radeid.replace.base import KEYED_MODES

        if self.key is not None:
            if isinstance(self.key, bytearray | memoryview):
                object.__setattr__(self, "key", bytes(self.key))
            if not isinstance(self.key, bytes) or not self.key:
                raise ConfigError("the key must be non-empty bytes")
        keyed = sorted(self.config.replace.modes() & KEYED_MODES)
        if keyed and self.key is None:
            raise ConfigError(f"{keyed[0]} mode needs a key (a key file or the RADEID_KEY variable)")
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
        from radeid.pipeline.deidentifier import Deidentifier
        from radeid.pipeline.multilingual import build_deidentifier
        from radeid.pipeline.prebuilt import lookup

        if self.config.pipeline.language == AUTO_LANGUAGE:
            return build_deidentifier(self.config, key=self.key)
        shared = lookup(self.config)  # a worker forked from the warmed fork server (`radeid.pipeline.prebuilt`)
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
            "files": named_files(config),
            "keyed": self.key is not None,
        }
        return hashlib.sha256(dumps_canonical(payload).encode("utf-8")).hexdigest()

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
