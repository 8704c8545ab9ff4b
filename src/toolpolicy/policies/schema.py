"""The native policy schema (SPEC 1), one set of pydantic models for YAML and TOML alike.

Every model forbids unknown keys, so a misspelt key is an error with a did-you-mean hint.
Validation is structural only: expressions stay strings here and are parsed by the grammar
layer, with positions taken from the located document.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..vocabulary import POLICY_MODES, GlobCase, Mode
from ..vocabulary import Effect as Verdict  # `Effect` below names a command's side effects

# The Literals are derived from `toolpolicy.vocabulary` (the static spellings are for type checkers;
# tests/test_vocabulary.py checks that the two agree).
if TYPE_CHECKING:
    DecisionName = Literal["allow", "ask", "deny"]
    ModeName = Literal["default", "yolo", "non_interactive"]
    RuleMode = Literal["default", "yolo", "non_interactive", "auto_edit"]
    GlobCaseName = Literal["sensitive", "insensitive"]
else:
    DecisionName = Literal[tuple(e.value for e in Verdict)]
    ModeName = Literal[tuple(m.value for m in POLICY_MODES)]
    RuleMode = Literal[tuple(m.value for m in Mode)]
    GlobCaseName = Literal[tuple(c.value for c in GlobCase)]
KindName = Literal["shell", "path", "url", "generic"]
ProfileName = Literal[
    "generic", "claude-code", "docker-agent", "gemini", "codex", "cursor", "copilot", "cline", "langchain"
]
OnError = Literal["warn", "ignore", "block"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class GlobOptions(_Model):
    case: GlobCaseName = "sensitive"


class ToolDecl(_Model):
    kind: KindName = "generic"
    arg: str | None = Field(default=None, description="the primary argument (e.g. cmd, path, url)")
    aliases: dict[str, str] = Field(default_factory=dict, description="argument aliases: alias -> canonical")
    read_only: bool = False
    args: list[str] = Field(default_factory=list, description="known argument names (for lint)")
    workdir: list[str] = Field(
        default_factory=list,
        description="arguments naming the directory the call runs in (a shell tool's cwd): the call is decided there",
    )


class Permissions(_Model):
    allow: list[str] = Field(default_factory=list)
    ask: list[str] = Field(default_factory=list)
    deny: list[str] = Field(default_factory=list)


class Rule(_Model):
    id: str | None = None
    decision: DecisionName
    match: str | list[str]
    when: str | None = None
    priority: int = 0
    reason: str | None = None
    modes: list[RuleMode] | None = None
    allow_redirection: bool = Field(
        default=False, description="an allow rule that also covers its shell command's output redirections"
    )

    @field_validator("match")
    @classmethod
    def _non_empty(cls, v: str | list[str]) -> str | list[str]:
        if isinstance(v, list) and not v:
            raise ValueError("`match` needs at least one expression")
        return v


class CommandHook(_Model):
    type: Literal["command"]
    command: str
    name: str | None = None
    timeout: float = Field(default=60, gt=0)
    on_error: OnError = "warn"
    env: dict[str, str] = Field(default_factory=dict)
    working_dir: str | None = None


class BuiltinHook(_Model):
    type: Literal["builtin"]
    builtin: str | None = None
    command: str | None = Field(default=None, description="docker-agent spelling of the builtin name")
    name: str | None = None
    args: list[str] = Field(default_factory=list)
    timeout: float = Field(default=60, gt=0)
    on_error: OnError = "warn"
    env: dict[str, str] = Field(default_factory=dict)
    working_dir: str | None = None


class ModelHook(_Model):
    type: Literal["model"]
    model: str
    prompt: str
    schema_: str | None = Field(default=None, alias="schema")
    name: str | None = None
    timeout: float = Field(default=60, gt=0)
    on_error: OnError = "warn"
    options: dict[str, Any] = Field(default_factory=dict)

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, populate_by_name=True)


Hook = Annotated[CommandHook | BuiltinHook | ModelHook, Field(discriminator="type")]


class HookGroup(_Model):
    matcher: str | None = None
    hooks: list[Hook] = Field(min_length=1)


class TestCall(_Model):
    tool: str
    args: Any = None
    context: dict[str, Any] = Field(default_factory=dict)


class PolicyTest(_Model):
    name: str
    call: TestCall
    expect: DecisionName
    rule: str | None = None
    reason_contains: str | None = None
    mode: ModeName | None = None


Role = Literal[
    "data", "read", "write", "script", "code", "command", "at-read", "sed", "awk", "directory", "prefix",
    "tree", "into", "replace", "derive", "range-path", "jq", "make", "module", "key-read", "bind",
]  # fmt: skip
FieldRole = Literal["read", "write", "tree", "mount"]
OperandRole = Literal[
    "data", "read", "write", "output", "script", "code", "command", "subcommand", "at-read", "sed", "awk",
    "prefix", "tree", "into", "data...", "read...", "write...", "output...", "script...", "code...",
    "at-read...", "tree...", "replace", "replace...", "derive", "derive...", "jq", "directory",
]  # fmt: skip
Effect = Literal["write", "exec", "network", "secret", "delete"]


class OptionDecl(_Model):
    """One option of a command (docs/command-knowledge.md)."""

    value: Role | Literal["none"] = Field(default="none", description="what its value is; none: a flag")
    optional: bool = Field(default=False, description="the value is optional (only `--opt=v` / `-ov`)")
    effects: Effect | list[Effect] = Field(default_factory=list, description="what the option makes it do")
    until: list[str] = Field(default_factory=list, description="role command: the words up to one of these")
    instead_of: Role | None = Field(default=None, description="the operand role this option stands in for")
    operands_become: Role | dict[Role | Literal["output"], Role | Literal["output"]] | None = Field(
        default=None, description="`read` operands become this role (a mapping: these roles become those)"
    )
    writes_tree: bool = Field(default=False, description="`into` destinations are written as whole trees")
    reads_tree: bool = Field(default=False, description="`read` operands are read with everything under them")
    mode: bool = Field(
        default=False,
        description="a mode option: the last one given decides (its `operands_become`, or none)",
    )
    suffix: bool = Field(default=False, description="its value is the suffix a compressor adds or strips")
    pair: bool = Field(
        default=False, description="it takes two words, a name then its value (`jq --rawfile NAME FILE`)"
    )
    writes: list[str] = Field(
        default_factory=list,
        description="paths it makes the program write, with all under them, relative to the directory it works in",
    )
    fields: dict[str, FieldRole] = Field(
        default_factory=dict,
        description="a `key=value,...` value: its keys (space separated) -> what they name (`--mount src=HOST`)",
    )
    note: str | None = None


OptionShorthand = Literal[
    "flag",
    "value",
    "optional",
    "data",
    "read",
    "write",
    "script",
    "code",
    "command",
    "at-read",
    "sed",
    "awk",
    "directory",
    "tree",
    "into",
    "make",
    "key-read",
    "bind",
]


class CommandDecl(_Model):
    """What a program does with its argv (docs/command-knowledge.md)."""

    about: str | None = None
    options: dict[str, OptionShorthand | OptionDecl] = Field(default_factory=dict)
    operands: OperandRole | list[OperandRole] = Field(default_factory=list)
    subcommands: dict[str, CommandDecl] = Field(default_factory=dict)
    effects: Effect | list[Effect] = Field(default_factory=list)
    assign: dict[str, Role] = Field(default_factory=dict, description="`key=value` operands (dd's `of=`)")
    operand_effects: dict[str, Effect | list[Effect]] = Field(default_factory=dict)
    posix: bool = Field(default=False, description="options end at the first operand")
    assignments: bool = Field(default=False, description="`NAME=VALUE` operands before the command")
    inherit: bool = Field(default=False, description="the options are valid after a subcommand too")
    abbrev: bool = Field(default=True, description="unambiguous prefixes of long options are accepted")
    unknown: Literal["flag", "exec"] = Field(default="flag", description="what an unlisted option means")
    writes_tree: bool = Field(default=False, description="`into` destinations are written as whole trees")
    reads_tree: bool = Field(default=False, description="`read` operands are read with everything under them")
    modules: dict[str, CommandDecl] = Field(
        default_factory=dict, description="role module: the module named -> its argv's entry (`python -m`)"
    )
    single_dash: bool = Field(
        default=False,
        description="options are whole words, `-name` or `--name`, `=value` or the next word (Go)",
    )
    pflag: bool = Field(
        default=False,
        description="a short option then `=` takes the rest of the word as its value (`-v=V`: Go's pflag)",
    )


class PolicyDocument(_Model):
    """A native policy file (SPEC 1)."""

    version: Literal[1]
    name: str | None = None
    extends: list[str] = Field(default_factory=list)
    profile: ProfileName = "generic"
    default: DecisionName = "ask"
    mode: ModeName = "default"
    glob: GlobOptions = Field(default_factory=GlobOptions)
    tools: dict[str, ToolDecl] = Field(default_factory=dict)
    permissions: Permissions = Field(default_factory=Permissions)
    rules: list[Rule] = Field(default_factory=list)
    hooks: dict[str, list[HookGroup]] = Field(default_factory=dict)
    tests: list[PolicyTest] = Field(default_factory=list)
    commands: dict[str, CommandDecl] = Field(default_factory=dict, description="command knowledge")


TOP_LEVEL_KEYS = tuple(PolicyDocument.model_fields)


def json_schema() -> dict[str, Any]:
    """The JSON Schema of the native format (for editors: `policy schema`)."""
    schema = PolicyDocument.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://toolpolicy.dev/schema/policy-v1.json"
    schema["title"] = "toolpolicy policy (version 1)"
    return schema
