"""The `openat2` probe of the path kind: whether a path's every component exists and none is a
symbolic link, in one system call (`RESOLVE_NO_SYMLINKS`), built on first use.

Place: under `runtime/kinds`, imported by `path._first_probe` only (ctypes costs the hook's cold
start ~3 ms when imported early). A module of its own: the probe's `ctypes.Structure` is a class
built inside a function, which the compiled build (mypyc, `setup.py`) cannot compile; this
module stays Python in every build.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable


def openat2_probe() -> Callable[[str], bool] | None:
    """The openat2 probe, or None where the system call is missing (not Linux, old kernel, seccomp)."""
    if sys.platform != "linux":
        return None
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        syscall = libc.syscall
        syscall.restype = ctypes.c_long

        class OpenHow(ctypes.Structure):
            _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]

        how = OpenHow(os.O_PATH | os.O_CLOEXEC, 0, 0x04)  # RESOLVE_NO_SYMLINKS
        how_ref, how_size, get_errno = ctypes.byref(how), ctypes.sizeof(how), ctypes.get_errno
        conclusive = {errno.ENOENT, errno.ENOTDIR}

        def probe(path: str) -> bool:
            fd = syscall(SYS_OPENAT2, -100, path.encode("utf-8", "surrogateescape"), how_ref, how_size)
            if fd >= 0:
                os.close(fd)
                return True
            return get_errno() in conclusive

        if probe("/") is not True:
            return None
        return probe
    except (OSError, AttributeError, ValueError):
        return None


SYS_OPENAT2 = 437  # the same number on every Linux architecture (added in 5.6)
