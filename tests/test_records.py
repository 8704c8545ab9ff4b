"""`vocabulary.records.Record` makes the class `typing.NamedTuple` makes, without compiling annotations."""

from __future__ import annotations

import pickle
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from toolpolicy import load_policy
from toolpolicy.runtime.compiled import CompiledRule, Cond
from toolpolicy.vocabulary.records import Record


class Point(Record):
    """A point."""

    x: int
    label: str | None = None
    tags: tuple[str, ...] = ()

    def moved(self, by: int) -> Point:
        return self._replace(x=self.x + by)


class TypedPoint(typing.NamedTuple):
    """A point."""

    x: int
    label: str | None = None
    tags: tuple[str, ...] = ()

    def moved(self, by: int) -> TypedPoint:
        return self._replace(x=self.x + by)


def test_a_record_is_the_namedtuple_typing_makes() -> None:
    for cls in (Point, TypedPoint):
        assert cls.__mro__[1:] == (tuple, object)
        assert cls._fields == ("x", "label", "tags")
        assert cls._field_defaults == {"label": None, "tags": ()}
        assert cls.__doc__ == "A point."
        assert cls.__module__ == __name__
        p = cls(1)
        assert p == (1, None, ()) and p.moved(2) == (3, None, ()) and p._asdict()["x"] == 1
        assert repr(p) == f"{cls.__name__}(x=1, label=None, tags=())"
        assert pickle.loads(pickle.dumps(p, protocol=pickle.HIGHEST_PROTOCOL)) == p
    assert list(Point.__annotations__) == list(TypedPoint.__annotations__)
    # strings stay strings (no ForwardRef compiled), and still resolve
    assert Point.__annotations__["label"] == "str | None"
    assert typing.get_type_hints(Point) == typing.get_type_hints(TypedPoint)


def test_a_record_refuses_what_namedtuple_refuses() -> None:
    with pytest.raises(TypeError, match="Non-default namedtuple field b cannot follow default field a"):

        class Bad(Record):
            a: int = 1
            b: int

    with pytest.raises(AttributeError, match="Cannot overwrite NamedTuple attribute _replace"):

        class Clash(Record):
            a: int

            def _replace(self) -> None: ...

    with pytest.raises(TypeError, match="only inherit from Record"):

        class Mixed(Record, int):  # type: ignore[misc]
            a: int


def test_compiled_policy_records_pickle_by_reference(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text('version: 1\ndefault: ask\npermissions:\n  deny: ["shell:cmd=sudo *"]\n')
    rules = load_policy(str(path)).rules
    again = pickle.loads(pickle.dumps(rules, protocol=pickle.HIGHEST_PROTOCOL))
    assert again == rules and type(again[0]) is CompiledRule and type(again[0].conds[0]) is Cond


def test_the_hook_path_creates_no_forward_refs() -> None:
    """Every record the hook imports is a `Record`: importing the runtime compiles no annotation."""
    probe = (
        "import typing\n"
        "made = []\n"
        "init = typing.ForwardRef.__init__\n"
        "def spy(self, arg, *a, **k):\n    made.append(arg)\n    init(self, arg, *a, **k)\n"
        "typing.ForwardRef.__init__ = spy\n"
        "import toolpolicy.cli.hook_run, toolpolicy.cli.fast_argv, toolpolicy.adapters.cache\n"
        "import toolpolicy.adapters.claude_code, toolpolicy.runtime.engine\n"
        "import toolpolicy.runtime.kinds.shell, toolpolicy.runtime.kinds.path\n"
        "print(made)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"
