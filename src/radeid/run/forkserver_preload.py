"""Imported only by the worker pool's fork server (`radeid.run.worker_start`): loads and warms radeid there.

`radeid.run.parallel` imports the workers' entry points (`radeid.run.pool`, `radeid.run.chunks`) and the
readers, writers, journal and vault modules: imported here once, not by every worker after it is
forked.
"""

import radeid.run.parallel  # noqa: F401
from radeid.run.worker_start import warm

warm()
