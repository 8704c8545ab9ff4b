"""`Record`: what `typing.NamedTuple` makes, without what it costs at import (the hook's records).

    class Unit(Record):
        text: str
        count: int = 0

makes the class `class Unit(NamedTuple)` makes: a `collections.namedtuple` with the fields in
order, their defaults, the class body's methods and docstring, and `__annotations__`; it pickles,
compares and unpacks the same, and type checkers see `typing.NamedTuple` itself. The difference
is the import: in a module with `from __future__ import annotations` every annotation is a string,
and `typing.NamedTuple` turns each one into a `typing.ForwardRef`, which compiles it (~25 µs a
field). The records `policy hook` imports have ~150 fields: ~4 ms of a process that lives ~40 ms.
`Record` keeps the annotation strings as they are (`typing.get_type_hints` still resolves them) and
imports neither `typing` nor anything else but `collections`.

Place: the bottom layer (`vocabulary`), importable from every package; it imports nothing of ours.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing.TYPE_CHECKING` without importing typing (mypy reads the name)

if TYPE_CHECKING:
    from typing import NamedTuple as Record
else:
    from collections import namedtuple as _namedtuple

    # the names typing.NamedTuple refuses in a class body, and those it does not copy onto the class
    _PROHIBITED = frozenset(
        {"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults"}
        | {"_make", "_replace", "_asdict", "_source"}
    )
    _SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})

    class _RecordMeta(type):
        def __new__(mcs, name, bases, namespace):
            if not bases:  # `Record` itself
                return super().__new__(mcs, name, bases, namespace)
            if bases != (Record,):
                raise TypeError("a Record class can only inherit from Record")
            fields = namespace.get("__annotations__", {})
            defaults = []
            for field in fields:
                if field in namespace:
                    defaults.append(namespace[field])
                elif defaults:
                    raise TypeError(
                        f"Non-default namedtuple field {field} cannot follow default field"
                        f"{'s' if len(defaults) > 1 else ''} {', '.join(f for f in fields if f in namespace)}"
                    )
            cls = _namedtuple(name, list(fields), defaults=defaults, module=namespace["__module__"])
            cls.__annotations__ = cls.__new__.__annotations__ = dict(fields)
            for key, value in namespace.items():
                if key in _PROHIBITED:
                    raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
                if key not in _SPECIAL and key not in cls._fields:
                    setattr(cls, key, value)
            return cls

    class Record(metaclass=_RecordMeta):
        """Base of a record class: see the module's docstring."""

        __slots__ = ()


__all__ = ["Record"]
