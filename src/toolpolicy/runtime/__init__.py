"""The runtime: evaluating a compiled policy (no Lark, no pydantic).

`compiled_build.install` runs first: in a source tree whose compiled modules (the compiled build,
`setup.py`) are older than their sources, every such module is imported from its source.
"""

from .compiled_build import install as _install

_install()
