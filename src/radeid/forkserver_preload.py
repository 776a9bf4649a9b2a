"""Imported only by the worker pool's fork server (`radeid.worker_start`): loads and warms radeid there.

`radeid.parallel` imports the workers' entry points (`radeid.pool`, `radeid.line_batches`) and the
readers, writers, journal and vault modules: imported here once, not by every worker after it is
forked.
"""

import radeid.parallel  # noqa: F401
from radeid.worker_start import warm

warm()
