"""Model-hook prompt templates: the Go text/template subset, parsed at load time, rendered at run time."""

from __future__ import annotations

import pytest

from toolpolicy.ast import ExprError
from toolpolicy.compiler.model_spec import validate_model_spec
from toolpolicy.grammar.template_parse import parse_template
from toolpolicy.runtime.hooks.template import (
    GO_FIELDS,
    TemplateError,
    go_float,
    snake_case,
    to_json,
    truncate,
)
from toolpolicy.runtime.hooks.template import (
    render as render_template,
)

PAYLOAD = {
    "session_id": "sess-1",
    "cwd": "/home/dev/project",
    "hook_event_name": "pre_tool_use",
    "agent_name": "root",
    "tool_name": "shell",
    "tool_use_id": "call_7",
    "tool_input": {"cmd": "ls <dir> && rm -rf /", "timeout": 30, "nested": {"a": [1, 2.5, None]}},
    "iteration": 3,
    "tool_error": False,
    "usage": {"input_tokens": 10, "output_tokens": 2},
    "steering_messages": ["stop", "go"],
}


def render(text: str, payload: dict | None = None) -> str:
    return render_template(parse_template(text), PAYLOAD if payload is None else payload)


# ---- rendering: one case per row (template, expected output)

RENDER_CASES = [
    ("plain text, no actions", "plain text, no actions"),
    ("{{ .ToolName }}", "shell"),
    ("{{.ToolName}}", "shell"),
    ("tool={{ .ToolName }} id={{ .ToolUseID }}", "tool=shell id=call_7"),
    ("{{ .SessionID }} {{ .Cwd }} {{ .HookEventName }}", "sess-1 /home/dev/project pre_tool_use"),
    ("{{ .AgentName }}#{{ .Iteration }}", "root#3"),
    ("{{ .ToolInput.cmd }}", "ls <dir> && rm -rf /"),
    ("{{ .ToolInput.nested.a }}", "[1 2.5 <nil>]"),
    ("{{ .ToolInput.missing }}", "<no value>"),
    ("{{ .ToolInput.missing.deeper }}", "<no value>"),
    (
        "{{ .ToolInput | toJSON }}",
        '{"cmd":"ls \\u003cdir\\u003e \\u0026\\u0026 rm -rf /","nested":{"a":[1,2.5,null]},"timeout":30}',
    ),
    ("{{ toJSON .ToolInput.nested }}", '{"a":[1,2.5,null]}'),
    ("{{ truncate 12 (.ToolInput | toJSON) }}", '{"cmd":"ls \\…'),
    ("{{ .ToolInput | toJSON | truncate 7 }}", '{"cmd":…'),
    ("{{ truncate 4 .Cwd }}", "/hom…"),
    ("{{ truncate 0 .Cwd }}", "/home/dev/project"),
    ("{{ truncate 100 .Cwd }}", "/home/dev/project"),
    ("{{ .ToolInput }}", "map[cmd:ls <dir> && rm -rf / nested:map[a:[1 2.5 <nil>]] timeout:30]"),
    ("{{ .SteeringMessages }}", "[stop go]"),
    ("{{ .ToolError }}", "false"),
    # absent fields: Go zero values of their types
    ("[{{ .Prompt }}]", "[]"),
    ("[{{ .NewMaxIterations }}]", "[0]"),
    ("[{{ .ToolResponse }}]", "[<no value>]"),
    ("[{{ .Messages }}]", "[[]]"),
    ("[{{ .Cost }}]", "[<nil>]"),
    ("[{{ .ToolResponse | toJSON }}]", "[null]"),
    # struct-typed fields take Go sub-field names (then the JSON name)
    ("{{ .Usage.InputTokens }}/{{ .Usage.output_tokens }}", "10/2"),
    # literals
    ('{{ "a\\tb\\u00e9" }}', "a\tb\u00e9"),
    ("{{ `raw \\n` }}", "raw \\n"),
    ("{{ 42 }} {{ -3 }} {{ 1.5 }} {{ 0x1F }} {{ true }}", "42 -3 1.5 31 true"),
    ('{{ "}}" }}', "}}"),
    ("a { b } c }}", "a { b } c }}"),
    # trim markers and comments
    ("a  {{- .ToolName -}}  b", "ashellb"),
    ("a\n\t{{- .ToolName }} b", "ashell b"),
    ("{{/* a comment */}}x", "x"),
    ("x  {{- /* trimmed comment */ -}}  y", "xy"),
    ("{{-3}}", "-3"),
    # functions
    ("{{ len .ToolInput }} {{ len .Cwd }} {{ len .SteeringMessages }}", "3 17 2"),
    ('{{ index .ToolInput "cmd" }}', "ls <dir> && rm -rf /"),
    ("{{ index .SteeringMessages 1 }}", "go"),
    ('{{ eq .ToolName "shell" }} {{ ne .ToolName "shell" }} {{ not .ToolError }}', "true false true"),
    ('{{ eq .ToolName "a" "b" "shell" }}', "true"),
    ("{{ lt .Iteration 5 }} {{ ge .Iteration 5 }}", "true false"),
    ('{{ and .ToolName .Prompt }}|{{ or .Prompt "fallback" }}', "|fallback"),
    ('{{ print "x" 1 2 "y" }}', "x1 2y"),
    ("{{ (.ToolInput | toJSON) | len }}", "91"),
    # if / else if / else
    ('{{ if eq .ToolName "shell" }}S{{ else }}O{{ end }}', "S"),
    ("{{ if .ToolError }}E{{ else if .ToolInput.cmd }}C{{ else }}N{{ end }}", "C"),
    ("{{ if .Prompt }}P{{ end }}done", "done"),
    ("{{- if .ToolName -}}\n  yes\n{{- end -}}\n", "yes"),
    ("{{ if .ToolInput.timeout }}{{ .ToolInput.timeout }}s{{ end }}", "30s"),
    # the whole payload
    ("{{ . | toJSON | truncate 20 }}", '{"agent_name":"root"…'),
]


