"""The command line `policy install` registers: `policy hook` started the fastest safe way.

A hook process starts once per tool call, so its interpreter's start-up counts: processing `site`
(the virtualenv's `site-packages`, its `.pth` files, `_distutils_hack`) costs ~3 ms of a ~40 ms
hook. The installed command therefore runs

    /abs/python -I -S -c 'import sys
    sys.path += ["/abs/site-packages", "/abs/src"]
    ...from toolpolicy.cli import main...' hook PROTOCOL --policy /abs/policy.yaml

* `-S`: no `site`; the directories it would have added (measured here, by running this Python
  with and without it) are written into the command instead, in the same order.
* `-I`: isolated. No `PYTHON*` variable (PYTHONPATH, PYTHONSTARTUP, PYTHONINSPECT...) and no user
  site changes what runs, and the agent's working directory is not on `sys.path`: a repository
  with a `json.py` or a `toolpolicy/` cannot replace the code that decides its own tool calls.
* If `toolpolicy` cannot be imported from those directories (the environment was rebuilt since),
  the launcher processes `site` after all and tries again, and if that fails too it answers exit 2
  with a reason on stderr, which blocks the call in every agent that reads exit codes — never a
  traceback with exit 1, which agents treat as "no opinion".

`launcher()` builds it only after checking that this exact command imports the `toolpolicy` that
is running now; anything else (an editable install through an import hook, a Python that cannot
be run again) gives the plain console script (`_common.policy_executable`). docs/decisions.md
("The installed hook command") has the reasoning.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

MARK = "from toolpolicy.cli import main"  # how `is_policy_hook` recognises the launcher's code
FLAGS = ("-I", "-S")
_PROBE_TIMEOUT = 30.0


def code(paths: list[str], run: str = "main()") -> str:
    """The launcher's Python code: the import path, then `policy`'s entry point (see the module doc)."""
    return "\n".join(
        [
            "import sys",
            f"sys.path += {json.dumps(paths)}",
            "try:",
            "    try:",
            f"        {MARK}",
            "    except ImportError:",
            "        import site",
            "        site.main()",
            f"        {MARK}",
            "except Exception as e:",
            '    sys.stderr.write(f"toolpolicy: cannot start the hook: {e}; the call is denied (fail-closed)\\n")',
            "    raise SystemExit(2)",
            run,
        ]
    )


@functools.lru_cache(maxsize=1)
def launcher() -> list[str] | None:
    """`[python, -I, -S, -c, code]` for this installation, or None when it cannot be used here."""
    python = str(Path(sys.executable).absolute()) if sys.executable else ""
    if not python:
        return None
    probe = "import sys, json; print(json.dumps(sys.path))"
    full, bare = _sys_path([python, "-E", "-c", probe]), _sys_path([python, *FLAGS, "-c", probe])
    if full is None or bare is None:
        return None
    paths = [p for p in full if p and p not in bare]
    check = [python, *FLAGS, "-c", code(paths, run="print(__import__('toolpolicy').__file__)")]
    out = _output(check)
    if out is None or os.path.realpath(out.strip()) != _running_package():
        return None
    return [python, *FLAGS, "-c", code(paths)]


def _sys_path(command: list[str]) -> list[str] | None:
    out = _output(command)
    try:
        value = json.loads(out) if out is not None else None
    except ValueError:
        return None
    return value if isinstance(value, list) and all(isinstance(p, str) for p in value) else None


def _running_package() -> str:
    from .. import __file__ as package_file

    return os.path.realpath(package_file)


def _output(command: list[str]) -> str | None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=_PROBE_TIMEOUT,
            env=env,
            cwd=os.path.dirname(command[0]) or None,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None
