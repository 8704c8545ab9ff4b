"""Command knowledge at decide time: how a program reads its argv (SPEC 3 `shell`; issue 14 item 2).

Place in the pipeline: runtime, decide time. The knowledge is *data* written in the policy
language (`commands:` in a policy file, plus the bundled `policies/commands.yaml`); the compiler
validates it and turns it into a `Table` (`knowledge_table.py`) (plain NamedTuples and dicts: picklable, no
per-call work). `shell.py` asks `analyse(words, table)` about each simple command (quotes already
removed) and gets back an `Analysis`: which words are files read or written, which are shell
scripts, interpreter code or whole commands run by the program, which options make it write,
execute, touch the network or reveal secrets, and the command's text with the program's global
options taken out (`git -C . push` -> `git push`), so that rules about a subcommand match
wherever the options put it.

Parsing follows getopt_long as the GNU tools do it unless a command says otherwise: short options
cluster (`-iS CMD`), a short option that takes a value takes the rest of its cluster or the next
word, long options take `--name=value` or the next word, and any unambiguous prefix of a long
option names it (`--s=` is `--split-string=`; precomputed, so a lookup is one dict access).
`posix: true` stops options at the first operand. Options a command does not list are flags,
unless the command says `unknown: exec` (a wrapper: when in doubt it runs something).

Everything here is linear in the number of words; the only loops are over the words.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Mapping, Sequence

from ...vocabulary.lazy_regex import lazy_compile
from ...vocabulary.records import Record
from .knowledge_table import BUILD_SPEC, Table

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any, Final

__all__ = [
    "EFFECTS",
    "ROLES",
    "Analysis",
    "Opt",
    "Spec",
    "Table",
    "analyse",
    "build_spec",
    "build_table",
]

# What an option's value or an operand is.
ROLES: Final = (
    "data",  # text the program only looks at (a pattern, a message, a name)
    "read",  # a file the program reads
    "write",  # a file the program writes (or deletes) by nature (`rm x`, `cp a b`): its allow is the consent
    "output",  # a file the program writes its output to (`uniq IN OUT`): like `> OUT`, a path rule must allow it
    "script",  # shell code the program runs (`bash -c`, `su -c`, `env -S`)
    "code",  # code in another language the program runs (`python -c`, `node -e`, an awk program)
    "command",  # the words from here on are a command the program runs (`env`, `xargs`, `find -exec`)
    "subcommand",  # one of the program's subcommands (see `subcommands`)
    "at-read",  # data, or a file read when it starts with `@` (`curl -d @file`)
    "directory",  # the directory the program works in (`git -C DIR`, `make -C DIR`, `env --chdir DIR`)
    "prefix",  # the start of the names of files it writes (`split IN PREFIX`, `csplit -f PREFIX`)
    "tree",  # a file or directory written with everything under it (`rsync SRC DEST`, `git checkout -- PATH`)
    "into",  # a destination: the file written, or the directory the other file operands go into by name
    "replace",  # a file read, then replaced by its (de)compressed form (`gzip FILE`: FILE and FILE.gz)
    "derive",  # a file read, and its (de)compressed form written beside it (`zstd -d F.zst` writes F)
    "range-path",  # `START,END:FILE` or `:FUNC:FILE` (`git log -L`): FILE is read
    "jq",  # a jq filter: data, unless it reads the environment (`env`, `$ENV`)
    "make",  # makefile text (`make --eval`): its recipes and `$(shell ...)` bodies are shell scripts run
    "module",  # the module it runs (`python -m MOD`): the words after it are MOD's, read with `modules`
    "key-read",  # `[KEY=]PATH` (`kubectl --from-file`): PATH read, a directory with everything under it
    "bind",  # `[HOST:]TARGET[:OPTIONS]` (`docker run -v`): HOST mounted, read and (unless `ro`) written as a tree
    "directory",  # (operands too: `git init DIR` works in DIR)
)
# What a key of a `key=value,...` value (an option's `fields`) names: a file read, a file or a tree
# written, or a host directory mounted (`mount`: read with everything under it, and written so
# unless the list says `readonly`/`ro`)
FIELD_ROLES: Final = ("read", "write", "tree", "mount")
# What an option or a subcommand makes the command do (beyond its operands' roles).
EFFECTS: Final = ("write", "exec", "network", "secret", "delete")
GUARDING: Final = frozenset({"exec", "secret"})  # a prefix allow never covers these (exact rules only)
NONE, REQUIRED, OPTIONAL = 0, 1, 2
_ASSIGN: Final = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*=")


class Opt(Record):
    """One option (all its spellings share this record)."""

    name: str  # the spelling used in messages (`-o`)
    takes: int  # NONE, REQUIRED or OPTIONAL (only `--opt=v` / attached `-ov`)
    role: str  # the value's role (ROLES); "data" when it takes none
    effects: frozenset[str] = frozenset()
    until: tuple[str, ...] = ()  # role `command`: the words up to one of these (`find -exec ... ;`)
    instead_of: str | None = None  # the operand role it stands in for (`sed -e` replaces the script)
    operands_become: str | None = None  # operands of role `read` become this (`sed -i`: write)
    note: str = ""  # what it does, for `--explain`
    becomes: tuple[tuple[str, str], ...] = ()  # other roles operands take instead (`cp -T`: into -> tree)
    writes_tree: bool = False  # `into` destinations are written as whole trees (`cp -r`)
    reads_tree: bool = False  # `read` operands are read with everything under them (`grep -r`)
    mode: bool = False  # its `becomes` replaces the last mode option's (`xz -t -z` compresses: the last wins)
    pair: bool = False  # it takes two words, NAME then its value (`jq --rawfile NAME FILE`)
    suffix: bool = False  # its value is the suffix a compressor adds or strips (`gzip -S .x`)
    writes: tuple[str, ...] = ()  # paths it makes the program write as trees (`git init --template`: .git)
    fields: tuple[tuple[str, str], ...] = ()  # a `k=v,...` value's keys -> roles (`--mount src=HOST`)


class Subcommands:
    """A program's subcommands: name -> `Spec`, each built on first use (git has ~150 of them:
    building all at once cost a hook deciding `git status` ~3 ms)."""

    __slots__ = ("bodies", "built")

    def __init__(self, bodies: dict[str, tuple[str, Mapping[str, Any]]]) -> None:
        self.bodies = bodies  # subcommand -> (the spec's name, its entry with inherited options)
        self.built: dict[str, Spec] = {}

    def __bool__(self) -> bool:
        return bool(self.bodies)

    def get(self, name: str) -> Spec | None:
        spec = self.built.get(name)
        if spec is None:
            found = self.bodies.get(name)
            if found is None:
                return None
            spec = self.built[name] = build_spec(*found)
        return spec


class Spec(Record):
    """What one program (or one subcommand) does with its argv."""

    name: str
    short: dict[str, Opt]
    long: dict[str, Opt]  # every long spelling (without `--`)
    long_names: tuple[str, ...]  # the same, sorted, for abbreviations (empty: none accepted)
    words: dict[str, Opt]  # whole-word options (`-exec`, `-name`, `-delete`: find's style)
    operands: tuple[str, ...]  # roles in order; `repeat` says which one repeats
    repeat: int  # index into `operands` of the role that takes all the extra operands (-1: none)
    subcommands: Subcommands
    effects: frozenset[str]
    assign: dict[str, str]  # `key=value` operands (dd's `of=F`): key -> role
    operand_effects: dict[str, frozenset[str]]  # an operand's value -> effects (`secret`)
    posix: bool  # options end at the first operand
    assignments: bool  # `NAME=VALUE` words (and a lone `-`) before the command operand are data
    unknown_exec: bool  # an option it does not list makes it exec-capable
    note: str
    code_option: bool  # an option takes inline code (`python -c`, `node -e`): stdin may be code too
    effect_notes: tuple[str, ...] = ()  # the notes `effects` adds, worded once when the spec is built
    writes_tree: bool = False  # `into` destinations are written as whole trees (`mv`)
    reads_tree: bool = False  # `read` operands are read with everything under them (`rg`)
    modules: Subcommands | None = None  # role `module`: module name -> the spec of its argv (`python -m`)
    single_dash: bool = False  # options are whole words, `-name`/`--name`, `=value` or the next word (Go)
    pflag: bool = False  # a short option then `=` takes the rest as its value (`-v=V`: Go's pflag)


class Analysis(Record):
    """What `analyse` found; indices are into the words it was given."""

    reads: tuple[tuple[int, int], ...] = ()  # (word index, characters to cut) of files read
    writes: tuple[tuple[int, int], ...] = ()  # the same, of files written because of an option
    operand_writes: tuple[tuple[int, int], ...] = ()  # files a writing command writes by nature
    at_reads: tuple[tuple[int, int], ...] = ()  # data, or a file read when the value starts with `@`
    scripts: tuple[tuple[int, int], ...] = ()  # (word index, characters to cut) of shell code
    code: tuple[int, ...] = ()  # words holding interpreter code
    commands: tuple[tuple[int, int], ...] = ()  # [start, end) of commands the program runs
    effects: frozenset[str] = frozenset()
    notes: tuple[str, ...] = ()
    normal: tuple[int, ...] | None = None  # word indices without the global options (None: unchanged)
    known: bool = False  # the program has a spec
    unknown_write: bool = False  # it writes files it does not name (`tar -x`)
    named_reads: tuple[str, ...] = ()  # files a program text reads by name (sed `r FILE`)
    chdirs: tuple[tuple[int, int], ...] = ()  # (word index, characters to cut) of directories it works in
    prefixes: tuple[tuple[int, int], ...] = ()  # the same, of name prefixes of files it writes
    quiet: bool = True  # no word is a file, script, code or command (the index fields above are empty)
    trees: tuple[
        tuple[int, int, bool], ...
    ] = ()  # (word, cut, by nature) of files written with all under them
    # (word, cut, by nature, as trees, source words) of destinations the sources go into by name
    into: tuple[tuple[int, int, bool, bool, tuple[int, ...]], ...] = ()
    # (word index, characters to cut) of files read with everything under them; (-1, 0): the cwd
    tree_reads: tuple[tuple[int, int], ...] = ()
    # (word, cut, kept) of files read and then replaced (`gzip FILE`), or kept beside their output (`zstd F`)
    replaced: tuple[tuple[int, int, bool], ...] = ()
    suffixes: tuple[str, ...] = ()  # `-S SUFFIX` values: the compressors' own suffix for the names they write
    named_trees: tuple[
        str, ...
    ] = ()  # paths an option makes it write, with all under them (`git init --template`)
    named_scripts: tuple[
        tuple[int, str], ...
    ] = ()  # (word, script) of shell code inside a value (`make --eval`)
    # (word, path, role) of paths inside a value (`-v HOST:CTR`, `--mount src=HOST`, `--secret src=F`):
    # role `read`, `write`, `tree` (written with all under it), `mount` / `mount-ro` (read with all
    # under it, and written so unless read-only)
    inner: tuple[tuple[int, str, str], ...] = ()


_EMPTY: Final = Analysis()
_KNOWN: Final = Analysis(known=True)
ALL_DATA: Final = (
    _KNOWN  # what `analyse` returns (this very object) for a known program whose words are all data
)


# --------------------------------------------------------------------------- building


def build_spec(name: str, data: Mapping[str, Any]) -> Spec:
    """A `Spec` from one validated `commands:` entry (see docs/command-knowledge.md)."""
    short: dict[str, Opt] = {}
    longs: dict[str, Opt] = {}
    words: dict[str, Opt] = {}
    single_dash = bool(data.get("single_dash", False))
    for spellings, body in (data.get("options") or {}).items():
        opt = _build_opt(spellings, body)
        for s in spellings.replace(",", " ").split():
            if single_dash:  # Go's flag package: `-o` and `--o` are one whole-word option
                words["-" + s.lstrip("-")] = opt
            elif s.startswith("--"):
                longs[s[2:]] = opt
            elif len(s) == 2 and s[0] == "-":
                short[s[1]] = opt
            else:
                words[s] = opt
    operands = data.get("operands") or ()
    if isinstance(operands, str):
        operands = [operands]
    roles: list[str] = []
    repeat = -1
    for i, r in enumerate(operands):
        if r.endswith("..."):
            repeat, r = i, r[:-3]
        roles.append(r)
    if not roles:
        roles, repeat = ["data"], 0
    subs: dict[str, tuple[str, Mapping[str, Any]]] = {}
    for sub_names, body in (data.get("subcommands") or {}).items():
        body = dict(body or {})
        if data.get("inherit"):  # the program's options are valid after the subcommand too
            body["options"] = {**(data.get("options") or {}), **(body.get("options") or {})}
            body.setdefault("inherit", True)
        if single_dash:  # a Go program's subcommands parse their flags the same way
            body.setdefault("single_dash", True)
        if data.get("pflag"):  # (so do a pflag program's: cobra gives them all one parser)
            body.setdefault("pflag", True)
        for sub_name in sub_names.replace(",", " ").split():
            subs[sub_name] = (f"{name} {sub_name}", body)
    if subs and "subcommand" not in roles:
        roles.insert(0, "subcommand")
        repeat = repeat + 1 if repeat >= 0 else -1
    effects = frozenset(_as_list(data.get("effects")))
    note = str(data.get("about", ""))
    mods: dict[str, tuple[str, Mapping[str, Any]]] = {
        str(mod): (f"{name} -m {mod}", dict(body or {}))
        for mods, body in (data.get("modules") or {}).items()
        for mod in mods.replace(",", " ").split()
    }
    return Spec(
        name=name,
        short=short,
        long=longs,
        long_names=tuple(sorted(longs)) if data.get("abbrev", True) else (),
        words=words,
        operands=tuple(roles),
        repeat=repeat,
        subcommands=Subcommands(subs),
        effects=effects,
        assign=dict(data.get("assign") or {}),
        operand_effects={k: frozenset(_as_list(v)) for k, v in (data.get("operand_effects") or {}).items()},
        posix=bool(data.get("posix", False)),
        assignments=bool(data.get("assignments", False)),
        unknown_exec=data.get("unknown") == "exec",
        note=note,
        code_option=any(o.role in ("code", "make") for o in (*short.values(), *longs.values())),
        effect_notes=_effect_notes(effects, f"`{name}`", note),
        writes_tree=bool(data.get("writes_tree", False)),
        reads_tree=bool(data.get("reads_tree", False)),
        modules=Subcommands(mods) if mods else None,
        single_dash=single_dash,
        pflag=bool(data.get("pflag", False)),
    )


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def _build_opt(spellings: str, body: Any) -> Opt:
    name = spellings.replace(",", " ").split()[0]
    if isinstance(body, str):
        body = {"flag": {}, "value": {"value": "data"}, "optional": {"value": "data", "optional": True}}.get(
            body, {"value": body}
        )
    body = dict(body or {})
    role = body.get("value", "none")
    optional = bool(body.get("optional", False))
    become = body.get("operands_become")
    becomes: tuple[tuple[str, str], ...] = ()
    if isinstance(become, Mapping):  # `{into: tree}`: these roles become those
        becomes, become = tuple(become.items()), become.get("read")
    takes = NONE if role == "none" else (OPTIONAL if optional else REQUIRED)
    return Opt(
        name=name,
        takes=takes,
        role="data" if role == "none" else role,
        effects=frozenset(_as_list(body.get("effects"))),
        until=tuple(_as_list(body.get("until"))),
        instead_of=body.get("instead_of"),
        operands_become=become,
        note=str(body.get("note", "")),
        becomes=becomes,
        writes_tree=bool(body.get("writes_tree", False)),
        reads_tree=bool(body.get("reads_tree", False)),
        mode=bool(body.get("mode", False)),
        pair=bool(body.get("pair", False)),
        suffix=bool(body.get("suffix", False)),
        writes=tuple(_as_list(body.get("writes"))),
        fields=tuple(
            (key.lower(), role) for keys, role in (body.get("fields") or {}).items() for key in keys.split()
        ),
    )


def long_option(spec: Spec, name: str) -> Opt | None:
    """The long option `name` names: itself, or the one option it abbreviates (getopt_long).

    An abbreviation shared by spellings of different options is ambiguous (getopt_long refuses
    it; so do we: None). A binary search, not a scan.
    """
    opt = spec.long.get(name)
    if opt is not None or not spec.long_names or not name:
        return opt
    names = spec.long_names
    k = bisect.bisect_left(names, name)
    found: Opt | None = None
    while k < len(names) and names[k].startswith(name):
        o = spec.long[names[k]]
        if found is not None and o is not found:
            return None
        found = o
        k += 1
        if k - bisect.bisect_left(names, name) > 64:
            return None
    return found


def build_table(entries: Mapping[str, Mapping[str, Any]], digest: str) -> Table:
    """A table from `commands:` entries as written (a key may name several programs)."""
    flat: dict[str, Mapping[str, Any]] = {}
    for names, body in entries.items():
        for name in names.replace(",", " ").split():
            flat[name] = body
    return Table(flat, digest)


_PACKAGE: Final = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUNDLED_FILE: Final = os.path.join(
    _PACKAGE, "policies", "commands.yaml"
)  # the bundled knowledge (a str: no pathlib on the hook's path)


_bundled: list[Table] = []


def bundled() -> Table:
    """The bundled knowledge (policies/commands.yaml), read once per process."""
    if not _bundled:
        _bundled.append(build_table(bundled_entries(), "bundled"))
    return _bundled[0]


def bundled_entries() -> dict[str, Any]:
    import yaml  # only here: compiled policies carry their table, so `policy hook` never reads YAML

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(BUNDLED_FILE, encoding="utf-8") as handle:
        text = handle.read()
    data = yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
    return dict(data["commands"])


# --------------------------------------------------------------------------- analysis


_OLD_STYLE: Final = frozenset({"tar", "gtar"})  # a first argument without `-` is a cluster of options


def analyse(words: Sequence[str], table: Table, spec: Spec | None = None) -> Analysis:
    """What the program `words[0]` (a basename lookup) does with the rest of `words`
    (`spec`: `table.get` of that basename, when the caller has looked it up already)."""
    if not words:
        return _EMPTY
    head = words[0]
    name = head.rstrip("/").rsplit("/", 1)[-1] if "/" in head else head
    if spec is None:
        spec = table.get(name)
    if spec is None:
        return _EMPTY
    if name in _OLD_STYLE and len(words) > 1 and words[1][:1].isalpha():
        words = [head, "-" + words[1], *words[2:]]  # `tar xzf a.tgz` is `tar -xzf a.tgz`
    acc = _Acc()
    kept = [0]
    _walk(words, 1, spec, acc, kept)
    return acc.result(kept if acc.dropped else None)


# What `_Acc.found` holds: (field, item), the field an index into the lists of `Analysis`.
# (one constant each, `Final`: the compiled build inlines them)
_READS: Final = 0
_WRITES: Final = 1
_OPERAND_WRITES: Final = 2
_AT_READS: Final = 3
_SCRIPTS: Final = 4
_CODE: Final = 5
_COMMANDS: Final = 6
_NAMED_READS: Final = 7
_CHDIRS: Final = 8
_PREFIXES: Final = 9
_TREES: Final = 10
_INTO: Final = 11
_TREE_READS: Final = 12
_REPLACED: Final = 13
_NAMED_TREES: Final = 14
_NAMED_SCRIPTS: Final = 15
_INNER: Final = 16


class _Acc:
    """What `_walk` finds: the word roles in one list, in order (most commands find none, so
    one list to make, not ten), sorted into the fields of an `Analysis` at the end."""

    __slots__ = (
        "dropped", "effects", "flipped", "found", "into_values", "notes", "read_tree", "suffixes", "tree",
        "unknown_write",
    )  # fmt: skip

    def __init__(self) -> None:
        self.found: list[tuple[int, object]] = []
        self.effects: set[str] = set()
        self.notes: list[str] = []
        self.dropped = False
        self.unknown_write = False
        self.tree = False  # an option made `into` destinations whole trees (`cp -r`)
        self.read_tree = False  # an option made `read` operands whole trees (`grep -r`)
        self.into_values: list[
            tuple[int, int]
        ] = []  # `-t DIR` (role `into`): placed once the operands are known
        self.suffixes: list[str] = []  # `-S SUFFIX` values
        self.flipped = False  # a later mode option undid an earlier one's (`xz -t -z`)

    def result(self, normal: list[int] | None) -> Analysis:
        if (
            not (self.found or self.effects or self.notes or self.unknown_write or self.suffixes)
            and normal is None
        ):
            return _KNOWN  # the program is known and its words are all data (the common case)
        if self.found:
            fields: dict[int, list[object]] = {}
            for field, item in self.found:
                fields.setdefault(field, []).append(item)
            by = list(_NO_FINDINGS)
            for field, items in fields.items():
                by[field] = tuple(items)
        else:
            by = _NO_FINDINGS
        return _new_analysis(  # positional, as the fields are declared
            Analysis,
            (
                by[_READS],
                by[_WRITES],
                by[_OPERAND_WRITES],
                by[_AT_READS],
                by[_SCRIPTS],
                by[_CODE],
                by[_COMMANDS],
                frozenset(self.effects) if self.effects else _NO_EFFECTS,
                tuple(dict.fromkeys(self.notes)) if self.notes else (),
                tuple(normal) if normal is not None else None,
                True,
                self.unknown_write,
                by[_NAMED_READS],
                by[_CHDIRS],
                by[_PREFIXES],
                not self.found,
                by[_TREES],
                by[_INTO],
                by[_TREE_READS],
                by[_REPLACED],
                tuple(self.suffixes),
                by[_NAMED_TREES],
                by[_NAMED_SCRIPTS],
                by[_INNER],
            ),
        )


_NO_FINDINGS: Final[list[tuple[object, ...]]] = [()] * 17
_NO_SKIPPED: Final[set[str]] = set()  # never added to: `_walk` makes a new set instead
_new_analysis = tuple.__new__  # `Analysis(...)` without the namedtuple's Python-level `__new__`
_NO_EFFECTS: Final[frozenset[str]] = frozenset()


def _walk(words: Sequence[str], i: int, spec: Spec, acc: _Acc, kept: list[int]) -> None:
    """Parse `words[i:]` with `spec`; `kept` collects the indices of the normalised text."""
    n = len(words)
    base = len(kept)  # the program (and subcommand) words already kept
    if spec.effects:
        acc.effects.update(spec.effects)
        acc.notes.extend(spec.effect_notes)
        if "write" in spec.effects or "delete" in spec.effects:
            acc.unknown_write = True
    operands: list[int] = []
    skipped: set[str] = _NO_SKIPPED  # made a set when an option first skips a role
    become: str | None = None
    becomes: dict[str, str] | None = None  # other roles operands take instead (`cp -T`: into -> tree)
    mode: dict[str, str] | None = None  # the last mode option's (`xz -t`: replace -> read; `-z`: none)
    opts_done = False
    spec_words = spec.words
    subs = spec.subcommands
    while i < n:
        w = words[i]
        if opts_done or not (w in spec_words or (len(w) > 1 and w[0] == "-")):
            # an operand
            sub = (subs.built.get(w) or subs.get(w) or subs.get("*")) if subs.bodies else None
            if sub is not None and not operands:
                if len(kept) > base:
                    acc.dropped = True  # global options before the subcommand: left out
                del kept[base:]
                kept.append(i)
                _walk(words, i + 1, sub, acc, kept)
                return
            role = _operand_role(spec, len(operands), skipped)
            if role == "command" and spec.assignments and (w == "-" or _ASSIGN.match(w)):
                kept.append(i)
                i += 1
                continue
            if role == "command":
                acc.found.append((_COMMANDS, (i, n)))
                acc.effects.add("exec")
                kept.extend(range(i, n))
                return
            operands.append(i)
            kept.append(i)
            if spec.posix:
                opts_done = True
            i += 1
            continue
        if w == "--":
            opts_done = True
            kept.append(i)
            i += 1
            continue
        opt: Opt | None = None
        value: int | None = None  # index of the value word
        cut = 0  # characters of that word before the value
        step = 1
        if spec.single_dash:  # Go's flags: `-o F`, `-o=F`, `--o=F`; never clustered
            key, eq, _ = w.partition("=")
            opt = spec_words.get("-" + key.lstrip("-"))
            if opt is None:
                kept.append(i)
                i += 1
                continue
            if eq:
                value, cut = i, len(key) + 1
            elif opt.takes == REQUIRED and i + 1 < n:
                value, step = i + 1, 2
        elif w in spec_words:
            opt = spec_words[w]
            if opt.role == "command" and opt.until:
                j = i + 1
                while j < n and words[j] not in opt.until:
                    j += 1
                _option(acc, opt, w, None, 0, words)
                if j > i + 1:
                    acc.found.append((_COMMANDS, (i + 1, j)))
                kept.extend(range(i, min(j + 1, n)))
                i = j + 1
                continue
            if opt.takes == REQUIRED and i + 1 < n:
                value, step = i + 1, 2
        elif w[1] == "-" and len(w) > 2:  # (`w` starts with `-` and has two characters or more)
            name, eq, _ = w[2:].partition("=")
            opt = long_option(spec, name)
            if opt is None:
                if spec.unknown_exec:
                    _effects(acc, {"exec"}, f"`{w}`", "an option this program may run a command with")
            elif eq:
                value, cut = i, 3 + len(name)
                if opt.pair and i + 1 < n:  # `--rawfile=NAME FILE`
                    value, cut, step = i + 1, 0, 2
            elif opt.pair and i + 2 < n:  # `--rawfile NAME FILE`
                value, step = i + 2, 3
            elif opt.takes == REQUIRED and i + 1 < n:
                value, step = i + 1, 2
        else:
            for j in range(1, len(w)):
                o = spec.short.get(w[j])
                if o is None:
                    if spec.unknown_exec:
                        _effects(acc, {"exec"}, f"`-{w[j]}`", "an option this program may run a command with")
                    continue
                if spec.pflag and words[i][j + 1 : j + 2] == "=":
                    # spf13/pflag `parseSingleShortArg`: `-f=arg` (anywhere in a cluster: `-itv=V`)
                    # gives the option the rest of the word, a flag's value too (`-i=false`)
                    if o.takes == NONE:
                        if o.effects or o.writes:
                            _option(acc, o, "-" + w[j], None, 0, words)
                        break
                    opt, w, value, cut = o, "-" + w[j], i, j + 2
                    break
                if o.takes == NONE:
                    if o.effects or o.writes:
                        _option(acc, o, "-" + w[j], None, 0, words)
                    if o.mode:
                        acc.flipped = acc.flipped or (bool(mode) and not o.becomes)
                        mode = dict(o.becomes)
                        continue
                    become = o.operands_become or become
                    if o.becomes or o.writes_tree or o.reads_tree:
                        becomes = _retarget(acc, o, becomes)
                    if o.instead_of:
                        skipped = {*skipped, o.instead_of}
                    continue
                opt, w = o, "-" + w[j]  # `w` now labels the option in notes
                if j + 1 < len(words[i]):
                    value, cut = i, j + 1
                elif o.takes == REQUIRED and i + 1 < n:
                    value, step = i + 1, 2
                break
            if opt is None:
                kept.append(i)
                i += 1
                continue
        # an option (opt may be None: an unknown one)
        if opt is not None:
            if opt.takes == NONE:
                value = None
            if opt.effects or opt.writes or opt.fields or (value is not None and opt.role != "data"):
                _option(acc, opt, w, value, cut, words)
            if opt.role == "module" and value is not None and spec.modules is not None:
                # `python -m MOD ARGS`: the rest is MOD's argv, read with MOD's entry (if known)
                sub = spec.modules.get(words[value][cut:]) or spec.modules.get("*")
                if sub is not None:
                    if i + step < n and words[i + step][:1] != "-":  # read as the script, as before
                        acc.found.append((_READS, (i + step, 0)))
                    kept.extend(range(i, min(i + step, n)))
                    _walk(words, i + step, sub, acc, kept)
                    return
            if opt.suffix and value is not None:
                acc.suffixes.append(words[value][cut:])
            if opt.mode:
                acc.flipped = acc.flipped or (bool(mode) and not opt.becomes)
                mode = dict(opt.becomes)
            else:
                become = opt.operands_become or become
                if opt.becomes or opt.writes_tree or opt.reads_tree:
                    becomes = _retarget(acc, opt, becomes)
            if opt.instead_of:
                skipped = {*skipped, opt.instead_of}
        if step == 1:
            kept.append(i)
        else:
            kept.extend(range(i, min(i + step, n)))
        i += step
    if mode:  # the mode first, then the options that keep or redirect (`xz -k -t -z F`: F kept, F.xz written)
        after = becomes or {}
        becomes = {**after, **{role: after.get(to, to) for role, to in mode.items()}}
    sources = _operands(words, spec, operands, skipped, become, acc, becomes) if operands else ()
    if (acc.read_tree or spec.reads_tree) and not any(f == _TREE_READS for f, _ in acc.found):
        acc.found.append((_TREE_READS, (-1, 0)))  # `grep -r KEY`, `rg KEY`: the cwd is searched
    if acc.into_values:  # `-t DIR`: every file operand goes into DIR
        tree = acc.tree or spec.writes_tree
        acc.found.extend((_INTO, (i, cut, False, tree, sources)) for i, cut in acc.into_values)
        acc.into_values = []
    return None


def _retarget(acc: _Acc, opt: Opt, becomes: dict[str, str] | None) -> dict[str, str] | None:
    """An option that changes what the operands are (`cp -T`: the destination is the tree itself;
    `cp -r`: destinations are written as whole trees)."""
    if opt.writes_tree:
        acc.tree = True
    if opt.reads_tree:
        acc.read_tree = True
    return {**(becomes or {}), **dict(opt.becomes)} if opt.becomes else becomes


_FILE_ROLES: Final = frozenset({"read", "write", "tree"})  # operands an `into` destination receives by name


def _operand_role(spec: Spec, k: int, skipped: set[str]) -> str:
    roles = [r for r in spec.operands if r not in skipped] if skipped else spec.operands
    if not roles:
        return "data"
    if k < len(roles):
        return roles[k]
    rep = spec.repeat
    if rep < 0:
        return "data"
    if skipped:
        rep_role = spec.operands[rep]
        return rep_role if rep_role not in skipped else "data"
    return roles[rep]


def _operands(
    words: Sequence[str],
    spec: Spec,
    operands: list[int],
    skipped: set[str],
    become: str | None,
    acc: _Acc,
    becomes: dict[str, str] | None = None,
) -> tuple[int, ...]:
    """Sort the operands into their roles; returns the words that are files (what an `into`
    destination receives)."""
    sources: list[int] = []
    dests: list[int] = []
    roles = [r for r in spec.operands if r not in skipped] if skipped else spec.operands
    rep = spec.repeat
    if skipped and rep >= 0 and spec.operands[rep] in skipped:
        rep = -1
    elif skipped and rep >= 0:
        rep = roles.index(spec.operands[rep])
    # assign operands to roles: fixed roles before the repeat, the repeat takes the extras,
    # fixed roles after it take the last operands (`cp SRC... DEST`)
    count = len(operands)
    after = len(roles) - rep - 1 if rep >= 0 else 0
    for k, idx in enumerate(operands):
        if rep < 0:
            role = roles[k] if k < len(roles) else "data"
        elif k < rep:
            role = roles[k]
        elif k >= count - after and count - after > rep:
            role = roles[len(roles) - (count - k)]
        else:
            role = roles[rep]
        w = words[idx]
        if spec.assign and "=" in w:
            key = w.split("=", 1)[0]
            arole = spec.assign.get(key)
            if arole is not None:
                _value(acc, arole, idx, len(key) + 1, f"`{key}=`", "")
            continue
        if (
            becomes and role in becomes
        ):  # followed on (`-c -k`: replace -> derive -> read), a few steps at most
            for _ in range(4):
                nxt = becomes.get(role)
                if nxt is None or nxt == role:
                    break
                role = nxt
        if role == "read" and become:
            role = become
            acc.found.append((_WRITES, (idx, 0)))  # an option made it a write (`sed -i`): not by nature
            sources.append(idx)
            continue
        if role in _FILE_ROLES:
            sources.append(idx)
        elif role == "into":
            dests.append(idx)
            continue
        if spec.operand_effects and w in spec.operand_effects:
            _effects(acc, spec.operand_effects[w], f"`{spec.name} {w}`", "")
        if role == "write":
            acc.found.append((_OPERAND_WRITES, (idx, 0)))
            continue
        if role == "output":
            _value(acc, "write", idx, 0, f"`{spec.name}`", "its output", w)
            continue
        if role == "tree":
            acc.found.append((_TREES, (idx, 0, True)))
            continue
        if role == "replace" or role == "derive":
            acc.found.append((_REPLACED, (idx, 0, role == "derive")))
            if acc.read_tree or spec.reads_tree:  # `gzip -r DIR`: every file under DIR read and replaced
                acc.found.append((_TREE_READS, (idx, 0)))
                acc.found.append((_TREES, (idx, 0, True)))
            if (
                acc.flipped
            ):  # `xz -t -z F`: written because of the option, so an allow of `xz -t *` does not cover it
                acc.found.append((_WRITES, (idx, 0)))
                acc.notes.append(f"`{spec.name}`: a later mode option makes it write its files")
            continue
        if role == "read" and (acc.read_tree or spec.reads_tree):
            acc.found.append((_TREE_READS, (idx, 0)))
            continue
        _value(acc, role, idx, 0, "", "", w)
    if dests:
        tree = acc.tree or spec.writes_tree
        acc.found.extend((_INTO, (d, 0, True, tree, tuple(sources))) for d in dests)
    return tuple(sources)


def _option(acc: _Acc, opt: Opt, spelled: str, value: int | None, cut: int, words: Sequence[str]) -> None:
    if opt.effects:
        _effects(acc, opt.effects, f"`{spelled.split('=', 1)[0]}`", opt.note)
    for path in opt.writes:  # `git init --template=DIR`: DIR's files are copied into `.git`
        acc.found.append((_NAMED_TREES, path))
        acc.notes.append(
            f"`{spelled.split('=', 1)[0]}` writes `{path}`" + (f" ({opt.note})" if opt.note else "")
        )
    if value is not None and opt.fields and _FIELD_LIST.match(words[value], cut):  # `type=bind,src=HOST,...`
        _fields(acc, opt, value, words[value][cut:], f"`{spelled.split('=', 1)[0]}`")
    elif value is not None and opt.role != "data":  # a data value (the common case) adds nothing
        _value(acc, opt.role, value, cut, f"`{spelled.split('=', 1)[0]}`", opt.note, words[value][cut:])


def _value(acc: _Acc, role: str, idx: int, cut: int, label: str, note: str, text: str = "") -> None:
    if role == "data":
        return  # the common case: text the program only looks at
    if role == "read":
        acc.found.append((_READS, (idx, cut)))
    elif role == "write":
        acc.found.append((_WRITES, (idx, cut)))
        if label:
            acc.notes.append(f"{label} writes a file" + (f" ({note})" if note else ""))
    elif role == "script":
        acc.found.append((_SCRIPTS, (idx, cut)))
        acc.effects.add("exec")
        if label:
            acc.notes.append(f"{label} runs shell code")
    elif role == "code":
        acc.found.append((_CODE, idx))
        acc.effects.add("exec")
        if label:
            acc.notes.append(f"{label} runs code")
    elif role == "command":
        acc.found.append((_COMMANDS, (idx, idx + 1)))
        acc.effects.add("exec")
        if label:
            acc.notes.append(f"{label} runs a command")
    elif role == "at-read":
        acc.found.append((_AT_READS, (idx, cut)))
    elif role == "directory":
        acc.found.append((_CHDIRS, (idx, cut)))
    elif role == "tree":  # an option's value (`--target=DIR`): written with all under it
        acc.found.append((_TREES, (idx, cut, False)))
        if label:
            acc.notes.append(f"{label} writes a tree of files" + (f" ({note})" if note else ""))
    elif role == "into":  # `-t DIR`: placed when the operands (the files it receives) are known
        acc.into_values.append((idx, cut))
        if label:
            acc.notes.append(f"{label} names the directory the files are written into")
    elif role == "prefix":  # the name as given, as an option's or an operand's write, and PREFIX*
        acc.found.append((_PREFIXES, (idx, cut)))
        if label:
            acc.found.append((_WRITES, (idx, cut)))
            acc.notes.append(f"{label} writes files whose names start with its value")
        else:
            acc.found.append((_OPERAND_WRITES, (idx, cut)))
    elif role in ("sed", "awk", "jq"):
        _program(acc, role, idx, text)
    elif role == "replace" or role == "derive":  # an option's value compressed or decompressed
        acc.found.append((_REPLACED, (idx, cut, role == "derive")))
    elif role == "key-read":  # `--from-file=[KEY=]PATH`: PATH (a directory: every file in it)
        eq = text.find("=")
        at = cut + eq + 1 if eq >= 0 else cut
        acc.found.append((_READS, (idx, at)))
        acc.found.append((_TREE_READS, (idx, at)))
    elif role == "bind":  # `-v HOST:CTR[:OPTS]`: HOST mounted into the container
        _bind(acc, idx, text, label)
    elif role == "make":  # makefile text: its recipes and `$(shell ...)` run as shell scripts
        acc.effects.add("exec")
        acc.found.append((_CODE, idx))
        for script in make_scripts(text):
            acc.found.append((_NAMED_SCRIPTS, (idx, script)))
        if label:
            acc.notes.append(
                f"{label} runs makefile text (its recipes and `$(shell ...)` are shell commands)"
            )
    elif role == "range-path":  # `git log -L1,9:FILE`: FILE's lines are shown
        name = text.rpartition(":")[2] if ":" in text else ""
        if name:
            acc.found.append((_NAMED_READS, name))


# a `key=value,...` list (docker's `--mount`, `--secret`, `--output`): a first field `key=`
_FIELD_LIST: Final = lazy_compile(r"\s*\"?[A-Za-z][\w.-]*=")
# a volume's name (docker's `[a-zA-Z0-9][a-zA-Z0-9_.-]`): `-v NAME:/x` mounts a named volume, not a host path
_VOLUME_NAME: Final = lazy_compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
# `--mount type=...` kinds that mount no host path (docker, podman)
_NOT_HOST: Final = frozenset({"tmpfs", "ramfs", "image", "devpts", "npipe", "cluster", "artifact"})
_TRUE: Final = frozenset({"", "1", "t", "true"})


def _host_path(text: str) -> bool:
    """Whether a mount's source names a host path: not a volume's name (`myvol`)."""
    return bool(text) and not _VOLUME_NAME.fullmatch(text)


def _bind(acc: _Acc, idx: int, text: str, label: str) -> None:
    """`-v [HOST:]TARGET[:OPTIONS]` (docker-run(1), podman-run(1)): HOST (a path, not a volume's
    name) is read with everything under it and, unless OPTIONS says `ro`, written so. One field
    (`-v /data`) or a TARGET then options only (`-v /data:ro`) is an anonymous volume."""
    host, sep, rest = _split_colon(text)
    if not sep or not _host_path(host) or (":" not in rest and rest[:1] not in ("/", "$", "~", "")):
        return
    options = rest.partition(":")[2].split(",")
    role = "mount-ro" if "ro" in options and "rw" not in options else "mount"
    acc.found.append((_INNER, (idx, host, role)))
    if label:
        acc.notes.append(
            f"{label} mounts `{host}` into the container" + (" (read-only)" if role == "mount-ro" else "")
        )


def _split_colon(text: str) -> tuple[str, str, str]:
    """`text.partition(":")`, at the first `:` outside a `${...}` or `$(...)` expansion."""
    depth = 0
    for k, ch in enumerate(text):
        if ch in "{(" and k and text[k - 1] == "$":
            depth += 1
        elif ch in "})" and depth:
            depth -= 1
        elif ch == ":" and not depth:
            return text[:k], ":", text[k + 1 :]
    return text, "", ""


def _fields(acc: _Acc, opt: Opt, idx: int, text: str, label: str) -> None:
    """A `key=value,...` value (docker's `--mount`, `--secret`, `-o`; CSV, as docker reads it):
    the paths its keys name (`opt.fields`), a mount written unless it is read-only."""
    if '"' in text:
        import csv

        try:
            fields = next(csv.reader([text]), [])
        except csv.Error:
            fields = text.split(",")
    else:
        fields = text.split(",")
    readonly = False
    host = True
    pairs: list[tuple[str, str]] = []
    for field in fields:
        key, _eq, value = field.strip().partition("=")
        key = key.lower()
        if key in ("readonly", "ro"):
            readonly = value.strip().lower() in _TRUE
        elif key == "type":
            host = value.strip().lower() not in _NOT_HOST
        pairs.append((key, value))
    for key, value in pairs:
        for name, role in opt.fields:
            if key == name:
                path = value
            elif (
                "=" in name
                and key == name.partition("=")[0]
                and value.startswith(name.partition("=")[2] + "=")
            ):
                path = value[len(name.partition("=")[2]) + 1 :]  # `volume-opt=device=PATH`
            else:
                continue
            if role == "mount":
                if not host or not _host_path(path):
                    continue
                role = "mount-ro" if readonly else "mount"
                acc.notes.append(f"{label} mounts `{path}`" + (" (read-only)" if readonly else ""))
            elif not path:
                continue
            acc.found.append((_INNER, (idx, path, role)))


_SED_EXEC: Final = lazy_compile(
    r"(?:^|[;\n{}])\s*(?:\d+|\$|/[^/\n]*/)?(?:,(?:\d+|\$|/[^/\n]*/))?!?\s*e(?:[\s;}]|$)|/[gpiImM0-9]*e[gpiImM0-9]*(?:[\s;}]|$)"
)
_SED_WRITE: Final = lazy_compile(
    r"(?:^|[;\n{}])\s*(?:\d+|\$|/[^/\n]*/)?(?:,(?:\d+|\$|/[^/\n]*/))?!?\s*[wW]\s|/[gpiImM0-9]*w\s"
)
_AWK_WRITE: Final = lazy_compile(r"printf?\b[^;{}\n]*>")
# `getline [var] < "FILE"`, `ARGV[n] = "FILE"`: a file read by name
_AWK_READ: Final = lazy_compile(r'(?:\bgetline\b[^;{}\n<|]*<|\bARGV\s*\[[^]]*\]\s*=)\s*"([^"\\]+)"')
# `getline < NAME` or an `ARGV` element set to something other than one string literal
_AWK_UNKNOWN_READ: Final = lazy_compile(
    r'\bgetline\b[^;{}\n<|]*<\s*(?!\s|"[^"\\]+"\s*(?:[;}\n)]|$))|\bARGV\s*\[[^]]*\]\s*=\s*(?!\s|"[^"\\]+"\s*(?:[;}\n]|$))'
)
_JQ_ENV: Final = lazy_compile(r"(?:^|[^\w.$])(?:env|\$ENV)\b|\$__prog_args\b")


_SED_READ: Final = lazy_compile(
    r"(?:^|[;\n{}])\s*(?:\d+|\$|/[^/\n]*/)?(?:,(?:\d+|\$|/[^/\n]*/))?!?\s*[rR][ \t]*([^\n;}]+)"
)


# `TARGETS : PREREQUISITES ; RECIPE` (not `x := v`, `x ::= v`): the recipe after `;` is a shell line
_MAKE_RULE: Final = lazy_compile(r"^[^=:#;\t]*[^=:#;\t\s]\s*::?(?!=)[^=#;]*;(.*)$")
_MAKE_CALL: Final = lazy_compile(r"[$][({](shell|file|eval)[\s,]")
_MAX_MAKE_SCRIPTS: Final = 32


def make_scripts(text: str, depth: int = 0) -> list[str]:
    """The shell scripts makefile text runs (GNU make manual, "Rules", "The shell Function",
    "The file Function"): recipe lines (after a tab, or after `;` on a rule's line) and the bodies
    of `$(shell ...)`; `$(file >F,...)` / `$(file <F)` as the redirections `: > F` / `: < F`; the
    text of `$(eval ...)` read as makefile text again. `$$` is a `$` for the shell."""
    out: list[str] = []
    plain = text
    for m in _MAKE_CALL.finditer(text):  # an `$(eval ...)`'s rules are its own (read below)
        if m[1] == "eval":
            plain = plain.replace(text[m.start() : m.end() + len(_balanced(text, m.end())) + 1], " ")
    for line in plain.replace("\\\n", " ").split("\n"):
        if line.startswith("\t"):
            out.append(line[1:].lstrip("@+- ").replace("$$", "$"))
        elif ";" in line and (rule := _MAKE_RULE.match(line)):
            out.append(rule[1].strip().lstrip("@+- ").replace("$$", "$"))
    for m in _MAKE_CALL.finditer(text):
        body = _balanced(text, m.end())
        if m[1] == "shell":
            out.append(body.replace("$$", "$"))
        elif m[1] == "file":
            op = body.strip()
            name = op.lstrip("<>").split(",", 1)[0].strip()
            if name:
                out.append((": < " if op.startswith("<") else ": > ") + name)
        elif depth < 4:
            out.extend(make_scripts(body, depth + 1))
        if len(out) >= _MAX_MAKE_SCRIPTS:
            break
    return [s for s in out[:_MAX_MAKE_SCRIPTS] if s.strip()]


def _balanced(text: str, start: int) -> str:
    """The text from `start` to the parenthesis or brace that closes the one before it."""
    depth = 1
    for k in range(start, len(text)):
        c = text[k]
        if c in "({":
            depth += 1
        elif c in ")}":
            depth -= 1
            if depth == 0:
                return text[start:k]
    return text[start:]


def _program(acc: _Acc, role: str, idx: int, text: str) -> None:
    """A sed script, an awk program or a jq filter: data, unless it runs commands, writes files,
    reads the environment or reads files it names (sed `r`, `R`; awk `getline < "FILE"`)."""
    if role == "sed":
        for m in _SED_READ.finditer(text):
            name = m.group(1).strip()
            if name and name not in ("/dev/stdin", "-"):
                acc.found.append((_NAMED_READS, name))
                acc.notes.append(f"the sed script reads `{name}`")
    elif role == "awk" and ("getline" in text or "ARGV" in text):
        for m in _AWK_READ.finditer(text):
            acc.found.append((_NAMED_READS, m.group(1)))
            acc.notes.append(f"the awk program reads `{m.group(1)}`")
    effects, why = program_effects(role, text)
    if effects:
        acc.effects.update(effects)
        acc.notes.append(why)
        if "exec" in effects:
            acc.found.append((_CODE, idx))
        elif "write" in effects:
            acc.unknown_write = True


def program_effects(role: str, text: str) -> tuple[frozenset[str], str]:
    """Effects of a sed script, an awk program or a jq filter (`e`, `w file`; `system()`, pipes,
    `print >`, `@include`, `getline <` a computed name, `ENVIRON`; jq's `env`, `$ENV`)."""
    if role == "sed":
        if _SED_EXEC.search(text):
            return frozenset({"exec"}), "the sed script runs a command (`e`)"
        if _SED_WRITE.search(text):
            return frozenset({"write"}), "the sed script writes a file (`w`)"
        return frozenset(), ""
    if role == "jq":
        if _JQ_ENV.search(text):
            return frozenset({"secret"}), "the jq filter prints environment variables (`env`, `$ENV`)"
        return frozenset(), ""
    if "system" in text or "|" in text or "@include" in text or "@load" in text:
        return frozenset(
            {"exec"}
        ), "the awk program may run a command (`system()`, a pipe, `@include`, `@load`)"
    if _AWK_WRITE.search(text):
        return frozenset({"write"}), "the awk program writes a file (`print >`)"
    if "ENVIRON" in text:
        return frozenset({"secret"}), "the awk program reads environment variables (`ENVIRON`)"
    if _AWK_UNKNOWN_READ.search(text):
        return frozenset(
            {"secret"}
        ), "the awk program reads a file its words do not name (`getline <`, `ARGV`)"
    return frozenset(), ""


def _effects(acc: _Acc, effects: frozenset[str] | set[str], label: str, note: str) -> None:
    acc.effects.update(effects)
    acc.notes.extend(_effect_notes(effects, label, note))
    if "write" in effects or "delete" in effects:
        acc.unknown_write = True


_VERBS: Final = {
    "write": "writes files",
    "exec": "runs commands",
    "network": "uses the network",
    "secret": "reveals secrets",
    "delete": "deletes",
}


def _effect_notes(effects: frozenset[str] | set[str], label: str, note: str) -> tuple[str, ...]:
    """What `effects` of the program or option `label` do, for `--explain`."""
    return tuple(f"{label} {_VERBS[e]}" + (f" ({note})" if note else "") for e in sorted(effects))


BUILD_SPEC[:] = [build_spec]  # `Table.get` builds specs with it (knowledge_table.py)