@pytest.mark.parametrize(("text", "expected"), RENDER_CASES)
def test_render(text: str, expected: str) -> None:
    assert render(text) == expected


def test_every_go_field_parses_and_renders_on_an_empty_payload() -> None:
    for name in GO_FIELDS:
        out = render_template(parse_template("{{ ." + name + " }}"), {})
        assert out in ("", "0", "false", "map[]", "[]", "<nil>", "<no value>")


def test_go_field_names_map_to_snake_case_json_keys() -> None:
    for name, (key, _kind) in GO_FIELDS.items():
        assert snake_case(name) == key


def test_fields_read_are_recorded() -> None:
    tpl = parse_template("{{ .ToolName }} {{ if .ToolError }}{{ .ToolInput.cmd }}{{ end }}")
    assert tpl.fields == {"ToolName", "ToolError", "ToolInput"}
    assert tpl.reads("ToolInput")
    assert not parse_template("{{ .Cwd }}").reads("ToolInput")
    assert parse_template("{{ . | toJSON }}").reads("ToolInput")


# ---- helpers


def test_to_json_is_go_json_marshal() -> None:
    assert to_json({"b": 1, "a": "<&>"}) == '{"a":"\\u003c\\u0026\\u003e","b":1}'
    assert to_json("é\u2028") == '"é\\u2028"'
    assert to_json([1.0, 1e21, 1e-7, 0.5, 100000000.0]) == "[1,1e+21,1e-7,0.5,100000000]"
    assert to_json(None) == "null"
    with pytest.raises(TemplateError):
        to_json(float("nan"))


def test_truncate_counts_utf8_bytes_and_keeps_characters_whole() -> None:
    assert truncate(3, "héllo") == "hé…"  # h(1) + é(2) = 3 bytes
    assert truncate(2, "héllo") == "h…"  # cutting inside `é` backs off to `h`
    assert truncate(-1, "héllo") == "héllo"
    assert truncate(5, "abcde") == "abcde"
    with pytest.raises(TemplateError, match="expected a string"):
        truncate(3, {"a": 1})


