"""The curve of a long run (python -m benchmarks soak): the platform sampled every few seconds,
and whether what it holds stays flat.

A sample holds, for each daphne, gunicorn and Celery process of the platform (found as the load
benchmark finds them, benchmarks/loadtest/processes.py): its resident memory, its open file
descriptors (/proc/<pid>/fd) and the client sockets it holds (TCP connections to a port it
listens on); and from the platform's Redis: the Celery queue and the messages delivered to a
worker but not acknowledged, the channel layer's subscriptions (one per open consumer, and one
per group a process listens to), the presence entries, Redis's own memory.

The verdict: memory and descriptors are flat when the least-squares line through the second
half of the load (after the warm-up) rises by no more than a tolerance over that half; the
queues, consumers and sockets are back to where they were before the load once it stops.
"""

import os
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import psutil
import redis

from .processes import descendants, kind_of

ROLES = {"web (daphne)": "daphne", "web (gunicorn)": "gunicorn", "worker/beat (celery)": "worker"}
ROLE_ORDER = ("daphne", "gunicorn", "worker", "beat")
MIB = 2**20
# Flat: the fitted rise over the second half is at most the larger of these.
RSS_TOLERANCE_MIB, RSS_TOLERANCE_SHARE = 4.0, 0.03
FDS_TOLERANCE, FDS_TOLERANCE_SHARE = 3.0, 0.05


def role_of(process: psutil.Process) -> str | None:
    role = ROLES.get(kind_of(process) or "")
    if role == "worker":
        try:
            if "beat" in process.cmdline():
                return "beat"
        except psutil.Error:
            return None
    return role


@dataclass(frozen=True)
class ProcessSample:
    pid: int
    role: str
    rss: int  # bytes
    fds: int  # open file descriptors, the sockets included
    held: int  # client sockets: connections to a port this process listens on
    closing: int  # of those, half-closed by the client and not yet by the server (CLOSE_WAIT)

    @property
    def own_fds(self) -> int:
        """The descriptors that are not its clients' sockets: files, pools, listening sockets."""
        return self.fds - self.held


@dataclass
class Sample:
    at: float  # seconds since the load began (negative: before it)
    phase: str  # "before", "load" or "after"
    load: float  # the machine's load average over the last minute
    processes: list[ProcessSample]
    redis: dict  # the figures of redis_figures()
    client: dict  # what the players hold and have done (the caller's)

    def role(self, role: str) -> list[ProcessSample]:
        return [process for process in self.processes if process.role == role]

    def total(self, role: str, what: str) -> float:
        return sum(getattr(process, what) for process in self.role(role))


def sample_process(process: psutil.Process, role: str) -> ProcessSample | None:
    try:
        with process.oneshot():
            rss = process.memory_info().rss
            fds = process.num_fds()
            connections = process.net_connections(kind="tcp")
    except psutil.Error:
        return None  # gone (a restarted child): the next sample has its successor
    listening = {c.laddr.port for c in connections if c.status == psutil.CONN_LISTEN}
    clients = [
        c for c in connections if c.status != psutil.CONN_LISTEN and c.laddr.port in listening
    ]
    closing = sum(1 for c in clients if c.status == psutil.CONN_CLOSE_WAIT)
    return ProcessSample(process.pid, role, rss, fds, len(clients), closing)


def redis_figures(client: redis.Redis, layer_prefix: str) -> dict:
    """What the platform's Redis holds that could pile up."""

    def scan_sum(pattern: str, kind: str) -> tuple[int, int]:
        keys = total = 0
        for key in client.scan_iter(match=pattern, count=1000):
            found = client.type(key)
            if found == b"zset" and kind == "zset":
                total += client.zcard(key)
            elif found == b"list" and kind == "list":
                total += client.llen(key)
            else:
                continue
            keys += 1
        return keys, total

    _, queued = scan_sum("celery*", "list")  # the queue, and its priority lists if any
    # The channel layer publishes and subscribes (settings.CHANNEL_LAYERS): each open consumer's
    # own channel and each group with a consumer in a process are subscriptions; nothing waits.
    # (and the process's watch of its layer, games/live/layer_watch.py, which is not counted).
    consumers = len(client.pubsub_channels(f"{layer_prefix}specific.*"))
    groups = len(client.pubsub_channels(f"{layer_prefix}__group__*"))
    _, presence = scan_sum("*presence-set:*", "zset")
    return {
        "queued": queued,
        "unacked": client.hlen("unacked"),
        "consumers": consumers,  # consumers listening, one per open socket
        "groups": groups,  # groups with a consumer listening (each counted once)
        "presence": presence,  # open pages in the presence
        "memory": client.info("memory")["used_memory"],
        "keys": client.dbsize(),
    }


