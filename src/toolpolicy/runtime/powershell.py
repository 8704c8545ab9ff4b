"""A PowerShell command line read as the bash command whose rules it should meet.

Place in the pipeline: a shell tool whose `ToolSpec.dialect` is `powershell` (Claude Code's
`PowerShell`, Copilot's `powershell`) is decided by the bash walk on two readings of its command:
the text as bash reads it, and `to_bash(text)`, where each statement's cmdlet or alias is put as
the bash program it stands for (`del`, `erase`, `ri`, `rd`, `rmdir`, `Remove-Item` -> `rm`; `type`,
`gc`, `Get-Content` -> `cat`; ...: PowerShell's default alias table, `Get-Alias`). A deny or ask
fires on either reading; an allow must cover both. What the translation cannot read (a script
block, a subexpression, a variable, the call operator on something not a plain name, backtick
escapes, `-EncodedCommand`, `Invoke-Command`, `Start-Process`...) makes the command opaque: an
ask no mode or default lifts (`Unit.opaque`), unless a deny decides it first.
"""

from __future__ import annotations

import shlex

# cmdlet (lowercase) -> the bash program whose rules it meets; None: opaque (runs code or a file
# the walk cannot follow)
_CMDLETS: dict[str, str | None] = {
    "remove-item": "rm",
    "get-content": "cat",
    "set-content": "tee",
    "add-content": "tee",
    "out-file": "tee",
    "clear-content": "tee",
    "new-item": "touch",
    "copy-item": "cp",
    "move-item": "mv",
    "rename-item": "mv",
    "get-childitem": "ls",
    "set-location": "cd",
    "push-location": "pushd",
    "pop-location": "popd",
    "select-string": "grep",
    "write-output": "echo",
    "invoke-webrequest": "curl",
    "invoke-restmethod": "curl",
    "invoke-expression": "eval",
    "invoke-command": None,
    "invoke-item": None,
    "start-process": None,
    "start-job": None,
    "start-threadjob": None,
    "foreach-object": None,
    "where-object": None,
    "new-object": None,
    "add-type": None,
    "import-module": None,
    "set-alias": None,
    "new-alias": None,
    "set-item": None,
    "cmd": None,
    "cmd.exe": None,
}
# PowerShell's default aliases (Windows PowerShell 5.1 and PowerShell 7 on Windows; on other
# platforms some are not defined and run the native program of that name, which has the same
# rules): `Get-Alias`
_ALIASES: dict[str, str] = {
    **dict.fromkeys(("del", "erase", "rd", "ri", "rm", "rmdir"), "remove-item"),
    **dict.fromkeys(("cat", "gc", "type"), "get-content"),
    "sc": "set-content",
    "ac": "add-content",
    "clc": "clear-content",
    "ni": "new-item",
    **dict.fromkeys(("copy", "cp", "cpi"), "copy-item"),
    **dict.fromkeys(("move", "mv", "mi"), "move-item"),
    **dict.fromkeys(("ren", "rni"), "rename-item"),
    **dict.fromkeys(("dir", "gci", "ls"), "get-childitem"),
    **dict.fromkeys(("cd", "chdir", "sl"), "set-location"),
    "pushd": "push-location",
    "popd": "pop-location",
    "sls": "select-string",
    **dict.fromkeys(("echo", "write"), "write-output"),
    **dict.fromkeys(("iwr", "curl", "wget"), "invoke-webrequest"),
    "irm": "invoke-restmethod",
    "iex": "invoke-expression",
    "icm": "invoke-command",
    "ii": "invoke-item",
    **dict.fromkeys(("saps", "start"), "start-process"),
    "sajb": "start-job",
    **dict.fromkeys(("%", "foreach"), "foreach-object"),
    **dict.fromkeys(("?", "where"), "where-object"),
    **dict.fromkeys(("sal",), "set-alias"),
    "nal": "new-alias",
    "si": "set-item",
    **dict.fromkeys(("md", "mkdir"), "mkdir"),
}
# `powershell`/`pwsh` options whose value is code the walk cannot read
_ENCODED = ("-encodedcommand", "-e", "-ec", "-en", "-enc", "-encodedarguments", "-ea")
_SEPARATORS = {";", "|", "&&", "||", "\n"}
_MAX_DEPTH = 4


def to_bash(text: str, depth: int = 0) -> tuple[str, bool]:
    """The bash reading of a PowerShell command line, and whether part of it could not be read
    (opaque). Statements are split at `;`, `|`, `&&`, `||` and newlines; each statement's command
    name (case-insensitive, module-qualified or not, after a `&` or `.` call operator) is put as
    the bash program it stands for; its parameters (`-Name`) are dropped, its other words kept as
    operands (a parameter's value is an operand too: more files are checked, never fewer)."""
    words, opaque = _words(text)
    out: list[str] = []
    statement: list[str] = []
    for word in [*words, ";"]:
        if word in _SEPARATORS:
            if statement:
                bash, dark = _statement(statement, depth)
                opaque = opaque or dark
                out.append(bash)
            if word != ";" or statement:
                out.append("|" if word == "|" else ";" if word == "\n" else word)
            statement = []
        else:
            statement.append(word)
    while out and out[-1] in _SEPARATORS:
        out.pop()
    return " ".join(out), opaque


