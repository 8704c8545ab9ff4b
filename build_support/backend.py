"""The build backend: setuptools', plus mypy (mypyc) as a build requirement when compiling.

`setup.py` compiles the hot runtime with mypyc unless `TOOLPOLICY_COMPILE=0`; a pure build needs
nothing but setuptools, so mypy is asked for only when compiling.
"""

from __future__ import annotations

import os

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (the backend's hooks, as setuptools defines them)

_MYPYC = ["mypy>=2.4,<3"]  # mypyc ships with mypy (the versions the compiled build was tested with)


def _compiling() -> bool:
    return os.environ.get("TOOLPOLICY_COMPILE", "").strip().lower() not in ("0", "false", "no", "off")


def get_requires_for_build_wheel(config_settings: dict[str, object] | None = None) -> list[str]:
    return [*_setuptools.get_requires_for_build_wheel(config_settings), *(_MYPYC if _compiling() else [])]


def get_requires_for_build_editable(config_settings: dict[str, object] | None = None) -> list[str]:
    return [*_setuptools.get_requires_for_build_editable(config_settings), *(_MYPYC if _compiling() else [])]
