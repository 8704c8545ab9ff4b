"""Hypothesis strategies for fuzzing toolpolicy: native policies, calls that hit their rules, raw values.

A generated policy is kept as a `PolicySpec`: its rules still know the *fragments* their globs
were made of, so that `calls_for(spec)` can build calls whose arguments match a rule (each
fragment drawn as one of the texts it matches), narrowly miss it, or have nothing to do with it.
That is what makes the differential test meaningful: random calls against random globs almost
never match anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

# --------------------------------------------------------------------------- glob fragments


@dataclass(frozen=True)
class Frag:
    """A piece of a plain glob and texts it matches (`samples`)."""

    pattern: str
    samples: tuple[str, ...]


LITERALS = [Frag(c, (c,)) for c in ("a", "b", "rm", "git", " ", "/", ".", "-", "_", "é", "x1")]
WILD = [
    Frag("*", ("", "a", "zz", "a/b", " && rm x", "; ls", "\n", "../", "$(id)", "A")),
    Frag("?", ("a", "/", " ", "é")),
    Frag("[ab]", ("a", "b")),
    Frag("[^a]", ("b", "/", "Z")),
    Frag("[a-c]", ("a", "c")),
    Frag("\\*", ("*",)),
    Frag("\\?", ("?",)),
]
FRAGS = st.sampled_from(LITERALS + WILD)
GLOBS = st.lists(FRAGS, min_size=1, max_size=6)

TOOL_PATTERNS = [
    Frag("probe", ("probe",)),
    Frag("shell", ("shell",)),
    Frag("read_file", ("read_file",)),
    Frag("write_file", ("write_file",)),
    Frag("fetch", ("fetch",)),
    Frag("mcp:gh:issue", ("mcp:gh:issue",)),
    Frag("tool_*", ("tool_", "tool_a", "tool_b")),
    Frag("*_file", ("read_file", "write_file", "_file")),
    Frag("read_*", ("read_file", "read_")),
    Frag("*", ("probe", "shell", "anything")),
    Frag("tool_?", ("tool_a", "tool_b")),
    # non-ASCII names whose full case folding differs from the simple one (ß -> ss, ſ -> s)
    Frag("straß*", ("straße", "STRASSE", "straẞe_x")),
    Frag("t[ſ]x", ("tſx", "Tsx", "tSx")),
]
KEYS = ("v", "w", "cmd", "path", "url", "command")
WHENS = (
    'args.v == "a"',
    "has(args.v)",
    'args.v.startsWith("a")',
    "args.n > 3",
    "size(args.v) > 2",
    'args.path.endsWith(".env")',
    'args.v.matches("^a+b")',
    'glob(args.v, "a*")',
    'tool == "probe"',
    "args.missing.x == 1",
    'lower(args.v).contains("x")',
    '!has(args.w) || args.w != "ok"',
)
DECISIONS = ("allow", "ask", "deny")
MODES = ("default", "yolo", "non_interactive")


@dataclass(frozen=True)
class Cond:
    key: str
    frags: tuple[Frag, ...]

    @property
    def text(self) -> str:
        return f"{self.key}={''.join(f.pattern for f in self.frags)}"


@dataclass(frozen=True)
class Expr:
    tool: Frag
    conds: tuple[Cond, ...]

    @property
    def text(self) -> str:
        return self.tool.pattern + "".join(":" + c.text for c in self.conds)


@dataclass(frozen=True)
class RuleSpec:
    decision: str
    exprs: tuple[Expr, ...]
    long_form: bool = False
    priority: int = 0
    when: str | None = None
    modes: tuple[str, ...] | None = None


@dataclass
class PolicySpec:
    rules: list[RuleSpec]
    default: str = "ask"
    mode: str = "default"
    fold: bool = False
    tools: dict[str, Any] = field(default_factory=dict)

    def document(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"version": 1, "default": self.default, "mode": self.mode}
        if self.fold:
            doc["glob"] = {"case": "insensitive"}
        if self.tools:
            doc["tools"] = self.tools
        perms: dict[str, list[str]] = {}
        rules: list[dict[str, Any]] = []
        for r in self.rules:
            if not r.long_form:
                perms.setdefault(r.decision, []).append(r.exprs[0].text)
                continue
            rule: dict[str, Any] = {"decision": r.decision, "match": [e.text for e in r.exprs]}
            if r.priority:
                rule["priority"] = r.priority
            if r.when:
                rule["when"] = r.when
            if r.modes:
                rule["modes"] = list(r.modes)
            rules.append(rule)
        if perms:
            doc["permissions"] = perms
        if rules:
            doc["rules"] = rules
        return doc


@st.composite
def exprs(draw: st.DrawFn) -> Expr:
    tool = draw(st.sampled_from(TOOL_PATTERNS))
    keys = draw(st.lists(st.sampled_from(KEYS), max_size=2, unique=True))
    return Expr(tool, tuple(Cond(k, tuple(draw(GLOBS))) for k in keys))


@st.composite
def rule_specs(draw: st.DrawFn, decision: str | None = None) -> RuleSpec:
    decision = decision or draw(st.sampled_from(DECISIONS))
    if not draw(st.booleans()):
        return RuleSpec(decision, (draw(exprs()),))
    return RuleSpec(
        decision,
        tuple(draw(st.lists(exprs(), min_size=1, max_size=2))),
        long_form=True,
        priority=draw(st.integers(-1, 3)),
        when=draw(st.none() | st.sampled_from(WHENS)),
        modes=draw(
            st.none() | st.lists(st.sampled_from(MODES), min_size=1, max_size=2, unique=True).map(tuple)
        ),
    )


TOOL_DECLS = {
    "probe": {"kind": "generic", "arg": "v"},
    "tool_a": {"kind": "shell", "arg": "cmd"},
    "tool_b": {"kind": "path", "arg": "path", "read_only": True},
}


@st.composite
def policy_specs(draw: st.DrawFn, max_rules: int = 6) -> PolicySpec:
    rules = draw(st.lists(rule_specs(), min_size=1, max_size=max_rules))
    tools = draw(st.sampled_from([{}, TOOL_DECLS]))
    return PolicySpec(
        rules,
        default=draw(st.sampled_from(DECISIONS)),
        mode=draw(st.sampled_from(MODES)),
        fold=draw(st.booleans()),
        tools=tools,
    )


# --------------------------------------------------------------------------- calls


EXTRA_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**6),
    st.sampled_from(["", "a", "ok", "x", "../.env", "rm -rf /"]),
    st.lists(st.sampled_from(["a", "b", 1]), max_size=3),
)


@st.composite
def call_for(draw: st.DrawFn, spec: PolicySpec) -> tuple[str, dict[str, Any]]:
    """A call that hits a rule of `spec` (most of the time), near-misses it, or is unrelated."""
    rule = draw(st.sampled_from(spec.rules))
    expr = draw(st.sampled_from(rule.exprs))
    tool = draw(st.sampled_from(expr.tool.samples))
    args: dict[str, Any] = {}
    for cond in expr.conds:
        value = "".join(draw(st.sampled_from(f.samples)) for f in cond.frags)
        how = draw(st.sampled_from(["hit", "hit", "hit", "upper", "chop", "prefix"]))
        if how == "upper":
            value = value.upper()
        elif how == "chop":
            value = value[:-1]
        elif how == "prefix":
            value = "ls && " + value
        args[cond.key] = value
    for key in draw(st.lists(st.sampled_from((*KEYS, "n", "missing")), max_size=2, unique=True)):
        args.setdefault(key, draw(EXTRA_VALUES))
    return tool, args


@st.composite
def policy_and_calls(draw: st.DrawFn, n: int = 4) -> tuple[PolicySpec, list[tuple[str, dict[str, Any]]]]:
    spec = draw(policy_specs())
    return spec, [draw(call_for(spec)) for _ in range(n)]


# --------------------------------------------------------------------------- raw values

# Lone surrogates are left out here on purpose: tests/security (unicode_case) and
# `test_lone_surrogates_never_reach_the_internal_error_path` cover them on their own.
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
HOSTILE_TEXT = st.one_of(
    TEXT,
    st.sampled_from(
        [
            "\x00",
            "rm -rf /",
            "$(rm x)",
            "`id`",
            "a\nb",
            "../../etc/passwd",
            "https://evil.com@x/",
            "\u202e",
            "\ufeff",
            "ｒｍ",
            "*",
            "\\",
            "'",
            '"',
        ]
    ),
)


def deep(depth: int, kind: str = "list") -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value] if kind == "list" else {"k": value}
    return value


JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    HOSTILE_TEXT,
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)
SPECIAL_VALUES = st.one_of(
    st.integers(500, 20_000).map(deep),
    st.integers(500, 20_000).map(lambda d: deep(d, "dict")),
    st.integers(9_000, 1_200_000).map(lambda n: "a" * n),
    st.integers(9_000, 60_000).map(lambda n: "ls && " * (n // 6) + "rm -rf /"),
)
CALL_TOOLS = st.one_of(
    st.sampled_from(
        [
            "Bash",
            "Read",
            "Edit",
            "Write",
            "WebFetch",
            "shell",
            "read_file",
            "fetch",
            "probe",
            "mcp__gh__x",
            "",
        ]
    ),
    TEXT,
)
CALL_ARGS = st.one_of(
    st.dictionaries(
        st.sampled_from(["command", "cmd", "file_path", "path", "url", "v", "description"]) | TEXT,
        JSON_VALUES | SPECIAL_VALUES,
        max_size=4,
    ),
    JSON_VALUES,
)
