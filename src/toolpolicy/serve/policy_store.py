"""The policy the server decides with, and its hot reload.

A `Snapshot` is one loaded policy with everything derived from it (its digest, the files it was
read from, a cache of Engines): a request reads `store.current` once and decides with that
snapshot to the end, so it can never see half of one policy and half of another.

Reloading (`PolicyStore.reload`) happens off the request path, in the watcher thread or in a
worker thread after SIGHUP: the new policy is loaded and compiled, its lazy index warmed, and
only then is `store.current` replaced (one reference assignment, atomic). A policy that does not
load changes nothing that decides: the previous snapshot keeps serving, the located errors are
logged and kept for `/v1/policy`, and the store is `degraded` until the files load again.

When no policy has ever loaded (a broken or missing file at startup) the snapshot holds the
error instead of a policy: every decision is a deny that quotes it (`policy hook` answers the
same), readiness is refused, and the watcher keeps trying until the files are fixed.

The watcher polls `stat()` of the policy file, every file of its `extends` chain and, while a
load fails, the files its errors name (a Kubernetes ConfigMap update, a symlink swap, shows up as
a new inode). A changed stat leads to a content hash; the same content is not recompiled.
"""

from __future__ import annotations

import gc
import hashlib
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .bundle import Bundle, is_url
from .metrics import Metrics
from .settings import ServeSettings

logger = logging.getLogger("toolpolicy.serve")

ENGINE_CACHE_SIZE = 256  # engines kept per snapshot, keyed by (mode, session id)
WARM_TOOLS = 200  # tools decided once after a load, so the first request does not build the index
SETTLE_S = 0.05  # a changed file must keep the same stat this long before it is read
WARM_VALUES = {"shell": "true && ls > /dev/null", "path": "/", "url": "https://example.com/"}
Fingerprint = tuple[tuple[str, tuple[int, int, int, int] | None], ...]


class EngineCache:
    """Engines of one policy by (mode, session id), least recently used dropped past `size`."""

    def __init__(self, policy: Any, *, hooks: bool, log: Any, size: int = ENGINE_CACHE_SIZE) -> None:
        self.policy = policy
        self.hooks = hooks
        self.log = log
        self.size = size
        self._engines: OrderedDict[tuple[str | None, str | None], Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, mode: str | None, session_id: str | None) -> Any:
        """The Engine for `mode` and `session_id`; ValueError for an unknown mode."""
        key = (mode, session_id)
        with self._lock:
            engine = self._engines.get(key)
            if engine is not None:
                self._engines.move_to_end(key)
                return engine
        from ..runtime.engine import Engine

        engine = Engine(self.policy, mode=mode, hooks=self.hooks, log=self.log, session_id=session_id)
        with self._lock:
            self._engines[key] = engine
            while len(self._engines) > self.size:
                self._engines.popitem(last=False)
        return engine


@dataclass(frozen=True, eq=False)
class Snapshot:
    """One loaded policy (or, with `policy=None`, the error that stopped every load so far)."""

    policy: Any
    error: Exception | None
    digest: str | None
    sources: tuple[str, ...]
    loaded_at: float
    generation: int
    content_hash: str | None
    engines: EngineCache | None
    has_hooks: bool = False
    events: frozenset[str] = field(default_factory=frozenset)

    def engine(self, mode: str | None = None, session_id: str | None = None) -> Any:
        """An Engine of this policy; raises the load error when there is no policy (fail closed)."""
        if self.engines is None:
            raise self.error or RuntimeError("no policy is loaded")
        return self.engines.get(mode, session_id)


