"""A progress bar on stderr for long replays, only when stderr is a terminal (rich, if installed).

Place in the pipeline: beside the engines, which call `advance(bytes)` as pieces are read. When
stderr is not a TTY (CI logs, pipes) or `rich` is missing, every method does nothing, so output
stays clean and machine-readable.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO


class Progress:
    """Bytes of recorded history read so far, out of `total`."""

    def __init__(self, total: int, *, enabled: bool | None = None, stream: TextIO | None = None) -> None:
        stream = stream or sys.stderr
        if enabled is None:
            isatty = getattr(stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self._bar: Any = None
        self._task: Any = None
        if not enabled or total <= 0:
            return
        try:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                DownloadColumn,
                TextColumn,
                TimeRemainingColumn,
                TransferSpeedColumn,
            )
            from rich.progress import (
                Progress as RichProgress,
            )
        except ImportError:
            return
        self._bar = RichProgress(
            TextColumn("replay"),
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            console=Console(file=stream, force_terminal=True),
            transient=True,
        )
        self._bar.start()
        self._task = self._bar.add_task("replay", total=total)

    def advance(self, size: int) -> None:
        if self._bar is not None:
            self._bar.advance(self._task, size)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
