"""Lint: hook configuration that will not behave as written (SPEC 5).

Place in the pipeline: a check family of `lint_policy`, over the validated documents (hooks keep
their options there, with locations). Schema problems (a model hook without `model`), unknown
events, schemas and bad templates are already compile errors; this adds what only a look at the
environment or the event contracts shows: a command that is not there, `on_error: block` on an
event that cannot block, `on_error` on a fail-closed event, matchers on events without a tool,
and timeouts that would stall the agent.
"""

from __future__ import annotations

import os
import shlex
import shutil
from typing import Any

from ..policies.loader import LoadedPolicy
from .context import LintContext

MAX_TIMEOUT = 600.0
SHELL_WORDS = frozenset(
    {
        ".",
        ":",
        "[",
        "alias",
        "bg",
        "break",
        "builtin",
        "case",
        "cd",
        "command",
        "continue",
        "echo",
        "eval",
        "exec",
        "exit",
        "export",
        "false",
        "fg",
        "for",
        "function",
        "getopts",
        "hash",
        "if",
        "jobs",
        "kill",
        "local",
        "printf",
        "pwd",
        "read",
        "readonly",
        "return",
        "set",
        "shift",
        "source",
        "test",
        "times",
        "trap",
        "true",
        "type",
        "ulimit",
        "umask",
        "unalias",
        "unset",
        "until",
        "wait",
        "while",
        "{",
        "(",
    }
)


def check_hooks(ctx: LintContext) -> None:
    from ..runtime.hooks.events import EVENTS

    for lp in ctx.chain:
        for event, groups in lp.document.hooks.items():
            contract = EVENTS.get(event)
            if contract is None:
                continue  # an unknown event is a compile error
            for i, group in enumerate(groups):
                path = ("hooks", event, i)
                if group.matcher not in (None, "", "*") and not contract.tool_matched:
                    ctx.add(
                        "lint_hook_matcher_ignored",
                        f"`{event}` has no tool: the matcher `{group.matcher}` is ignored",
                        ctx.locate(lp, (*path, "matcher")),
                    )
                for j, hook in enumerate(group.hooks):
                    _check_hook(ctx, lp, (*path, "hooks", j), hook, contract)


def _check_hook(ctx: LintContext, lp: LoadedPolicy, path: tuple[Any, ...], hook: Any, contract: Any) -> None:
    if hook.timeout > MAX_TIMEOUT:
        ctx.add(
            "lint_hook_timeout",
            f"hook timeout of {hook.timeout:g} s is over {MAX_TIMEOUT:g} s",
            ctx.locate(lp, (*path, "timeout")),
        )
    explicit = "on_error" in hook.model_fields_set
    if hook.on_error == "block" and not contract.can_block:
        ctx.add(
            "lint_hook_cannot_block",
            f"`{contract.name}` cannot block: `on_error: block` only warns",
            ctx.locate(lp, (*path, "on_error")),
        )
    elif explicit and contract.fail_closed and hook.on_error != "block":
        ctx.add(
            "lint_hook_on_error_ignored",
            f"`{contract.name}` fails closed: `on_error: {hook.on_error}` "
            "has no effect, a failing hook denies",
            ctx.locate(lp, (*path, "on_error")),
        )
    if hook.type == "command":
        _check_command(ctx, lp, path, hook)


def _check_command(ctx: LintContext, lp: LoadedPolicy, path: tuple[Any, ...], hook: Any) -> None:
    word = first_word(hook.command)
    if word is None:
        return
    found, executable = resolve_command(word, _search_dirs(lp, hook.working_dir))
    loc = ctx.locate(lp, (*path, "command"))
    if not found:
        where = "on PATH" if "/" not in word else "relative to the policy"
        ctx.add("lint_hook_command_missing", f"hook command `{word}` not found {where}", loc)
    elif not executable:
        ctx.add("lint_hook_command_not_executable", f"hook command `{word}` is not executable", loc)


def first_word(command: str) -> str | None:
    """The program a command line runs (after `VAR=x` assignments); None if it cannot be known."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return None
    for word in words:
        if "=" in word and word.split("=", 1)[0].isidentifier():
            continue
        if word in SHELL_WORDS or any(c in word for c in "$`*?[{(<>|;&"):
            return None
        return word
    return None


def _search_dirs(lp: LoadedPolicy, working_dir: str | None) -> list[str]:
    dirs = []
    if working_dir:
        wd = os.path.expanduser(working_dir)
        dirs.append(wd if os.path.isabs(wd) else os.path.join(lp.base_dir, wd))
    dirs.append(lp.base_dir)
    return dirs


def resolve_command(word: str, dirs: list[str]) -> tuple[bool, bool]:
    """(exists, executable) for a command word: a path is tried against `dirs`, a name on PATH."""
    if "/" not in word:
        found = shutil.which(word)
        return (found is not None, found is not None)
    word = os.path.expanduser(word)
    candidates = [word] if os.path.isabs(word) else [os.path.join(d, word) for d in dirs]
    for cand in candidates:
        if os.path.isfile(cand):
            return True, os.access(cand, os.X_OK)
    return False, False
