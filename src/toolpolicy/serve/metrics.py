"""Prometheus metrics of the decision server (`GET /metrics`, prometheus-client's text format).

    toolpolicy_decisions_total{endpoint,decision,source,rule}   every decision made
    toolpolicy_request_duration_seconds{endpoint}               time in the handler (histogram)
    toolpolicy_hook_failures_total{protocol,reason}             hook requests answered fail-closed
    toolpolicy_http_errors_total{endpoint,code}                 requests refused with a 4xx/5xx
    toolpolicy_policy_reloads_total{result}                     reload attempts: success / failure
    toolpolicy_policy_degraded                                  1 while a broken edit is ignored
    toolpolicy_policy_loaded_timestamp_seconds                  when the serving policy was loaded
    toolpolicy_decision_log_failures_total                      log lines that could not be written

With several workers (`--workers N`) every process writes its samples to the directory named by
`PROMETHEUS_MULTIPROC_DIR` (set by the runner before the workers start) and any worker's
`/metrics` answers the sum over all of them (prometheus-client's multiprocess mode).
"""

from __future__ import annotations

import os
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
BUCKETS = (
    0.0001,
    0.00025,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
    60.0,
)


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_ENV) or None


class Metrics:
    """The server's metric objects, in a registry of their own (several apps may share a process)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        reg = self.registry
        self.decisions = Counter(
            "toolpolicy_decisions",
            "Decisions made, by outcome, deciding step and rule",
            ["endpoint", "decision", "source", "rule"],
            registry=reg,
        )
        self.latency = Histogram(
            "toolpolicy_request_duration_seconds",
            "Time spent answering a request, from its body read to its answer",
            ["endpoint"],
            buckets=BUCKETS,
            registry=reg,
        )
        self.hook_failures = Counter(
            "toolpolicy_hook_failures",
            "Hook requests answered with a fail-closed deny (bad input, no policy, internal error)",
            ["protocol", "reason"],
            registry=reg,
        )
        self.http_errors = Counter(
            "toolpolicy_http_errors",
            "Requests refused with an error status",
            ["endpoint", "code"],
            registry=reg,
        )
        self.reloads = Counter(
            "toolpolicy_policy_reloads",
            "Policy reload attempts, by result",
            ["result"],
            registry=reg,
        )
        self.degraded = Gauge(
            "toolpolicy_policy_degraded",
            "1 while the policy files hold an edit that does not load (the previous policy serves)",
            registry=reg,
            multiprocess_mode="livemax",
        )
        self.no_policy = Gauge(
            "toolpolicy_policy_missing",
            "1 while no policy could ever be loaded (every decision is a deny)",
            registry=reg,
            multiprocess_mode="livemax",
        )
        self.loaded_at = Gauge(
            "toolpolicy_policy_loaded_timestamp_seconds",
            "Unix time at which the serving policy was loaded",
            registry=reg,
            multiprocess_mode="livemax",
        )
        self.log_failures = Counter(
            "toolpolicy_decision_log_failures",
            "Decision-log lines that could not be written (the decision stands)",
            registry=reg,
        )
        self._decision_children: dict[tuple[str, str, str, str], Any] = {}
        self._latency_children: dict[str, Any] = {}
        if multiprocess_dir() is None:
            ProcessCollector(registry=reg)

    def count_decision(self, endpoint: str, decision: Any) -> None:
        key = (
            endpoint,
            str(getattr(decision, "decision", "") or ""),
            str(getattr(decision, "source", "") or ""),
            str(getattr(decision, "rule", "") or ""),
        )
        child = self._decision_children.get(key)
        if child is None:  # labels() takes a lock and validates: once per label set is enough
            child = self._decision_children[key] = self.decisions.labels(*key)
        child.inc()

    def observe(self, endpoint: str, seconds: float) -> None:
        child = self._latency_children.get(endpoint)
        if child is None:
            child = self._latency_children[endpoint] = self.latency.labels(endpoint)
        child.observe(seconds)

    def log_failed(self, exc: BaseException) -> None:
        self.log_failures.inc()

    def render(self) -> tuple[bytes, str]:
        """The exposition text: this process's registry, or the sum over all workers."""
        directory = multiprocess_dir()
        if directory is None:
            return generate_latest(self.registry), CONTENT_TYPE_LATEST
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=directory)
        return generate_latest(registry), CONTENT_TYPE_LATEST

    def process_exited(self) -> None:
        """Drop this process's live gauges from the shared directory (multiprocess mode)."""
        directory = multiprocess_dir()
        if directory is not None:
            from prometheus_client import multiprocess

            multiprocess.mark_process_dead(os.getpid(), path=directory)
