"""Files a shell command touches, decided by the path rules (SPEC 3 `shell`; issue 12 items 1, 2, 4).

Place in the pipeline: runtime, decide time, after the rules have decided each unit of a shell
call (`Engine._rules`). A unit's `writes` (output redirections, and the files its program writes:
`tee`, `cp`, `sort -o`, `sed -i`, `dd of=`...) are decided as calls of the policy's write tool
(`Edit` for Claude Code); its `reads` (`< file`, and the files `cat`, `head`, `grep`, `sed -n p`...
read) as calls of its read tool (`Read`, `read_file`...):

* a write or read the path rules deny denies the unit, whatever the shell rules said;
* a read or a write they ask about makes the unit ask (also one no shell rule decided, which the
  default could otherwise allow); a write they do not allow makes an allowed unit ask (unless the
  allow rule says `allow_redirection`);
* a target that is a pattern (`\\x00...`: a glob, `$HOME`, `~user`, an unknown expansion, a path
  under a directory `cd` may have changed to) is never allowed by a path rule. It is expanded as
  bash would: braces, `~` and `$HOME` from the call's home, globs against the filesystem relative
  to the call's cwd (what bash would do when it runs), and an unknown expansion tried as the home
  directory, the cwd, `/` and nothing. Each path it may name is decided; any deny denies.
* a tree (`\\x00 DEST/TREE`: `rsync -a x/ DEST`, `cp -r x DIR`, `git checkout -- PATH`, see
  `kinds/shell_trees.py`) is DEST and everything under it: a deny or ask rule of the write tool that
  names a path under DEST by DEST's own spelling (`Edit(.claude/**)` under `.`, `Edit(~/.ssh/**)`
  under `~`; not a rule that floats to any depth, `**/*.pem`, unless DEST is `/`) denies or asks.
"""

from __future__ import annotations

import itertools
import os

from ..vocabulary.lazy_module import LazyModule
from ..vocabulary.lazy_regex import lazy_compile
from .rules import MAX_READ_CHECKS, MAX_WRITE_CHECKS, PreparedCall, RuleVerdict, combine, prepare

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any, Final

    from .engine import Engine

shell_words: Any = LazyModule(
    "toolpolicy.runtime.kinds.shell_words"
)  # its targets come from the shell kind: loaded by then

PATTERN: Final = "\x00"
SOFT: Final = "\x05"  # a write the command makes by nature (`rm x`): only path denies and asks count
READ_TOOLS: Final = ("Read", "read_file", "view", "read", "ReadFile")
_MAX_PATHS: Final = 32  # brace forms of one pattern that are decided (more: the target asks)
_MAX_FOUND: Final = 256  # paths one pattern may name on the filesystem that are decided (more: it asks)
_MAX_GLOB_NAMES: Final = 8  # wildcard names a pattern may have and still be expanded against the filesystem
_GLOB: Final = lazy_compile(r"(?<!\\)[*?\[]")
TAG_CWD: Final = "\x01"  # `kinds.TAG_CWD`: a cwd path rule's regex starts with it
UNKNOWN: Final = "\x1a"  # `shell_words.UNKNOWN`: an expansion whose value is not known
TREE: Final = "\x06"  # `shell_words.TREE`: a target `DIR/TREE` is everything under DIR
_ROOT_TREE: Final = "/" + TREE


def check_targets(engine: Engine, call: PreparedCall, verdict: RuleVerdict) -> RuleVerdict:
    """The verdict with each unit's files decided by the path rules (see the module doc)."""
    view = call.primary
    if view is None or call.kind != "shell" or not verdict.units or len(verdict.units) != len(view.units):
        return verdict
    policy: Any = engine.policy
    read_tool = read_tool_of(policy, call.mode)
    if not any(needs_check(policy, call.mode, u.writes, u.reads) for u in view.units):
        return verdict
    results = list(verdict.units)
    for i, unit in enumerate(view.units):
        if results[i][0] == "deny":
            continue
        if unit.writes:
            _writes(engine, call, verdict, results, i, unit.writes)
        if results[i][0] != "deny" and unit.reads and read_tool:
            _reads(engine, call, verdict, results, i, unit.reads, read_tool)
    if glob_options_changed(view):
        for i, unit in enumerate(view.units):
            if results[i][0] not in ("deny", "ask") and _has_pattern(unit):
                verdict.diagnostics.append("a glob after `shopt`/`GLOBIGNORE`: bash may expand it otherwise")
                results[i] = ("ask", None)
    out = RuleVerdict(None, matched=verdict.matched, diagnostics=verdict.diagnostics, floor=verdict.floor)
    return combine(results, out)


