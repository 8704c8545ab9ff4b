"""Lint: authoring traps, rules that look right but do not cover what their author meant.

Place in the pipeline: a check family of `lint_policy`. Each finding names the rule, says which
call it misses and suggests the form that covers it:

* `lint_url_without_domain`: `WebFetch(evil.com)` is a URL pattern, not a host; `domain:` is;
* `lint_policy_relative_path`: `Read(/etc/**)` is relative to the policy's directory; `//etc/**`;
* `lint_colon_path`: `read_file:path=.env` is a plain glob on the text, missing `sub/.env`;
* `lint_clustered_flags`: `Bash(rm -rf *)` misses `rm -r -f` and `rm --recursive --force`;
* `lint_exact_restriction`: a deny/ask on an exact command (`Bash(npm publish)`) misses
  `npm publish --tag x`;
* `lint_windows_path`: `C:\\...` or backslashes in a path pattern;
* `lint_env_var_path`: `Read($HOME/.netrc)`, `${HOME}`, `%USERPROFILE%`: never expanded; `~/.netrc`;
* `lint_padded_pattern`: `Read(~/.aws/credentials )`: a blank a path (or plain) pattern keeps;
* `lint_deny_unreachable`: a higher-priority allow takes every call the deny would deny;
* `lint_protected_allow`: an allow lets the agent write (or, by a shell command, replace or
  delete) the policy file or the files that register the hook enforcing it
  (`.claude/settings.json`, `.git/hooks/`...), checked with the real engine.
"""

from __future__ import annotations

import os
import re
import shlex

from ..policies.protected import HOOK_REGISTRATIONS
from ..runtime.compiled import CompiledRule
from .context import LintContext, label

_SYSTEM_DIRS = frozenset(
    [
        "etc",
        "usr",
        "var",
        "bin",
        "sbin",
        "lib",
        "opt",
        "root",
        "home",
        "tmp",
        "proc",
        "sys",
        "dev",
        "boot",
        "srv",
        "mnt",
        "media",
        "private",
        "Users",
        "Library",
        "System",
        "Applications",
        "Volumes",
    ]
)
_CLUSTER = re.compile(r"^-[A-Za-z]{2,}$")
_WINDOWS = re.compile(r"^[A-Za-z]:[\\/]|\\")
_PARAM = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*:", re.S)
# `$NAME`, `${NAME}` (POSIX shells) and `%NAME%` (cmd.exe, `%ProgramFiles(x86)%` too) starting a
# path component (`Outer$Inner.class` is a file name)
_ENV_VAR = re.compile(r"(?:^|(?<=/))(?:\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)|%([A-Za-z_][\w()]*)%)")
_HOME_VARS = frozenset({"HOME", "USERPROFILE"})


def check_authoring(ctx: LintContext) -> None:
    seen: set[tuple[str | None, str]] = set()
    for rule in ctx.policy.rules:
        for cond in rule.conds:
            key = (rule.location, cond.source)
            if key in seen:
                continue
            seen.add(key)
            kinds = {ctx.policy.tool_spec(t).kind for t in rule.tools} or {cond.kind or "generic"}
            if cond.key is None:
                _call_form(ctx, rule, cond.source, kinds)
            elif any(
                ctx.policy.tool_spec(t).kind == "path" and ctx.policy.tool_spec(t).arg == cond.key
                for t in rule.tools
            ):
                _colon_path(ctx, rule, cond.key, cond.source)
                _path_spelling(ctx, rule, cond.source, colon=True)
    _unreachable_denies(ctx)
    _protected_allows(ctx)


