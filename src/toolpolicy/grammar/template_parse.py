"""Parse model-hook prompt templates (SPEC 6): text -> `toolpolicy.ast.template.Template`, or an `ExprError`.

This is the only module that runs `template.lark`. It runs at policy load time: syntax errors,
unknown fields (`.ToolNmae`), unknown functions, wrong argument counts and statically wrong
argument types (`truncate 10 .ToolInput`) all become `ExprError`s with a span in template
coordinates, which the compiler shifts into the policy file. Importing this module registers
`parse_template` with `toolpolicy.ast.template`, for hook specs built by hand.
"""

from __future__ import annotations

import re
from typing import Any

from lark import Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from ..ast import ExprError
from ..ast.template import (
    FUNCTIONS,
    GO_FIELDS,
    Action,
    Call,
    Expr,
    Field,
    If,
    Literal,
    Node,
    Template,
    Text,
    register_parser,
    static_kind,
)
from ..errors import did_you_mean
from ..vocabulary import ErrorCode
from . import end_of, parse, start_of

MAX_LENGTH = 100_000  # characters in one prompt template
MAX_DEPTH = 64  # nested if blocks and parentheses
LIMIT_CODE = ErrorCode.LIMIT_EXCEEDED
_TRIM = " \t\r\n"

_GO_ACTIONS = ("range", "with", "define", "template", "block", "break", "continue")
_SUBSET_HELP = "the template subset has fields, pipelines, functions, if/else/end and comments"
_OPERANDS = {"FIELD", "DOT", "STRING", "RAW_STRING", "NUMBER", "TRUE", "FALSE", "NIL", "IDENT", "LPAR"}


def parse_template(text: str) -> Template:
    """Parse a prompt template; raises `ExprError` (never a Lark exception)."""
    tree = parse(
        "template.lark",
        text,
        what="prompt template",
        max_len=MAX_LENGTH,
        max_depth=MAX_DEPTH,
        level=lambda node: node.data in ("paren", "if_block"),
        syntax_error=_syntax_error,
    )
    return _Builder(text, tree).build()


# ---- syntax errors


def _token(child: Token | Tree) -> Token:
    """A child the grammar guarantees to be a token."""
    assert isinstance(child, Token)
    return child


def _syntax_error(exc: UnexpectedInput, text: str) -> ExprError:
    accepts = _accepts(exc)
    if isinstance(exc, UnexpectedCharacters):
        return _bad_character(text, exc.pos_in_stream or 0, accepts)
    assert isinstance(exc, UnexpectedToken)
    token = exc.token
    if token.type == "$END":
        return _bad_end(text, accepts, _value_stack(exc))
    if token.type == "TEXT":  # the root lexer's fallback inside an action: a stray character
        return _bad_character(text, start_of(token), accepts)
    if token.type in ("ELSE_OPEN", "END_OPEN"):
        return _stray_keyword(token, _value_stack(exc))
    if token.type in ("RDELIM", "RTRIM", "_PIPE", "_RPAR") and accepts & _OPERANDS:
        return _missing_value(start_of(token), end_of(token))
    if token.type in ("RDELIM", "RTRIM") and "_RPAR" in accepts:
        opener = _last_token(_value_stack(exc), "LPAR")
        return ExprError(
            "unclosed parenthesis",
            start_of(opener) if opener is not None else start_of(token),
            start_of(token),
            help="close it with `)` before `}}`",
        )
    shown = str(token) if len(token) <= 30 else str(token)[:29] + "…"
    return ExprError(f"unexpected `{shown}` in action", start_of(token), end_of(token))


def _accepts(exc: UnexpectedInput) -> set[str]:
    parser = getattr(exc, "interactive_parser", None)
    try:
        return set(parser.accepts()) if parser is not None else set(getattr(exc, "expected", None) or ())
    except LarkError:
        return set()


def _value_stack(exc: UnexpectedInput) -> list[Any]:
    parser = getattr(exc, "interactive_parser", None)
    return list(parser.parser_state.value_stack) if parser is not None else []


def _stray_keyword(token: Token, stack: list[Any]) -> ExprError:
    """`{{ end }}`/`{{ else }}` outside an if: usually closing an unsupported `range`/`with`."""
    for item in stack:
        for sub in item.iter_subtrees_topdown() if isinstance(item, Tree) else ():
            name = sub.children[0] if sub.data == "ident" else None
            if isinstance(name, Token) and str(name) in _GO_ACTIONS:
                return _unknown_function(name)
    word = "else" if token.type == "ELSE_OPEN" else "end"
    if word == "else" and _last_token(stack, "IF_OPEN") is not None:
        return ExprError(
            "`{{ else }}` after the final `{{ else }}` of this `{{ if }}`",
            start_of(token),
            end_of(token),
            help="use `{{ else if ... }}` for another branch",
        )
    return ExprError(f"`{{{{ {word} }}}}` without a matching `{{{{ if }}}}`", start_of(token), end_of(token))


