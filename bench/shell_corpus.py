"""Shell-walk throughput: the 2,900-command corpus decided cold (view memo cleared), several rounds.

Run: `python bench/shell_corpus.py [ROUNDS]`. Prints decisions per second of the cold corpus
(every command seen for the first time: parse, walk, views, rules) and of a warm round (memoised
views), with a policy of typical shape: Bash prefix allows and denies plus Read/Edit path rules.
Stops by itself; the baseline to compare against is the same script run on the parent commit.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from command_corpus import load_corpus  # noqa: E402
from toolpolicy import Engine, load_policy  # noqa: E402
from toolpolicy.runtime.kinds import shell  # noqa: E402

POLICY = """\
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Bash(rm -rf *)", "Bash(git push *)", "Bash(sudo *)", "Read(~/.ssh/**)", "Edit(~/.bashrc)", "Read(.env)"]
  allow: ["Bash(ls *)", "Bash(cat *)", "Bash(git status *)", "Bash(grep *)", "Bash(sort *)", "Bash(sed -n *)",
          "Bash(echo *)", "Bash(cd *)", "Bash(npm test *)", "Edit(./**)"]
"""


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    cmds = [e.cmd for e in load_corpus()]
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "policy.yaml"
        p.write_text(POLICY)
        engine = Engine(load_policy(p), cwd=tmp)
        ctx = {"cwd": tmp}
        best = 0.0
        for _ in range(rounds):
            shell._view_text.cache_clear()
            t0 = time.perf_counter()
            for c in cmds:
                engine.decide("Bash", {"command": c}, context=ctx)
            best = max(best, len(cmds) / (time.perf_counter() - t0))
        t0 = time.perf_counter()
        for c in cmds:
            engine.decide("Bash", {"command": c}, context=ctx)
        warm = len(cmds) / (time.perf_counter() - t0)
    print(f"{len(cmds)} commands: cold {best:,.0f} decisions/s (best of {rounds}), warm {warm:,.0f}/s")


if __name__ == "__main__":
    main()