def _call_form(ctx: LintContext, rule: CompiledRule, spec: str, kinds: set[str]) -> None:
    loc = ctx.rule_location(rule)
    if (
        "url" in kinds
        and not spec.startswith(("domain:", "address:"))
        and "://" not in spec
        and "/" not in spec
    ):
        ctx.add(
            "lint_url_without_domain",
            f"{label(rule)}: `{spec}` is matched against the whole URL, so it never matches `https://{spec}/x`",
            loc,
            help=f"write `domain:{spec}` to match the host",
        )
    if kinds & {"path", "generic"} and spec != spec.strip():
        ctx.add(
            "lint_padded_pattern",
            f"{label(rule)}: `{spec}` has a blank at its {'start' if spec[:1].isspace() else 'end'}, which "
            f"the pattern keeps, so it does not match `{spec.strip()}`",
            ctx.rule_location(rule),
            help=f"remove the blank: `{_tool_text(rule)}({spec.strip()})`",
        )
    if "path" in kinds:
        _path_spelling(ctx, rule, spec)
        if _WINDOWS.search(spec):
            ctx.add(
                "lint_windows_path",
                f"{label(rule)}: `{spec}` is a Windows path; paths are matched as POSIX paths (`C:\\x` reads as `/c/x`)",
                loc,
                help="write it with forward slashes from the root, e.g. `//c/Users/x/**`",
            )
        elif spec.startswith("/") and not spec.startswith("//"):
            first = spec[1:].split("/", 1)[0]
            if first in _SYSTEM_DIRS and not os.path.isdir(os.path.join(ctx.policy.base_dir, first)):
                ctx.add(
                    "lint_policy_relative_path",
                    f"{label(rule)}: `{spec}` is relative to the policy's directory, "
                    f"so it does not cover `{spec.rstrip('*').rstrip('/')}`",
                    loc,
                    help=f"write `/{spec}` for the absolute path",
                )
    if "shell" in kinds:
        words = spec.split()
        clusters = [w for w in words if _CLUSTER.match(w)]
        if clusters and rule.decision != "allow":
            flags = " ".join(f"-{c}" for c in clusters[0][1:])
            ctx.add(
                "lint_clustered_flags",
                f"{label(rule)}: `{spec}` names the flags as one cluster `{clusters[0]}`, so "
                f"`{words[0]} {flags} ...` and long options are not covered",
                loc,
                help=f"deny the command itself (`{_tool_text(rule)}({words[0]} *)`) or add a rule per spelling",
            )
        if (
            rule.decision != "allow"
            and words
            and "*" not in spec
            and len(words) >= 1
            and not spec.endswith(":*")
            and not (rule.tool_glob_texts and _PARAM.match(spec))  # a parameter rule under a tool glob
        ):
            ctx.add(
                "lint_exact_restriction",
                f"{label(rule)}: `{spec}` matches that exact command only, so `{spec} --flag` is not covered",
                loc,
                help=f"add `{spec} *` (`{_tool_text(rule)}({spec} *)`) beside it",
            )


def _path_spelling(ctx: LintContext, rule: CompiledRule, spec: str, *, colon: bool = False) -> None:
    """A path pattern naming an environment variable: patterns never expand one, so
    `$HOME/.netrc` is a directory literally called `$HOME` (under the working directory)."""
    found = _ENV_VAR.search(spec)
    if found is None:
        return
    name = found.group(1) or found.group(2) or found.group(3)
    rest = spec[found.end() :]
    if found.start() == 0 and name in _HOME_VARS and (not rest or rest.startswith("/")):
        hint = f"write `~{rest or '/'}` for the home directory"
        if colon:  # a colon-form glob does not know `~/` either: only the call form reads paths
            hint = f"use the call form `{_tool_text(rule)}(~{rest or '/'})` for the home directory"
    else:
        hint = "write the directory itself: `~/` for the home directory, `//abs/path` for an absolute path"
    ctx.add(
        "lint_env_var_path",
        f"{label(rule)}: `{found.group(0)}` in `{spec}` is not expanded in patterns: it names a "
        f"directory called `{found.group(0)}`, so the rule never matches the path it means",
        ctx.rule_location(rule),
        help=hint,
    )


def _tool_text(rule: CompiledRule) -> str:
    if rule.tools:
        return rule.tools[0]
    return rule.tool_glob_texts[0] if rule.tool_glob_texts else "Bash"


def _colon_path(ctx: LintContext, rule: CompiledRule, key: str, glob: str) -> None:
    if glob.startswith(("*", "/")):
        return
    tool = rule.tools[0]
    ctx.add(
        "lint_colon_path",
        f"{label(rule)}: `{key}={glob}` is a plain glob on the text as sent, so `sub/{glob}` and "
        f"`./{glob}` are not covered",
        ctx.rule_location(rule),
        help=f"use the call form `{tool}({glob})`, which reads paths (normalised, at any depth)",
    )


_MAX_SHADOW_SAMPLES = 500  # engine calls spent looking for shadowed denies (bounded on huge policies)


