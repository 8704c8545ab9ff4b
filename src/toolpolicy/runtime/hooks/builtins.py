"""Built-in hooks (SPEC 5.5): named in-process hooks, `{type: builtin, builtin: NAME, args: [...]}`.

Place in the pipeline: runtime. The dispatcher (`dispatch.py`) calls `run_builtin(spec, event,
payload)` for every `type: builtin` hook, exactly like a command hook, and merges the verdict in
config order; this module registers that handler on import. The compiler checks names against
`known_builtins()` and arguments with `check_builtin_args`.

Semantics follow docker-agent's `pkg/hooks/builtins` (research/docker-agent.md §5) where it has
them; every builtin is a no-op (an empty verdict) on events it does not handle:

- `redact_secrets`: pre_tool_use / tool_guard -> `updated_input` (the complete redacted input, only
  when something changed, plus a `system_message` naming the tool); post_tool_use /
  tool_response_transform -> `updated_tool_response` (strings and structured responses alike);
  before_llm_call -> `updated_messages` (the whole list); before_response_emit ->
  `response_content`. Never fails.
- `max_iterations` `[N]`: on before_llm_call / turn_start, blocks when the payload's `iteration`
  exceeds N. A missing, non-integer or non-positive N, or a missing or non-positive iteration, is
  a no-op (docker-agent); `check_builtin_args` reports the bad N at load time.
- `add_date`, `add_environment_info`, `add_git_status`, `add_git_diff` (`["stat"]`: stat only;
  default and `["full"]`: stat plus the diff cut to 4 KiB; a number: another cap),
  `add_prompt_files` (file names, looked up in the working directory and every parent, and in
  the home directory; outermost first, so the most specific file comes last), and
  `add_directory_listing` (top-level entries, no dot-files, at most 100): `additional_context`.
  Everything they inject passes through `redact` (a diff or a prompt file can hold a secret).
- `limit_large_tool_results` `[max_bytes]` (default 100,000): on post_tool_use /
  tool_response_transform, a response above the cap is cut to its head (read-file tools) or its
  tail (everything else, where errors are) plus a note. It redacts what it keeps, before and after
  cutting (so no secret is left half-cut at the edge), which makes it safe in any order next to
  `redact_secrets`: under "first rewrite wins" (SPEC 5.4) put it *first* to get both effects;
  put after `redact_secrets`, the response is redacted but not cut.

Blocking work never runs on the event loop: git runs as an asyncio subprocess in its own process
group (killed on timeout), file reads and large redactions run in a worker thread. The working
directory is the hook's `working_dir` (relative to the payload's `cwd`), else the payload's `cwd`.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import os
import platform
import sys
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .command import HookSetupError, effective_timeout, expand_env_refs, kill_group, resolve_working_dir
from .dispatch import register_handler
from .output import failed_verdict
from .redact import redact, redact_text
from .types import BuiltinHookSpec, HookVerdict

BuiltinFn = Callable[[BuiltinHookSpec, str, dict[str, Any]], Awaitable[HookVerdict]]

TOOL_INPUT_EVENTS = frozenset({"pre_tool_use", "tool_guard"})
TOOL_RESPONSE_EVENTS = frozenset({"post_tool_use", "tool_response_transform"})
ITERATION_EVENTS = frozenset({"before_llm_call", "turn_start"})

DEFAULT_RESULT_CAP = 100_000  # bytes kept by limit_large_tool_results
GIT_DIFF_CAP = 4096  # bytes of diff text add_git_diff injects (docker-agent: 4 KB)
GIT_OUTPUT_CAP = 1 << 20  # bytes read from one git process before it is stopped
GIT_STATUS_CAP = 8192  # bytes of `git status` injected
_STDERR_CAP = 64 * 1024
GIT_TIMEOUT = 10.0  # seconds; the hook's own timeout wins when it is shorter
PROMPT_FILE_CAP = 64 * 1024  # bytes injected per prompt file
PROMPT_FILES_TOTAL_CAP = 256 * 1024
LISTING_CAP = 100  # directory entries
THREAD_THRESHOLD = 64 * 1024  # characters: redacting more than this goes to a worker thread
_REDACT_MARGIN = 64 * 1024  # extra characters redacted around a cut (see `limit_text`)
_READ_TOOLS = frozenset({"read_file", "read", "read_text_file", "read_multiple_files", "view", "readfile"})


# ---------------------------------------------------------------------------------------------
# Entry point and registry


async def run_builtin(spec: BuiltinHookSpec, event: str, payload: dict[str, Any]) -> HookVerdict:
    """Run the builtin `spec.builtin` for `event`; an unknown name or a crash is a failed verdict."""
    started = time.monotonic()
    fn = BUILTINS.get(spec.builtin)
    if fn is None:
        return failed_verdict(spec, event, f"unknown builtin `{spec.builtin}`")
    try:
        verdict = await fn(spec, event, payload)
    except HookSetupError as exc:
        verdict = failed_verdict(spec, event, f"builtin `{spec.builtin}`: {exc}")
    except Exception as exc:  # a builtin's failure is a verdict (fail closed where it matters)
        verdict = failed_verdict(spec, event, f"builtin `{spec.builtin}` failed: {exc or type(exc).__name__}")
    verdict.duration_ms = (time.monotonic() - started) * 1000
    return verdict


def known_builtins() -> list[str]:
    """Names a policy may use as `builtin:` (sorted)."""
    return sorted(BUILTINS)


def check_builtin_args(name: str, args: Sequence[str]) -> str | None:
    """A message when `args` do not suit builtin `name` (for the compiler), else None."""
    check = _ARG_CHECKS.get(name, _no_args)
    return check(list(args))


def _no_args(args: list[str]) -> str | None:
    return "takes no arguments" if args else None


def _check_max_iterations(args: list[str]) -> str | None:
    if len(args) != 1 or _positive_int(args[0]) is None:
        return "takes one argument, a positive integer (the maximum number of iterations)"
    return None


def _check_limit(args: list[str]) -> str | None:
    if len(args) > 1 or (args and _positive_int(args[0]) is None):
        return "takes at most one argument, a positive integer (the maximum response size in bytes)"
    return None


def _check_git_diff(args: list[str]) -> str | None:
    bad = [a for a in args if a not in ("stat", "full") and _positive_int(a) is None]
    return f"unknown argument `{bad[0]}` (expected `stat`, `full` or a byte cap)" if bad else None


def _check_prompt_files(args: list[str]) -> str | None:
    if not args:
        return "takes one or more file names"
    for arg in args:
        if problem := _prompt_file_problem(arg):
            return problem
    return None


def _prompt_file_problem(name: str) -> str | None:
    path = Path(name)
    if not name.strip() or path.is_absolute() or ".." in path.parts:
        return f"`{name}` must be a relative file name without `..`"
    return None


def _positive_int(value: Any) -> int | None:
    """`value` as a positive int (ints and decimal strings), else None; booleans are not numbers."""
    if isinstance(value, bool):
        return None
    try:
        number = int(str(value).strip())
    except ValueError:
        return None
    return number if number > 0 else None


# ---------------------------------------------------------------------------------------------
# redact_secrets


async def _redact_secrets(spec: BuiltinHookSpec, event: str, payload: dict[str, Any]) -> HookVerdict:
    verdict = HookVerdict(hook=spec)
    if event in TOOL_INPUT_EVENTS:
        tool_input = payload.get("tool_input")
        clean, changed = await _redact_off_loop(tool_input)
        if changed and isinstance(clean, dict):
            verdict.updated_input = clean
            verdict.system_message = f"redacted secrets from the input of `{payload.get('tool_name', '?')}`"
    elif event in TOOL_RESPONSE_EVENTS and "tool_response" in payload:
        clean, changed = await _redact_off_loop(payload["tool_response"])
        if changed:
            verdict.updated_tool_response, verdict.has_updated_tool_response = clean, True
    elif event == "before_llm_call" and isinstance(payload.get("messages"), list):
        clean, changed = await _redact_off_loop(payload["messages"])
        verdict.updated_messages = clean if changed else None
    elif event == "before_response_emit" and isinstance(payload.get("response_content"), str):
        clean, changed = await _redact_off_loop(payload["response_content"])
        verdict.response_content = clean if changed else None
    return verdict


async def _redact_off_loop(value: Any) -> tuple[Any, bool]:
    """`redact(value)`, in a worker thread when the value is large (it is CPU-bound)."""
    if _text_size(value) > THREAD_THRESHOLD:
        return await asyncio.to_thread(redact, value)
    return redact(value)


def _text_size(value: Any, limit: int = THREAD_THRESHOLD) -> int:
    """Characters of text in `value`, counted until `limit` is passed."""
    if isinstance(value, str):
        return len(value)
    children = value.values() if isinstance(value, Mapping) else value if isinstance(value, list) else ()
    total = 0
    for child in children:
        total += _text_size(child, limit - total)
        if total > limit:
            break
    return total


# ---------------------------------------------------------------------------------------------
# max_iterations


async def _max_iterations(spec: BuiltinHookSpec, event: str, payload: dict[str, Any]) -> HookVerdict:
    verdict = HookVerdict(hook=spec)
    limit = _positive_int(spec.args[0]) if len(spec.args) == 1 else None
    iteration = payload.get("iteration")
    if event not in ITERATION_EVENTS or limit is None or not isinstance(iteration, int):
        return verdict
    if isinstance(iteration, bool) or iteration <= 0 or iteration <= limit:
        return verdict
    verdict.block = True
    verdict.reason = (
        f"maximum number of iterations reached ({limit}): iteration {iteration} is over the limit"
    )
    return verdict


# ---------------------------------------------------------------------------------------------
# limit_large_tool_results


async def _limit_large_tool_results(
    spec: BuiltinHookSpec, event: str, payload: dict[str, Any]
) -> HookVerdict:
    verdict = HookVerdict(hook=spec)
    cap = _positive_int(spec.args[0]) if spec.args else DEFAULT_RESULT_CAP
    response = payload.get("tool_response")
    if event not in TOOL_RESPONSE_EVENTS or cap is None or response is None:
        return verdict
    text = response if isinstance(response, str) else _json_text(response)
    if text is None or _utf8_len(text) <= cap:
        return verdict
    head = str(payload.get("tool_name", "")).lower() in _READ_TOOLS
    limited = await asyncio.to_thread(limit_text, text, cap, head=head)
    verdict.updated_tool_response, verdict.has_updated_tool_response = limited, True
    return verdict


def _json_text(value: Any) -> str | None:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return None


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def limit_text(text: str, cap: int, *, head: bool = False) -> str:
    """`text` cut to about `cap` UTF-8 bytes (its head or its tail), redacted, with a note.

    The cut is first made `_REDACT_MARGIN` characters wider, that part is redacted, and only then
    cut to `cap`: a secret that straddles the final cut is already a marker. What is kept is
    redacted once more (a fixpoint), so the result is exactly what `redact` leaves alone.
    """
    total = _utf8_len(text)
    wide = text[: cap + _REDACT_MARGIN] if head else text[-(cap + _REDACT_MARGIN) :]
    kept = redact_text(_cut_utf8(redact_text(wide), cap, head=head))
    side = "first" if head else "last"
    note = (
        f"[toolpolicy: tool response truncated by limit_large_tool_results: showing the {side} "
        f"{_utf8_len(kept)} of {total} bytes]"
    )
    return f"{kept}\n{note}" if head else f"{note}\n{kept}"


def _cut_utf8(text: str, cap: int, *, head: bool) -> str:
    """The first (or last) at most `cap` UTF-8 bytes of `text`, never splitting a character."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= cap:
        return text
    part = data[:cap] if head else data[-cap:]
    return part.decode("utf-8", "ignore")