def _freeze_heap() -> None:
    """Collect what the swap left unreachable, then move every object alive now (the compiled
    policy, its index, the imported modules) out of the cyclic collector's reach (`gc.freeze`).

    Without it a full collection traverses all of them: measured 70-90 ms with a 1,000-rule
    policy (about 90,000 objects), a pause of every request in flight, once every few tens of
    thousands of requests; frozen, about 3 ms. Unfreezing first lets the previous policy be
    collected: whatever was still in use by a request is frozen with the rest and freed at the
    next reload. Freed objects are still freed by reference counting while frozen."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def file_fingerprint(paths: Iterable[str]) -> Fingerprint:
    """(path, (mtime_ns, size, inode, device) or None when missing) for each path, in order."""
    out: list[tuple[str, tuple[int, int, int, int] | None]] = []
    for path in paths:
        try:
            info = os.stat(path)
            out.append((path, (info.st_mtime_ns, info.st_size, info.st_ino, info.st_dev)))
        except OSError:
            out.append((path, None))
    return tuple(out)


def content_hash(paths: Iterable[str]) -> str | None:
    """SHA-256 over the files' names and bytes; None if one cannot be read."""
    digest = hashlib.sha256()
    try:
        for path in paths:
            with open(path, "rb") as handle:
                digest.update(path.encode("utf-8", "surrogatepass") + b"\0")
                digest.update(handle.read())
                digest.update(b"\0")
    except OSError:
        return None
    return digest.hexdigest()


