"""GitHub Copilot CLI importer: `--allow-tool` / `--deny-tool` flags and the `allowedUrls` / `deniedUrls` config.

Copilot CLI keeps tool permissions on its command line (`copilot help permissions`) and URL
permissions in its config (`~/.copilot/config.json`, `.github/copilot/settings.json`). Input is
either that JSON config or a text holding the invocation (a wrapper script, an alias: the flags
are found wherever they appear). Profile `copilot`; default ask (Copilot asks before any tool
that is not read-only; its own automatic approval of read-only shell commands is not reproduced,
so those ask: the safe side).

* Every value flag is variadic (`--deny-tool [<tools>...]`, read by commander): `--flag A B C` takes
  the words up to the next option or the end of the command, `--flag=A` one word.
* `--deny-tool` beats `--allow-tool`, even `--allow-all-tools` (which becomes `default: allow`,
  as do `--allow-all` / `--yolo`). Values are comma-separated patterns `kind(argument)`:
  - `shell` all commands; `shell(cmd:*)` the command stem and its subcommands (`git:*` matches
    `git push`, not `gitea`): `bash|powershell(cmd *)`; `shell(cmd)` the command itself: an allow
    is `cmd` alone and `cmd <args>` (and only the exact command for `git`/`gh`, which Copilot
    approves per subcommand), a deny is `cmd` with anything after it.
  - `write` / `write(path)`: `create|edit`; a relative path matches by trailing components (a
    bare native pattern, any depth), an absolute one that file only.
  - `url(...)`: `web_fetch`; protocol-aware in Copilot, so an allow keeps the protocol
    (`https://` when none is given) in a `when`; a deny covers every protocol, and also shell
    commands whose text names the host (Copilot applies URL rules to the shell tool too).
  - `<server>(tool?)`: MCP tools, named `<server>-<tool>` in Copilot's hooks.
* `--excluded-tools` denies the tools it names; `--available-tools` is not imported (warned).
* Config `allowedUrls` / `deniedUrls` are `url(...)` allows and denies (a deny also on the shell).
"""

from __future__ import annotations

import contextlib
import re
import shlex

from ...errors import PolicyError, PolicyErrors
from ...source import Location, Source, Span
from ._auto_approve import add_protected_paths
from ._common import DIFFERS, UNSUPPORTED, DocBuilder, ImportResult, cel_string, glob_escape, parse_error
from ._lists import Reader, load_jsonc, prefix_expressions, root_object