def glob_options_changed(view: Any) -> bool:
    """Whether the command may change how bash expands globs (`shopt -s dotglob|nocaseglob|
    globstar|extglob`, `GLOBIGNORE=...`, which also turns dotglob on, `bash -O dotglob`): the
    targets' globs are then read under options the model does not follow (it assumes bash's
    defaults), so a unit with one never allows. Read on the text as sent and on each simple
    command's words as bash reads them (`sh'opt'` is `shopt`)."""
    search = _GLOB_OPTIONS.search
    return (
        any(search(t) or search(_unquoted(t)) for t in view.whole)  # `export GLO"BIGN"ORE=x`
        or any(search(t) for u in view.units for t in (*u.allow_texts[:1], *u.deny_texts))
    )


def _unquoted(text: str) -> str:
    """The text without quotes and backslashes: a name bash joins from quoted pieces, spelled whole."""
    return text.replace('"', "").replace("'", "").replace("\\", "")


_GLOB_OPTIONS: Final = lazy_compile(r"shopt|GLOBIGNORE|BASHOPTS|[-+]O\s*\S*glob")


def _has_pattern(unit: Any) -> bool:
    return any(t.startswith(PATTERN) or t.startswith(SOFT + PATTERN) for t in (*unit.writes, *unit.reads))


def _writes(
    engine: Engine,
    call: PreparedCall,
    verdict: RuleVerdict,
    results: list[tuple[str | None, Any]],
    i: int,
    targets: tuple[str, ...],
) -> None:
    covered = results[i][1] is not None and results[i][1].allow_redirection and results[i][0] == "allow"
    if len(targets) > MAX_WRITE_CHECKS:  # too many targets to check: never allowed
        verdict.diagnostics.append(f"more than {MAX_WRITE_CHECKS} files written")
        if results[i][0] == "allow":
            results[i] = ("ask", None)
    tool = getattr(engine.policy, "write_tool", None)
    for target in targets[:MAX_WRITE_CHECKS]:
        soft = target.startswith(SOFT)
        target = target[1:] if soft else target
        paths, known, whole = expand(target, call.cwd, call.home)
        shown = _shown(target)
        if not whole and results[i][0] != "deny":
            verdict.diagnostics.append(
                f"`{shown}` is written by the command and names too many paths to check"
            )
            results[i] = ("ask", None)
        for path in paths:
            sub = path_decision(engine, call, tool, path) if tool else RuleVerdict(None)
            if sub.decision == "deny":  # a write to a denied path denies, whatever the command
                verdict.diagnostics.append(f"`{shown}` is written by the command: denied")
                results[i] = ("deny", sub.rule)
                return
            if sub.decision == "ask" and results[i][0] != "ask":  # undecided or allowed: it asks
                verdict.diagnostics.append(f"`{shown}` is written by the command: needs approval")
                results[i] = ("ask", sub.rule)
            if soft or results[i][0] == "ask":
                continue
            if results[i][0] == "allow" and not covered and sub.decision != "allow":
                verdict.diagnostics.append(f"`{shown}` is written by the command: not allowed")
                results[i] = ("ask", sub.rule)
        if tool and target.endswith(TREE) and target.startswith(PATTERN) and results[i][0] != "deny":
            if _tree_guard(engine, call, verdict, results, i, target, tool, "written"):
                return
        elif tool and target.startswith(PATTERN) and results[i][0] != "ask":
            _glob_guard(engine, call, verdict, results, i, target, tool, "written")
        if not known and not soft and results[i][0] == "allow":
            verdict.diagnostics.append(f"`{shown}` is written by the command and is not a known path")
            results[i] = ("ask", None)