class PolicyStore:
    """The serving snapshot, its reloads, and the watcher thread."""

    def __init__(self, settings: ServeSettings, *, log: Any = None, metrics: Metrics | None = None) -> None:
        self.settings = settings
        self.bundle = Bundle(settings.policy) if is_url(settings.policy) else None
        self.path = settings.policy if self.bundle else os.path.abspath(settings.policy)
        self._last_failure: str | None = None
        self.log = log
        self.metrics = metrics
        self.degraded = False
        self.last_error: list[dict[str, Any]] | None = None
        self.last_error_at: float | None = None
        self.reload_counts = {"success": 0, "failure": 0}
        self._generation = 0
        self._reload_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._error_files: tuple[str, ...] = ()
        self._seen: Fingerprint | None = None
        self.current: Snapshot = self._failed_snapshot(RuntimeError("the policy is not loaded yet"))

    # -- status ------------------------------------------------------------------------------------
    @property
    def status(self) -> str:
        """`ready`, `degraded` (an edit did not load; the previous policy serves) or `no_policy`."""
        if self.current.policy is None:
            return "no_policy"
        return "degraded" if self.degraded else "ready"

    def watched_files(self) -> tuple[str, ...]:
        if self.bundle is not None:
            return ()
        files = [self.path, *self.current.sources, *self._error_files]
        return tuple(dict.fromkeys(os.path.abspath(f) for f in files))

    # -- loading -----------------------------------------------------------------------------------
    def load(self, why: str = "startup", *, policy: Any = None, force: bool = False) -> bool:
        """Load (or reload) the policy; True when a new snapshot now serves.

        `policy`: an already compiled policy for this path (the CLI loaded it to report errors
        before binding), used instead of loading it again. Unless `force` (SIGHUP), content that
        is what the serving snapshot was loaded from is not compiled again.
        """
        with self._reload_lock:
            if self.bundle is not None:
                return self._load_bundle(why, force)
            before = file_fingerprint(self.watched_files())
            on_disk = content_hash(self._source_files(self.current))
            unchanged = on_disk is not None and on_disk == self.current.content_hash
            if policy is None and unchanged and not force:
                self._seen = before
                self._clear_degraded()
                return False
            started = time.perf_counter()
            try:
                loaded = policy if policy is not None else self._load_policy()
            except Exception as exc:  # a PolicyError, or anything a loader may raise: keep serving
                self._note_error_files(exc)
                self._failed(exc, why)
                self._seen = _settled(before, file_fingerprint(self.watched_files()))
                return False
            sources = tuple(dict.fromkeys(os.path.abspath(s) for s in (self.path, *loaded.sources)))
            self._install(loaded, why, started, sources, content_hash(sources))
            self._error_files = ()
            self._seen = _settled(before, file_fingerprint(self.watched_files()))
            return True

    def _load_bundle(self, why: str, force: bool) -> bool:
        """Fetch the bundle URL (a conditional GET) and load it when its content changed."""
        assert self.bundle is not None
        started = time.perf_counter()
        try:
            text = self.bundle.fetch()
        except Exception as exc:  # a PolicyError (policy_bundle_error): keep serving
            self._failed_once(exc, why, str(exc))
            return False
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        if digest == self.current.content_hash and not force:
            self._last_failure = None
            self._clear_degraded()
            return False
        try:
            from ..api import load_policy

            loaded = load_policy(text=text, name=self.bundle.name, format=self.settings.format)
        except Exception as exc:
            self._failed_once(exc, why, digest)
            return False
        extends = tuple(os.path.abspath(s) for s in loaded.sources if s != self.bundle.name)
        self._install(loaded, why, started, (self.bundle.url, *extends), digest)
        return True

    def _failed_once(self, exc: Exception, why: str, key: str) -> None:
        """Report a bundle failure, but not the same one again at every poll."""
        if key == self._last_failure:
            return
        self._last_failure = key
        self._failed(exc, why)

    def _install(
        self, loaded: Any, why: str, started: float, sources: tuple[str, ...], digest: str | None
    ) -> None:
        snapshot = self._snapshot(loaded, sources, digest)
        self._warm(snapshot)
        self.current = snapshot  # INVARIANT: the one atomic step; requests see old or new, whole
        self._last_failure = None
        self._clear_degraded()
        self.reload_counts["success"] += 1
        if self.metrics is not None:
            self.metrics.reloads.labels("success").inc()
            self.metrics.loaded_at.set(snapshot.loaded_at)
            self.metrics.no_policy.set(0)
        logger.info(
            "policy serve: %s: loaded %s (digest %s, %d rules) in %.0f ms",
            why,
            self.path,
            snapshot.digest,
            len(getattr(loaded, "rules", ())),
            (time.perf_counter() - started) * 1000,
        )
        _freeze_heap()  # last: the status, metrics and log line above are already the new policy's

    def reload_if_changed(self) -> bool:
        """One watcher tick: reload when a watched file's stat changed since the last attempt and
        has stopped changing (a file written in several steps is not read half-written)."""
        if self.bundle is not None:
            return self.load("bundle poll")
        files = self.watched_files()
        fingerprint = file_fingerprint(files)
        if fingerprint == self._seen:
            return False
        time.sleep(SETTLE_S)
        if file_fingerprint(files) != fingerprint:
            return False  # still being written: look again at the next tick
        return self.load("file change")

    def _load_policy(self) -> Any:
        from ..adapters.cache import load_policy_cached

        return load_policy_cached(self.path, format=self.settings.format, enabled=self.settings.cache)

    def _snapshot(self, policy: Any, sources: tuple[str, ...], digest: str | None) -> Snapshot:
        self._generation += 1
        hooks = self.settings.hooks and any(bool(groups) for groups in policy.hooks.values())
        events = (
            frozenset(e for e, groups in policy.hooks.items() if groups)
            if self.settings.hooks
            else frozenset()
        )
        return Snapshot(
            policy=policy,
            error=None,
            digest=policy.digest,
            sources=sources,
            loaded_at=time.time(),
            generation=self._generation,
            content_hash=digest,
            engines=EngineCache(policy, hooks=self.settings.hooks, log=self.log),
            has_hooks=hooks,
            events=events,
        )

    def _failed_snapshot(self, error: Exception) -> Snapshot:
        return Snapshot(
            policy=None,
            error=error,
            digest=None,
            sources=(),
            loaded_at=time.time(),
            generation=self._generation,
            content_hash=None,
            engines=None,
        )

    def _failed(self, exc: Exception, why: str) -> None:
        errors = _error_records(exc)
        self.last_error = errors
        self.last_error_at = time.time()
        self.reload_counts["failure"] += 1
        if self.metrics is not None:
            self.metrics.reloads.labels("failure").inc()
        rendered = _render(exc)
        if self.current.policy is None:
            self.current = self._failed_snapshot(exc)
            if self.metrics is not None:
                self.metrics.no_policy.set(1)
            logger.error(
                "policy serve: %s: %s does not load; every decision is a deny until it does:\n%s",
                why,
                self.path,
                rendered,
            )
            return
        self.degraded = True
        if self.metrics is not None:
            self.metrics.degraded.set(1)
        logger.error(
            "policy serve: %s: %s does not load; still serving the previous policy (digest %s):\n%s",
            why,
            self.path,
            self.current.digest,
            rendered,
        )

    def _clear_degraded(self) -> None:
        if self.degraded:
            logger.info("policy serve: %s loads again; no longer degraded", self.path)
        self.degraded = False
        self.last_error = None if self.current.policy is not None else self.last_error
        if self.metrics is not None:
            self.metrics.degraded.set(0)

    def _source_files(self, snapshot: Snapshot) -> tuple[str, ...]:
        return snapshot.sources or (self.path,)

    def _note_error_files(self, exc: Exception) -> None:
        """Watch the files a load error names too (an `extends` target that appeared broken)."""
        named = []
        for err in getattr(exc, "errors", ()) or ():
            name = getattr(err, "file", None)
            if isinstance(name, str) and name and os.path.exists(name):
                named.append(os.path.abspath(name))
        self._error_files = tuple(dict.fromkeys(named))

    def _warm(self, snapshot: Snapshot) -> None:
        """Build the lazy index, the `when` closures and the kinds' parsers now, so that the
        first request after a (re)load does not pay for them."""
        try:
            from ..runtime.engine import Engine

            engine = Engine(snapshot.policy, hooks=False)
            specs = list(snapshot.policy.tools.values())[:WARM_TOOLS]
            for spec in specs:
                sample = WARM_VALUES.get(spec.kind)
                engine.decide(spec.name, {spec.arg: sample} if spec.arg and sample else {})
            engine.decide("toolpolicy-warm-up", {})
        except Exception:  # warming is an optimisation; decide() itself fails closed
            return

    # -- watching ----------------------------------------------------------------------------------
    def start_watching(self) -> None:
        interval = self.settings.reload_interval
        if interval <= 0 or self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._watch, args=(interval,), name="policy-watch", daemon=True
        )
        self._thread.start()

    def stop_watching(self) -> None:
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=10)

    def _watch(self, interval: float) -> None:
        while not self._stop.wait(interval):
            try:
                self.reload_if_changed()
            except Exception:  # INVARIANT: the watcher never dies; the snapshot is untouched
                logger.exception("policy serve: the policy watcher failed; retrying")

    # -- reporting ---------------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        """What `GET /v1/policy` answers."""
        snap = self.current
        return {
            "status": self.status,
            "path": self.path,
            "format": self.settings.format,
            "digest": snap.digest,
            "sources": list(snap.sources),
            "loaded_at": _rfc3339(snap.loaded_at) if snap.policy is not None else None,
            "generation": snap.generation,
            "rules": len(getattr(snap.policy, "rules", ())) if snap.policy is not None else 0,
            "hooks": snap.has_hooks,
            "reloads": dict(self.reload_counts),
            "last_error": (
                {"at": _rfc3339(self.last_error_at or 0.0), "errors": self.last_error}
                if self.last_error
                else None
            ),
            "watching": [self.bundle.url] if self.bundle else list(self.watched_files()),
            "reload_interval": self.settings.reload_interval,
            "pid": os.getpid(),
        }


def _settled(before: Fingerprint, after: Fingerprint) -> Fingerprint | None:
    """`after`, unless a file that was watched before the load changed during it (then None, so
    the next watcher tick loads again rather than missing that edit)."""
    earlier = dict(before)
    if any(path in earlier and earlier[path] != stat for path, stat in after):
        return None
    return after


def _error_records(exc: Exception) -> list[dict[str, Any]]:
    errors = getattr(exc, "errors", None)
    if errors:
        out = []
        for err in errors:
            to_json = getattr(err, "to_json", None)
            record = dict(to_json()) if callable(to_json) else {"message": str(err)}
            record["text"] = str(err)
            out.append(record)
        return out
    return [{"message": f"{type(exc).__name__}: {exc}", "text": f"{type(exc).__name__}: {exc}"}]


def _render(exc: Exception) -> str:
    render = getattr(exc, "render", None)
    if callable(render):
        try:
            return str(render())
        except Exception:
            pass
    return f"{type(exc).__name__}: {exc}"


def _rfc3339(when: float) -> str:
    import datetime

    from ..runtime.log import utc_timestamp

    return utc_timestamp(datetime.datetime.fromtimestamp(when, datetime.UTC))
