"""SIGHUP before the server is ready: noted, not fatal, and not lost.

SIGHUP's default action ends the process. Between the moment `policy serve` announces its port
and the moment the app's lifespan installs the reload handler (imports, policy load), a SIGHUP
is only noted here; the lifespan then reloads once (`take_early_sighup`). The runner installs
this before it announces the port, and every worker process again as it starts.
"""

from __future__ import annotations

import contextlib
import signal
import threading

_EARLY = threading.Event()


def remember_early_sighup() -> None:
    with contextlib.suppress(ValueError, AttributeError, OSError):  # not the main thread, or no SIGHUP
        signal.signal(signal.SIGHUP, lambda signum, frame: _EARLY.set())


def take_early_sighup() -> bool:
    """True (once) when a SIGHUP arrived before the reload handler was installed."""
    if _EARLY.is_set():
        _EARLY.clear()
        return True
    return False