def _missing_value(start: int, end: int) -> ExprError:
    return ExprError(
        "missing value for command",
        start,
        end,
        help="write a field such as `.ToolName`, a literal or a function call",
    )


def _bad_character(text: str, pos: int, accepts: set[str]) -> ExprError:
    char = text[pos] if pos < len(text) else ""
    if accepts & _OPERANDS and re.match(r"[ \t\r\n]*(-?\}\}|\|)", text[pos:]):
        return _missing_value(pos, pos + 1)
    opener = text.rfind("{{", 0, pos + 1)
    if char == "/" and text.startswith("/*", pos):
        return ExprError(
            "unclosed comment",
            opener if opener >= 0 else pos,
            len(text),
            help="a comment is written `{{/* ... */}}`, with no space before `/*` or after `*/`",
        )
    if char == "$":
        return ExprError(
            "template variables are not supported",
            pos,
            pos + 1,
            help="use `.` fields such as `.ToolInput`; " + _SUBSET_HELP,
        )
    return ExprError(f"unexpected character `{char}` in action", pos, pos + 1)


def _bad_end(text: str, accepts: set[str], stack: list[Any]) -> ExprError:
    end = len(text)
    if "END_OPEN" in accepts and not accepts & {"RDELIM", "RTRIM"}:
        opener = _last_token(stack, "IF_OPEN")
        start = start_of(opener) if opener is not None else end
        return ExprError(
            "missing `{{ end }}` for this `{{ if }}`",
            start,
            end_of(opener) if opener is not None else end,
            help="close the block with `{{ end }}`",
        )
    start = text.rfind("{{")
    return ExprError(
        "unclosed action",
        max(start, 0),
        end,
        help="close the action with `}}`",
    )


def _last_token(stack: list[Any], kind: str) -> Token | None:
    for item in reversed(stack):
        if isinstance(item, Token) and item.type == kind:
            return item
    return None


# ---- tree -> runtime AST


def _tokens_in_order(tree: Tree) -> list[Token]:
    out: list[Token] = []
    stack: list[Any] = [tree]
    while stack:
        item = stack.pop()
        if isinstance(item, Token):
            out.append(item)
        else:
            stack.extend(reversed(item.children))
    return out


def _trims_left(token: Token) -> bool:
    """Does this token start with a `{{- ` marker (trimming the text before it)?"""
    return token.type in ("LTRIM", "IF_OPEN", "ELSE_OPEN", "END_OPEN", "COMMENT") and token.startswith("{{-")


def _trims_right(token: Token) -> bool:
    return token.type in ("RTRIM", "COMMENT") and token.endswith("-}}")


def _trimmed_texts(tree: Tree) -> dict[int, str]:
    """TEXT token start -> its text after the neighbouring trim markers did their work."""
    tokens = _tokens_in_order(tree)
    out: dict[int, str] = {}
    for i, tok in enumerate(tokens):
        if tok.type != "TEXT":
            continue
        value = str(tok)
        if i + 1 < len(tokens) and _trims_left(tokens[i + 1]):
            value = value.rstrip(_TRIM)
        if i > 0 and _trims_right(tokens[i - 1]):
            value = value.lstrip(_TRIM)
        out[start_of(tok)] = value
    return out


