"""Tree writes as shell targets: destinations written with everything under them (F17).

Place in the pipeline: runtime, decide time, called by `shell.py` while it turns a simple
command's analysis (`shell_knowledge.analyse`) into the files the unit writes. The command
knowledge names two kinds of destination (docs/command-knowledge.md):

* `tree` (`rsync SRC DEST`, `git checkout -- PATH`, `git worktree add PATH`): DEST is written,
  and so is anything under it;
* `into` (`cp a b DIR`, `mv`, `ln`, `install`, `-t DIR`): the file written, or the directory the
  other file operands go into under their own names: DEST and `DEST/NAME` for each source's last
  name (`cp evil/.bashrc ~` writes `~/.bashrc`). When the command writes whole trees (`cp -r`,
  `mv`), each `DEST/NAME` is a tree, and so is DEST itself unless its spelling names a directory
  that always exists (`.`, `..`, `~`, `/`: there the sources go in by name; `cp -r evil/. .`
  names `./.`, the whole cwd).

A tree is the target `\\x00 + glob(DEST) + "/" + TREE`; `shell_targets` and `protected` decide it
by the path rules and protected paths that lie at or under DEST (`glob_overlap.overlaps` with
DEST's spelling, so a rule that floats to any depth, `**/*.pem`, does not make every copy ask).
Everything here is linear in the words; at most `_MAX_SOURCES` names per destination.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .shell_words import TREE, Word
from .shell_words import glob_escape as _escape

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Final

_PATTERN: Final = "\x00"
_MAX_SOURCES: Final = 16  # sources joined to a destination by name; past it the destination is a tree
_EXISTING: Final = frozenset({"", ".", "..", "~"})  # spellings of a directory that exists (`/` strips to "")

WordTargets = Callable[[Word, int, tuple[str, ...]], list[str]]


def tree_of(target: str) -> str:
    """The tree target of a target (a literal path or a `\\x00` pattern)."""
    body = target[1:] if target.startswith(_PATTERN) else _escape(target)
    return _PATTERN + body.rstrip("/") + "/" + TREE


def trees(
    words: Sequence[Word],
    found: Sequence[tuple[int, int, bool]],
    bases: tuple[str, ...],
    word_targets: WordTargets,
    soft_mark: str,
) -> list[str]:
    """The targets of `tree` operands and values: each DEST and its tree."""
    out: list[str] = []
    for i, cut, soft in found:
        mark = soft_mark if soft else ""
        remote = _remote(words[i].value[cut:])  # written on another machine: only DEST, as before
        for t in word_targets(words[i], cut, bases):
            out.extend((mark + t,) if remote else (mark + t, mark + tree_of(t)))
    return out


def pathspecs(words: Sequence[Word], found: Sequence[tuple[int, int]]) -> bool:
    """Whether git is given paths it matches itself (gitglossary "pathspec"): a path it writes
    (`restore`, `checkout`, `rm`, `checkout-index`, `stash push`...) with a wildcard (git's `*` crosses `/`, and an unmatched glob reaches git as typed) or a
    `:(magic)` prefix (`:(icase)`, `:(glob)`, `:/`), or `--pathspec-from-file` (the paths are in
    a file). Which files that names is git's to say, not the words': any path may be written."""
    if any(w.value.startswith("--pathspec-from-file") for w in words):
        return True
    for i, cut in found:
        value = words[i].value[cut:]
        if value.startswith(":") or any(c in value for c in "*?["):
            return True
    return False


def into(
    words: Sequence[Word],
    found: Sequence[tuple[int, int, bool, bool, tuple[int, ...]]],
    bases: tuple[str, ...],
    word_targets: WordTargets,
    soft_mark: str,
) -> list[str]:
    """The targets of `into` destinations: DEST, `DEST/NAME` per source (trees when the command
    writes trees), and DEST's own tree when it may be a new name for a source tree."""
    out: list[str] = []
    for i, cut, soft, as_trees, sources in found:
        mark = soft_mark if soft else ""
        dest = words[i]
        value = dest.value[cut:]
        raw = dest.raw
        if cut:  # `--target-directory=DIR`: the value's spelling (an unknown one if quoting hides it)
            if dest.raw[:cut] == dest.value[:cut]:
                raw = dest.raw[cut:]
            else:
                raw = "$_" if dest.dynamic else "'" + value.replace("'", "'\\''") + "'"
        dest = Word(value, raw, dest.dynamic, dest.globby)
        own = word_targets(dest, 0, bases)
        out.extend(mark + t for t in own)
        if _remote(value):
            continue
        # too many sources, or one whose name is not known (`"$F"`): any name under DEST
        whole = len(sources) > _MAX_SOURCES or any(_any_name(words[s]) for s in sources)
        if whole or (as_trees and not _exists(dest)):
            out.extend(mark + tree_of(t) for t in own)
        if whole:
            continue
        for s in sources:
            for t in word_targets(_joined(dest, words[s]), 0, bases):
                out.append(mark + t)
                if as_trees:
                    out.append(mark + tree_of(t))
    return out


def _exists(dest: Word) -> bool:
    """Whether DEST's spelling names a directory that always exists: the cwd, its parent, the
    home directory or `/` (`cp -r x .`: the sources go into it by name, never over it)."""
    v = dest.value.rstrip("/")
    if dest.dynamic or dest.globby:
        return False
    if v == "~":
        return dest.raw.startswith("~")  # `'~'` is a file named `~`
    return v in _EXISTING or v.endswith(("/.", "/.."))


def _any_name(source: Word) -> bool:
    """A source whose last name is not known (an expansion, or a glob with quoting in its name)."""
    return source.dynamic or (
        source.globby and any(q in source.raw.rstrip("/").rsplit("/", 1)[-1] for q in "'\"\\")
    )


def _joined(dest: Word, source: Word) -> Word:
    """`DEST/NAME`: NAME the last name of the source (`evil/.` -> `.`, `src/` -> `src`)."""
    value = source.value.rstrip("/")
    name = value.rsplit("/", 1)[-1] if value else "."
    if source.globby:
        raw_name = source.raw.rstrip("/").rsplit("/", 1)[-1]
        return Word(dest.value + "/" + name, dest.raw + "/" + raw_name, dest.dynamic, True)
    quoted = "'" + name.replace("'", "'\\''") + "'"
    return Word(dest.value + "/" + name, dest.raw + "/" + quoted, dest.dynamic, dest.globby)


def _remote(value: str) -> bool:
    """`host:path`, `user@host:path`, `rsync://...`: a destination on another machine (rsync, scp)."""
    head = value.split("/", 1)[0]
    return ":" in head and not value.startswith(("./", "/"))