def _unreachable_denies(ctx: LintContext) -> None:
    allows = [r for r in ctx.policy.rules if r.decision == "allow" and r.when is None and r.modes is None]
    budget = _MAX_SHADOW_SAMPLES
    for deny in ctx.policy.rules:
        if deny.decision == "allow":
            continue
        for allow in allows:
            if allow.priority <= deny.priority:
                continue
            same_tool = set(deny.tools) & set(allow.tools) or (
                "*" in allow.tool_glob_texts and (deny.tools or deny.tool_glob_texts)
            )
            covers = not allow.conds or {c.source for c in allow.conds} == {c.source for c in deny.conds}
            if same_tool and covers:
                ctx.add(
                    "lint_deny_unreachable",
                    f"{label(deny)} is unreachable: {label(allow)} has a higher priority "
                    f"({allow.priority} > {deny.priority}) and matches every call it matches",
                    ctx.rule_location(deny),
                    help="give the deny at least the allow's priority, or narrow the allow",
                )
                break
            budget -= 1 if same_tool else 0
            example = _shadowed_example(ctx, deny, allow) if same_tool and budget > 0 else None
            if example is not None:  # `Bash(git *)` at priority 10 over `Bash(git push *)`
                ctx.add(
                    "lint_deny_unreachable",
                    f"{label(deny)} is shadowed: {label(allow)} has a higher priority "
                    f"({allow.priority} > {deny.priority}) and allows calls it names, e.g. `{example}`",
                    ctx.rule_location(deny),
                    help="give the deny at least the allow's priority, or narrow the allow",
                )
                break


def _shadowed_example(ctx: LintContext, deny: CompiledRule, allow: CompiledRule) -> str | None:
    """A call the deny's pattern names that the higher-priority allow allows (the real engine decides)."""
    if len(deny.conds) != 1 or deny.when is not None or not deny.tools:
        return None
    cond = deny.conds[0]
    tool = sorted(deny.tools)[0]
    key = cond.key or ctx.policy.tool_spec(tool).arg
    if key is None:
        return None
    sample = re.sub(r"\*+|\?", "x", cond.source).replace("\\", "")
    verdict = ctx.engine().rules_only(tool, {key: sample})
    if verdict.decision == "allow" and any(r.index == allow.index for r in verdict.matched):
        return sample
    return None


# Shell commands that write, replace or delete a file (`{}`: the file): an allow of any of them lets
# the agent rewrite or remove what enforces the policy as surely as an `Edit` allow does.
_SHELL_WRITES = ("echo x > {}", "tee {}", "cp /dev/null {}", "mv x {}", "sed -i s/a/b/ {}", "rm {}")


def _protected_allows(ctx: LintContext) -> None:
    tool = ctx.policy.write_tool
    shell = next((n for n, s in sorted(ctx.policy.tools.items()) if s.kind == "shell" and s.arg), None)
    if tool is None and shell is None:
        return
    engine = ctx.engine()
    root = ctx.policy.base_dir
    if os.path.basename(root) in (".claude", ".codex", ".gemini", ".cursor"):
        root = os.path.dirname(root)
    targets = [os.path.join(root, rel) for rel in HOOK_REGISTRATIONS]
    targets += [os.path.abspath(s) for s in ctx.policy.sources if s and not s.startswith("<")]
    calls: list[tuple[str, str, dict[str, str]]] = []  # (target, tool, arguments)
    for target in dict.fromkeys(targets):
        if tool is not None:
            calls.append(
                (target, tool, {ctx.policy.tool_spec(tool).arg or "file_path": target, "content": ""})
            )
        if shell is not None:
            arg = ctx.policy.tool_spec(shell).arg or "command"
            calls += [(target, shell, {arg: c.format(shlex.quote(target))}) for c in _SHELL_WRITES]
    reported: set[str] = set()
    for target, name, args in calls:
        d = engine.decide(name, args, context={"cwd": root})
        if d.decision != "allow" or d.source != "rule" or d.rule in reported:
            continue
        rule = ctx.policy.rule_by_id(d.rule) if d.rule else None
        reported.add(d.rule or "")
        how = f"`{next(iter(args.values()))}`" if name == shell else "writing it"
        fix = f"{tool}({os.path.relpath(target, root)})" if tool else f"{shell}(* {os.path.basename(target)})"
        ctx.add(
            "lint_protected_allow",
            f"{label(rule) if rule else d.rule}: it allows {how} (`{target}` enforces the policy: the "
            "policy file or a hook registration), so the agent could turn the policy off",
            ctx.rule_location(rule) if rule else None,
            help=f"add an ask or deny rule for it, e.g. `{fix}`",
        )
