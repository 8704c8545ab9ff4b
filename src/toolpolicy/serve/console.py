"""The server's own messages (loads, reload failures with located errors): one line each on stderr.

uvicorn's loggers are kept at `warning`; the `toolpolicy.serve` logger is set up here, in the
`policy serve` process and again in each worker process (`--workers N` spawns fresh ones).
"""

from __future__ import annotations

import logging
import sys

LOGGER = "toolpolicy.serve"


def setup_logging() -> None:
    """`toolpolicy.serve` messages go to stderr, without a prefix (idempotent)."""
    log = logging.getLogger(LOGGER)
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False