class Watcher:
    """Sample the platform every `interval` seconds in a thread of its own."""

    def __init__(self, roots, redis_url: str, layer_prefix: str, interval: float,
                 client: Callable[[], dict], pids: list[int] | None = None,
                 on_sample: Callable[[Sample], None] | None = None):  # fmt: skip
        self.roots, self.pids = roots, pids
        self.redis = redis.Redis.from_url(redis_url, socket_timeout=10)
        self.layer_prefix = layer_prefix
        self.interval = interval
        self.client = client
        self.on_sample = on_sample  # told of each sample of the load as it is taken
        self.samples: list[Sample] = []
        self.load_began: float | None = None
        self.load_ended: float | None = None
        self._known: dict[int, psutil.Process] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def processes(self) -> list[tuple[psutil.Process, str]]:
        if self.pids:
            found = []
            for pid in self.pids:
                try:
                    found.append(self._known.get(pid) or psutil.Process(pid))
                except psutil.Error:
                    continue
        else:
            found = descendants(self.roots, self._known)
        with_roles = []
        for process in found:
            self._known[process.pid] = process
            role = role_of(process)
            if role is not None and process.pid != os.getpid():
                with_roles.append((process, role))
        return with_roles

    def sample(self, phase: str) -> Sample:
        taken = self._take(phase)
        self.samples.append(taken)
        return taken

    def _take(self, phase: str) -> Sample:
        now = time.monotonic()
        at = now - self.load_began if self.load_began is not None else 0.0
        processes = [
            found
            for process, role in self.processes()
            if (found := sample_process(process, role)) is not None
        ]
        figures = redis_figures(self.redis, self.layer_prefix)
        return Sample(at, phase, os.getloadavg()[0], processes, figures, self.client())

    def begin_load(self) -> None:
        self.load_began = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="soak-sampler", daemon=True)
        self._thread.start()

    def end_load(self) -> None:
        self.load_ended = time.monotonic()
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                taken = self.sample("load")
            except (redis.RedisError, OSError) as error:  # one missed point, not the run
                print(f"soak: a sample failed: {error!r}", flush=True)
                continue
            if self.on_sample is not None:
                self.on_sample(taken)

    def settle(self, baseline: Sample, timeout: float, step: float = 1.0) -> tuple[bool, float]:
        """After the load: poll until the queues, consumers and sockets are back where they
        were before it, or `timeout` seconds have passed; keep the last poll as the "after"
        sample. Return whether they came back, and how long that took."""
        started = time.monotonic()
        while True:
            last = self._take("after")
            done = settled(baseline, last)
            if done or time.monotonic() - started >= timeout:
                self.samples.append(last)
                return done, time.monotonic() - started
            time.sleep(step)


def held_sockets(sample: Sample) -> int:
    return sum(process.held for process in sample.processes)


def settled(baseline: Sample, now: Sample) -> bool:
    return all(settled_parts(baseline, now).values())


def settled_parts(baseline: Sample, now: Sample) -> dict[str, bool]:
    """Each thing that must come back after the load, and whether it has."""
    before, after = baseline.redis, now.redis
    return {
        "Celery queue empty": after["queued"] == 0,
        "no task unacknowledged": after["unacked"] == 0,
        "consumers back": after["consumers"] <= before["consumers"],
        "groups back": after["groups"] <= before["groups"],
        "presence back": after["presence"] <= before["presence"],
        "server's client sockets back": held_sockets(now) <= held_sockets(baseline),
    }


def fit(points: list[tuple[float, float]]) -> float:
    """The slope of the least-squares line through the points (per second)."""
    count = len(points)
    if count < 2:
        return 0.0
    mean_x = sum(x for x, _ in points) / count
    mean_y = sum(y for _, y in points) / count
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    if spread == 0:
        return 0.0
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread


