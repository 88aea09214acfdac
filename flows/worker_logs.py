"""A local cluster's workers keep quiet about losing their scheduler: the run that owns them has closed it.

When a run stops (Ctrl-C, SIGTERM, its end) its process closes the local cluster's scheduler, which lives in that
process. A worker whose heartbeat is in flight at that moment logs "Failed to communicate with scheduler during
heartbeat" with the connection's traceback, at ERROR, on the terminal the workers share with the run
(dask/distributed#7891): seen once in CI, under load, between a Ctrl-C and the run's one line. So each worker of a
local cluster drops its `distributed.worker` records that carry a lost connection (an OSError); every other record
passes, and the run itself reports why it stopped. Imported only where a local cluster starts: it brings
dask.distributed.
"""

from __future__ import annotations

import logging

from distributed import Worker, WorkerPlugin


class LostScheduler(logging.Filter):
    """Drops a record that carries an OSError (a closed or broken connection)."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, OSError)


class QuietAboutLostScheduler(WorkerPlugin):
    """Installs LostScheduler on each worker's `distributed.worker` logger (once, however often it is set up)."""

    idempotent = True

    def setup(self, worker: Worker) -> None:  # noqa: ARG002 (distributed passes it by this name)
        logger = logging.getLogger("distributed.worker")
        if not any(isinstance(known, LostScheduler) for known in logger.filters):
            logger.addFilter(LostScheduler())
