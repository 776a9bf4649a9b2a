"""What a run is, decided once: the `RunPlan` that `radeid.run.parallel.run` carries out.

Why: the runner's functions used to pass the same dozen values (spec, paths, formats, read
options, audit, vault and key, workers, resume, error policy) down a chain of long parameter
lists. A frozen plan names them once, checks them once, and is what the resume manifest is made
of, so "the same run" means "the same plan".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from radeid.io.readers import InputFormat, ReadOptions
from radeid.pipeline.spec import PipelineSpec, canonical
from radeid.run.batch import OnError, default_audit_path
from radeid.run.journal import FORMAT_VERSION, fingerprint_input
from radeid.run.worker_start import default_workers

__all__ = ["RunPlan"]


@dataclass(frozen=True)
class RunPlan:
    """One `radeid deid` job: what to read, what to write, and how.

    `workers=None` uses every core this process may run on. `resume=True` continues the
    interrupted run whose work folder sits beside the output (or starts one when there is none).
    `audit_path=None` puts the audit beside the output (`batch.default_audit_path`). A vault needs
    `vault_key`. `on_error` is as in `radeid.run.serial.deidentify_path`: "fail" stops at the first bad record,
    "skip" leaves it out and reports it.
    """

    spec: PipelineSpec
    input_path: Path
    output_path: Path
    workers: int | None = None
    resume: bool = False
    input_format: InputFormat | None = None
    output_format: InputFormat | None = None
    options: ReadOptions = field(default_factory=ReadOptions)
    audit_path: Path | None = None
    vault_path: Path | None = None
    vault_key: bytes | None = None
    on_error: OnError = "fail"

    def __post_init__(self) -> None:
        # Callers pass str paths and `options=None`: normalise them once, here.
        object.__setattr__(self, "input_path", Path(self.input_path))
        object.__setattr__(self, "output_path", Path(self.output_path))
        object.__setattr__(self, "options", self.options or ReadOptions())
        if self.audit_path is not None:
            object.__setattr__(self, "audit_path", Path(self.audit_path))
        if self.vault_path is not None:
            object.__setattr__(self, "vault_path", Path(self.vault_path))
        if self.workers is not None and self.workers < 1:
            raise ValueError("workers must be at least 1")
        if self.vault_path is not None and self.vault_key is None:
            raise ValueError("a vault needs a key")

    @property
    def worker_count(self) -> int:
        return self.workers or default_workers()

    @property
    def audit(self) -> Path:
        return self.audit_path if self.audit_path is not None else default_audit_path(self.output_path)

    @property
    def vault(self) -> tuple[Path, bytes] | None:
        """The vault and its key, or None (the run writes no vault)."""
        if self.vault_path is None or self.vault_key is None:
            return None
        return self.vault_path, self.vault_key

    @property
    def id_key(self) -> bytes | None:
        """The key of the keyed id pseudonyms, when `[io] pseudonymize_ids` asks for them."""
        return self.spec.key if self.spec.config.io.pseudonymize_ids else None

    @property
    def batch_size(self) -> int:
        """Documents (JSONL: non-blank lines) per chunk: the pipeline's own batch size."""
        return self.spec.config.pipeline.batch_size

    def manifest(self) -> dict[str, Any]:
        """What a resume must find unchanged (`radeid.run.journal`): input content, read options,
        batch size, pipeline, a check of the key (never the key)."""
        return {
            "format": FORMAT_VERSION,
            "input": fingerprint_input(self.input_path),
            "read": {
                "format": self.input_format.value if self.input_format else None,
                "options": canonical(self.options),
            },
            "batch_size": self.batch_size,
            "pipeline": self.spec.fingerprint(),
            "key": self.spec.key_check(),
        }