@pytest.mark.parametrize(
    ("value", "printed"),
    [
        (1.0, "1"),
        (2.5, "2.5"),
        (123456.0, "123456"),
        (1e6, "1e+06"),
        (1234567.0, "1.234567e+06"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (-0.5, "-0.5"),
    ],
)
def test_floats_print_like_go_fmt(value: float, printed: str) -> None:
    assert go_float(value) == printed


# ---- run-time errors (Go's execution errors)


@pytest.mark.parametrize(
    ("text", "payload", "message"),
    [
        ("{{ .ToolInput.cmd.x }}", {"tool_input": {"cmd": "ls"}}, "can't evaluate field `x`"),
        ("{{ .ToolInput.cmd.x }}", {"tool_input": {"cmd": None}}, "nil pointer"),
        ("{{ truncate 5 .ToolResponse }}", {"tool_response": {"a": 1}}, "expected a string"),
        ("{{ truncate 5 .ToolResponse }}", {}, "expected a string, got nil"),
        ("{{ index .SteeringMessages 5 }}", {"steering_messages": ["a"]}, "out of range"),
        ("{{ eq .ToolInput .ToolInput }}", {"tool_input": {"a": 1}}, "non-comparable"),
        ("{{ .Usage.InputTokens }}", {}, "nil pointer"),
    ],
)
def test_render_errors(text: str, payload: dict, message: str) -> None:
    tpl = parse_template(text)
    with pytest.raises(TemplateError, match=message):
        render_template(tpl, payload)


def test_any_field_holding_a_string_works_with_truncate() -> None:
    assert render("{{ truncate 3 .ToolResponse }}", {"tool_response": "abcdef"}) == "abc…"


# ---- load-time errors, with spans in template coordinates

ERROR_CASES = [
    # (template, message fragment, the text the span covers, help fragment or None)
    ("{{ .ToolNmae }}", "unknown field `.ToolNmae`", ".ToolNmae", "`.ToolName`"),
    ("{{ .tool_name }}", "unknown field `.tool_name`", ".tool_name", "Go name `.ToolName`"),
    ("{{ .toolInput }}", "unknown field", ".toolInput", "`.ToolInput`"),
    ("hi {{ .Bogus.x }}", "unknown field `.Bogus`", ".Bogus", None),
    ("{{ tojson .ToolInput }}", "function `tojson` not defined", "tojson", "`toJSON`"),
    ("{{ trunc 3 .Cwd }}", "function `trunc` not defined", "trunc", "`truncate`"),
    ('{{ printf "%s" .Cwd }}', "function `printf` not defined", "printf", None),
    ("{{ range .Messages }}x{{ end }}", "the `range` action is not supported", "range", "if/else/end"),
    ("{{ with .Cwd }}x{{ end }}", "the `with` action is not supported", "with", None),
    ("{{ end }}", "without a matching", "end", None),
    ("{{ else }}", "without a matching", "else", None),
    ("x{{ end }}", "without a matching", "{{ end", None),
    ("{{ if .Cwd }}a{{ else }}b{{ else }}c{{ end }}", "after the final", "{{ else", "else if"),
    ("{{ if .Cwd }}{{ range .Messages }}{{ end }}", "the `range` action is not supported", "range", None),
    ("{{ $x := 1 }}", "variables are not supported", "$", None),
    ("{{ .ToolName", "unclosed action", "{{ .ToolName", "`}}`"),
    ("ok {{ if .ToolError }}deny", "missing `{{ end }}`", "{{ if", "{{ end }}"),
    ("{{/* never closed", "unclosed comment", "{{/* never closed", None),
    ("{{ }}", "missing value for command", "}", None),
    ("{{ | toJSON }}", "missing value for command", "|", None),
    ("{{ .Cwd | }}", "missing value for command", "}", None),
    ("{{ (toJSON .Cwd }}", "unclosed parenthesis", "(toJSON .Cwd ", None),
    ("{{ ) }}", "unexpected character `)`", ")", None),
    ("{{ .Cwd | .ToolName }}", "pipeline stage 2 is not a function call", ".ToolName", None),
    ("{{ .Cwd .ToolName }}", "is not a function", ".ToolName", None),
    ("{{ toJSON }}", "wrong number of arguments for `toJSON`: want 1, got 0", "toJSON", None),
    ("{{ truncate 5 }}", "wrong number of arguments for `truncate`: want 2, got 1", "truncate 5", None),
    ("{{ .Cwd | truncate 1 2 }}", "want 2, got 3", "truncate 1 2", None),
    (
        "{{ truncate 10 .ToolInput }}",
        "needs a string here, but `.ToolInput` is a map",
        ".ToolInput",
        "toJSON",
    ),
    ('{{ truncate "10" .Cwd }}', "needs an integer here", '"10"', None),
    ("{{ truncate 1.5 .Cwd }}", "needs an integer here", "1.5", None),
    ("{{ .Cwd.parent }}", "can't evaluate field `parent` in type string", ".parent", None),
    ('{{ "bad \\q escape" }}', "unknown escape sequence", "\\q", None),
    ("{{ if }}x{{ end }}", "missing value for command", "}", None),
]


@pytest.mark.parametrize(("text", "message", "covered", "help"), ERROR_CASES)
def test_load_errors(text: str, message: str, covered: str, help: str | None) -> None:
    with pytest.raises(ExprError) as info:
        parse_template(text)
    err = info.value
    assert message in err.message
    assert text[err.start : err.end] == covered
    if help is not None:
        assert err.help is not None and help in err.help


def test_errors_on_a_later_line_point_into_that_line() -> None:
    text = "Judge this call.\nTool: {{ .ToolNam }}\n"
    with pytest.raises(ExprError) as info:
        parse_template(text)
    assert text[info.value.start : info.value.end] == ".ToolNam"


def test_too_long_and_too_deep_templates_are_limit_errors() -> None:
    with pytest.raises(ExprError) as info:
        parse_template("x" * 100_001)
    assert info.value.code == "policy_limit_exceeded"
    deep = "{{ " + "(" * 70 + ".Cwd" + ")" * 70 + " }}"
    with pytest.raises(ExprError) as info:
        parse_template(deep)
    assert info.value.code == "policy_limit_exceeded"


def test_lark_never_escapes() -> None:
    for text in [
        "{{",
        "}}{{",
        "{{ ((",
        "{{ if",
        "{{ if .Cwd }}{{ else }}{{ else }}{{ end }}",
        "{{-",
        "{{ .",
        "\x00{{ \x00 }}",
    ]:
        try:
            parse_template(text)
        except ExprError as err:  # the only exception allowed, and it is located
            assert 0 <= err.start <= err.end <= len(text)


# ---- a whole model hook at load time


def test_validate_model_spec_accepts_a_good_hook() -> None:
    assert (
        validate_model_spec("local/gemma-3-270m", "Judge {{ .ToolInput | toJSON }}", "pre_tool_use_decision")
        == []
    )
    assert validate_model_spec("openai/gpt-4o-mini", "Summarise {{ .Prompt }}", None) == []


def test_validate_model_spec_reports_every_problem() -> None:
    problems = validate_model_spec("opnai/gpt-4o", "{{ .ToolNme }}", "pre_tool_use_decison")
    assert len(problems) == 3
    assert "unknown model provider `opnai`" in str(problems[0]) and "`openai`" in str(problems[0])
    assert isinstance(problems[1], ExprError) and problems[1].message == "unknown field `.ToolNme`"
    assert "unknown schema `pre_tool_use_decison`" in str(problems[2])
    assert "did you mean `pre_tool_use_decision`" in str(problems[2])


@pytest.mark.parametrize(
    ("model", "prompt", "fragment"),
    [
        ("", "x", "non-empty `model`"),
        ("gpt-4o", "x", "no provider prefix"),
        ("openai/", "x", "names no model"),
        ("local/gemma-3-270m", "  ", "non-empty `prompt`"),
    ],
)
def test_validate_model_spec_messages(model: str, prompt: str, fragment: str) -> None:
    problems = validate_model_spec(model, prompt, None)
    assert any(fragment in str(p) for p in problems)
