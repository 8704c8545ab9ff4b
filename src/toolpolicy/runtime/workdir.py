"""The directory a call runs in when the tool takes it as an argument.

Place in the pipeline: runtime, decide time, in `rules.prepare` (the fast path leaves such calls
to it). Some agents' shell tools run their command in a directory the model chooses: Gemini CLI's
`run_shell_command` `dir_path` (`path.resolve(workspace, dir_path)`), Codex's `shell` `workdir`,
docker-agent's `shell` `cwd`, Cursor's `Shell` `cwd`. The tool spec names these arguments
(`ToolSpec.workdir`, from the profile or a policy's `tools:` entry); the call is then decided in
that directory: relative file names, `cd`, `..`, and a `when`'s `context.cwd` all start there.

A value that cannot be read as one plain directory still gives a directory to decide in (the
call's own cwd, or the expansion of a leading `~`), plus a reason: the engine then asks whatever
the rules say, in every mode (`engine._rule_floor`), and a deny still denies.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping, Sequence
from typing import Any


def workdir_of(names: Sequence[str], args: Mapping[str, Any], cwd: str, home: str) -> tuple[str, str | None]:
    """The directory the call runs in (`cwd` when no argument names one) and why it is odd (None:
    a plain directory).

    Relative values are read from `cwd`, and `..` lexically, as Node's `path.resolve` does; a `..`
    that a symlink makes reach elsewhere (the kernel resolves it after the link, as Codex's
    `Path::join` leaves it) is odd."""
    values = [args[k] for k in names if args.get(k) is not None]
    if not values:
        return cwd, None
    value = values[0]
    odd = "names two different directories" if any(v != value for v in values[1:]) else None
    if not isinstance(value, str):
        return cwd, f"is not a string ({type(value).__name__})"
    if value == "":
        return cwd, odd
    if "\x00" in value:
        return cwd, "holds a NUL byte"
    if "\\" in value or value[1:2] == ":":
        return cwd, "is not a POSIX path"
    text = value
    if value.startswith("~"):  # the agent may or may not expand it: decided expanded, and asked
        if value == "~" or value.startswith("~/"):
            text = home + value[1:]
        odd = "starts with `~`, which the agent may or may not expand"
    joined = posixpath.join(cwd, text)
    resolved = posixpath.normpath(joined)
    if resolved.startswith("//"):
        resolved = "/" + resolved.lstrip("/")
    if odd is None and ".." in joined.split("/") and _through_a_link(joined, resolved):
        odd = "goes up (`..`) from a symbolic link"
    return resolved, odd


def _through_a_link(joined: str, resolved: str) -> bool:
    """Whether the kernel's reading of `joined` (links first, then `..`) is another directory
    than its lexical reading `resolved`."""
    try:
        return os.path.realpath(joined) != os.path.realpath(resolved)
    except (OSError, ValueError):
        return True