SHELL_TOOLS = "bash|powershell"
WRITE_TOOLS = "create|edit"
SUBCOMMAND_TOOLS = frozenset({"git", "gh"})
_FLAG = re.compile(
    r"(?<![\w-])--(allow-tool|deny-tool|excluded-tools|available-tools|allow-url|deny-url|"
    r"allow-all-tools|allow-all-urls|allow-all|yolo)\b(=)?"
)
# one shell word: quoted parts and unquoted runs, up to a blank or a control operator (`;`, `&`, `|`)
_WORD = re.compile(r"(?:'[^']*'|\"(?:[^\"\\]|\\.)*\"|\\.|[^\s'\"\\;&|])+")
_GAP = re.compile(r"(?:[ \t]|\\\r?\n)*")  # blanks and backslash-newline continuations
_VALUE_FLAGS = {"allow-tool", "deny-tool", "excluded-tools", "available-tools", "allow-url", "deny-url"}
_PATTERN = re.compile(r"^\s*([^\s(),]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)
_MCP_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


def import_copilot(text: str, *, path: str | None = None) -> ImportResult:
    """Import Copilot CLI flags (any text holding them) or its JSON config."""
    name = str(path) if path else "copilot-flags.txt"
    source = Source(name, text)
    builder = DocBuilder(profile="copilot")
    builder.set("default", "ask")
    if text.lstrip().startswith("{") or name.lower().endswith(".json"):
        _config(builder, text, name)
    else:
        _flags(builder, source)
    return builder.result()


# -- JSON config ----------------------------------------------------------------------------------
def _config(builder: DocBuilder, text: str, name: str) -> None:
    doc = load_jsonc(Source(name, text))
    root_object(doc)
    reader = Reader(doc)
    for key, decision in (("deniedUrls", "deny"), ("allowedUrls", "allow")):
        for value, loc, where in reader.strings((key,), "URLs or domains"):
            problem = _url(builder, decision, value, loc)
            if problem:
                reader.error(problem, where)
    reader.raise_errors()


# -- command-line flags ---------------------------------------------------------------------------
def _flags(builder: DocBuilder, source: Source) -> None:
    errors: list[PolicyError] = []
    found = False
    for m in _FLAG.finditer(source.text):
        found = True
        flag = m.group(1)
        loc = Location(source, Span(m.start(), m.end()))
        if flag not in _VALUE_FLAGS:
            if flag in ("allow-all-tools", "allow-all", "yolo"):
                builder.set("default", "allow", loc)
                add_protected_paths(builder, loc, setting=f"--{flag}", agent="Copilot CLI")
            continue
        values = _flag_values(source.text, m.end(), variadic=m.group(2) is None)
        if not values:
            errors.append(parse_error(f"`--{flag}` needs a value", loc))
            continue
        for value, span in values:
            vloc = Location(source, span)
            if value is None:
                errors.append(parse_error(f"`--{flag}`: cannot read this value as a shell word", vloc))
                continue
            for item in _split(value):
                problem = _apply(builder, flag, item, vloc)
                if problem:
                    errors.append(parse_error(problem, vloc, help="see `copilot help permissions`"))
    if not found and source.text.strip():
        errors.append(
            parse_error(
                "no Copilot CLI permission flags found",
                Location(source, Span(0, min(1, len(source.text)))),
                help="give --allow-tool/--deny-tool/--allow-url/--deny-url flags, or Copilot's config.json",
            )
        )
    if errors:
        raise PolicyErrors(errors)


def _flag_values(text: str, start: int, *, variadic: bool) -> list[tuple[str | None, Span]]:
    """The values of a flag ending at `start`, each with where it is (None: an unreadable word).

    `copilot --help` shows every value flag as variadic (`--deny-tool [<tools>...]`), parsed by
    commander: `--flag=A` takes `A` only; `--flag A B C` takes every following word up to the next
    word that starts with `-` (another option; `--` ends the options) or the end of the command
    (a newline that is not a continuation, `;`, `&`, `|`, a `#` comment). A wrapper script's own
    arguments (`"$@"`) end the list too: what they hold is not known here."""
    if not variadic:
        m = _WORD.match(text, start)
        return [_word(m)] if m is not None else []
    out: list[tuple[str | None, Span]] = []
    pos = start
    while True:
        gap = _GAP.match(text, pos)
        pos = gap.end() if gap is not None else pos
        m = _WORD.match(text, pos) if pos > start else None  # a value follows a blank
        if m is None or m.group(0).startswith("#") or m.group(0) in _WRAPPER_ARGS:
            break
        value, span = _word(m)
        if value is not None and len(value) > 1 and value.startswith("-"):
            break  # the next option
        out.append((value, span))
        start = pos = m.end()
    return out


_WRAPPER_ARGS = frozenset({'"$@"', "$@", '"$*"', "$*"})


def _word(m: re.Match[str]) -> tuple[str | None, Span]:
    """A matched shell word with its quotes removed, and where it is."""
    span = Span(m.start(), m.end())
    try:
        words = shlex.split(m.group(0))
    except ValueError:
        return None, span
    return (words[0] if len(words) == 1 else "".join(words)), span


def _split(value: str) -> list[str]:
    """Comma-separated patterns; commas inside parentheses belong to the pattern."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in value:
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
            continue
        depth += ch == "("
        depth -= ch == ")" and depth > 0
        cur.append(ch)
    out.append("".join(cur))
    return [p.strip() for p in out if p.strip()]


def _apply(builder: DocBuilder, flag: str, item: str, loc: Location) -> str | None:
    if flag in ("allow-url", "deny-url"):
        return _url(builder, "allow" if flag == "allow-url" else "deny", item, loc)
    if flag == "excluded-tools":
        builder.add_permission("deny", glob_escape(item), loc)
        return None
    if flag == "available-tools":
        builder.warn(
            "`--available-tools` (hiding every other tool from the model) is not imported; "
            "tools it hides still ask",
            loc,
            code=UNSUPPORTED,
        )
        return None
    decision = "allow" if flag == "allow-tool" else "deny"
    m = _PATTERN.match(item)
    if m is None:
        return f"`{item}` is not a permission pattern `kind(argument)`"
    kind, arg = m.group(1), m.group(2)
    arg = arg.strip() if arg is not None else None
    if kind == "shell":
        return _shell(builder, decision, arg, loc)
    if kind == "write":
        for pattern in _write_paths(arg):
            builder.add_permission(decision, f"{WRITE_TOOLS}({pattern})" if pattern else WRITE_TOOLS, loc)
        return None
    if kind == "url":
        return _url(builder, decision, arg or "*", loc)
    if not _MCP_NAME.match(kind):
        return f"`{kind}` is not a tool kind (shell, write, url) or an MCP server name"
    tool = glob_escape(arg) if arg else "*"
    builder.add_permission(decision, f"{glob_escape(kind)}-{tool}", loc)
    return None


def _shell(builder: DocBuilder, decision: str, arg: str | None, loc: Location) -> str | None:
    if not arg:
        builder.add_permission(decision, SHELL_TOOLS, loc)
        return None
    stem = arg[:-2].strip() if arg.endswith(":*") else None
    command = stem if stem is not None else arg
    if not command:
        return f"`shell({arg})` names no command"
    exact = stem is None and decision == "allow" and command in SUBCOMMAND_TOOLS
    if exact:
        builder.add_permission(decision, f"{SHELL_TOOLS}:command={glob_escape(command)}", loc)
        return None
    for expr in prefix_expressions(SHELL_TOOLS, "command", command, word=True):
        builder.add_permission(decision, expr, loc)
    return None


def _write_paths(arg: str | None) -> list[str]:
    if not arg:
        return [""]
    if arg.startswith("/"):
        return ["/" + arg]
    return [arg[2:] if arg.startswith("./") else arg]


_URL = re.compile(r"^(?:(https?)://)?([^/\s:]+)(?::\d+)?(?:/.*)?$", re.IGNORECASE)


def _url(builder: DocBuilder, decision: str, value: str, loc: Location) -> str | None:
    if value.strip() == "*":
        builder.add_permission(decision, "web_fetch", loc)
        if decision == "deny":
            _shell_url_deny(builder, None, loc)
        return None
    m = _URL.match(value.strip())
    if m is None:
        return f"`{value}` is not a URL or domain pattern"
    scheme, host = (m.group(1) or "https").lower(), m.group(2).lower()
    if decision == "deny":
        _shell_url_deny(builder, host, loc)
    rule = {"decision": decision, "match": f"web_fetch(domain:{host})"}
    if decision == "allow":
        rule["when"] = f"args.url.lower().startsWith({cel_string(scheme + '://')})"
    if "/" in value.split("://", 1)[-1].strip("/"):
        builder.warn(
            f"`{value}`: Copilot matches the whole URL; toolpolicy matches its domain "
            + ("(a narrower allow would be safer)" if decision == "allow" else "(a broader deny)"),
            loc,
            code=DIFFERS,
        )
        if decision == "allow":
            return None
    builder.add_rule(rule, loc)
    return None


# programs that fetch the URL they are given (`url(*)` denies them whatever they name)
URL_FETCHERS = ("curl", "wget", "http", "https", "xh", "aria2c", "lynx", "w3m", "links")


def _shell_url_deny(builder: DocBuilder, host: str | None, loc: Location) -> None:
    """`url(...)` patterns "apply to the shell and web-fetch tools" (`copilot help permissions`):
    a URL deny is also a deny of shell commands whose text names the host (None: any URL).

    Copilot reads the URLs of network commands; toolpolicy matches the command text, where the
    shell view also spells every URL's host canonically (`kinds/shell_hosts.py`: case, a trailing
    dot, numeric IPv4 forms), so the rule names the host in its canonical and IDNA spellings, case
    folded, at any place in the text: a broader deny (the name in a commit message too)."""
    if host is None:
        match = [f"{SHELL_TOOLS}:command=*://*", *(f"{SHELL_TOOLS}({p} *)" for p in URL_FETCHERS)]
        what = "any URL"
    else:
        match = [f"{SHELL_TOOLS}:command=*{_host_glob(h)}*" for h in _host_spellings(host)]
        what = f"`{host}`"
    builder.add_rule(
        {
            "decision": "deny",
            "match": match if len(match) > 1 else match[0],
            "reason": f"Copilot URL deny: {what} (URL rules apply to the shell and web-fetch tools)",
        },
        loc,
    )
    builder.warn(
        f"the URL deny of {what} is also a deny of shell commands whose text names "
        + ("a URL or that run a download program" if host is None else "the host")
        + ": Copilot reads the URLs of network commands, toolpolicy the command text (a broader deny)",
        loc,
        code=DIFFERS,
    )


def _host_spellings(host: str) -> list[str]:
    """The host as written (lower case), as the URL kind spells it and in IDNA (`xn--`) form."""
    from ...runtime.kinds.url import canonical_host

    forms = [host.rstrip(".") or host]
    if "*" not in host:
        forms.append(canonical_host(host) or host)
        with contextlib.suppress(UnicodeError):  # a label too long or empty for IDNA
            forms.append(host.encode("idna").decode("ascii"))
    return list(dict.fromkeys(f for f in forms if f))


def _host_glob(host: str) -> str:
    """A case-insensitive glob of the host's text; its `*` stays a wildcard (`*.example.com`)."""
    return "".join(
        "*" if c == "*" else f"[{c.lower()}{c.upper()}]" if c.isascii() and c.isalpha() else glob_escape(c)
        for c in host
    )


def flags_in(text: str) -> bool:
    """Whether `text` holds Copilot CLI permission flags (format detection)."""
    return bool(
        re.search(
            r"(?<![\w-])--(allow-tool|deny-tool|allow-url|deny-url|allow-all-tools|allow-all-urls|excluded-tools)\b",
            text,
        )
    )


__all__ = ["flags_in", "import_copilot"]
