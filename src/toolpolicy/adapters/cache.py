"""A per-user cache of compiled policies for `policy hook`, which starts once per tool call.

`load_policy_cached(path)` returns what `load_policy(path)` returns, from a pickle when one is
valid. An entry is keyed by the policy path (as given and resolved), the format, `$HOME`, the
Python version and a fingerprint of the installed toolpolicy (its version and the size and
mtime of its source files). Its header records the policy it was compiled for (the realpath and
the format asked for) and every file the policy was read from (the file first, then its `extends`
chain) with mtime, size and SHA-256: a hit needs the same policy, the file first, and all of them
unchanged (an entry copied over another policy's, by a dotfiles sync or a backup restore, is a miss).

Safety: the cache directory (`$TOOLPOLICY_CACHE_DIR`, else `$XDG_CACHE_HOME/toolpolicy`, else
`~/.cache/toolpolicy`) is created 0700 and used only if it is a real directory owned by the user
and writable by nobody else; an entry is read only if it is a regular file owned by the user with
mode 0600, and unpickled with only the classes a compiled policy is made of (a planted entry cannot
run code in the hook). Entries are written to a temporary file and renamed into place (atomic). Anything odd
(a corrupt, foreign, truncated or stale entry; an unreadable directory) is ignored: the policy is
compiled from source and the entry rewritten. `TOOLPOLICY_NO_CACHE=1` turns the cache off.
"""

from __future__ import annotations

import io
import os
import stat
import sys
from collections.abc import Mapping

from .json_codec import loads

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any

try:  # the builtin SHA-256: `hashlib` loads OpenSSL, which costs the hook's cold start ~3 ms
    from _sha256 import sha256 as _sha256  # CPython <= 3.11
except ImportError:  # pragma: no cover - depends on the Python version
    try:
        from _sha2 import sha256 as _sha256  # CPython >= 3.12
    except ImportError:
        from hashlib import sha256 as _sha256

try:  # the C unpickler alone: `pickle` itself (its pure-Python half, struct) costs the hook ~1 ms
    from _pickle import Unpickler, UnpicklingError
except ImportError:  # pragma: no cover - a Python without the C accelerator
    from pickle import Unpickler, UnpicklingError

MAGIC = b"toolpolicy-compiled-v2\n"  # v2: the header names the policy and format
MAX_ENTRY_BYTES = 64 * 1024 * 1024
MAX_ENTRIES = 64  # older entries are pruned when a new one is written


def load_policy_cached(
    path: str, *, format: str | None = None, enabled: bool = True, env: Mapping[str, str] | None = None
) -> Any:
    """`load_policy(path, format=format)`, answered from the cache when a valid entry exists.

    Raises what `load_policy` raises (`PolicyError`) for a policy that does not load; errors
    are never cached.
    """
    env = os.environ if env is None else env
    directory = cache_dir(env) if enabled and not _truthy(env.get("TOOLPOLICY_NO_CACHE")) else None
    real = os.path.realpath(path) if directory else ""
    entry = _entry_path(directory, path, format, env, real=real) if directory else None
    policy = _read_entry(entry, path, format, real=real) if entry else None
    if policy is not None:
        return policy
    from ..api import load_policy

    before = _record_or_none(path) if entry else None
    policy = load_policy(path, format=format)
    if entry and before is not None:
        _write_entry(entry, policy, path, before, format=format, real=real)
    return policy


def cache_dir(env: Mapping[str, str]) -> str | None:
    """The private cache directory (created 0700), or None when it is missing or unsafe."""
    base = env.get("TOOLPOLICY_CACHE_DIR")
    if not base:
        xdg = env.get("XDG_CACHE_HOME")
        root = xdg if xdg and os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(root, "toolpolicy")
    try:
        os.makedirs(base, mode=0o700, exist_ok=True)
        info = os.lstat(base)
    except OSError:
        return None
    private = stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o022
    return base if private else None


