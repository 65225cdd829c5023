"""The server's processes during a benchmark: peak memory and CPU time of each kind."""

import os
import threading
from collections import defaultdict

import psutil

KINDS = {
    "daphne": "web (daphne)",
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
        self.processes: dict[int, tuple[str, psutil.Process]] = {}
        mine = os.getpid()
        candidates = psutil.process_iter()
        if pids:
            candidates = [psutil.Process(pid) for pid in pids if psutil.pid_exists(pid)]
        for process in candidates:
            if process.pid == mine:
                continue
            kind = kind_of(process)
            if kind is not None:
                self.processes[process.pid] = (kind, process)
        self.peak_rss: dict[int, int] = defaultdict(int)
        self.peak_total: dict[str, int] = defaultdict(int)
        self.cpu_start = self._cpu()
        self.cpu_end: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> "Sampler":
        self.cpu_start = self._cpu()
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self.cpu_end = self._cpu()

    def _cpu(self) -> dict[int, float]:
        times = {}
        for pid, (_, process) in self.processes.items():
            try:
                cpu = process.cpu_times()
            except psutil.Error:
                continue
            times[pid] = cpu.user + cpu.system
        return times

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            totals: dict[str, int] = defaultdict(int)
            for pid, (kind, process) in self.processes.items():
                try:
                    rss = process.memory_info().rss
                except psutil.Error:
                    continue
                self.peak_rss[pid] = max(self.peak_rss[pid], rss)
                totals[kind] += rss
            for kind, total in totals.items():
                self.peak_total[kind] = max(self.peak_total[kind], total)

    def summary(self, seconds: float) -> list[str]:
        """One line per kind: processes, peak memory (largest one and all together), CPU."""
        by_kind: dict[str, list[int]] = defaultdict(list)
        for pid, (kind, _) in self.processes.items():
            by_kind[kind].append(pid)
        lines = []
        for kind, pids in sorted(by_kind.items()):
            largest = max(self.peak_rss[pid] for pid in pids) / 2**20
            cpu = sum(self.cpu_end.get(pid, 0) - self.cpu_start.get(pid, 0) for pid in pids)
            lines.append(
                f"{kind:<22} {len(pids):>2} process(es)  peak memory {largest:6.0f} MiB "
                f"(largest), {self.peak_total[kind] / 2**20:6.0f} MiB (together)  "
                f"CPU {100 * cpu / max(seconds, 1e-9):5.0f}%"
            )
        return lines
