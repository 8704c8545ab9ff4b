"""`policy hook ...` parsed without click, for the hook's cold start.

`parse_hook(argv)` reads exactly the options `hook_cmd.hook_command` declares, spelled the ways
click accepts them (`--opt V`, `--opt=V`, `-p V`, `-pV`, options before or after PROTOCOL, the last
of a repeated option wins, `--` ends the options), and returns None for anything else: help, an
unknown or malformed option, a bad choice or a missing value. `toolpolicy.cli.main` then hands the
whole command line to click, which prints the usage error (exit 2: a deny for the agents that read
exit codes) — so this parser can only ever take the path click would take, never invent another.
`tests/test_cli_fast_argv.py` checks that both parse every spelling to the same options.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .choices import FORMAT_CHOICES, MODE_CHOICES, PROTOCOL_CHOICES
from .hook_run import HookArgs

_VALUED = {
    "--policy": "policy_path",
    "-p": "policy_path",
    "--format": "fmt",
    "--mode": "mode",
    "--tool": "tool",
    "--log": "log_path",
    "--server": "server",
    "--server-token-file": "server_token_file",
    "--server-timeout": "server_timeout",
}
_FLAGS = {
    "--exit-2": "exit_2",
    "--ask-allows": "ask_allows",
    "--no-hooks": "no_hooks",
    "--no-cache": "no_cache",
}
_CHOICES = {"fmt": FORMAT_CHOICES, "mode": MODE_CHOICES}
_PATHS = ("policy_path", "log_path", "server_token_file")  # click.Path(dir_okay=False)


def parse_hook(argv: Sequence[str]) -> tuple[str, HookArgs] | None:
    """(protocol, options) of `hook PROTOCOL ...`, or None to let click parse (and report) it."""
    if len(argv) < 2 or argv[0] != "hook":
        return None
    values: dict[str, object] = {}
    positional: list[str] = []
    i, args = 1, list(argv)
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            positional += args[i:]
            break
        if not a.startswith("-") or a == "-":
            positional.append(a)
            continue
        name, eq, inline = a.partition("=") if a.startswith("--") else (a[:2], "", a[2:])
        if name in _FLAGS and not eq and not (inline and not a.startswith("--")):
            values[_FLAGS[name]] = True
            continue
        key = _VALUED.get(name)
        if key is None or (name.startswith("--") and name != a.partition("=")[0]):
            return None
        if eq or (inline and not a.startswith("--")):
            value = inline
        elif i < len(args):
            value, i = args[i], i + 1
        else:
            return None
        values[key] = value
    if len(positional) != 1 or positional[0] not in PROTOCOL_CHOICES or "policy_path" not in values:
        return None
    for key, choices in _CHOICES.items():
        if key in values and values[key] not in choices:
            return None
    for key in _PATHS:
        if key in values and os.path.isdir(str(values[key])):
            return None
    if "server_timeout" in values:
        try:
            timeout = float(str(values["server_timeout"]))
        except ValueError:
            return None
        if not timeout >= 0.01:  # also refuses nan, as click.FloatRange(0.01) does
            return None
        values["server_timeout"] = timeout
    return positional[0], HookArgs(**values)  # type: ignore[arg-type]