# -- keys and fingerprints ------------------------------------------------------------------------
def _entry_path(
    directory: str, path: str, format: str | None, env: Mapping[str, str], *, real: str | None = None
) -> str:
    """The entry of `path` (`real`: its realpath, when the caller has it already)."""
    parts = [
        MAGIC.decode().strip(),
        _package_fingerprint(),
        sys.version.split()[0],
        str(format),
        os.path.realpath(path) if real is None else real,
        str(path),
        env.get("HOME", "") or os.path.expanduser("~"),
    ]
    key = _sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return os.path.join(directory, f"{key[:40]}.pickle")


# The subpackages `api.load_policy` may import (the layering of docs/architecture.md: `api` and every
# layer below it): their sources shape a compiled policy and define the classes it unpickles into.
# The layers above (cli, adapters, serve, ...) cannot change an entry, so the fingerprint skips them.
FINGERPRINTED = frozenset(
    {
        "source",
        "vocabulary",
        "errors",
        "ast",
        "runtime",
        "grammar",
        "policies",
        "compiler",
        "analysis",
        "testing",
        "discover",
        "api",
    }
)
_SOURCE_SUFFIXES = (".py", ".lark", ".yaml", ".json", ".toml", ".so", ".pyd")  # (.so: the compiled build)


def _package_fingerprint(root: str | None = None) -> str:
    """The installed toolpolicy (or the package at `root`): its version plus the size and mtime of
    every source file a compiled policy depends on (top-level modules, `FINGERPRINTED` subpackages)."""
    from .. import __version__

    root = root or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    lines: list[str] = [__version__]
    _stat_tree(root, lines, top=True)
    return _sha256("\n".join(lines).encode("utf-8", "surrogatepass")).hexdigest()


def _stat_tree(directory: str, lines: list[str], *, top: bool = False) -> None:
    """Append `path:size:mtime` of each source file under `directory`, in a stable order."""
    with os.scandir(directory) as found:
        entries = sorted(found, key=lambda e: e.name)
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if entry.name != "__pycache__" and (not top or entry.name in FINGERPRINTED):
                _stat_tree(entry.path, lines)
        elif entry.name.endswith(_SOURCE_SUFFIXES):
            info = entry.stat()
            lines.append(f"{entry.path}:{info.st_size}:{info.st_mtime_ns}")


def _file_record(path: str) -> list[Any]:
    """[absolute path, mtime_ns, size, sha256] of one source file."""
    absolute = os.path.abspath(path)
    with open(absolute, "rb") as handle:
        info = os.fstat(handle.fileno())
        digest = _sha256(handle.read()).hexdigest()
    return [absolute, info.st_mtime_ns, info.st_size, digest]


def _sources_unchanged(records: Any) -> bool:
    if not isinstance(records, list) or not records:
        return False
    for record in records:
        if not isinstance(record, list) or len(record) != 4 or not isinstance(record[0], str):
            return False
        try:
            if _file_record(record[0]) != record:
                return False
        except OSError:
            return False
    return True


# -- reading and writing entries ------------------------------------------------------------------
def _read_entry(entry: str, path: str, format: str | None, *, real: str | None = None) -> Any:
    """The policy cached in `entry` for `path` read as `format` (`real`: its realpath), or None:
    missing, unsafe, corrupt or stale entries, and entries written for another policy or format
    (copied over this one's), are all ignored."""
    try:
        blob = _read_private(entry)
        if blob is None or not blob.startswith(MAGIC):
            return None
        header_end = blob.index(b"\n", len(MAGIC))
        meta = loads(blob[len(MAGIC) : header_end])
        if not isinstance(meta, dict) or not _written_for(meta, path, format, real):
            return None
        if not _sources_unchanged(meta.get("sources")):
            return None
        policy = _unpickle(blob[header_end + 1 :])
    except Exception:  # NOTE: a bad entry is a cache miss, never an error
        return None
    from ..runtime.compiled import CompiledPolicy

    return policy if isinstance(policy, CompiledPolicy) else None


def _written_for(meta: dict[str, Any], path: str, format: str | None, real: str | None) -> bool:
    """Whether the header `meta` is that of an entry compiled for `path` as `format`: the same
    realpath and format, and the file itself as the first source record."""
    sources = meta.get("sources")
    return (
        meta.get("policy") == (os.path.realpath(path) if real is None else real)
        and "format" in meta
        and meta["format"] == format
        and isinstance(sources, list)
        and bool(sources)
        and isinstance(sources[0], list)
        and bool(sources[0])
        and sources[0][0] == os.path.abspath(path)
    )


