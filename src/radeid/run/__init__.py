"""Layer 10: the batch runner: chunks of the input, the worker pool, the ordered sink, the journal
that makes a run resumable, and the atomic commit of its outputs.

May import every layer below; never a tool or an interface.

One path: `run(RunPlan(...), on_batch=None) -> ParallelRunSummary` (`radeid.run.parallel`);
`radeid.run.serial.deidentify_path` is the single-process run the tests compare it with. A
document's trip through `radeid deid in.jsonl -o out.jsonl -w 2`, one runner module each:

1. `radeid.cli.deid.run_deid` builds a `RunPlan` (`radeid.run.plan`: the job, checked once) and calls `run(plan)`.
2. `radeid.run.parallel.run` checks paths and writers, opens the work folder and the spools, feeds chunks.
3. `radeid.run.chunks` cuts the input into chunks: raw JSONL lines (`LineChunk`), or documents read here.
4. `radeid.run.pool` carries the chunk to a worker, which parses it (`Chunk.parse`), de-identifies it
   and serializes it (`radeid.run.stream.encode_batch`; a part, `radeid.run.merge.write_part`, for
   Parquet, folders, gzip or a vault), and brings back one `Outcome`.
5. `radeid.run.sink` takes outcomes in input order: reports what reading found (issues, duplicate ids),
   appends the bytes to the output and audit spools, journals the chunk, counts it.
6. `radeid.run.journal` records the chunk (fsynced at most every half second), so a `kill -9` loses at
   most the chunks in flight.
7. `radeid.run.stream.commit_stream` (or `radeid.run.merge.merge_parts`) checks the input is unchanged
   and commits output, audit (and vault) as one unit (`radeid.io.commit`).
"""

from radeid.core.moved import lazy_exports

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "RunPlan": "radeid.run.plan",
        "run": "radeid.run.parallel",
        "ParallelRunSummary": "radeid.run.sink",
    },
)
