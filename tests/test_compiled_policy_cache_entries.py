"""Which policy a compiled-cache entry is for (`toolpolicy.adapters.cache`, R10b-F4).

An entry's header names the policy it was compiled for (its realpath and the format asked for),
and its first source record is that file. An entry written for another policy or format (a cache
directory copied, synced or restored over another's) is a miss: the policy is compiled again and
the entry rewritten. Unit tests on `load_policy_cached` and real `policy hook` subprocesses.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from toolpolicy.adapters import cache as policy_cache

STRICT = 'version: 1\nprofile: claude-code\ndefault: allow\npermissions:\n  deny: ["Bash(rm *)"]\n'
PERMISSIVE = "version: 1\nprofile: claude-code\ndefault: allow\n"


def _env(tmp_path: Path) -> dict[str, str]:
    return {"TOOLPOLICY_CACHE_DIR": str(tmp_path / "c"), "HOME": str(tmp_path)}


def _entry(tmp_path: Path, path: Path, fmt: str | None = None) -> Path:
    return Path(policy_cache._entry_path(str(tmp_path / "c"), str(path), fmt, _env(tmp_path)))


def _header(entry: Path) -> dict[str, object]:
    blob = entry.read_bytes()
    assert blob.startswith(policy_cache.MAGIC)
    header: dict[str, object] = json.loads(
        blob[len(policy_cache.MAGIC) : blob.index(b"\n", len(policy_cache.MAGIC))]
    )
    return header


def _two_policies(tmp_path: Path) -> tuple[Path, Path]:
    strict, permissive = tmp_path / "strict.yaml", tmp_path / "permissive.yaml"
    strict.write_text(STRICT)
    permissive.write_text(PERMISSIVE)
    for path in (strict, permissive):
        policy_cache.load_policy_cached(str(path), env=_env(tmp_path))
    return strict, permissive


def test_the_header_names_the_policy_its_format_and_the_file_first(tmp_path: Path) -> None:
    strict, _ = _two_policies(tmp_path)
    header = _header(_entry(tmp_path, strict))
    assert header["policy"] == os.path.realpath(strict)
    assert header["format"] is None
    sources = header["sources"]
    assert isinstance(sources, list) and sources[0][0] == str(strict)
    assert policy_cache.MAGIC == b"toolpolicy-compiled-v2\n"


def test_an_entry_copied_from_another_policy_is_a_miss_and_is_rewritten(tmp_path: Path) -> None:
    strict, permissive = _two_policies(tmp_path)
    expected = policy_cache.load_policy_cached(str(strict), env=_env(tmp_path)).digest
    entry = _entry(tmp_path, strict)
    entry.write_bytes(_entry(tmp_path, permissive).read_bytes())
    assert policy_cache._read_entry(str(entry), str(strict), None) is None
    assert policy_cache.load_policy_cached(str(strict), env=_env(tmp_path)).digest == expected
    assert _header(entry)["policy"] == os.path.realpath(strict)  # rewritten for this policy
    assert policy_cache._read_entry(str(entry), str(strict), None).digest == expected


def test_an_entry_of_another_format_is_a_miss(tmp_path: Path) -> None:
    strict, _ = _two_policies(tmp_path)
    good = _entry(tmp_path, strict).read_bytes()
    assert policy_cache._read_entry(str(_entry(tmp_path, strict)), str(strict), None) is not None
    entry = _entry(tmp_path, strict, "toolpolicy")
    entry.parent.mkdir(exist_ok=True)
    entry.write_bytes(good)
    entry.chmod(0o600)
    assert policy_cache._read_entry(str(entry), str(strict), "toolpolicy") is None


def test_a_header_naming_this_policy_over_another_files_sources_is_a_miss(tmp_path: Path) -> None:
    """The first source record must be the policy file itself, not just the `policy` field."""
    strict, permissive = _two_policies(tmp_path)
    other = _entry(tmp_path, permissive).read_bytes()
    end = other.index(b"\n", len(policy_cache.MAGIC))
    header = json.loads(other[len(policy_cache.MAGIC) : end])
    header["policy"] = os.path.realpath(strict)
    forged = policy_cache.MAGIC + json.dumps(header).encode() + other[end:]
    entry = _entry(tmp_path, strict)
    entry.write_bytes(forged)
    assert policy_cache._read_entry(str(entry), str(strict), None) is None


def test_a_previous_format_entry_is_a_miss(tmp_path: Path) -> None:
    strict, _ = _two_policies(tmp_path)
    entry = _entry(tmp_path, strict)
    good = entry.read_bytes()
    entry.write_bytes(b"toolpolicy-compiled-v1\n" + good[len(policy_cache.MAGIC) :])
    assert policy_cache._read_entry(str(entry), str(strict), None) is None


def _hook(policy: Path, command: str, cache: Path) -> str:
    call = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command}}
    done = subprocess.run(
        [sys.executable, "-m", "toolpolicy", "hook", "claude-code", "--policy", str(policy)],
        input=json.dumps(call),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "TOOLPOLICY_CACHE_DIR": str(cache)},
    )
    assert done.returncode == 0, done.stderr
    decision: str = json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"]
    return decision


def test_policy_hook_with_a_restored_cache_of_another_policy_decides_its_own(tmp_path: Path) -> None:
    """A cache directory restored from elsewhere (every entry is the permissive policy's): the
    real `policy hook` still denies by the strict policy, and keeps doing so from its rewritten entry."""
    strict, permissive = tmp_path / "strict.yaml", tmp_path / "permissive.yaml"
    strict.write_text(STRICT)
    permissive.write_text(PERMISSIVE)
    cache = tmp_path / "cache"
    assert _hook(strict, "rm -rf x", cache) == "deny"
    assert _hook(permissive, "rm -rf x", cache) == "allow"
    entries = sorted(cache.glob("*.pickle"))
    assert len(entries) == 2
    foreign = next(e for e in entries if b"permissive.yaml" in e.read_bytes().split(b"\n")[1])
    for entry in entries:
        entry.write_bytes(foreign.read_bytes())
    assert _hook(strict, "rm -rf x", cache) == "deny"  # a miss: compiled again, entry rewritten
    assert _hook(strict, "rm -rf x", cache) == "deny"  # a hit on the rewritten entry
    headers = [e.read_bytes().split(b"\n")[1] for e in sorted(cache.glob("*.pickle"))]
    assert sum(b"strict.yaml" in h for h in headers) == 1