# ---------------------------------------------------------------------------------------------
# Context builtins


async def _context(spec: BuiltinHookSpec, text: str | None) -> HookVerdict:
    """A verdict carrying `text` (redacted) as additional context; no text: a no-op."""
    if not text:
        return HookVerdict(hook=spec)
    clean, _ = await _redact_off_loop(text)
    return HookVerdict(hook=spec, additional_context=clean)


def _cwd(spec: BuiltinHookSpec, payload: Mapping[str, Any]) -> str:
    return resolve_working_dir(spec.working_dir, payload, os.environ)


async def _add_date(spec: BuiltinHookSpec, event: str, payload: dict[str, Any]) -> HookVerdict:
    return await _context(spec, f"Today's date: {datetime.date.today().isoformat()}")


async def _add_environment_info(spec: BuiltinHookSpec, event: str, payload: dict[str, Any]) -> HookVerdict:
    cwd = _cwd(spec, payload)
    lines = [
        f"Working directory: {cwd}",
        f"Is the working directory a git repository: {'yes' if _git_root(cwd) else 'no'}",
        f"Operating system: {platform.system() or sys.platform} ({platform.release()})",
        f"Platform: {sys.platform}",
        f"CPU architecture: {platform.machine() or 'unknown'}",
    ]
    return await _context(spec, "\n".join(lines))


