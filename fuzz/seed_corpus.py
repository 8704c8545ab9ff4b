"""Regenerate the seed corpora in fuzz/corpus/ from the attack cases of tests/security/*.yaml.

    python fuzz/seed_corpus.py

Every permission expression of a case policy seeds `corpus/permission/`, every shell command
seeds `corpus/shell/` (one file per input, named by its hash, so reruns are idempotent). The
handwritten seeds below cover syntax the cases do not.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"
MAX_SEED = 4096  # bytes: the fuzzer mutates small inputs best

EXTRA_PERMISSIONS = [
    "Bash",
    "Bash(*)",
    "Bash(npm run test:*)",
    "Bash(git * main)",
    "Read(./src/**)",
    "Read(//etc/**)",
    "Read(~/.ssh/**)",
    "Edit(/docs/*.md)",
    "WebFetch(domain:*.example.com)",
    "WebFetch(domain:[::1])",
    "mcp__github__*",
    "mcp:github:*:repo=acme/*",
    "shell:cmd=git push*",
    "fetch:url=https://x/*",
    "read_*|write_*",
    "Agent(model:opus)",
    "tool\\*name",
    "x:k=[a-c]*",
    "x:k=[^/]?",
    "Bash(\\*)",
]
EXTRA_COMMANDS = [
    "ls -la",
    "git status && rm -rf /",
    "echo $(rm x)",
    "bash -c 'rm x'",
    "sudo -u root rm x",
    "find . -exec rm {} \\;",
    "cat <<'EOF' | sh\nrm x\nEOF",
    "x=$((1+$(id)))",
    "[[ -f x ]] && rm x",
    "time nice -n 5 timeout 3 rm x",
    "{rm,-rf,/}",
    "$'\\x72m' x",
    "echo x > >(rm x)",
    "case x in x) rm;; esac",
    "f() { rm x; }; f",
    'eval "$CMD"',
    "PATH=/tmp git status",
    "env -S 'rm x'",
    "watch -n1 'rm x'",
]


def _strings(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [s for item in node for s in _strings(item)]
    return []


def permissions_of(policy: Any) -> list[str]:
    if not isinstance(policy, dict):
        return []
    out: list[str] = []
    for entries in (policy.get("permissions") or {}).values():
        out.extend(_strings(entries))
    for rule in policy.get("rules") or []:
        out.extend(_strings(rule.get("match")))
    return out


def commands_of(call: Any) -> list[str]:
    args = call.get("args") if isinstance(call, dict) else None
    if not isinstance(args, dict):
        return []
    return [v for k, v in args.items() if k in ("command", "cmd") and isinstance(v, str)]


def write(kind: str, texts: list[str]) -> int:
    target = CORPUS / kind
    target.mkdir(parents=True, exist_ok=True)
    n = 0
    for text in dict.fromkeys(texts):
        data = text.encode("utf-8", "surrogatepass")
        if len(data) > MAX_SEED:
            continue
        (target / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)
        n += 1
    return n


def main() -> None:
    import yaml

    perms, cmds = list(EXTRA_PERMISSIONS), list(EXTRA_COMMANDS)
    for path in sorted((ROOT / "tests" / "security").glob("*.yaml")):
        for case in yaml.safe_load(path.read_text(encoding="utf-8")).get("cases", []):
            perms.extend(permissions_of(case.get("policy")))
            cmds.extend(commands_of(case.get("call")))
    print(
        f"permission: {write('permission', perms)} seeds, shell: {write('shell', cmds)} seeds",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
