"""The compiled policy: the contract between the compiler (which builds it) and the runtime.

Everything here is plain, immutable, picklable data. What cannot be pickled (RE2 programs, the
per-tool decision plans, `when` closures) is rebuilt lazily after unpickling, from data kept
here: regex strings and the `when` AST (rebuilding the closures needs neither Lark nor pydantic).
"""

from __future__ import annotations

from _thread import LockType, allocate_lock  # threading itself costs the hook's cold start

from ..vocabulary import EFFECT_RANK
from ..vocabulary.records import Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:  # hooks are imported only by policies that have some (pickle finds the module)
    from typing import Any

    from ..ast.when import Node as WhenNode
    from ..errors import PolicyError
    from ..source import Origin
    from .hooks.types import HookGroup
    from .source_map import SourceMap

PRIMARY = None  # Cond.key for "the primary argument of whatever tool the rule is applied to"
DECISION_WEIGHT = EFFECT_RANK  # allow 1 < ask 2 < deny 3


class ToolSpec(Record):
    """A tool as the policy knows it: kind, primary argument, argument aliases, read-only hint."""

    name: str
    kind: str = "generic"
    arg: str | None = None
    aliases: tuple[tuple[str, str], ...] = ()
    read_only: bool = False
    args: tuple[str, ...] = ()
    workdir: tuple[str, ...] = ()  # arguments naming the directory the call runs in (`runtime/workdir.py`)
    # other arguments naming files the tool reads or writes: (argument, role, *tools), role `read`,
    # `move` (read and removed) or `patch` (a patch text; tools: the one deciding the files it adds,
    # the one deciding the files it changes), `runtime/tool_files.py`
    files: tuple[tuple[str, ...], ...] = ()
    # how the agent reads a leading `~` of a path argument (`kinds/path.py` `_readings`): `home`
    # (expanded, as Claude Code does) or `both`: also a directory named `~` under the cwd, as
    # docker-agent's `filepath.Join` and LangChain's `root_dir / path` read it, or not known
    tilde: str = "home"
    # argument names matched as Go's `encoding/json` matches struct fields (docker-agent): a key
    # that case-folds to a declared argument's name is that argument (`runtime/arg_names.py`)
    fold_keys: bool = False
    # the language of a shell tool's command: `bash`, or `powershell` (`runtime/powershell.py`:
    # its cmdlets and aliases are also read as the bash programs they stand for)
    dialect: str = "bash"


class Cond(Record):
    """One condition of a rule: the argument `key` (PRIMARY = the tool's primary argument)
    must full-match `regex`. `kind_view` says whether the value is seen through the tool's kind
    (shell units, normalised paths, URL hosts) or as its plain text. `exact` marks patterns with
    no wildcard (only those may allow exec-capable shell commands)."""

    key: str | None
    regex: str
    kind_view: bool
    exact: bool
    source: str
    kind: str | None = None  # only for tools of this kind (a specifier on a glob tool part)
    set_regex: str | None = None  # `pattern_set.nul_safe(regex)`, done at compile time (cold start)


class CompiledRule(Record):
    """A rule ready to evaluate; `index` is its position in file order (reports use the first)."""

    index: int  # type: ignore[assignment]  # shadows tuple.index, on purpose (rule.index reads well)
    id: str
    decision: str  # an `Effect` value
    priority: int
    tools: tuple[str, ...]  # exact tool names (already case-folded when the policy is insensitive)
    tool_globs: tuple[str, ...]  # RE2 regexes over tool names
    tool_glob_texts: tuple[str, ...]  # the same globs as written (for the reference matcher)
    conds: tuple[Cond, ...]
    when: WhenNode | None = None  # the checked `when` AST; its closure is built on first use
    when_text: str | None = None
    modes: tuple[str, ...] | None = None
    reason: str | None = None
    location: str | None = None  # `file:line:col`, what a `Decision` shows (`policy.source_map` has more)
    expression: str = ""
    allow_redirection: bool = False  # an allow that also covers the unit's output redirections


class PolicyTestCase(Record):
    name: str
    tool: str
    args: Any
    expect: str
    context: tuple[tuple[str, Any], ...] = ()
    rule: str | None = None
    reason_contains: str | None = None
    mode: str | None = None
    location: str | None = None  # `file:line:col`, for display
    origin: Origin | None = None  # where the test was written (a policy's or a test file's)


