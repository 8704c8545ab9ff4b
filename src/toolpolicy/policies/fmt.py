"""Canonical formatting of native policies (`policy fmt`): one key order, defaults omitted, YAML/TOML/JSON.

Place in the pipeline: beside the loader; it reads a policy text, validates it against the schema
(so only well-formed policies are formatted) and writes it back canonically:

* keys in the order `version, name, extends, profile, default, mode, glob, tools, permissions
  (deny, ask, allow), rules, hooks, tests`, and a fixed order inside rules, hooks and tests;
* values equal to their default are omitted (`priority: 0`, `timeout: 60`, `default: ask`...),
  except where writing them changes the meaning: the settings of a policy that `extends`
  another (a child's explicit `default: ask` overrides its parent) and tool declarations (an
  explicit `kind: generic` overrides the profile's kind);
* YAML keeps comments, quoting and flow/block styles (ruamel.yaml round-trip): keys are moved,
  never rewritten. TOML is written by tomli-w (comments cannot be kept: `toml_comments()` lets
  the caller refuse to drop them). Lists are never reordered: default rule ids (`rules[2]`) and
  "first rule in file order" reports depend on positions.

Every output is re-parsed and compared with the input document before it is returned (OPA's
`--check-result`): formatting can never change what a policy means.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, MutableMapping
from typing import Any

from ..errors import PolicyError
from ..source import Source
from ..vocabulary import ErrorCode
from .loader import _dotted, syntax_of, validate
from .located import load_text
from .schema import PolicyDocument

SYNTAXES = ("yaml", "toml", "json")
SETTINGS = ("name", "profile", "default", "mode", "glob")
_INHERITED = ("profile", "default", "mode", "glob")  # written even at their default under `extends`
_ABSENT = object()

# (key, default to omit, child canonicaliser); `_ABSENT` = never omitted.
Spec = list[tuple[str, Any, Callable[[Any], Any] | None]]


# ---- the canonical form, on plain dicts and ruamel CommentedMaps alike -----------------------------


def _canonical_top() -> Spec:
    return [
        ("version", _ABSENT, None),
        ("name", None, None),
        ("extends", [], None),
        ("profile", "generic", None),
        ("default", "ask", None),
        ("mode", "default", None),
        ("glob", {}, _glob),
        ("tools", {}, _tools),
        ("permissions", {}, _permissions),
        ("rules", [], _each(_rule)),
        ("hooks", {}, _hooks),
        ("tests", [], _each(_test)),
    ]


def canonicalise(data: Any) -> Any:
    """Reorder keys and drop defaults in place (comments of a ruamel document move with their keys)."""
    keep_settings = bool(data.get("extends"))
    spec: Spec = [
        (key, _ABSENT if keep_settings and key in _INHERITED else default, child)
        for key, default, child in _TOP
    ]
    return _apply(data, spec)


def _apply(node: Any, spec: Spec) -> Any:
    if not isinstance(node, MutableMapping):
        return node
    for key, default, child in spec:
        if key not in node:
            continue
        if child is not None:
            node[key] = child(node[key])
        if default is not _ABSENT and _equal(node[key], default):
            del node[key]
    _reorder(node, [k for k, _, _ in spec])
    return node


def _equal(value: Any, default: Any) -> bool:
    if isinstance(value, bool) or isinstance(default, bool):
        return type(value) is type(default) and value == default
    return value == default


def _reorder(node: MutableMapping[str, Any], order: list[str]) -> None:
    keys = [k for k in order if k in node] + [k for k in node if k not in order]
    if hasattr(node, "move_to_end"):  # ruamel CommentedMap: keep each key's comments attached
        for k in keys:
            node.move_to_end(k)  # type: ignore[attr-defined]
        return
    items = [(k, node[k]) for k in keys]
    node.clear()
    node.update(items)


def _each(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def run(items: Any) -> Any:
        if isinstance(items, list):
            for i, item in enumerate(items):
                items[i] = fn(item)
        return items

    return run


def _glob(node: Any) -> Any:
    return _apply(node, [("case", "sensitive", None)])


def _tools(node: Any) -> Any:
    if isinstance(node, MutableMapping):
        for name in list(node):
            _apply(node[name], [(k, _ABSENT, None) for k in ("kind", "arg", "aliases", "args", "read_only")])
    return node


def _permissions(node: Any) -> Any:
    return _apply(node, [(k, [], None) for k in ("deny", "ask", "allow")])


def _rule(node: Any) -> Any:
    return _apply(
        node,
        [
            ("id", None, None),
            ("decision", _ABSENT, None),
            ("match", _ABSENT, None),
            ("when", None, None),
            ("priority", 0, None),
            ("modes", None, None),
            ("reason", None, None),
        ],
    )


def _hooks(node: Any) -> Any:
    if isinstance(node, MutableMapping):
        for event in list(node):
            node[event] = _each(_group)(node[event])
    return node


def _group(node: Any) -> Any:
    if isinstance(node, MutableMapping) and node.get("matcher") == "":
        del node["matcher"]  # "" and no matcher both select every tool
    return _apply(node, [("matcher", None, None), ("hooks", _ABSENT, _each(_hook))])


_HOOK_KEYS = (
    "type",
    "name",
    "builtin",
    "command",
    "model",
    "schema",
    "prompt",
    "args",
    "timeout",
    "on_error",
    "env",
    "working_dir",
    "options",
)
_HOOK_DEFAULTS: dict[str, Any] = {
    "name": None,
    "builtin": None,
    "schema": None,
    "args": [],
    "timeout": 60,
    "on_error": "warn",
    "env": {},
    "working_dir": None,
    "options": {},
}


def _hook(node: Any) -> Any:
    defaults = dict(_HOOK_DEFAULTS)
    if isinstance(node, MutableMapping) and node.get("type") == "builtin":
        defaults["command"] = None  # docker-agent's spelling of `builtin:`; a command hook needs it
    return _apply(node, [(k, defaults.get(k, _ABSENT), None) for k in _HOOK_KEYS])


def _test(node: Any) -> Any:
    return _apply(
        node,
        [
            ("name", _ABSENT, None),
            ("call", _ABSENT, _call),
            ("expect", _ABSENT, None),
            ("rule", None, None),
            ("reason_contains", None, None),
            ("mode", None, None),
        ],
    )


def _call(node: Any) -> Any:
    return _apply(node, [("tool", _ABSENT, None), ("args", None, None), ("context", {}, None)])


_TOP: Spec = _canonical_top()


# ---- writers ----------------------------------------------------------------------------------------


def format_text(source: Source, *, to: str | None = None) -> str:
    """The canonical text of a native policy (`to`: yaml | toml | json; default: the source's syntax).

    Raises `PolicyError`/`PolicyErrors` for a policy that does not validate, or that cannot be
    written in `to` (TOML has no null).
    """
    syntax = syntax_of(source.name)
    target = to or syntax
    located = load_text(source, syntax)
    original = validate(located)
    if target == "yaml" and syntax == "yaml":
        text = _yaml_round_trip(source)
    else:
        data = canonicalise(_plain(located, source))
        text = _write(data, target, source)
        if not _detected_native(text, target, source) and "profile" not in data:
            # e.g. `{"version": 1, "permissions": {"allow": ["Read(./**)"]}}` reads as Cursor's
            # cli-config: write the profile (a native-only key) so the output loads as native
            data = _with_key(data, "profile", original.profile)
            text = _write(data, target, source)
    _check_result(original, text, target, source)
    return text


def _plain(located: Any, source: Source) -> Any:
    """A deep copy of the document as plain JSON data; a value JSON has no type for (a YAML/TOML date
    or time in a test's arguments) is a located `policy_fmt_error`, never a crash."""
    try:
        return json.loads(json.dumps(located.data))
    except (TypeError, ValueError):
        path, value = _non_json(located.data, ()) or ((), None)
        where = _dotted(path)
        raise PolicyError(
            f"`{where}` is a {type(value).__name__} (`{value}`), which a policy cannot hold",
            code=ErrorCode.FMT_ERROR,
            location=located.loc(path),
            help="quote it to make it a string: policy values are JSON data",
        ) from None


def _non_json(node: Any, path: tuple[Any, ...]) -> tuple[tuple[Any, ...], Any] | None:
    """The path and value of the first value in `node` that JSON cannot write."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else None
    if items is None:
        return None if node is None or isinstance(node, str | int | float) else (path, node)
    for key, value in items:
        found = _non_json(value, (*path, key))
        if found is not None:
            return found
    return None


def _detected_native(text: str, target: str, source: Source) -> bool:
    """Whether a formatted text is detected as a native policy when read back (as `policy check`
    and the hook read it), not as another agent's settings."""
    from .formats import NATIVE, detect_format

    return detect_format(_formatted_name(source, target), text) == NATIVE


def _formatted_name(source: Source, target: str) -> str:
    return source.name + "#formatted" + {"yaml": ".yaml", "toml": ".toml", "json": ".json"}[target]


def _with_key(data: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """`data` with `key` written even where it holds the default, in the canonical order."""
    out = {**data, key: value}
    _reorder(out, [k for k, _, _ in _TOP])
    return out


def _yaml_round_trip(source: Source) -> str:
    yaml = _yaml()
    root = yaml.load(source.text)
    canonicalise(root)
    out = io.StringIO()
    yaml.dump(root, out)
    return out.getvalue()


def _yaml() -> Any:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.allow_duplicate_keys = False
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 4096
    return yaml


def _write(data: Any, target: str, source: Source) -> str:
    if target == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if target == "toml":
        _no_nulls(data, (), source)
        import tomli_w

        return tomli_w.dumps(data)
    out = io.StringIO()
    _yaml().dump(data, out)
    return out.getvalue()


def _no_nulls(node: Any, path: tuple[Any, ...], source: Source) -> None:
    if node is None:
        where = ".".join(str(p) for p in path)
        raise PolicyError(
            f"`{where}` is null, which TOML cannot write",
            code=ErrorCode.FMT_ERROR,
            file=source.name,
            help="remove the key or give it a value",
        )
    if isinstance(node, dict):
        for k, v in node.items():
            _no_nulls(v, (*path, k), source)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _no_nulls(v, (*path, i), source)


def _check_result(original: PolicyDocument, text: str, target: str, source: Source) -> None:
    if not _detected_native(text, target, source):
        raise PolicyError(
            f"formatting `{source.name}` as {target} would write a file that reads as another "
            "agent's settings; nothing was written",
            code=ErrorCode.FMT_ERROR,
            file=source.name,
            help="this is a bug in toolpolicy: please report it with the policy",
        )
    try:
        again = validate(load_text(Source(_formatted_name(source, target), text), target))
    except PolicyError as exc:
        raise PolicyError(
            f"formatting `{source.name}` produced an invalid policy: {exc.message}",
            code=ErrorCode.FMT_ERROR,
            file=source.name,
        ) from None
    if _meaning(again) != _meaning(original):
        raise PolicyError(
            f"formatting `{source.name}` would change its meaning; the file is left as it is",
            code=ErrorCode.FMT_ERROR,
            file=source.name,
            help="this is a bug in toolpolicy: please report it with the policy",
        )


def _meaning(doc: PolicyDocument) -> tuple[Any, ...]:
    """What a document means: every value with defaults filled in, plus the keys whose presence counts."""
    settings = frozenset(doc.model_fields_set & set(SETTINGS)) if doc.extends else frozenset()
    tools = {name: frozenset(t.model_fields_set) for name, t in doc.tools.items()}
    dump = doc.model_dump(mode="json")
    for groups in dump["hooks"].values():
        for group in groups:
            group["matcher"] = group["matcher"] or None  # "" selects every tool, as no matcher does
    return json.dumps(dump, sort_keys=True), settings, sorted(tools.items())


def toml_comments(text: str) -> bool:
    """Whether a TOML text has comments (a `#` outside strings), which re-writing it would drop."""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "#":
            return True
        if text.startswith(('"""', "'''"), i):
            end = text.find(text[i : i + 3], i + 3)
            i = n if end < 0 else end + 3
            continue
        if ch in "\"'":
            i = _string_end(text, i)
            continue
        i += 1
    return False


def _string_end(text: str, i: int) -> int:
    quote = text[i]
    j = i + 1
    while j < len(text) and text[j] not in (quote, "\n"):
        j += 2 if quote == '"' and text[j] == "\\" else 1
    return j + 1
