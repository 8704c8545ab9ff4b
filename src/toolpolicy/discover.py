"""Find the tool-call policies and agent configs in a repository, for `policy check` in CI.

    python -m toolpolicy.discover [ROOT]      # one path per line, relative to ROOT, sorted

The GitHub Action (`action.yml`) runs this and hands the list to `policy check --format sarif`.
Found: native policies (`toolpolicy.{yaml,yml,toml}`, `*.policy.{yaml,yml,toml}`, anything under
`.toolpolicy/`), Claude Code settings (`.claude/settings*.json`, `managed-settings.json`), Gemini CLI
policy TOML (`.gemini/policies/*.toml`), Codex (`.codex/config.toml`, `requirements.toml`,
`hooks.json`, `*.rules`), docker-agent agent YAML (a YAML file with a top-level `agents:`), and the
config files of any other agent whose importer is registered (`.cursor/*.json` and the like, once a
`cursor` format exists). Vendored and generated folders (`.git`, `node_modules`, virtualenvs,
`dist`, `build`) are skipped, and so are symlinks, so a hostile repository cannot point the scan
outside itself. Sits on top: it only reads the file system and the importers' format names.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

SKIP_DIRS = frozenset(
    {".git", "node_modules", ".venv", "venv", ".tox", ".nox", "__pycache__", "dist", "build", ".mypy_cache"}
)
NATIVE_NAMES = frozenset({"toolpolicy.yaml", "toolpolicy.yml", "toolpolicy.toml"})
NATIVE_SUFFIXES = (".policy.yaml", ".policy.yml", ".policy.toml")
MAX_FILES = 10_000  # a repository with more candidates is cut here (the rest is reported on stderr)
_AGENTS_KEY = re.compile(rb"(?m)^agents\s*:")
# Agent folders whose files `policy check` reads once an importer for that agent is registered.
OPTIONAL_FORMATS = {".cursor": "cursor", ".github/hooks": "copilot", ".clinerules": "cline"}


def _walk(root: Path) -> Iterator[Path]:
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(
            d for d in dirs if d not in SKIP_DIRS and not os.path.islink(os.path.join(folder, d))
        )
        for name in sorted(files):
            path = Path(folder) / name
            if not path.is_symlink():
                yield path


def _formats() -> frozenset[str]:
    from .policies.formats import FORMATS

    return frozenset(FORMATS)


def wanted(path: Path, root: Path, formats: frozenset[str]) -> bool:
    """Whether `policy check` should read this file."""
    rel = path.relative_to(root).as_posix()
    name = path.name
    parent = path.parent.name
    if name in NATIVE_NAMES or name.endswith(NATIVE_SUFFIXES) or "/.toolpolicy/" in f"/{rel}":
        return name.endswith((".yaml", ".yml", ".toml"))
    if parent == ".claude" and name.startswith("settings") and name.endswith(".json"):
        return True
    if name == "managed-settings.json":
        return True
    if rel.endswith(".toml") and "/.gemini/policies/" in f"/{rel}":
        return True
    if parent == ".codex" and name in ("config.toml", "requirements.toml", "hooks.json"):
        return True
    if name.endswith(".rules") and ("/.codex/" in f"/{rel}" or "rules" in path.parts):
        return True
    for folder, fmt in OPTIONAL_FORMATS.items():
        if (
            fmt in formats
            and f"/{folder}/" in f"/{rel}"
            and name.endswith((".json", ".toml", ".yaml", ".yml"))
        ):
            return True
    if name.endswith((".yaml", ".yml")) and "docker-agent" in formats:
        try:
            with open(path, "rb") as fh:
                head = fh.read(64 * 1024)
        except OSError:
            return False
        return bool(_AGENTS_KEY.search(head))
    return False


def find_configs(root: Path) -> list[Path]:
    """The files to check, relative to `root`, sorted."""
    root = root.resolve()
    formats = _formats()
    found = []
    for path in _walk(root):
        if wanted(path, root, formats):
            found.append(path.relative_to(root))
            if len(found) >= MAX_FILES:
                print(f"toolpolicy.discover: stopped at {MAX_FILES} files", file=sys.stderr)
                break
    return sorted(found)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0]) if args else Path(".")
    if not root.is_dir():
        print(f"toolpolicy.discover: {root} is not a directory", file=sys.stderr)
        return 2
    for path in find_configs(root):
        print(path.as_posix())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
