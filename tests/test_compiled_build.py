"""The compiled build (`setup.py`, `runtime/compiled_build.py`): which code a process runs.

Each claim is checked in a fresh interpreter, on a copy of the package where the claim needs one.
The claims about a stale build need the compiled build's files (`.ci/run` installs it: `pip
install -e .` compiles in place); in a pure install those tests assert instead what a pure install
must do (run its sources, never warn).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import toolpolicy
from toolpolicy.runtime import compiled_build

SRC = Path(toolpolicy.__file__).resolve().parent.parent  # src/ (or site-packages/)
LIBRARIES = sorted(p.name for p in SRC.glob("*__mypyc*.so"))

PROBE = (
    "import sys, warnings\n"
    "warnings.simplefilter('always')\n"
    "from toolpolicy.runtime.compiled_build import built, compiled_modules\n"
    "print(built())\n"
    "print(','.join(compiled_modules()))\n"
)


def _run(src: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("TOOLPOLICY_PURE", "PYTHONPATH")}
    return subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        timeout=120,
        env={**base, "PYTHONPATH": str(src), **env},
        check=True,
    )


def _has_compiled_files() -> bool:
    return bool(LIBRARIES) and any((SRC / "toolpolicy" / "runtime" / "kinds").glob("shell.*.so"))


def test_pure_asked_for_runs_every_module_from_its_source() -> None:
    done = _run(SRC, TOOLPOLICY_PURE="1")
    assert done.stdout.splitlines() == ["pure Python", ""]


def test_the_module_list_names_real_modules_and_no_module_twice() -> None:
    assert len(set(compiled_build.COMPILED)) == len(compiled_build.COMPILED)
    for name in compiled_build.COMPILED:
        assert (SRC / Path(*name.split("."))).with_suffix(".py").is_file(), name


@pytest.mark.parametrize(
    "setting, wanted", [("1", True), ("yes", True), (" TRUE ", True), ("0", False), ("", False)]
)
def test_the_setting_that_asks_for_the_compiled_build(setting: str, wanted: bool) -> None:
    assert compiled_build.wanted(setting) is wanted


def _copy(tmp_path: Path) -> Path:
    """A source tree (pyproject.toml above src/) holding a copy of the package and its library."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'copy'\n")
    src = tmp_path / "src"
    shutil.copytree(SRC / "toolpolicy", src / "toolpolicy", ignore=shutil.ignore_patterns("__pycache__"))
    for name in LIBRARIES:
        shutil.copy2(SRC / name, src / name)
    return src


def _assert_pure_runs_its_sources(tmp_path: Path) -> None:
    """A pure install (no compiled files: `TOOLPOLICY_COMPILE=0`, or no compiler) runs its
    sources, with no warning, even with a source newer than everything else."""
    src = _copy(tmp_path)
    edited = src / "toolpolicy" / "runtime" / "kinds" / "shell_words.py"
    os.utime(edited, ns=(edited.stat().st_mtime_ns + 5_000_000_000,) * 2)
    done = _run(src)
    assert done.stdout.splitlines() == ["pure Python", ""]
    assert "older than their source" not in done.stderr


def test_a_fresh_compiled_build_runs_compiled(tmp_path: Path) -> None:
    if not _has_compiled_files():
        _assert_pure_runs_its_sources(tmp_path)
        return
    done = _run(_copy(tmp_path))
    assert done.stdout.splitlines()[0].startswith("compiled (")
    assert "toolpolicy.runtime.kinds.shell" in done.stdout.splitlines()[1]
    assert "older than their source" not in done.stderr


def test_an_edited_source_runs_every_module_from_its_source_and_says_so(tmp_path: Path) -> None:
    """An edit after the build (here to a module other compiled code calls directly in C) must
    never be silently ignored: every compiled module is then run from its source."""
    if not _has_compiled_files():
        _assert_pure_runs_its_sources(tmp_path)
        return
    src = _copy(tmp_path)
    edited = src / "toolpolicy" / "runtime" / "kinds" / "shell_words.py"
    later = max(p.stat().st_mtime_ns for p in src.rglob("*.so")) + 5_000_000_000
    os.utime(edited, ns=(later, later))
    done = _run(src)
    assert done.stdout.splitlines() == ["pure Python", ""]
    assert "compiled module(s) older than their source" in done.stderr
    assert "toolpolicy.runtime.kinds.shell_words" in done.stderr


def test_an_installed_package_is_not_checked(tmp_path: Path) -> None:
    """No pyproject.toml above the package: an install, whose file times are the installer's."""
    if not _has_compiled_files():
        _assert_pure_runs_its_sources(tmp_path)
        return
    src = _copy(tmp_path)
    (tmp_path / "pyproject.toml").unlink()
    edited = src / "toolpolicy" / "runtime" / "kinds" / "shell_words.py"
    later = max(p.stat().st_mtime_ns for p in src.rglob("*.so")) + 5_000_000_000
    os.utime(edited, ns=(later, later))
    assert _run(src).stdout.splitlines()[0].startswith("compiled (")


def test_the_hook_runs_the_sources(tmp_path: Path) -> None:
    """`policy hook` makes one decision per process: it imports the sources, whatever the build."""
    policy = tmp_path / "p.yaml"
    policy.write_text(
        "version: 1\nprofile: claude-code\ndefault: ask\npermissions:\n  deny: ['Bash(rm *)']\n"
    )
    probe = (
        "import sys\n"
        "from toolpolicy.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "from toolpolicy.runtime.compiled_build import compiled_modules\n"
        "import toolpolicy.runtime.kinds.shell\n"
        "print(repr(compiled_modules()), file=sys.stderr)\n"
    )
    stdin = '{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf x"}}'
    env = {k: v for k, v in os.environ.items() if k != "TOOLPOLICY_PURE"}
    env |= {"PYTHONPATH": str(SRC), "TOOLPOLICY_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", probe, "hook", "claude-code", "--policy", str(policy)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert done.stderr.strip().splitlines()[-1] == "[]"