class _Builder:
    """Turns the Lark tree into runtime nodes, checking fields, functions and arities."""

    def __init__(self, text: str, tree: Tree) -> None:
        self.text = text
        self.tree = tree
        self.texts = _trimmed_texts(tree)
        self.fields: set[str] = set()

    def build(self) -> Template:
        nodes = self._parts(self.tree.children)
        return Template(self.text, nodes, frozenset(self.fields))

    def _parts(self, children: list[Any]) -> tuple[Node, ...]:
        out: list[Node] = []
        for child in children:
            node = self._part(child)
            if node is not None:
                out.append(node)
        return tuple(out)

    def _part(self, tree: Tree) -> Node | None:
        if tree.data == "text":
            value = self.texts[start_of(tree.children[0])]
            return Text(value) if value else None
        if tree.data == "comment":
            return None
        if tree.data == "action":
            return Action(self._pipeline(tree.children[1]))
        return self._if(tree)

    def _if(self, tree: Tree) -> If:
        _open, cond, _close, body, *rest = tree.children
        branches = [(self._pipeline(cond), self._parts(body.children))]
        otherwise: tuple[Node, ...] = ()
        for child in rest:
            if isinstance(child, Tree) and child.data == "elif_branch":
                _open, pipe, _c, elif_body = child.children
                branches.append((self._pipeline(pipe), self._parts(elif_body.children)))
            elif isinstance(child, Tree) and child.data == "else_branch":
                otherwise = self._parts(child.children[-1].children)
        return If(tuple(branches), otherwise)

    # -- pipelines and commands

    def _pipeline(self, tree: Tree) -> Expr:
        value: Expr | None = None
        for stage, command in enumerate(tree.children, start=1):
            value = self._command(command, value, stage)
        assert value is not None
        return value

    def _command(self, tree: Tree, piped: Expr | None, stage: int) -> Expr:
        head, *rest = tree.children
        if head.data == "ident":
            if str(head.children[0]) not in FUNCTIONS:  # before the arguments: the name is the news
                raise _unknown_function(_token(head.children[0]))
            args = [self._operand(c) for c in rest]
            if piped is not None:
                args.append(piped)
            end = tree.meta.end_pos if piped is None else max(tree.meta.end_pos, piped.end)
            return self._call(_token(head.children[0]), args, end)
        if piped is not None:
            raise ExprError(
                f"pipeline stage {stage} is not a function call",
                tree.meta.start_pos,
                tree.meta.end_pos,
                help="only a function can follow `|`, as in `.ToolInput | toJSON`",
            )
        if rest:
            raise ExprError(
                f"`{self._src(head)}` is not a function, so it cannot take arguments",
                rest[0].meta.start_pos,
                tree.meta.end_pos,
                help="put the function name first, as in `truncate 100 .Cwd`",
            )
        return self._operand(head)

    def _operand(self, tree: Tree) -> Expr:
        kind = tree.data
        if kind == "paren":
            return self._pipeline(tree.children[1])
        if kind == "ident":
            tok = _token(tree.children[0])
            return self._call(tok, [], end_of(tok))
        token = _token(tree.children[0])
        if kind in ("field", "dot"):
            return self._field(token)
        return Literal(self._literal(kind, token), start_of(token), end_of(token))

    def _src(self, tree: Tree) -> str:
        return self.text[tree.meta.start_pos : tree.meta.end_pos]

    # -- functions

    def _call(self, name_tok: Token, args: list[Expr], end: int) -> Call:
        name = str(name_tok)
        func = FUNCTIONS.get(name)
        if func is None:
            raise _unknown_function(name_tok)
        call = Call(name, tuple(args), start_of(name_tok), end)
        _check_arity(call)
        _check_params(call, self.text)
        return call

    # -- fields

    def _field(self, token: Token) -> Field:
        if token.type == "DOT":
            self.fields.add(".")
            return Field(None, (), start_of(token), end_of(token))
        root, *path = str(token)[1:].split(".")
        if root not in GO_FIELDS:
            raise _unknown_field(root, token)
        kind = GO_FIELDS[root][1]
        if path and kind in ("string", "int", "bool"):
            raise ExprError(
                f"can't evaluate field `{path[0]}` in type {kind}",
                start_of(token) + 1 + len(root),
                end_of(token),
                help=f"`.{root}` is a {kind}; only maps and structs have fields",
            )
        self.fields.add(root)
        return Field(root, tuple(path), start_of(token), end_of(token))

    # -- literals

    def _literal(self, kind: str, token: Token) -> Any:
        if kind == "true":
            return True
        if kind == "false":
            return False
        if kind == "nil":
            return None
        if kind == "number":
            return _number(token)
        if kind == "raw_string":
            return str(token)[1:-1]
        return _go_string(token)


def _unknown_function(tok: Token) -> ExprError:
    name = str(tok)
    if name in ("else", "end"):
        return ExprError(
            f"`{{{{ {name} }}}}` without a matching `{{{{ if }}}}`",
            start_of(tok),
            end_of(tok),
        )
    if name in _GO_ACTIONS:
        return ExprError(
            f"the `{name}` action is not supported",
            start_of(tok),
            end_of(tok),
            code=ErrorCode.UNSUPPORTED,
            help=_SUBSET_HELP,
        )
    folded = {f.lower(): f for f in FUNCTIONS}
    if name.lower() in folded:
        hint: str | None = f"did you mean `{folded[name.lower()]}`?"
    else:
        hint = did_you_mean(name, FUNCTIONS)
    hint = hint or ("the functions are " + ", ".join(f"`{f}`" for f in FUNCTIONS))
    return ExprError(f"function `{name}` not defined", start_of(tok), end_of(tok), help=hint)