def _statement(words: list[str], depth: int) -> tuple[str, bool]:
    if words[0] in ("&", "."):
        words = words[1:]
        if not words:
            return "", True
    name = (
        words[0].rsplit("\\", 1)[-1].lower() if not words[0].startswith("'") else _unquote(words[0]).lower()
    )
    if name.endswith(".exe"):
        name = name[:-4]
    rest = words[1:]
    if name in ("powershell", "pwsh"):
        lowered = [w.lower() for w in rest]
        if any(w in _ENCODED or w.startswith(("-e:", "-enc")) for w in lowered):
            return "powershell", True
        for i, w in enumerate(lowered):
            if ("-command".startswith(w) and len(w) > 1) or w == "-c":
                if depth >= _MAX_DEPTH:
                    return "powershell", True
                nested, dark = to_bash(" ".join(_unquote(x) for x in rest[i + 1 :]), depth + 1)
                return nested, dark
        return "pwsh " + " ".join(_bash_word(w) for w in rest), any(w.startswith("-f") for w in lowered)
    cmdlet = _ALIASES.get(name, name)
    program = _CMDLETS.get(cmdlet, cmdlet)
    if cmdlet in _CMDLETS and program is None:
        return cmdlet, True
    assert program is not None  # INVARIANT: None only for the opaque cmdlets above
    operands = [w for w in rest if not (w.startswith("-") and len(w) > 1)]
    params = [w[1:].lower() for w in rest if w.startswith("-") and len(w) > 1]
    flags = ""
    if program == "rm":
        flags = ("r" if any("recurse".startswith(p) for p in params) else "") + (
            "f" if any(len(p) > 1 and "force".startswith(p) for p in params) else ""
        )
    elif program == "eval":
        if depth >= _MAX_DEPTH:
            return "eval", True
        inner, dark = to_bash(" ".join(_unquote(w) for w in operands), depth + 1)
        return "eval " + shlex.quote(inner), dark
    head = program + (f" -{flags}" if flags else "")
    return " ".join([head, *(_bash_word(w) for w in operands)]), False


def _words(text: str) -> tuple[list[str], bool]:
    """PowerShell words as written (quotes kept), separators as their own words; True when the
    text has what the translation does not follow (expansions, script blocks, escapes)."""
    words: list[str] = []
    opaque = False
    i, n = 0, len(text)
    word = ""

    def flush() -> None:
        nonlocal word
        if word:
            words.append(word)
            word = ""

    while i < n:
        c = text[i]
        if c in " \t\r":
            flush()
        elif c == "\n" or c == ";":
            flush()
            words.append("\n" if c == "\n" else ";")
        elif c in "|&":
            flush()
            if text[i : i + 2] in ("||", "&&"):
                words.append(text[i : i + 2])
                i += 1
            elif c == "|":
                words.append("|")
            else:
                words.append("&")  # the call operator (or a background job, PowerShell 7)
        elif c == "'":
            end = i + 1
            while end < n:
                if text[end] == "'" and text[end + 1 : end + 2] == "'":
                    end += 2
                    continue
                if text[end] == "'":
                    break
                end += 1
            if end >= n:
                opaque = True
            word += text[i : end + 1]
            i = end
        elif c == '"':
            end = text.find('"', i + 1)
            if end < 0:
                end, opaque = n, True
            body = text[i + 1 : end]
            if "$" in body or "`" in body:
                opaque = True  # an expansion or an escape in a double-quoted string
            word += "'" + body.replace("'", "''") + "'"
            i = end
        elif c in "$`{}()@[<>#":
            if c == "#" and word:
                word += c
            elif c == "#":
                end = text.find("\n", i)  # a comment to the end of the line (not run)
                i = n if end < 0 else end
                continue
            elif c in "<>":
                flush()
                words.append(c)  # a redirection: its file is a bash redirection's
                i += 1
                continue
            else:
                opaque = True
                word += c
        else:
            word += c
        i += 1
    flush()
    return words, opaque


def _unquote(word: str) -> str:
    if len(word) >= 2 and word[0] == "'" and word[-1] == "'":
        return word[1:-1].replace("''", "'")
    return word


def _bash_word(word: str) -> str:
    """A PowerShell word as a bash word with the same text; a backslash is a path separator."""
    if word in ("<", ">"):
        return word
    text = _unquote(word) if word.startswith("'") else word
    return shlex.quote(text.replace("\\", "/"))