@dataclass
class Trend:
    role: str
    what: str  # "memory" or "descriptors"
    processes: int
    first: float  # the mean of the first half's samples
    second: float  # the mean of the second half's samples
    rise: float  # the fitted rise over the second half
    tolerance: float
    unit: str
    restarted: list[int] = field(default_factory=list)  # pids that came or went meanwhile

    @property
    def flat(self) -> bool:
        return self.rise <= self.tolerance

    def line(self) -> str:
        word = "flat" if self.flat else "GROWING"
        restarted = f"; processes came or went: {self.restarted}" if self.restarted else ""
        return (
            f"{self.role} {self.what} ({self.processes} process(es), together): first half "
            f"{self.first:.1f} {self.unit}, second half {self.second:.1f} {self.unit}; fitted rise "
            f"over the second half {self.rise:+.1f} {self.unit} (tolerance {self.tolerance:.1f}): "
            f"{word}{restarted}"
        )


def trends(samples: list[Sample]) -> list[Trend]:
    """Memory and own descriptors of each role, over the first and second half of the load."""
    load = [sample for sample in samples if sample.phase == "load"]
    if len(load) < 4:
        return []
    middle = load[-1].at / 2
    first = [sample for sample in load if sample.at < middle]
    second = [sample for sample in load if sample.at >= middle]
    found = []
    for role in ROLE_ORDER:
        if not any(sample.role(role) for sample in load):
            continue
        pids = [{p.pid for p in sample.role(role)} for sample in second]
        restarted = sorted(set().union(*pids) - set.intersection(*pids)) if pids else []
        for what, attribute, scale, unit, tolerance in (
            ("memory", "rss", MIB, "MiB", (RSS_TOLERANCE_MIB, RSS_TOLERANCE_SHARE)),
            ("descriptors", "own_fds", 1, "fds", (FDS_TOLERANCE, FDS_TOLERANCE_SHARE)),
        ):

            def value(sample, role=role, attribute=attribute, scale=scale):
                return sum(getattr(p, attribute) for p in sample.role(role)) / scale

            mean_first = sum(value(s) for s in first) / len(first)
            mean_second = sum(value(s) for s in second) / len(second)
            slope = fit([(s.at, value(s)) for s in second])
            span = second[-1].at - second[0].at
            fixed, share = tolerance
            found.append(
                Trend(
                    role,
                    what,
                    len(second[-1].role(role)),
                    mean_first,
                    mean_second,
                    slope * span,
                    max(fixed, share * mean_second),
                    unit,
                    restarted,
                )
            )
    return found


def roles_in(samples: list[Sample]) -> list[str]:
    return [role for role in ROLE_ORDER if any(sample.role(role) for sample in samples)]


def header(roles: list[str]) -> str:
    head = f"{'phase':<6} {'min':>6} {'load':>5} "
    for role in roles:
        head += f"| {role + ' MiB':>12} {'fds':>5} {'own':>4} {'held':>4} "
    return head + "| queue unack consumers groups presence redisMiB | sockets moves"


def row(sample: Sample, roles: list[str]) -> str:
    line = f"{sample.phase:<6} {sample.at / 60:6.1f} {sample.load:5.2f} "
    for role in roles:
        line += (
            f"| {sample.total(role, 'rss') / MIB:12.1f} {sample.total(role, 'fds'):5.0f} "
            f"{sample.total(role, 'own_fds'):4.0f} {sample.total(role, 'held'):4.0f} "
        )
    found = sample.redis
    return line + (
        f"| {found['queued']:5d} {found['unacked']:5d} {found['consumers']:9d} "
        f"{found['groups']:6d} {found['presence']:8d} {found['memory'] / MIB:8.1f} "
        f"| {sample.client.get('sockets', 0):7d} {sample.client.get('moves', 0):5d}"
    )


def table(samples: list[Sample]) -> list[str]:
    """The curve: one line per sample."""
    roles = roles_in(samples)
    return [header(roles), *(row(sample, roles) for sample in samples)]


def per_process(samples: list[Sample]) -> list[str]:
    """Each process's memory and descriptors at the first and the last sample of the load."""
    load = [sample for sample in samples if sample.phase == "load"]
    if not load:
        return []
    seen: dict[int, list[ProcessSample]] = defaultdict(list)
    for sample in load:
        for process in sample.processes:
            seen[process.pid].append(process)
    lines = []
    for pid, points in sorted(seen.items(), key=lambda item: (item[1][0].role, item[0])):
        first, last = points[0], points[-1]
        lines.append(
            f"{first.role:<8} pid {pid:>7}: memory {first.rss / MIB:6.1f} -> {last.rss / MIB:6.1f}"
            f" MiB, own descriptors {first.own_fds:4d} -> {last.own_fds:4d}, "
            f"client sockets {first.held:4d} -> {last.held:4d} ({len(points)} samples)"
        )
    return lines
