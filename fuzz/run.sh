#!/bin/sh
# Run every atheris target for a bounded time: `fuzz/run.sh [seconds-per-target]` (default 60).
#
# Installs atheris into the interpreter if it is missing (PyPI wheel; Linux x86-64/aarch64, Python
# >= 3.8). The seed corpora in fuzz/corpus/<target>/ are read, never written: new inputs go to a
# scratch corpus and crashes to $FUZZ_OUT (default /tmp/toolpolicy-fuzz), so a run leaves the repo
# clean. Exit status: 0 when no target crashed, else the first failing target's status.
set -eu

cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${1:-60}"
OUT="${FUZZ_OUT:-/tmp/toolpolicy-fuzz}"
if [ -z "${PYTHON:-}" ]; then
    if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi

if ! "$PYTHON" -c "import atheris" 2>/dev/null; then
    echo "installing atheris into $PYTHON" >&2
    "$PYTHON" -m pip install --quiet atheris
fi

status=0
for target in permission shell; do
    scratch="$OUT/$target/corpus"
    artifacts="$OUT/$target/artifacts/"
    mkdir -p "$scratch" "$artifacts"
    echo "== fuzz_$target: ${SECONDS_PER_TARGET}s, crashes -> $artifacts" >&2
    rc=0
    "$PYTHON" "fuzz/fuzz_$target.py" "$scratch" "fuzz/corpus/$target" \
        -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix="$artifacts" -print_final_stats=1 || rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "fuzz_$target FAILED (status $rc); reproduce with: $PYTHON fuzz/fuzz_$target.py <artifact>" >&2
        [ "$status" -ne 0 ] || status=$rc
    fi
done
exit "$status"
