"""`policy serve`: the engine as a long-running HTTP decision service (docs/serve.md).

Where it sits: on top of everything else, beside `cli/` and `adapters/`. It decides with the
public API (`load_policy`, `Engine`) and answers agents' hooks through `toolpolicy.adapters`, so
an HTTP hook gets what `policy hook PROTOCOL` prints.

    settings.py       the server's options (CLI flags), bind and token checks
    policy_store.py   the loaded policy, hot reload (file watch, SIGHUP), atomic swap
    bundle.py         a policy fetched from an http(s) URL, polled with conditional GETs
    decision_log.py   the JSONL decision log target: a file with size-based rotation, or stdout
    metrics.py        Prometheus metrics (prometheus-client), also across worker processes
    http_util.py      body cap, content type, strict JSON, bearer token, JSON errors
    service.py        what the handlers share (settings, store, metrics, token, log)
    decide_api.py     POST /v1/decide and /v1/decide/batch
    hooks_api.py      POST /v1/hooks/{protocol}
    lifecycle.py      Claude Code lifecycle events (PostToolUse, Stop, ...) through `dispatch`
    app.py            the Starlette app: routes, lifespan, health, readiness, metrics, policy info
    runner.py         binding the socket and running uvicorn with one or more workers
    console.py        the server's own messages on stderr
    signals.py        a SIGHUP that arrives while the server starts
    client.py         `policy hook --server URL`: the thin client (standard library only)

Nothing here is imported by `import toolpolicy` or by `policy hook` without `--server`.
"""