def _reads(
    engine: Engine,
    call: PreparedCall,
    verdict: RuleVerdict,
    results: list[tuple[str | None, Any]],
    i: int,
    targets: tuple[str, ...],
    tool: str,
) -> None:
    if len(targets) > MAX_READ_CHECKS and results[i][0] != "deny":  # the rest unchecked: never allowed
        verdict.diagnostics.append(f"more than {MAX_READ_CHECKS} files read")
        results[i] = ("ask", None)
    for target in targets[:MAX_READ_CHECKS]:
        paths, _known, whole = expand(target, call.cwd, call.home)
        shown = _shown(target)
        if not whole and results[i][0] != "deny":
            verdict.diagnostics.append(f"`{shown}` is read by the command and names too many paths to check")
            results[i] = ("ask", None)
        for path in paths:
            sub = path_decision(engine, call, tool, path)
            if sub.decision == "deny":
                verdict.diagnostics.append(f"`{shown}` is read by the command: denied")
                results[i] = ("deny", sub.rule)
                return
            if sub.decision == "ask" and results[i][0] != "ask":
                verdict.diagnostics.append(f"`{shown}` is read by the command: needs approval")
                results[i] = ("ask", sub.rule)
        if target.endswith(TREE) and target.startswith(PATTERN):
            if results[i][0] != "deny" and _tree_guard(
                engine, call, verdict, results, i, target, tool, "read", anchored=True
            ):
                return
        elif target.startswith(PATTERN) and results[i][0] != "ask":
            _glob_guard(engine, call, verdict, results, i, target, tool, "read")


def _glob_guard(
    engine: Engine,
    call: PreparedCall,
    verdict: RuleVerdict,
    results: list[tuple[str | None, Any]],
    i: int,
    target: str,
    tool: str,
    verb: str,
) -> None:
    """A glob that may name a path a deny or ask rule of `tool` guards asks, even when nothing it
    names exists now (bash expands it when the command runs: `cat ~/.ssh/id*`, `head .e*`).

    Only by what the glob spells (`glob_overlap.overlaps(spelled=True)`): `dist/*` could name a
    `dist/x.pem`, but so could every glob; the files such a glob names now are the expansion's,
    decided above, and a rule on a name or directory the glob itself spells decides the rest."""
    forms = glob_forms(target, call.cwd, call.home)
    if any(_wild_names(f) > _MAX_GLOB_NAMES for f in forms):  # not expanded (`_glob`): never allowed
        verdict.diagnostics.append(
            f"`{_shown(target)}` is {verb} by the command through more than {_MAX_GLOB_NAMES} wildcard names: needs approval"
        )
        results[i] = ("ask", None)
        return
    rule = guarding_rule(engine, call.mode, call.cwd, tool, forms)
    if rule is not None:
        verdict.diagnostics.append(
            f"`{_shown(target)}` is {verb} by the command and may name a file rule {rule.id} guards: needs approval"
        )
        results[i] = ("ask", rule)


def _tree_guard(
    engine: Engine,
    call: PreparedCall,
    verdict: RuleVerdict,
    results: list[tuple[str | None, Any]],
    i: int,
    target: str,
    tool: str,
    verb: str,
    *,
    anchored: bool = False,
) -> bool:
    """A tree write or read (DEST and everything under it: `verb`) meets the deny and ask rules of
    `tool` that lie at or under DEST: a deny denies (True: the unit is decided), an ask asks.
    `anchored`: only rules on `/`, `~` or policy-relative paths count, as for a search tool
    (`path.reader_regex`): a cwd-relative rule (`Read(./.env)`) covers the paths it names, not a
    search of the directory holding them (`grep -r TODO .` stays a search of the project)."""
    forms = glob_forms(target, call.cwd, call.home)
    shown = _shown(target[: -len(_ROOT_TREE)] or "/")
    for decision in ("deny", "ask"):
        if decision == "ask" and results[i][0] == "ask":
            return False
        rule = guarding_rule(engine, call.mode, call.cwd, tool, forms, decision, anchored=anchored)
        if rule is None:
            continue
        if decision == "deny" and any(UNKNOWN in f for f in forms):  # DEST not known: it may lie there
            verdict.diagnostics.append(
                f"`{shown}` is {verb} with everything under it by the command and may hold a path rule {rule.id} denies: needs approval"
            )
            results[i] = ("ask", rule)
            return False
        if decision == "deny":
            verdict.diagnostics.append(
                f"`{shown}` is {verb} with everything under it by the command, and rule {rule.id} denies a path there"
            )
            results[i] = ("deny", rule)
            return True
        verdict.diagnostics.append(
            f"`{shown}` is {verb} with everything under it by the command, and rule {rule.id} guards a path there: needs approval"
        )
        results[i] = ("ask", rule)
    return False


