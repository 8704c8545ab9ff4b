"""The bundled policy packs (issue 14): `extends: ["pack:destructive", ...]` resolves here.

A pack is an ordinary native policy file shipped as package data beside this module
(`<name>.yaml`), with rule ids, reasons and its own `tests:`. The loader
(`policies.loader`) turns `pack:NAME` into the file's path, so a pack is loaded, located,
cached and watched exactly like a file the user wrote. `policy packs` (cli/packs_cmd.py) lists
them. This module imports nothing beyond the standard library: the loader imports it.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

PREFIX = "pack:"
PACK_DIR = Path(__file__).parent


class PackInfo(NamedTuple):
    """One bundled pack: its name (as written after `pack:`), one line on what it covers, its file."""

    name: str
    summary: str
    path: Path


_SUMMARIES: dict[str, str] = {
    "destructive": (
        "denies (or asks for) commands that lose data or break things irreversibly: recursive deletes, "
        "disk wipes, git history and work-tree destruction, database drops, container / Kubernetes / "
        "Terraform / cloud deletes, downloads piped into a shell"
    ),
    "read-only": (
        "allows commands that only read (listing, viewing, searching, git status/log/diff, versions, "
        "help, package queries), each only in flag forms that cannot write, execute or reveal secrets"
    ),
    "secrets": (
        "denies reads and writes of credential files (SSH keys, cloud credentials, .env files, .netrc, "
        "token files, keychains, browser profiles) by file tools and by shell commands, and asks before "
        "commands that print secrets"
    ),
    "network": (
        "denies fetches to cloud metadata addresses and asks before fetches to link-local, private and "
        "loopback addresses, raw IP URLs, and paste or file-drop sites, by fetch tools and shell downloads"
    ),
}


def known_packs() -> list[PackInfo]:
    """Every bundled pack, sorted by name."""
    return [PackInfo(name, _SUMMARIES[name], PACK_DIR / f"{name}.yaml") for name in sorted(_SUMMARIES)]


def is_pack_ref(ref: str) -> bool:
    """Whether an `extends` entry names a bundled pack (`pack:NAME`) rather than a file."""
    return ref.startswith(PREFIX)


def pack_path(name: str) -> Path | None:
    """The file of the pack called `name` (without `pack:`), or None if there is no such pack."""
    return PACK_DIR / f"{name}.yaml" if name in _SUMMARIES else None