def _git_root(cwd: str) -> Path | None:
    """The nearest directory at or above `cwd` holding `.git` (a directory, or a worktree's file)."""
    path = Path(cwd).resolve()
    for directory in (path, *path.parents):
        if (directory / ".git").exists():
            return directory
    return None


async def _add_directory_listing(spec: BuiltinHookSpec, event: str, payload: dict[str, Any]) -> HookVerdict:
    cwd = _cwd(spec, payload)
    entries = await asyncio.to_thread(_list_directory, cwd)
    if not entries:
        return HookVerdict(hook=spec)
    shown = entries[:LISTING_CAP]
    more = f"\n... and {len(entries) - len(shown)} more" if len(entries) > len(shown) else ""
    return await _context(spec, f"Files in {cwd}:\n" + "\n".join(shown) + more)


def _list_directory(cwd: str) -> list[str]:
    with os.scandir(cwd) as it:
        entries = [(e.name, _is_dir(e)) for e in it if not e.name.startswith(".")]
    return [name + ("/" if is_dir else "") for name, is_dir in sorted(entries)]


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


async def _add_prompt_files(spec: BuiltinHookSpec, event: str, payload: dict[str, Any]) -> HookVerdict:
    if problem := _check_prompt_files(list(spec.args)):
        return failed_verdict(spec, event, f"builtin `add_prompt_files`: {problem}")
    cwd = _cwd(spec, payload)
    text = await asyncio.to_thread(_read_prompt_files, cwd, spec.args)
    return await _context(spec, text)


