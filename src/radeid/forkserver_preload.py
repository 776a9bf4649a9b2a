"""Imported only by the worker pool's fork server (`radeid.worker_start`): loads and warms radeid there."""

from radeid.worker_start import warm

warm()