def _unpickle(data: bytes) -> Any:
    """`_PolicyUnpickler` with the cyclic GC paused: the tens of thousands of tuples a large policy is
    made of would otherwise set off collections of the caller's whole heap on the way (a long-lived
    process loading a 10,000-rule policy paid 70 ms for one); collection resumes right after."""
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        return _PolicyUnpickler(io.BytesIO(data)).load()
    finally:
        if enabled:
            gc.enable()


# The modules whose classes a compiled policy is made of: plain data (records, AST nodes, enums).
_DATA_MODULES = frozenset(
    {
        "toolpolicy.runtime.compiled",
        "toolpolicy.runtime.kinds.knowledge_table",
        "toolpolicy.runtime.kinds.shell_knowledge",
        "toolpolicy.runtime.hooks.types",
        "toolpolicy.source",
        "toolpolicy.vocabulary",
        "toolpolicy.vocabulary.enums",
    }
)


class _PolicyUnpickler(Unpickler):
    """Unpickles only the classes a compiled policy is made of.

    The cache directory belongs to the user the agent runs as, so a process of the agent's could
    plant an entry (the directory is a protected path: a tool or shell write to it asks). A plain
    `pickle.loads` would run whatever callable such an entry names (`os.system`, ...) inside the
    hook; here any global other than a class of toolpolicy's data modules or its `ast` package
    fails the load, which is a cache miss: the policy is compiled from source.
    """

    def find_class(self, module: str, name: str) -> Any:
        if module in _DATA_MODULES or module.startswith("toolpolicy.ast."):
            found = super().find_class(module, name)
            if isinstance(found, type):
                return found
        raise UnpicklingError(f"{module}.{name} is not part of a compiled policy")


def _read_private(entry: str) -> bytes | None:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(entry, flags)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if (
            not stat.S_ISREG(info.st_mode)
            or info.st_uid != os.geteuid()
            or info.st_mode & 0o077
            or info.st_size > MAX_ENTRY_BYTES
        ):
            return None
        return handle.read(MAX_ENTRY_BYTES + 1)


def _record_or_none(path: str) -> list[Any] | None:
    try:
        return _file_record(path)
    except OSError:
        return None


def _write_entry(
    entry: str, policy: Any, path: str, before: list[Any], *, format: str | None, real: str | None = None
) -> None:
    """Write atomically (temp file + rename, mode 0600); failures are ignored. The header names
    the policy (`real`, else the realpath of `path`) and `format` the entry is compiled for.

    `before` is the policy file as it was just before compiling: if it changed meanwhile, the
    compiled policy may not match what is on disk now, so nothing is written.
    """
    try:
        sources = [_file_record(p) for p in dict.fromkeys([path, *policy.sources])]
        if sources[0] != before:
            return
        from ..runtime.plan import tool_glob_prefixes

        tool_glob_prefixes(policy)  # derived now, pickled with the policy: no hook derives it again
        import json  # only when writing an entry

        policy_file = os.path.realpath(path) if real is None else real
        meta = json.dumps({"policy": policy_file, "format": format, "sources": sources}).encode()
        import pickle  # only when writing an entry

        payload = MAGIC + meta + b"\n" + pickle.dumps(policy, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # an unpicklable or unreadable policy is simply not cached
        return
    directory = os.path.dirname(entry)
    try:
        import tempfile  # only when writing an entry

        fd, temp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".pickle")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        os.replace(temp, entry)
    except OSError:
        _remove(temp)
        return
    _prune(directory)


def _prune(directory: str) -> None:
    try:
        entries = [e for e in os.scandir(directory) if e.name.endswith(".pickle")]
        if len(entries) <= MAX_ENTRIES:
            return
        entries.sort(key=lambda e: e.stat().st_mtime_ns)
        for old in entries[: len(entries) - MAX_ENTRIES]:
            _remove(old.path)
    except OSError:
        return


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        return


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")
