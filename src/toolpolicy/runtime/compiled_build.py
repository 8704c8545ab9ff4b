"""The compiled build: which modules mypyc compiles, and the guard against a stale one.

`setup.py` compiles the modules of `COMPILED` to C unless `TOOLPOLICY_COMPILE=0` (the shell view,
the path and URL kinds, the fast decision path and the decision's flow: where a decision spends its
time). A compiled module is
the same source run as C; nothing here changes what is decided.

The guard: an editable install compiled in place (`TOOLPOLICY_COMPILE=1 pip install -e .`) leaves
`.so` files beside the sources, and Python imports `x.cpython-311-....so` before `x.py`. Once a
source is edited, the old compiled code would go on deciding and the edit would be silently
ignored (a security fix not in force, a test testing old code). `install` (called by
`toolpolicy.runtime`'s `__init__`, before any compiled module can be imported) puts a finder in
front of the import system that, in a source tree (a `pyproject.toml` two levels above the
package) where any compiled module is older than its source, imports every module of `COMPILED`
from its source instead, and warns once. All or none: compiled modules call one another directly
in C, so one stale module means none may run compiled. An installed wheel is not checked (its
files' times are the install's, and its sources cannot be edited in place by a checkout).

Place: `runtime`, imported by `runtime/__init__.py` and by `setup.py` (it imports nothing of ours
and nothing outside the standard library).
"""

from __future__ import annotations

import os
import sys

COMPILED = (  # dotted module names, each `src/<path>.py`
    "toolpolicy.runtime.kinds.arg_view",
    "toolpolicy.runtime.kinds.glob",
    "toolpolicy.runtime.kinds.path",
    "toolpolicy.runtime.kinds.shell",
    "toolpolicy.runtime.kinds.shell_assigns",
    "toolpolicy.runtime.kinds.shell_hosts",
    "toolpolicy.runtime.kinds.shell_knowledge",
    "toolpolicy.runtime.kinds.shell_parse",
    "toolpolicy.runtime.kinds.shell_trees",
    "toolpolicy.runtime.kinds.shell_words",
    "toolpolicy.runtime.kinds.shell_wrappers",
    "toolpolicy.runtime.kinds.url",
    "toolpolicy.runtime.denials",
    "toolpolicy.runtime.engine",
    "toolpolicy.runtime.evaluate",
    "toolpolicy.runtime.fastpath",
    "toolpolicy.runtime.guard_index",
    "toolpolicy.runtime.pattern_set",
    "toolpolicy.runtime.plan",
    "toolpolicy.runtime.rules",
    "toolpolicy.runtime.shell_targets",
    "toolpolicy.runtime.views",
)

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../toolpolicy


def wanted(setting: str) -> bool:
    """Whether `TOOLPOLICY_COMPILE`'s value asks for the compiled build."""
    return setting.strip().lower() in ("1", "true", "yes", "on")


def compiled_modules() -> list[str]:
    """The modules of `COMPILED` that this process imported as compiled code (for `policy
    version`, the benchmarks and the tests that run against both builds)."""
    return [
        name
        for name in COMPILED
        if (module := sys.modules.get(name)) is not None
        and not str(getattr(module, "__file__", "") or "").endswith(".py")
    ]


def built() -> str:
    """What this process runs, in words (`.ci/run` prints it): each module of `COMPILED` is
    imported to tell."""
    import importlib

    for name in COMPILED:
        importlib.import_module(name)
    n = len(compiled_modules())
    return f"compiled ({n} of {len(COMPILED)} modules)" if n else "pure Python"


def stale() -> list[str]:
    """The compiled modules older than their source, in a source tree (empty elsewhere).

    A module's compiled code is in the build's shared library (`<hash>__mypyc....so`, beside the
    package), its own `.so` being a shim a rebuild may leave as it was: a source is stale when it
    is newer than the newest of the two."""
    root = os.path.dirname(_PACKAGE)  # src/ (or site-packages/)
    if not os.path.exists(os.path.join(os.path.dirname(root), "pyproject.toml")):
        return []  # an installed package: not checked (see the module's docstring)
    import importlib.machinery

    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    try:
        libraries = [n for n in os.listdir(root) if "__mypyc" in n and n.endswith(suffixes)]
        built = max((os.stat(os.path.join(root, n)).st_mtime_ns for n in libraries), default=0)
    except OSError:
        return []
    out = []
    for name in COMPILED:
        base = os.path.join(root, *name.split("."))
        binary = next((base + s for s in suffixes if os.path.exists(base + s)), None)
        if binary is None:
            continue  # not compiled (a pure build, or a module the build left out)
        try:
            if os.stat(base + ".py").st_mtime_ns > max(built, os.stat(binary).st_mtime_ns):
                out.append(name)
        except OSError:
            out.append(name)
    return out


class _SourceFirst:
    """A meta path finder: each module of `COMPILED` from its `.py` (installed when one is stale)."""

    @staticmethod
    def find_spec(fullname: str, path: object = None, target: object = None) -> object:
        if fullname not in _NAMES:
            return None
        import importlib.util

        source = os.path.join(os.path.dirname(_PACKAGE), *fullname.split(".")) + ".py"
        return importlib.util.spec_from_file_location(fullname, source)


_NAMES = frozenset(COMPILED)
_INSTALLED: list[bool] = []


def install() -> None:
    """Run every module of `COMPILED` from its source if one is stale, or if `TOOLPOLICY_PURE=1`
    asks for the sources (tests of the pure build, profiling); once per process."""
    if _INSTALLED:
        return
    _INSTALLED.append(True)
    if os.environ.get("TOOLPOLICY_PURE") == "1":
        prefer_sources()
        return
    found = stale()
    if found:
        import warnings

        warnings.warn(
            f"toolpolicy: {len(found)} compiled module(s) older than their source ({found[0]}...): "
            "running every compiled module from its source; rebuild with "
            "`TOOLPOLICY_COMPILE=1 pip install -e .`",
            RuntimeWarning,
            stacklevel=2,
        )
        prefer_sources()


def prefer_sources() -> None:
    """From now on, import each module of `COMPILED` from its source (one imported already stays
    as it is: call this before the first). `policy hook` does: a process that makes one decision
    spends its time importing, and the compiled build imports slower (mypyc builds its records
    through `typing`, and loads a ~1 MB library) than its code saves (~20 µs a decision)."""
    if not any(type(finder) is _SourceFirst for finder in sys.meta_path):
        sys.meta_path.insert(0, _SourceFirst())  # type: ignore[arg-type]
