"""The server's processes during a benchmark: peak memory and CPU time of each kind."""

import os
import threading
from collections import defaultdict

import psutil

KINDS = {
    "daphne": "web (daphne)",
    "gunicorn": "web (gunicorn)",
    "nginx": "proxy (nginx)",
    "celery": "worker/beat (celery)",
    "postgres": "PostgreSQL",
    "redis-server": "Redis",
}


def kind_of(process: psutil.Process) -> str | None:
    try:
        command = " ".join(process.cmdline()) or process.name()
    except (psutil.Error, OSError):
        return None
    for marker, kind in KINDS.items():
        if marker in command:
            return kind
    return None


class Sampler:
    """Sample the resident memory of the server's processes every `interval` seconds."""

    def __init__(self, pids: list[int] | None = None, interval: float = 0.5):
        self.interval = interval
        self.pids = pids
        self.processes: dict[int, tuple[str, psutil.Process]] = {}
        self.peak_rss: dict[int, int] = defaultdict(int)
        self.peak_total: dict[str, int] = defaultdict(int)
        self.cpu_start: dict[int, float] = {}
        self.cpu_last: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> "Sampler":
        self._discover(started=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    def _discover(self, started: bool = False) -> None:
        """Watch the server's processes: those named, or (by default) every one of a known
        kind, including those that start during the run (a database connection's backend)."""
        if self.pids:
            if not started:
                return
            candidates = [psutil.Process(pid) for pid in self.pids if psutil.pid_exists(pid)]
        else:
            candidates = psutil.process_iter()
        for process in candidates:
            if process.pid == os.getpid() or process.pid in self.processes:
                continue
            kind = kind_of(process)
            if kind is None:
                continue
            self.processes[process.pid] = (kind, process)
            # A process that was there at the start counts from then; a later one from birth.
            self.cpu_start[process.pid] = self._cpu_of(process) if started else 0.0

    @staticmethod
    def _cpu_of(process: psutil.Process) -> float:
        try:
            cpu = process.cpu_times()
        except psutil.Error:
            return 0.0
        return cpu.user + cpu.system

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._discover()
            self._sample()

    def _sample(self) -> None:
        totals: dict[str, int] = defaultdict(int)
        for pid, (kind, process) in self.processes.items():
            try:
                rss = process.memory_info().rss
                cpu = process.cpu_times()
            except psutil.Error:
                continue  # gone: its last sample stands
            self.cpu_last[pid] = cpu.user + cpu.system
            self.peak_rss[pid] = max(self.peak_rss[pid], rss)
            totals[kind] += rss
        for kind, total in totals.items():
            self.peak_total[kind] = max(self.peak_total[kind], total)

    def summary(self, seconds: float, actions: int = 0) -> list[str]:
        """One line per kind: processes, peak memory (largest one and all together), CPU, and
        CPU per action (steadier than the latencies on a machine shared with others); then the
        CPU per action of them all."""
        by_kind: dict[str, list[int]] = defaultdict(list)
        for pid, (kind, _) in self.processes.items():
            by_kind[kind].append(pid)
        lines = []
        all_cpu = 0.0
        for kind, pids in sorted(by_kind.items()):
            largest = max(self.peak_rss[pid] for pid in pids) / 2**20
            cpu = sum(self.cpu_last.get(pid, 0) - self.cpu_start.get(pid, 0) for pid in pids)
            all_cpu += cpu
            lines.append(
                f"{kind:<22} {len(pids):>2} process(es)  peak memory {largest:6.0f} MiB "
                f"(largest), {self.peak_total[kind] / 2**20:6.0f} MiB (together)  "
                f"CPU {100 * cpu / max(seconds, 1e-9):5.0f}%{_per_action(cpu, actions)}"
            )
        if lines and actions:
            lines.append(f"all of them: CPU{_per_action(all_cpu, actions)}")
        return lines


def _per_action(cpu_seconds: float, actions: int) -> str:
    return f"  {1000 * cpu_seconds / actions:5.1f} ms per action" if actions else ""
