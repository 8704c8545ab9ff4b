"""Shell commands parsed from several threads at once (an agent deciding calls in a thread pool,
`adecide` through `asyncio.to_thread`).

A tree-sitter parser is not reentrant, and the parse of a long text (more than 512 bytes) runs
Python callbacks (the reader and the progress watch) in the middle of it, where another thread
may run. With one parser shared by every thread the process crashed with SIGSEGV. Long texts are
now parsed with a parser of the thread's own (`shell_parse._watched_parser`). The work runs in a
child process, so that a crash fails this test instead of killing the test runner.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import sys, threading
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter allows
    from toolpolicy.runtime.kinds import shell, shell_parse
    from toolpolicy.runtime.views import clear_memos

    long_texts = [" && ".join(f"echo {i}-{j} | grep x{j} > /tmp/f{j}" for j in range(40)) for i in range(40)]
    short = [f"git status {i} && ls -la d{i}" for i in range(100)]
    texts = long_texts + short
    assert all(len(t.encode()) > shell_parse._WATCHED_BYTES for t in long_texts)

    def digest(text):
        return tuple((u.allow_texts, u.deny_texts, u.opaque) for u in shell.view(text).units)

    clear_memos()
    want = {t: digest(t) for t in texts}
    errors = []

    def work(k):
        try:
            for _ in range(3):
                for i, t in enumerate(texts):
                    if (i + k) % 2 == 0:
                        shell_parse._parse(t)  # the parser itself, no memo in between
                        clear_memos()
                        if digest(t) != want[t]:
                            errors.append(t)
        except Exception as exc:
            errors.append(repr(exc))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(len(errors), errors[:3])
    """
)


def test_long_commands_parse_concurrently_without_crashing_or_changing() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.split()[0] == "0", done.stdout