# Derived structures (`CompiledPolicy.lazy`) of plain data, pickled with the policy when built:
# a policy loaded from the compiled-policy cache does not derive them again.
PICKLED_LAZY = frozenset({"tool_glob_prefixes"})


class CompiledPolicy:
    """An immutable compiled policy. Build it with `toolpolicy.compiler.compile_policy`.

    Derived structures that cannot be pickled (the index, plans, `when` closures) live in
    `_lazy`, are built on first use and are never pickled. What only reports read (`tests`,
    `warnings`, `source_map`: the texts and where each rule was written) is pickled as one
    nested blob and unpickled on first access, so a hook process that loads the policy from
    the cache to decide one call never builds it (nor imports `toolpolicy.source`).
    """

    __slots__ = (
        "_lazy",
        "_lock",
        "_report",
        "base_dir",
        "commands",
        "default",
        "digest",
        "fold",
        "hooks",
        "mode",
        "name",
        "profile",
        "rules",
        "tool_aliases",
        "tools",
        "write_tool",
    )
    name: str | None
    digest: str
    default: str  # an `Effect` value (plain strings: unpickling never imports enum)
    mode: str  # a `Mode` value
    fold: bool
    profile: str
    tools: dict[str, ToolSpec]
    tool_aliases: dict[str, str]
    rules: tuple[CompiledRule, ...]
    hooks: dict[str, tuple[HookGroup, ...]]
    write_tool: str | None
    base_dir: str
    commands: Any  # command knowledge (kinds.shell_knowledge.Table); None: bundled
    _report: tuple[tuple[PolicyTestCase, ...], tuple[PolicyError, ...], SourceMap] | bytes
    _lazy: dict[str, Any]
    _lock: LockType

    def __init__(
        self,
        name: str | None,
        digest: str,
        default: str,
        mode: str,
        fold: bool,
        profile: str,
        tools: dict[str, ToolSpec],
        tool_aliases: dict[str, str],
        rules: tuple[CompiledRule, ...],
        hooks: dict[str, tuple[HookGroup, ...]],
        write_tool: str | None,
        base_dir: str,
        tests: tuple[PolicyTestCase, ...] = (),
        warnings: tuple[PolicyError, ...] = (),
        source_map: SourceMap | None = None,
        commands: Any = None,
    ) -> None:
        init = object.__setattr__
        init(self, "name", name)
        init(self, "digest", digest)
        init(self, "default", default)
        init(self, "mode", mode)
        init(self, "fold", fold)
        init(self, "profile", profile)
        init(self, "tools", tools)
        init(self, "tool_aliases", tool_aliases)
        init(self, "rules", rules)
        init(self, "hooks", hooks)
        init(self, "write_tool", write_tool)
        init(self, "base_dir", base_dir)
        if source_map is None:
            from .source_map import SourceMap

            source_map = SourceMap()
        init(self, "_report", (tests, warnings, source_map))
        init(self, "commands", commands)  # command knowledge (kinds.shell_knowledge.Table); None: bundled
        init(self, "_lazy", {})
        init(self, "_lock", allocate_lock())

    def __repr__(self) -> str:
        return f"CompiledPolicy(name={self.name!r}, digest={self.digest[:12]!r}, rules={len(self.rules)})"

    @property
    def tests(self) -> tuple[PolicyTestCase, ...]:
        """The policy's own test cases (`tests:`), parents' first."""
        return self._reported()[0]

    @property
    def warnings(self) -> tuple[PolicyError, ...]:
        """The located warnings of loading and compiling it (severity `warning`)."""
        return self._reported()[1]

    @property
    def source_map(self) -> SourceMap:
        """Its sources (the documents, parents first) and where each rule was written."""
        return self._reported()[2]

    def _reported(self) -> tuple[tuple[PolicyTestCase, ...], tuple[PolicyError, ...], SourceMap]:
        report = self._report
        if isinstance(report, bytes):
            report = _load_report(report)
            object.__setattr__(self, "_report", report)
        assert not isinstance(report, bytes)  # INVARIANT: unpickled just above
        return report

    @property
    def sources(self) -> tuple[str, ...]:
        """The names of the policy's documents, parents first."""
        smap = self.source_map
        return tuple(s.name for s in smap.sources[: smap.documents])

    def tool_spec(self, name: str) -> ToolSpec:
        spec = self.tools.get(name)
        return spec if spec is not None else ToolSpec(name)

    def canonical_tool(self, name: str) -> str:
        """Aliases applied (`Task` -> `Agent`); case-folded first when the policy is insensitive.

        In an insensitive policy the alias map's keys and values are folded at compile time.
        """
        if self.fold:
            name = name.casefold()
        return self.tool_aliases.get(name, name)

    def lazy(self, key: str, build: Any) -> Any:
        """A derived structure built once (thread-safe) and never pickled."""
        value = self._lazy.get(key)
        if value is None:
            with self._lock:
                value = self._lazy.get(key)
                if value is None:
                    value = build()
                    self._lazy[key] = value
        return value

    def __getstate__(self) -> dict[str, Any]:
        state = {k: getattr(self, k) for k in self.__slots__ if not k.startswith("_")}
        for key in PICKLED_LAZY:  # plain data derived once; whoever reads it checks its shape
            if key in self._lazy:
                state["lazy:" + key] = self._lazy[key]
        report = self._report
        state["report"] = report if isinstance(report, bytes) else _dump_report(report)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        object.__setattr__(self, "commands", None)  # pickles from before command knowledge
        for k, v in state.items():
            if k in self.__slots__:  # (pickles from before the source map)
                object.__setattr__(self, k, v)
        object.__setattr__(self, "_report", state["report"] if "report" in state else _no_report())
        object.__setattr__(
            self, "_lazy", {k[5:]: v for k, v in state.items() if k[:5] == "lazy:" and k[5:] in PICKLED_LAZY}
        )
        object.__setattr__(self, "_lock", allocate_lock())

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"CompiledPolicy is immutable: cannot set `{name}`")

    def rule_by_id(self, rule_id: str) -> CompiledRule | None:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        return None


