"""The single-process run: this process reads, de-identifies and writes every document in order.

`run(plan)` with any number of workers must give byte for byte what this gives for the same
`RunPlan` (the tests compare them), so it stays as simple as a run can be: no journal, no resume.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from radeid.io.commit import commit_together
from radeid.io.ids import pseudonymize_result
from radeid.io.paths import check_paths
from radeid.io.writers import AuditWriter, open_writer
from radeid.pipeline.deidentifier import Deidentifier
from radeid.run.batch import (
    RunAborted,
    RunSummary,
    _batches,
    _documents,
    choose_output_format,
    deidentify_each,
    pipeline_issue,
)
from radeid.run.plan import RunPlan
from radeid.secure.vault import VaultWriter

__all__ = ["deidentify_path"]


def deidentify_path(
    plan: RunPlan, *, deidentifier: Deidentifier | None = None, on_batch: Callable[[int], None] | None = None
) -> RunSummary:
    """Run `plan` in this process (its `workers` and `resume` are not used): output, audit and vault.

    Output, audit and vault are all written atomically: either all three land or none does. With
    `[io] pseudonymize_ids`, document ids (and so folder output file names) are written as keyed
    pseudonyms (`radeid.io.ids`). `deidentifier` reuses a pipeline already built from
    `plan.spec` (a benchmark's warm one); by default the spec builds its own.
    """
    options, input_path, output_path, on_error = plan.options, plan.input_path, plan.output_path, plan.on_error
    deidentifier = deidentifier or plan.spec.build()
    id_key = plan.id_key
    summary = RunSummary()
    docs = _documents(input_path, plan.input_format, options, on_error, summary, unique_ids=True)
    out_fmt = choose_output_format(input_path, output_path, plan.input_format, plan.output_format)
    audit_path, vault_path = plan.audit, plan.vault_path
    writes = {"the output": output_path, "the audit": audit_path, "the vault": vault_path}
    check_paths({"the input": input_path}, writes)
    writers: list = []
    try:
        writer = open_writer(output_path, out_fmt, options, input_path=input_path)
        writers.append(writer)
        audit = AuditWriter(audit_path)
        writers.append(audit)
        vault = VaultWriter(*plan.vault) if plan.vault is not None else None
        if vault is not None:
            writers.append(vault)
            vault.open()
        for batch in _batches(docs, deidentifier.config.pipeline.batch_size):
            results, failed = deidentify_each(deidentifier, batch, on_error)
            for index, exc in failed:
                summary.errors.append(pipeline_issue(batch[index], type(exc).__name__, on_error))
                if on_error == "fail":
                    summary.aborted = True
                    raise RunAborted(summary.errors[-1], summary)
            for result in results:
                result = pseudonymize_result(result, id_key)
                writer.write(result)
                audit.write(result)
                if vault is not None:
                    vault.add(result)
                summary.documents += 1
                summary.spans += len(result.replacements)
                summary.by_category.update(r.span.category.value for r in result.replacements)
                if not result.replacements:
                    summary.empty_ids.append(result.document.id)
            if on_batch:
                on_batch(len(batch))
    except BaseException:
        for each in writers:
            with contextlib.suppress(Exception):
                each.abort()
        raise
    commit_together(writers)  # output, audit and vault: all staged and synced before any is renamed
    return summary
