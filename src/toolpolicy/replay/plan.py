"""The replay plan: which files, in which format, cut into which partitions.

Place in the pipeline: first. `make_plan` walks the input paths (a directory is searched for
`*.jsonl` files), detects every file's format before anything is decided (so a binary file or an
unknown format is an error naming the file, not a partial result), and groups the files into
partitions of about `partition_bytes`. A file bigger than that is cut into byte ranges when its
format allows it (`Format.splittable`): the cuts are made at line starts, and the number of each
range's first line is counted on the way, so every record keeps its real `file:line`.

The local engine reads the partitions one after the other; the Dask engine makes each one a task.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .detect import InputError, detect_format
from .formats import registry
from .reader import Piece

DEFAULT_PARTITION_BYTES = 32 * 1024 * 1024
_BLOCK = 8 * 1024 * 1024


class InputErrors(Exception):
    """Several input files replay cannot read; `errors` holds one `InputError` per file."""

    def __init__(self, errors: list[InputError]) -> None:
        super().__init__("; ".join(str(e) for e in errors))
        self.errors = errors


@dataclass
class Plan:
    """The files (path, format) in reading order and the partitions that cover them."""

    files: list[tuple[str, str]] = field(default_factory=list)
    partitions: list[list[Piece]] = field(default_factory=list)
    skipped_files: list[InputError] = field(default_factory=list)
    total_bytes: int = 0


def discover(paths: list[str]) -> list[str]:
    """The files to read: each file path as given, each directory's `*.jsonl` files (sorted)."""
    found: list[str] = []
    seen: set[str] = set()
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, names in os.walk(path):
                dirs.sort()
                for name in sorted(names):
                    if name.endswith(".jsonl"):
                        _add(os.path.join(root, name), found, seen)
        elif os.path.exists(path):
            _add(path, found, seen)
        else:
            raise InputErrors([InputError(f"{path}: no such file or directory")])
    return found


def _add(path: str, found: list[str], seen: set[str]) -> None:
    real = os.path.realpath(path)
    if real not in seen:
        seen.add(real)
        found.append(path)


def make_plan(
    paths: list[str],
    *,
    max_line_bytes: int,
    partition_bytes: int = DEFAULT_PARTITION_BYTES,
    skip_unknown: bool = False,
) -> Plan:
    """Detect every file's format and cut the input into partitions; raises `InputErrors`."""
    plan = Plan()
    errors: list[InputError] = []
    formats = registry()
    for path in discover(paths):
        if not os.path.isfile(path):
            errors.append(InputError(f"{path}: not a regular file"))
            continue
        try:
            fmt = detect_format(path, max_line_bytes=max_line_bytes)
        except InputError as exc:
            errors.append(exc)
            continue
        plan.files.append((path, fmt))
    if errors and not skip_unknown:
        raise InputErrors(errors)
    plan.skipped_files = errors
    current: list[Piece] = []
    current_bytes = 0
    for path, fmt in plan.files:
        size = os.path.getsize(path)
        plan.total_bytes += size
        if formats[fmt].splittable and size > partition_bytes:
            pieces = split_file(path, fmt, size, partition_bytes)
        else:
            pieces = [Piece(path, fmt, size=size)]
        for piece in pieces:
            current.append(piece)
            current_bytes += piece.size
            if current_bytes >= partition_bytes:
                plan.partitions.append(current)
                current, current_bytes = [], 0
    if current:
        plan.partitions.append(current)
    return plan


def split_file(path: str, fmt: str, size: int, target: int) -> list[Piece]:
    """Cut a file into ranges of about `target` bytes, each starting at a line start."""
    cuts = split_points(path, target)
    pieces = []
    for i, (start, first_line) in enumerate(cuts):
        end = cuts[i + 1][0] if i + 1 < len(cuts) else None
        pieces.append(Piece(path, fmt, start, end, first_line, (end if end is not None else size) - start))
    return pieces


def split_points(path: str, target: int) -> list[tuple[int, int]]:
    """`(offset, line number)` of the first line of each range: one pass, counting newlines."""
    points = [(0, 1)]
    offset = 0
    lines = 0
    next_cut = target
    try:
        with open(path, "rb") as fh:
            while True:
                block = fh.read(_BLOCK)
                if not block:
                    break
                end = offset + len(block)
                while next_cut < end:
                    i = block.find(b"\n", max(0, next_cut - offset))
                    if i < 0:
                        break
                    cut = offset + i + 1
                    points.append((cut, lines + block.count(b"\n", 0, i + 1) + 1))
                    next_cut = cut + target
                lines += block.count(b"\n")
                offset = end
    except OSError as exc:
        raise InputErrors([InputError(f"{path}: cannot read: {exc.strerror or exc}")]) from None
    if len(points) > 1 and points[-1][0] >= offset:
        points.pop()  # a cut at the very end leaves an empty range
    return points