def tree_spelled(form: str) -> bool:
    """Whether a tree form (`/abs/DEST/TREE`) is weighed by DEST's spelling (`glob_overlap`'s
    `spelled`): a rule counts only where DEST's own text meets the rule's literal text, so a
    rule that floats to any depth (`**/*.pem`, a bare `.npmrc`) does not lie under every
    directory. Not for `/` (everything lies under it) or a DEST with an unknown expansion."""
    return form.endswith(TREE) and UNKNOWN not in form and form != _ROOT_TREE


def guarding_rule(
    engine: Engine,
    mode: str,
    cwd: str,
    tool: str,
    globs: list[str],
    only: str | None = None,
    *,
    anchored: bool = False,
    nocase: bool = False,
    dot: bool = False,
    spelled: bool | None = None,
    unspelled: tuple[int, ...] = (),
) -> Any:
    """The first deny or ask rule of `tool` (in file order; `only`: of that decision) some path of
    the `globs` matches (`anchored`: not a cwd-relative rule), in `mode` and the directory `cwd`.

    `nocase`, `dot`: the globs are another tool's, matched case-insensitively and with dotfiles
    (Gemini CLI's `read_many_files`, `tool_files.py`); the index by literal start is
    case-sensitive, so every rule is a candidate (the budget bounds them). `spelled`: weigh each
    glob by what it spells (`glob_overlap.overlaps`) whatever it holds (default: as its form says);
    `unspelled`: per glob, how many of its first characters spell nothing (the tool's base)."""
    if not globs:
        return None
    from .glob_overlap import Budget, overlaps
    from .guard_index import index_of
    from .plan import plan_for

    plan = plan_for(engine.policy, tool, mode)
    arg = plan.spec.arg
    if arg is None or plan.spec.kind != "path":
        return None
    budget = Budget(_OVERLAP_BUDGET + _OVERLAP_PER_RULE * len(plan.rules))
    cwd_text: str | None = None
    rules = plan.rules
    positions = range(len(rules)) if nocase else index_of(plan).candidates(globs, cwd)
    for p in positions:  # file order, the rules the globs may meet
        rule = rules[p]
        if rule.decision == "allow" or plan.need[p] != 1 or (only is not None and rule.decision != only):
            continue  # an allow guards nothing; a rule on another argument never holds for a bare path
        cond = rule.conds[0]
        if cond.key is not None and cond.key not in plan.primary_keys:
            continue
        if not cond.kind_view:
            continue  # the plain text of the argument, not a path: the expansion's paths decided it
        regex = cond.regex
        if anchored and TAG_CWD in regex:
            continue
        if TAG_CWD in regex:  # a cwd rule (`./.git/**`) matches `TAG_CWD + rel`: put the cwd back
            if cwd_text is None:
                import re

                cwd_text = re.escape(cwd.rstrip("/") + "/")
            regex = regex.replace(TAG_CWD, cwd_text)
        # a glob is weighed by what it spells; an unknown expansion may be any text at all
        if any(
            overlaps(
                g,
                regex,
                spelled=(tree_spelled(g) if g.endswith(TREE) else UNKNOWN not in g)
                if spelled is None
                else spelled,
                budget=budget,
                nocase=nocase,
                dot=dot,
                unspelled=unspelled[k] if k < len(unspelled) else 0,
            )
            for k, g in enumerate(globs)
        ):
            return rule
    return None


# search states one glob target may cost (a few ms for ordinary globs against the packs; a
# rule whose literal start the glob misses costs a state or two); past it the command asks
_OVERLAP_BUDGET, _OVERLAP_PER_RULE = 20_000, 16


def glob_forms(target: str, cwd: str, home: str) -> list[str]:
    """The absolute bash globs (backslash escapes) a pattern target stands for: braces expanded,
    `~` and `$HOME` as the home directory, an unknown expansion tried as `expand` tries it."""
    if target.endswith(TREE):
        return _tree_forms(target, cwd, home)
    out: list[str] = []
    unknown = shell_words.UNKNOWN
    for form in itertools.islice(_forms(target, home), _MAX_PATHS):
        if unknown in form:  # the expansion as any text (`$X/x` may be absolute or relative)
            kept = "/" + form if form.startswith(unknown) else form
            if not kept.startswith("/"):
                kept = _escape(cwd.rstrip("/")) + "/" + kept
            out.append(_lexical_glob(kept))
        for fill in _fills(form, cwd, home):
            candidate = form.replace(unknown, fill)
            if not _GLOB.search(candidate):
                continue  # a plain path: `expand` gave it and it was decided
            if not candidate.startswith("/"):
                candidate = _escape(cwd.rstrip("/")) + "/" + candidate
            out.append(_lexical_glob(candidate))
        if len(out) >= _MAX_PATHS:
            break
    return list(dict.fromkeys(out))[:_MAX_PATHS]