def _read_prompt_files(cwd: str, names: Sequence[str]) -> str:
    parts: list[str] = []
    budget = PROMPT_FILES_TOTAL_CAP
    for path in _prompt_file_paths(cwd, names):
        data, truncated = _read_capped(path, min(PROMPT_FILE_CAP, budget))
        if data is None:
            continue
        budget -= len(data)
        note = " (truncated)" if truncated else ""
        parts.append(f"Contents of {path}{note}:\n{data.decode('utf-8', 'replace')}")
        if budget <= 0:
            break
    return "\n\n".join(parts)


def _prompt_file_paths(cwd: str, names: Sequence[str]) -> list[Path]:
    """Every existing `name` in `cwd`, its parents and the home directory; outermost first."""
    start = Path(cwd).resolve()
    dirs = [*reversed((start, *start.parents))]
    with contextlib.suppress(RuntimeError):  # no home directory
        dirs.insert(0, Path.home())
    found: list[Path] = []
    seen: set[Path] = set()
    for name in names:
        for directory in dirs:
            path = directory / name
            real = path.resolve()
            if real not in seen and path.is_file():
                seen.add(real)
                found.append(path)
    return found


def _read_capped(path: Path, cap: int) -> tuple[bytes | None, bool]:
    """At most `cap` bytes of `path`, and whether there was more; (None, False) if unreadable."""
    try:
        with path.open("rb") as f:
            data = f.read(cap + 1)
    except OSError:
        return None, False
    return data[:cap], len(data) > cap


# ---------------------------------------------------------------------------------------------
# git


@dataclass(frozen=True, slots=True)
class _ProcResult:
    code: int
    stdout: str
    stderr: str
    truncated: bool


def _git_env(spec: BuiltinHookSpec) -> dict[str, str]:
    env = dict(os.environ)
    env.update((k, expand_env_refs(v, os.environ)) for k, v in spec.env)
    # No index lock taken by a background status, no prompt, no pager, stable messages.
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", LC_ALL="C")
    return env


# Repository config cannot make these builtins run programs: no fsmonitor hook, no external diff
# driver or textconv filter, no colour codes.
_GIT_SAFE = ("-c", "core.fsmonitor=false", "-c", "color.ui=false", "-c", "core.quotepath=off")