# What the report blob may be made of: plain data classes only (see `_load_report`).
_REPORT_MODULES = frozenset(
    {
        "toolpolicy.errors",
        "toolpolicy.runtime.compiled",
        "toolpolicy.runtime.source_map",
        "toolpolicy.source",
        "toolpolicy.vocabulary",
        "toolpolicy.vocabulary.enums",
    }
)


def _dump_report(report: tuple[tuple[PolicyTestCase, ...], tuple[PolicyError, ...], SourceMap]) -> bytes:
    """Pickle the report with the classes' own reductions only: a process-wide registration (Dask
    installs tblib's for every exception class) would name functions `_load_report` refuses."""
    import io
    import pickle

    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {}
    pickler.dump(report)
    return buffer.getvalue()


def _load_report(data: bytes) -> tuple[tuple[PolicyTestCase, ...], tuple[PolicyError, ...], SourceMap]:
    """Unpickle the report blob naming no callable but the classes it is made of.

    The blob travels inside a pickled policy (the hook cache, a Dask task) and is unpickled only
    here, after the policy itself was loaded: like `adapters.cache`'s loader, any other global (a
    planted `os.system`) fails the load and runs nothing.
    """
    import io
    import pickle

    class _ReportUnpickler(pickle.Unpickler):
        def find_class(self, module: str, name: str) -> Any:
            if module in _REPORT_MODULES:
                found = super().find_class(module, name)
                if isinstance(found, type):
                    return found
            raise pickle.UnpicklingError(f"{module}.{name} is not part of a compiled policy's report")

    report = _ReportUnpickler(io.BytesIO(data)).load()
    if not (isinstance(report, tuple) and len(report) == 3):
        raise pickle.UnpicklingError("a compiled policy's report is (tests, warnings, source map)")
    return report  # type: ignore[no-any-return]


def _no_report() -> tuple[tuple[PolicyTestCase, ...], tuple[PolicyError, ...], SourceMap]:
    """The report part of a policy pickled before there was one: no tests, warnings or sources."""
    from .source_map import SourceMap

    return ((), (), SourceMap())
