"""Evaluating a compiled policy needs neither Lark nor pydantic (it keeps `policy hook` fast)."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

from toolpolicy import load_policy

POLICY = """\
version: 1
profile: claude-code
permissions:
  deny: ["Bash(sudo *)", "Edit(//etc/**)", "WebFetch(domain:evil.example)"]
  allow: ["Bash(git status)", "Read"]
rules:
  - {decision: deny, match: Write, when: 'args.file_path.endsWith(".env") || args.content.contains("BEGIN")'}
"""

SCRIPT = """\
import pickle, sys
for blocked in ("lark", "pydantic", "pydantic_core", "ruamel", "yaml"):
    sys.modules[blocked] = None   # any import of them now raises ImportError
from toolpolicy.runtime.engine import Engine
policy = pickle.load(open(sys.argv[1], "rb"))
engine = Engine(policy, hooks=False)
out = [engine.decide(*c).decision for c in [
    ("Bash", {"command": "ls && sudo id"}), ("Bash", {"command": "git status"}),
    ("Write", {"file_path": "a/.env", "content": "x"}), ("WebFetch", {"url": "https://EVIL.example./x"}),
    ("Read", {"file_path": "x"}), ("Edit", {"file_path": "/etc/../etc/passwd"}),
]]
print(",".join(out))
assert not any(m.startswith(("lark", "pydantic")) for m in sys.modules if sys.modules[m] is not None)
"""


def test_compiled_policy_decides_without_lark_or_pydantic(tmp_path: Path) -> None:
    blob = tmp_path / "policy.pickle"
    blob.write_bytes(pickle.dumps(load_policy(text=POLICY, name="p.yaml")))
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(blob)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "deny,allow,deny,deny,allow,deny"
