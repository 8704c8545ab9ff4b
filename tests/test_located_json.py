"""The JSON fast path of the located loader builds exactly what ruamel.yaml builds from JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolpolicy.policies import located
from toolpolicy.policies.located_json import load_json_located
from toolpolicy.source import Source

CASES = Path(__file__).parent / "cases"


def _ruamel(text: str) -> located.LocatedDoc:
    # the reference: load_yaml with the fast path turned off
    source = Source("p.json", text)
    import toolpolicy.policies.located_json as lj

    original = lj.load_json_located
    lj.load_json_located = lambda *a, **k: None  # type: ignore[assignment]
    try:
        return located.load_yaml(source)
    finally:
        lj.load_json_located = original


def _fast(text: str) -> located.LocatedDoc | None:
    doc = located.LocatedDoc(Source("p.json", text), None)
    return load_json_located(doc, located.MAX_DEPTH, located.MAX_NODES)


def _same(a: located.LocatedDoc, b: located.LocatedDoc) -> None:
    assert a.data == b.data
    assert {k: (v.span.start, v.span.end) for k, v in a.values.items()} == {
        k: (v.span.start, v.span.end) for k, v in b.values.items()
    }
    assert {k: (v.span.start, v.span.end) for k, v in a.keys.items()} == {
        k: (v.span.start, v.span.end) for k, v in b.keys.items()
    }
    assert a.exact == b.exact


def _policies() -> list[object]:
    import yaml

    docs: list[object] = []
    for path in sorted(CASES.rglob("*.yaml")):
        data = yaml.safe_load(path.read_text()) or {}
        for case in data.get("cases", []) if isinstance(data, dict) else []:
            if isinstance(case, dict) and isinstance(case.get("policy"), dict):
                docs.append(case["policy"])
    return docs


DOCS: list[object] = [
    {"version": 1, "default": "ask", "permissions": {"allow": ["Bash(ls *)", "Read(./**)"], "deny": []}},
    {
        "a": "",
        "b": 'é \\u00e9 "q" \\\\ \\n',
        "c": [1, -2.5, 3e2, True, False, None, {}, []],
        "d": {"e": {"f": [[]]}},
    },
    {"unicode": "\u00e9\u4e2d", "escaped": "tab\there", "slash": "a\\/b"},
    {"emoji": "\U0001f600 written as is"},
]


@pytest.mark.parametrize("indent", [None, 0, 1, 2, 4])
def test_fast_path_equals_ruamel(indent: int | None) -> None:
    docs = DOCS + _policies()
    assert len(docs) > 20
    for data in docs:
        for ensure_ascii in (True, False):
            text = json.dumps(data, indent=indent, ensure_ascii=ensure_ascii)
            fast = _fast(text)
            if fast is None:  # only an escaped surrogate pair is left to ruamel
                assert "\\ud83d" in text, text
                continue
            _same(fast, _ruamel(text))


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2}',  # duplicate key: ruamel's located error
        "{a: 1}",  # flow YAML, not JSON
        '{"a": [1, 2,]}',
        '{"a": NaN}',
        '{"a": 1e999}',
        '{"a": 1} # comment',
        '{"a": "x"}\n---\n{"b": 1}',
        "[1, 2]",
        '{"a": 01}',
        '{"a": .5}',
        '{"a": tru}',
        '{"a": "\\ud83d\\ude00"}',  # an escaped surrogate pair: JSON joins it, YAML does not
        '{"a": "unterminated}',
    ],
)
def test_other_texts_are_left_to_ruamel(text: str) -> None:
    assert _fast(text) is None


def test_depth_and_size_limits_are_left_to_ruamel() -> None:
    deep = '{"a": ' * (located.MAX_DEPTH + 2) + "1" + "}" * (located.MAX_DEPTH + 2)
    assert _fast(deep) is None
    doc = located.LocatedDoc(Source("p.json", json.dumps({"a": list(range(50))})), None)
    assert load_json_located(doc, located.MAX_DEPTH, 10) is None
    assert doc.values == {} and doc.keys == {} and doc.exact == set()