def _unknown_field(root: str, token: Token) -> ExprError:
    start, end = start_of(token), start_of(token) + 1 + len(root)
    by_json = {key: go for go, (key, _k) in GO_FIELDS.items()}
    folded = {go.lower(): go for go in GO_FIELDS}
    if root in by_json:
        hint = f"`{root}` is the JSON name; templates use the Go name `.{by_json[root]}`"
    elif root.lower().replace("_", "") in folded:
        hint = f"did you mean `.{folded[root.lower().replace('_', '')]}`?"
    else:
        hint = did_you_mean(root, GO_FIELDS) or ""
        hint = (
            hint.replace("`", "`.", 1)
            if hint
            else "the fields are the Go names of the payload, such as `.ToolName`"
        )
    return ExprError(f"unknown field `.{root}`", start, end, help=hint)


def _check_arity(call: Call) -> None:
    func = FUNCTIONS[call.name]
    got = len(call.args)
    if got < func.min_args or (func.max_args is not None and got > func.max_args):
        want = str(func.min_args) if func.min_args == func.max_args else f"at least {func.min_args}"
        if func.max_args is not None and func.min_args != func.max_args:
            want = f"{func.min_args} to {func.max_args}"
        raise ExprError(
            f"wrong number of arguments for `{call.name}`: want {want}, got {got}",
            call.start,
            call.end,
            help=_usage(call.name),
        )


def _check_params(call: Call, text: str) -> None:
    """Reject arguments whose Go kind is known to be wrong (Go would fail at execution)."""
    params = FUNCTIONS[call.name].params
    for want, arg in zip(params, call.args):
        have = static_kind(arg)
        if want == "any" or have == "any" or _fits(want, have, arg):
            continue
        shown = " ".join(text[arg.start : arg.end].split())
        raise ExprError(
            f"`{call.name}` needs {'an integer' if want == 'int' else 'a string'} here, "
            f"but `{shown}` is {_article(have)}",
            arg.start,
            arg.end,
            help=_usage(call.name),
        )


def _fits(want: str, have: str, arg: Expr) -> bool:
    if want == have:
        return True
    return want == "int" and have == "float" and isinstance(arg, Literal) and float(arg.value).is_integer()


def _article(kind: str) -> str:
    return {"int": "an integer", "map": "a map", "any": "a value", "nil": "nil"}.get(kind, f"a {kind}")


def _usage(name: str) -> str | None:
    return {
        "truncate": "usage: `truncate 2000 (.ToolInput | toJSON)` (a byte count, then a string)",
        "toJSON": "usage: `.ToolInput | toJSON` or `toJSON .ToolInput`",
    }.get(name)


# ---- literal decoding

_GO_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    '"': '"',
}
_ESCAPE_RE = re.compile(
    r"\\(?:([abfnrtv\\\"])|x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|([0-7]{3}))"
)


def _go_string(token: Token) -> str:
    """Decode a Go interpreted string literal; a bad escape is an error at its position."""
    body = str(token)[1:-1]
    out: list[str] = []
    pos = 0
    while True:
        i = body.find("\\", pos)
        if i < 0:
            out.append(body[pos:])
            return "".join(out)
        out.append(body[pos:i])
        match = _ESCAPE_RE.match(body, i)
        if match is None:
            at = start_of(token) + 1 + i
            raise ExprError("unknown escape sequence in string", at, at + 2)
        out.append(_escape_value(match, start_of(token) + 1 + i))
        pos = match.end()


def _escape_value(match: re.Match[str], at: int) -> str:
    simple, hex2, u4, u8, octal = match.groups()
    if simple:
        return _GO_ESCAPES[simple]
    code = int(octal, 8) if octal else int(hex2 or u4 or u8, 16)
    if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        raise ExprError("escape sequence is an invalid Unicode code point", at, at + len(match.group()))
    return chr(code)


def _number(token: Token) -> int | float:
    text = str(token)
    if re.fullmatch(r"-?0[xX][0-9a-fA-F]+", text):
        return int(text, 16)
    if re.fullmatch(r"-?[0-9]+", text):
        return int(text, 10)
    return float(text)


register_parser(parse_template)

__all__ = ["parse_template"]
