"""The `radeid` command (`radeid ...` and `python -m radeid ...`).

Two things about start-up live here, before the CLI is imported:

* A `radeid deid` run that will use workers starts their fork server first thing
  (`radeid.run.worker_start.start_early`), so its warm-up overlaps this process's own imports.
* The `radeid` script is a file, and every worker started by multiprocessing's "forkserver" or
  "spawn" runs that file again as its main module. It imports only this module, which imports
  nothing heavy at the top: a worker does not load the whole CLI (typer, rich, every command) for
  nothing (about 0.1 CPU-second each).

The guard matters: worker processes started with "spawn" import this module under another name,
and must not start a second command line.
"""

import sys


def main() -> None:
    """Run the command line in `sys.argv`."""
    from radeid.run.worker_start import start_early

    start_early(sys.argv[1:])
    from radeid.cli.main import app

    app(prog_name="radeid")


if __name__ == "__main__":
    main()
