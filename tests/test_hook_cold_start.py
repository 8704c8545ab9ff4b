"""What `policy hook` does to start and end fast, and that none of it changes an answer.

The hook runs as a fresh process per tool call (bench/hook_cold_start.py measures it). These tests
pin the mechanisms: the process ends without the interpreter's teardown but only after the answer
is flushed and the `atexit` handlers ran (and never while another thread still works); the
compiled-policy cache's package fingerprint covers exactly the layers a compiled policy depends on.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolpolicy.adapters import cache as policy_cache
from toolpolicy.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parent))
from layering import RANK  # noqa: E402

POLICY = 'version: 1\nprofile: claude-code\ndefault: ask\npermissions:\n  allow: ["Bash(git status*)"]\n  deny: ["Bash(sudo *)"]\n'


def _input(command: str) -> str:
    return json.dumps(
        {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command}}
    )


def _run_main(prelude: str, policy: Path, stdin: str, tmp_path: Path) -> subprocess.CompletedProcess[bytes]:
    code = f"{prelude}\nfrom toolpolicy.cli import main\nmain()\n"
    return subprocess.run(
        [sys.executable, "-c", code, "hook", "claude-code", "--policy", str(policy)],
        input=stdin.encode(),
        capture_output=True,
        timeout=60,
        check=False,
        env={"TOOLPOLICY_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"},
    )


@pytest.fixture
def policy(tmp_path: Path) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY)
    return path


# -- ending the process ---------------------------------------------------------------------------
def test_fast_exit_flushes_the_answer_and_runs_atexit_handlers(policy: Path, tmp_path: Path) -> None:
    prelude = "import atexit, sys\natexit.register(lambda: sys.stderr.write('atexit ran\\n'))"
    done = _run_main(prelude, policy, _input("sudo rm -rf /"), tmp_path)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert done.stderr.endswith(b"atexit ran\n")


def test_fast_exit_keeps_the_exit_code_of_a_fail_closed_answer(policy: Path, tmp_path: Path) -> None:
    done = _run_main("", policy, "not json", tmp_path)
    assert done.returncode == 2 and b"bad hook input" in done.stderr and done.stdout == b""
    assert b"Traceback" not in done.stderr


def test_a_live_thread_gets_the_normal_exit(policy: Path, tmp_path: Path) -> None:
    prelude = (
        "import sys, threading, time\n"
        "def work():\n    time.sleep(0.3)\n    sys.stderr.write('thread finished\\n')\n"
        "threading.Thread(target=work).start()"
    )
    done = _run_main(prelude, policy, _input("git status"), tmp_path)
    assert done.returncode == 0
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert b"thread finished" in done.stderr  # the interpreter waited for it, as without the fast exit


def test_main_called_with_argv_raises_system_exit(
    policy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An in-process caller of `main(argv)` keeps its process: the fast exit is for the console script."""
    monkeypatch.setenv("TOOLPOLICY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(_input("git status").encode())))
    with pytest.raises(SystemExit) as done:
        main(["hook", "claude-code", "--policy", str(policy)])
    assert done.value.code == 0
    assert json.loads(capsys.readouterr().out)["hookSpecificOutput"]["permissionDecision"] == "allow"


# -- the cache's package fingerprint --------------------------------------------------------------
def test_fingerprinted_packages_are_what_load_policy_may_import() -> None:
    """`api` and every layer below it (tests/layering.py), and nothing above: a compiled policy is
    made by `api.load_policy` and unpickled into classes of those layers only."""
    below_api = {name for name, rank in RANK.items() if rank <= RANK["api"] and name != "(root)"}
    below_api -= {"lint"}  # api's layer-mate, which api may not import
    assert below_api == policy_cache.FINGERPRINTED


def _tree(root: Path) -> None:
    for name in ("__init__.py", "api.py", "runtime/compiled.py", "compiler/passes.py", "cli/app.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x = 1\n")
    (root / "policies").mkdir()
    (root / "policies" / "commands.yaml").write_text("git: {}\n")


def test_fingerprint_sees_the_sources_a_compiled_policy_depends_on(tmp_path: Path) -> None:
    root = tmp_path / "toolpolicy"
    _tree(root)
    before = policy_cache._package_fingerprint(str(root))
    assert policy_cache._package_fingerprint(str(root)) == before
    for changed in ("api.py", "runtime/compiled.py", "compiler/passes.py", "policies/commands.yaml"):
        (root / changed).write_text("x = 22\n")
        after = policy_cache._package_fingerprint(str(root))
        assert after != before, changed
        before = after
    (root / "runtime" / "new.py").write_text("")
    assert policy_cache._package_fingerprint(str(root)) != before


def test_fingerprint_skips_layers_above_the_api_and_bytecode(tmp_path: Path) -> None:
    root = tmp_path / "toolpolicy"
    _tree(root)
    before = policy_cache._package_fingerprint(str(root))
    (root / "cli" / "app.py").write_text("x = 22\n")
    (root / "adapters").mkdir()
    (root / "adapters" / "claude_code.py").write_text("")
    (root / "runtime" / "__pycache__").mkdir()
    (root / "runtime" / "__pycache__" / "compiled.cpython-311.pyc").write_bytes(b"\0")
    (root / "runtime" / "notes.txt").write_text("not a source")
    assert policy_cache._package_fingerprint(str(root)) == before


# -- the path kind's symlink probe ---------------------------------------------------------------
@pytest.mark.skipif(sys.platform != "linux", reason="openat2 and the early lstat probe are Linux's")
def test_the_lstat_probe_tells_what_openat2_tells(tmp_path: Path) -> None:
    """The first calls of a process use `lstat` (no ctypes import); it must agree with openat2."""
    from toolpolicy.runtime.kinds import path as path_kind
    from toolpolicy.runtime.kinds.openat2 import openat2_probe

    openat2 = openat2_probe()
    if openat2 is None:
        pytest.skip("this kernel has no openat2 (Linux < 5.6 or a seccomp filter)")
    (tmp_path / "d" / "e").mkdir(parents=True)
    (tmp_path / "d" / "f.txt").write_text("x")
    (tmp_path / "link_dir").symlink_to(tmp_path / "d")
    (tmp_path / "d" / "link_file").symlink_to(tmp_path / "d" / "f.txt")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    t = str(tmp_path)
    paths = [
        "/",
        t,
        f"{t}/d",
        f"{t}/d/e",
        f"{t}/d/e/",
        f"{t}//d/./e",
        f"{t}/d/f.txt",
        f"{t}/d/f.txt/below",  # a file as a directory: ENOTDIR
        f"{t}/missing/deeper/x",  # missing: nothing below can be a link
        f"{t}/link_dir",
        f"{t}/link_dir/e",
        f"{t}/d/link_file",
        f"{t}/dangling",
        f"{t}/dangling/x",
        "/proc/self/root/etc",  # a magic link
        "/proc/self/cwd",
        "/etc/passwd",
    ]
    assert [path_kind._lstat_probe(p) for p in paths] == [openat2(p) for p in paths]


def test_a_hook_process_deciding_a_path_does_not_import_ctypes(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text('version: 1\ndefault: ask\npermissions:\n  allow: ["edit_file:path=/srv/**"]\n')
    probe = (
        "import sys\n"
        "from toolpolicy import Engine, load_policy\n"
        "from toolpolicy.runtime.kinds import path\n"
        f"engine = Engine(load_policy({str(policy)!r}))\n"
        "first = engine.decide('edit_file', {'path': '/srv/a/b.txt'}).decision\n"
        "early = 'ctypes' in sys.modules\n"
        "for i in range(path.EARLY_CALLS + 1):\n"
        "    engine.decide('edit_file', {'path': f'/srv/a/{i}.txt'})\n"
        "print(first, early, bool(path._OPENAT2) or sys.platform != 'linux')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split() == ["allow", "False", "True"]


# -- what the hook imports ------------------------------------------------------------------------
HEAVY = ("typing", "ctypes", "pickle", "dataclasses", "click", "pydantic", "lark", "tree_sitter", "yaml")


@pytest.mark.parametrize(
    ("tool", "tool_input", "parser"),
    [
        ("Edit", {"file_path": "/srv/app/main.py", "old_string": "a", "new_string": "b"}, False),
        ("Read", {"file_path": "/etc/hosts"}, False),
        ("Bash", {"command": "git status"}, False),
        ("Bash", {"command": "ls -l $(cat list)"}, True),  # parsed: tree-sitter's extension module alone
    ],
)
def test_the_warm_hook_imports_nothing_it_does_not_need(
    policy: Path, tmp_path: Path, tool: str, tool_input: dict[str, object], parser: bool
) -> None:
    probe = (
        "import sys, json\n"
        "from toolpolicy.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        f"print(json.dumps(sorted(m for m in {[*HEAVY, 'tree_sitter._binding']!r} if m in sys.modules)),"
        " file=sys.stderr)\n"
    )
    stdin = json.dumps({"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input})
    env = {"TOOLPOLICY_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    args = [sys.executable, "-c", probe, "hook", "claude-code", "--policy", str(policy)]
    runs = [
        subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=60, env=env, check=True)
        for _ in ("cold: compiles and caches", "warm: from the cache")
    ]
    assert json.loads(runs[1].stdout)["hookSpecificOutput"]["permissionDecision"] in ("allow", "ask", "deny")
    loaded = json.loads(runs[1].stderr.strip().splitlines()[-1])
    assert loaded == (["tree_sitter._binding"] if parser else []), loaded


REGEX_STACK = ("re", "enum", "json")  # `json` imports `re`, and `re` imports `enum`


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("mcp__github__create_issue", {"title": "a bug", "body": "steps"}),
        ("Read", {"file_path": "/etc/hosts"}),
        ("Edit", {"file_path": "/srv/app/main.py", "old_string": "a", "new_string": "b"}),
    ],
)
def test_a_hook_deciding_string_arguments_does_not_import_re_or_json(
    policy: Path, tmp_path: Path, tool: str, tool_input: dict[str, object]
) -> None:
    """Started as `policy install` starts it (`-I -S`), the hook reads its input and writes its
    answer with `adapters.json_codec`, and nothing on the way to an MCP, read or edit decision
    compiles a Python regex; the answer is the one `json` reads back."""
    probe = (
        "import sys\n"
        f"sys.path[:0] = {[p for p in sys.path if p]!r}\n"
        "from toolpolicy.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        f"print(repr(sorted(m for m in {REGEX_STACK!r} if m in sys.modules)), file=sys.stderr)\n"
    )
    stdin = json.dumps({"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input})
    env = {"TOOLPOLICY_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    args = [sys.executable, "-I", "-S", "-c", probe, "hook", "claude-code", "--policy", str(policy)]
    runs = [
        subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=60, env=env, check=True)
        for _ in ("cold: compiles and caches", "warm: from the cache")
    ]
    answer = json.loads(runs[1].stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "PreToolUse" and answer["permissionDecision"] in (
        "allow",
        "ask",
        "deny",
    )
    assert runs[1].stderr.strip().splitlines()[-1] == "[]"
