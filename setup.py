"""The build: the hot runtime compiled to C by mypyc where it can be, else pure Python.

    pip install .                              # compiled if a C compiler and Python's headers are there
    TOOLPOLICY_COMPILE=1 pip install .         # compiled, or the install fails
    TOOLPOLICY_COMPILE=0 pip install .         # pure Python

Everything else is in pyproject.toml. The modules compiled (`runtime/compiled_build.py`'s
`COMPILED`) are the shell view, the path and URL kinds, the fast decision path and the decision's
flow (engine, rules, plans): what a decision spends its time in. They are the same sources either
way; compiled, a cold shell decision costs about 0.45x as much (README.md, "Performance"). mypyc also checks every annotation at run time, so a
value of the wrong type raises `TypeError` in a compiled module where pure Python would go on: the
view and decide() turn any exception into a fail-closed answer, and `.ci/run` runs the tests
against both builds.

Without `TOOLPOLICY_COMPILE`, a build that cannot compile (no compiler, no `Python.h`, mypyc
refusing a module) says why and installs the pure package; all or nothing, never part of it.
An editable install compiles in place (`.so` files beside the sources): `compiled_build` runs every
compiled module from its source as soon as one source is newer than the build.
"""

from __future__ import annotations

import os
import runpy
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
# the module list, read from its file (importing the package would run `runtime`'s guard)
_BUILD = runpy.run_path(os.path.join(HERE, "src", "toolpolicy", "runtime", "compiled_build.py"))
_SETTING = os.environ.get("TOOLPOLICY_COMPILE", "").strip().lower()
REQUIRED = _BUILD["wanted"](_SETTING)  # asked for: a failure fails the install
WANTED = REQUIRED or _SETTING in ("", "auto")


def _say(why: object) -> None:
    print(f"toolpolicy: not compiled, installing pure Python ({why})", file=sys.stderr)


class _AllOrNothing(build_ext):
    """build_ext that, when compiling was not asked for explicitly, installs the pure package if
    any extension fails (removing those built: a shim without its library would not import)."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:
            if REQUIRED:
                raise
            for built in self.get_outputs():
                if os.path.exists(built):
                    os.remove(built)
            self.extensions = []
            _say(exc)


def _ext_modules() -> list[object]:
    if not WANTED:
        return []
    try:
        from mypyc.build import mypycify  # a build requirement (build_support/backend.py)

        sources = [os.path.join("src", *m.split(".")) + ".py" for m in _BUILD["COMPILED"]]
        return list(mypycify(sources, opt_level="3"))
    except BaseException as exc:  # mypyc missing, or refusing a module (it exits on type errors)
        if REQUIRED:
            raise
        _say(exc)
        return []


setup(ext_modules=_ext_modules(), cmdclass={"build_ext": _AllOrNothing})