def _tree_forms(target: str, cwd: str, home: str) -> list[str]:
    """The absolute forms `DEST/TREE` of a tree target: DEST's braces, `~` and globs as
    `glob_forms` has them, a plain DEST too, an unknown expansion kept as any text."""
    out: list[str] = []
    for form in _forms(target[: -len(TREE)], home):
        if form.startswith(UNKNOWN):  # the expansion as any text (`$X/x` may be absolute or relative)
            form = "/" + form
        elif not form.startswith("/"):
            form = _escape(cwd.rstrip("/")) + "/" + form
        out.append(_lexical_glob(form).rstrip("/") + "/" + TREE)
        if len(out) >= _MAX_PATHS:
            break
    return list(dict.fromkeys(out))


def _lexical_glob(glob: str) -> str:
    """`.` and `..` names and repeated slashes of an absolute glob resolved lexically, as the path
    kind normalises the paths its rules match (`..` after a wildcard name drops that name)."""
    parts: list[str] = []
    for name in glob.split("/"):
        if name in ("", "."):
            continue
        if name == "..":
            if parts and UNKNOWN in parts[-1]:
                parts[-1] = UNKNOWN  # the parent of an unknown directory: any directory
            elif parts:
                parts.pop()
            continue
        parts.append(name)
    return "/" + "/".join(parts)


def _shown(target: str) -> str:
    if not target.startswith(PATTERN):
        return target
    return target[1:].replace(shell_words.HOME, "~").replace(shell_words.UNKNOWN, "$…")


def path_decision(engine: Engine, call: PreparedCall, tool: str, path: str) -> RuleVerdict:
    """What the path rules of `tool` say about `path` (the fast path's pick where it can)."""
    policy: Any = engine.policy
    spec = policy.tool_spec(policy.canonical_tool(tool))
    if spec.arg is None:
        return RuleVerdict(None)
    rule = engine._path_pick(tool, path, call.cwd, call.home, call.context)  # the same rule, by its tests
    if rule is not None:
        return RuleVerdict(rule.decision, rule=rule if rule.decision is not None else None)
    sub = prepare(
        policy,
        tool,
        {spec.arg: path},
        call.context | {"cwd": call.cwd},
        call.mode,
        home=call.home,
        cwd=call.cwd,
    )
    return engine._evaluate(sub)


def needs_check(policy: Any, mode: str, writes: tuple[str, ...], reads: tuple[str, ...]) -> bool:
    """Could the path rules change the decision of a unit with these files? (the fast path asks)"""
    if reads and read_tool_of(policy, mode):
        return True
    if not writes:
        return False
    if policy.write_tool is None:
        return any(not w.startswith(SOFT) for w in writes)
    if any(not w.startswith(SOFT) for w in writes):
        return True
    return bool(policy.lazy(("write_guard", mode), lambda: _restricts(policy, policy.write_tool, mode)))


def _restricts(policy: Any, tool: str, mode: str) -> bool:
    from .plan import plan_for

    return any(r.decision != "allow" for r in plan_for(policy, tool, mode).rules)


def read_tool_of(policy: Any, mode: str) -> str | None:
    """The tool whose path rules decide shell reads: the first of `READ_TOOLS` the policy knows as
    a path tool, and only when some rule of it denies or asks (else reads cannot change anything)."""
    return policy.lazy(("read_tool", mode), lambda: _read_tool(policy, mode)) or None  # type: ignore[no-any-return]


def _read_tool(policy: Any, mode: str) -> str:
    from .plan import plan_for

    for name in READ_TOOLS:
        spec = policy.tools.get(policy.canonical_tool(name))
        if spec is None or spec.kind != "path":
            continue
        plan = plan_for(policy, name, mode)
        if any(r.decision != "allow" for r in plan.rules):
            return name
        return ""
    return ""