async def _git(spec: BuiltinHookSpec, cwd: str, *args: str, cap: int = GIT_OUTPUT_CAP) -> _ProcResult:
    """Run `git args` in `cwd` (its own process group, killed on timeout or past `cap` bytes)."""
    timeout = min(GIT_TIMEOUT, effective_timeout(spec.timeout))
    proc = await asyncio.create_subprocess_exec(
        "git",
        *_GIT_SAFE,
        *args,
        cwd=cwd,
        env=_git_env(spec),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    try:
        out, err = await asyncio.wait_for(
            asyncio.gather(_read_upto(proc.stdout, cap + 1, proc.pid), _read_upto(proc.stderr, _STDERR_CAP)),
            timeout,
        )
        await _reap(proc)
    except TimeoutError:
        raise TimeoutError(f"`git {args[0]}` timed out after {timeout:g}s") from None
    finally:
        if proc.returncode is None:
            kill_group(proc.pid)
            await _reap(proc)
    truncated = len(out) > cap
    # A process stopped for its output size was killed on purpose: its output is still good.
    code = 0 if truncated else proc.returncode or 0
    return _ProcResult(code, out[:cap].decode("utf-8", "replace"), err.decode("utf-8", "replace"), truncated)


async def _reap(proc: asyncio.subprocess.Process) -> None:
    """Wait for the (killed or finished) process, bounded: on Python 3.11 `wait()` also waits for
    its pipes to close, which a stray grandchild holding one open could put off for ever."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(proc.wait(), _REAP_TIMEOUT)


_REAP_TIMEOUT = 5.0


async def _read_upto(stream: asyncio.StreamReader, cap: int, pgid: int | None = None) -> bytes:
    """Read `stream` to EOF keeping `cap` bytes; past the cap, kill `pgid` (None: keep draining).

    After the kill the rest is drained to EOF (and dropped): a pipe left unread stays open, and
    `Process.wait()` would wait for it."""
    data = bytearray()
    killed = False
    while chunk := await stream.read(64 * 1024):
        data += chunk[: max(0, cap - len(data))]
        if len(data) >= cap and pgid is not None and not killed:
            kill_group(pgid)  # enough: stop it rather than read the rest
            killed = True
    return bytes(data)


async def _add_git_status(spec: BuiltinHookSpec, event: str, payload: dict[str, Any]) -> HookVerdict:
    cwd = _cwd(spec, payload)
    if _git_root(cwd) is None:
        return HookVerdict(hook=spec)
    try:
        res = await _git(spec, cwd, "status", "--porcelain", "--branch", cap=GIT_STATUS_CAP)
    except FileNotFoundError:  # git is not installed: nothing to report
        return HookVerdict(hook=spec)
    if res.code != 0:
        return failed_verdict(spec, event, f"`git status` failed: {res.stderr.strip() or res.code}")
    more = "\n... (truncated)" if res.truncated else ""
    return await _context(
        spec, f"Git status (`git status --porcelain --branch` in {cwd}):\n{res.stdout.rstrip()}{more}"
    )


async def _add_git_diff(spec: BuiltinHookSpec, event: str, payload: dict[str, Any]) -> HookVerdict:
    if problem := _check_git_diff(list(spec.args)):
        return failed_verdict(spec, event, f"builtin `add_git_diff`: {problem}")
    cwd = _cwd(spec, payload)
    if _git_root(cwd) is None:
        return HookVerdict(hook=spec)
    try:
        base = await _diff_base(spec, cwd)
        stat = await _git(spec, cwd, "diff", "--no-ext-diff", "--no-textconv", "--stat", *base)
    except FileNotFoundError:
        return HookVerdict(hook=spec)
    if stat.code != 0:
        return failed_verdict(spec, event, f"`git diff` failed: {stat.stderr.strip() or stat.code}")
    if not stat.stdout.strip():
        return HookVerdict(hook=spec)
    text = f"Git diff --stat ({' '.join(base) or 'staged'}):\n{stat.stdout.rstrip()}"
    if "stat" not in spec.args:
        text += await _diff_body(spec, cwd, base)
    return await _context(spec, text)


async def _diff_base(spec: BuiltinHookSpec, cwd: str) -> list[str]:
    """Diff against HEAD; a repository without commits yet diffs what is staged."""
    head = await _git(spec, cwd, "rev-parse", "--verify", "--quiet", "HEAD")
    return ["HEAD"] if head.code == 0 else ["--cached"]


async def _diff_body(spec: BuiltinHookSpec, cwd: str, base: list[str]) -> str:
    cap = next((n for a in spec.args if (n := _positive_int(a))), GIT_DIFF_CAP)
    diff = await _git(spec, cwd, "diff", "--no-ext-diff", "--no-textconv", *base, cap=cap)
    if diff.code != 0 or not diff.stdout.strip():
        return ""
    more = f"\n... (diff truncated to {cap} bytes)" if diff.truncated else ""
    return f"\n\nGit diff:\n{diff.stdout.rstrip()}{more}"


# ---------------------------------------------------------------------------------------------
# Registry

BUILTINS: dict[str, BuiltinFn] = {
    "redact_secrets": _redact_secrets,
    "max_iterations": _max_iterations,
    "limit_large_tool_results": _limit_large_tool_results,
    "add_date": _add_date,
    "add_environment_info": _add_environment_info,
    "add_git_status": _add_git_status,
    "add_git_diff": _add_git_diff,
    "add_prompt_files": _add_prompt_files,
    "add_directory_listing": _add_directory_listing,
}

_ARG_CHECKS: dict[str, Callable[[list[str]], str | None]] = {
    "max_iterations": _check_max_iterations,
    "limit_large_tool_results": _check_limit,
    "add_git_diff": _check_git_diff,
    "add_prompt_files": _check_prompt_files,
}

register_handler("builtin", run_builtin)