def expand(target: str, cwd: str, home: str) -> tuple[list[str], bool, bool]:
    """The paths a target may name, whether it is a known path (a literal), and whether those
    are all of them. Not all: more than _MAX_PATHS brace forms (`{a0,...,a31,.env}`) or more than
    _MAX_FOUND files on the filesystem; the rest would go undecided, so the caller asks."""
    if not target.startswith(PATTERN):
        return [target], True, True
    if target.endswith(TREE):
        return [], False, True  # DEST is a target of its own; what lies under it is `_tree_guard`'s
    forms = list(_forms(target, home))
    whole = len(forms) <= _MAX_PATHS
    out: dict[str, None] = {}
    for form in forms[:_MAX_PATHS]:
        for fill in _fills(form, cwd, home):
            candidate = form.replace(shell_words.UNKNOWN, fill)
            out[_unescape(candidate)] = None
            if _GLOB.search(candidate):
                out.update(dict.fromkeys(_glob(candidate, cwd)))
        if len(out) > _MAX_FOUND:
            whole = False
            break
    out.pop("", None)
    return list(out)[:_MAX_FOUND], False, whole


def _forms(target: str, home: str) -> Iterator[str]:
    """Each brace form of a pattern target (escaped), with `~`, `$HOME` and `~user` put in: at
    most _MAX_PATHS + 1 of them (one more than are decided, to tell that there are more)."""
    for form in shell_words.expand_braces(target[1:], _MAX_PATHS + 1):
        form = form.replace(shell_words.HOME, _escape(home))
        if form.startswith("~"):  # `~user/...`
            head, sep, rest = form.partition("/")
            user_home = os.path.expanduser(_unescape(head))
            form = _escape(user_home) + sep + rest if not user_home.startswith("~") else form
        yield form


def _fills(form: str, cwd: str, home: str) -> tuple[str, ...]:
    """What an unknown expansion in `form` is tried as: the home, the cwd, nothing and `/`."""
    return (_escape(home), _escape(cwd), "", "/") if shell_words.UNKNOWN in form else ("",)


def _glob(pattern: str, cwd: str) -> list[str]:
    """What bash's pathname expansion gives on this filesystem (dotfiles only when named).

    Not for a pattern with more than `_MAX_GLOB_NAMES` wildcard names: the expansion walks every
    directory those names may match, which a deep pattern (`/*/*/*/...`) makes the whole
    filesystem. Such a target is then decided by what it spells (`_glob_guard`): it asks."""
    import glob  # here: the module (and fnmatch, and their regexes) only when a target is a glob
    import re

    if _wild_names(pattern) > _MAX_GLOB_NAMES:
        return []
    full = pattern if pattern.startswith("/") else os.path.join(_escape(cwd), pattern)
    try:
        return list(itertools.islice(glob.iglob(_to_python_glob(full)), _MAX_FOUND + 1))
    except (OSError, ValueError, re.error):
        return []


def _wild_names(pattern: str) -> int:
    return sum(1 for name in pattern.split("/") if _GLOB.search(name))


def _to_python_glob(pattern: str) -> str:
    """Backslash escapes (bash) -> `[x]` classes (Python's glob has no backslash escape), a
    bracket negated with `^` -> `!` (bash reads `[^x]` as `[!x]`; Python's glob as a literal `^`),
    and a bracket holding `[:class:]`, `[=e=]` or `[.e.]` (which Python's glob reads as plain
    characters) -> `?`, any one character: a superset, so every file bash names is found."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            out.append("[" + nxt + "]" if nxt in "*?[" else nxt)
            i += 2
        elif c == "[" and (end := _posix_bracket_end(pattern, i)) > 0:
            out.append("?")
            i = end
        elif c == "[" and pattern.startswith("^", i + 1):
            out.append("[!")
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _posix_bracket_end(pattern: str, i: int) -> int:
    """The index after the bracket at `pattern[i] == "["` when it holds a `[:class:]`, `[=e=]`
    or `[.e.]`; 0 otherwise (no such part, or unterminated)."""
    j = i + 1
    if j < len(pattern) and pattern[j] in "!^":
        j += 1
    posix, first = False, True
    while j < len(pattern):
        ch = pattern[j]
        if ch == "]" and not first:
            return j + 1 if posix else 0
        first = False
        if pattern.startswith(("[:", "[=", "[."), j):
            end = pattern.find(pattern[j + 1] + "]", j + 2)
            if end < 0:
                return 0
            posix, j = True, end + 2
            continue
        j += 2 if ch == "\\" else 1
    return 0


def _escape(text: str) -> str:
    return shell_words.glob_escape(text)


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text
    import re  # here: `re` (and `enum`) only for a target with a backslash escape

    return re.sub(r"\\(.)", r"\1", text)
