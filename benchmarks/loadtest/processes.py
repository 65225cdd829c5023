"""The server's processes during a benchmark: which they are, and the peak memory and CPU time
of each kind.

Only the platform's own processes are watched, never every server of their kinds on the
machine (which may run other people's): those listening on the benchmark's address and their
process trees (a gunicorn master and its workers, daphne processes sharing one socket, and when
`manage.py up` started them, up's whole tree: its Celery worker and beat and its private
Redis); behind an nginx listening there, the servers its configuration proxies to, found the
same way; the PostgreSQL server of DATABASE_URL (the postmaster listening on its address and
every backend) and the Redis server of REDIS_URL, when they run on this machine.
"""

import glob
import os
import re
import socket
import threading
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import psutil

KINDS = {
    "daphne": "web (daphne)",
    "gunicorn": "web (gunicorn)",
    "nginx": "proxy (nginx)",
    "celery": "worker/beat (celery)",
    "postgres": "PostgreSQL",
    "redis-server": "Redis",
}
NGINX = "proxy (nginx)"
ANY_ADDRESS = {"0.0.0.0", "::"}


def kind_of(process: psutil.Process) -> str | None:
    """The kind of server `process` is, by the program it runs: its executable, or for Python
    the module (`-m daphne`) or script (`.venv/bin/gunicorn`) it was started with. Never by
    words elsewhere in its command line: `pytest -k nginx` is not an nginx."""
    program = program_of(process)
    return next((kind for marker, kind in KINDS.items() if program == marker), None)


def program_of(process: psutil.Process) -> str:
    try:
        name, args = process.name(), process.cmdline()
    except (psutil.Error, OSError):
        return ""
    if name.startswith("python") and len(args) > 1:
        rest = args[1:]
        if "-m" in rest[:-1]:
            return rest[rest.index("-m") + 1]
        return Path(rest[0]).name
    if args:  # servers that retitle themselves: "nginx: master process ...", "postgres: ..."
        return Path(args[0].split(":")[0].split()[0]).name if args[0].strip() else name
    return name


def is_up(process: psutil.Process) -> bool:
    """Whether `process` is a `manage.py up`."""
    try:
        args = process.cmdline()
    except (psutil.Error, OSError):
        return False
    return any(
        arg.endswith("manage.py") and args[i + 1 : i + 2] == ["up"] for i, arg in enumerate(args)
    )


@dataclass(frozen=True)
class Address:
    """Where a server listens: a TCP host and port, or a Unix socket's path."""

    host: str = ""
    port: int = 0
    path: str = ""

    def __str__(self) -> str:
        if self.path:
            return self.path
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def database_address(database: dict) -> Address | None:
    """The address of a Django database's PostgreSQL server (None for another engine)."""
    if "postgresql" not in database.get("ENGINE", ""):
        return None
    host, port = database.get("HOST") or "", int(database.get("PORT") or 5432)
    if not host or host.startswith("/"):  # a Unix socket, in libpq's default directory on Debian
        return Address(path=f"{host or '/var/run/postgresql'}/.s.PGSQL.{port}")
    return Address(host, port)


def redis_address(url: str) -> Address | None:
    """The address of the Redis server of a REDIS_URL (None when there is none)."""
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return Address(path=parts.path)
    return Address(parts.hostname or "localhost", parts.port or 6379)


class Listeners:
    """Which process listens on which address on this machine, read once. (Another user's
    processes show without their pid unless the benchmark runs as root or as that user.)"""

    def __init__(self):
        self.tcp: dict[int, set[tuple[str, int]]] = defaultdict(set)
        self.unix: dict[str, set[int]] = defaultdict(set)
        for connection in psutil.net_connections(kind="inet"):
            if connection.status == psutil.CONN_LISTEN and connection.pid:
                self.tcp[connection.laddr.port].add((connection.laddr.ip, connection.pid))
        for connection in psutil.net_connections(kind="unix"):
            if connection.laddr and connection.pid:
                self.unix[connection.laddr].add(connection.pid)

    def of(self, address: Address) -> list[psutil.Process]:
        if address.path:
            pids = self.unix.get(address.path, set())
        else:
            ips = _addresses_of(address.host)
            pids = {pid for ip, pid in self.tcp.get(address.port, ()) if ip in ips | ANY_ADDRESS}
        found = []
        for pid in sorted(pids):
            try:
                found.append(psutil.Process(pid))
            except psutil.Error:
                continue
        return found


def _addresses_of(host: str) -> set[str]:
    try:
        return {info[4][0] for info in socket.getaddrinfo(host.strip("[]"), None)}
    except OSError:
        return set()


def tree_root(process: psutil.Process) -> psutil.Process:
    """The top of the tree a server's process belongs to: the `manage.py up` that started it,
    or else its farthest ancestor of its own kind (gunicorn's master above a worker, the
    postmaster above a backend, nginx's master above a worker)."""
    kind, root = kind_of(process), process
    try:
        for parent in process.parents():
            if is_up(parent):
                return parent
            if kind is not None and kind_of(parent) == kind:
                root = parent
    except psutil.Error:
        pass
    return root


def nginx_upstreams(master: psutil.Process) -> list[Address]:
    """The TCP addresses an nginx proxies to, read from the configuration on its command line."""
    try:
        args = " ".join(master.cmdline()).split()
    except psutil.Error:
        return []
    prefix = _option(args, "-p")
    config = Path(_option(args, "-c") or "/etc/nginx/nginx.conf")
    if not config.is_absolute():
        config = Path(prefix or "/etc/nginx") / config
    return upstreams_in(config)


def upstreams_in(config: Path) -> list[Address]:
    """The TCP addresses of an nginx configuration's upstream `server` lines and of its
    `proxy_pass` to an address (not to an upstream's name, whose servers are listed)."""
    text = _config_text(config, depth=0)
    found = re.findall(r"\bserver\s+([^\s;{}]+)[^;{}]*;", text)
    found += re.findall(r"\bproxy_pass\s+https?://([^\s/;$]+)", text)
    addresses = []
    for value in found:
        host, _, port = value.rpartition(":")
        if value.startswith("unix:") or not host or not port.isdigit():
            continue
        address = Address(host.strip("[]"), int(port))
        if address not in addresses:
            addresses.append(address)
    return addresses


def _option(args: list[str], name: str) -> str | None:
    return args[args.index(name) + 1] if name in args[:-1] else None


def _config_text(path: Path, depth: int) -> str:
    """An nginx configuration without comments, its `include`s inlined."""
    try:
        text = re.sub(r"#[^\n]*", "", path.read_text(errors="replace"))
    except OSError:
        return ""
    if depth > 5:
        return text

    def inline(match):
        pattern = match.group(1).strip("\"'")
        if not os.path.isabs(pattern):
            pattern = str(path.parent / pattern)
        return "\n".join(_config_text(Path(name), depth + 1) for name in sorted(glob.glob(pattern)))

    return re.sub(r"\binclude\s+([^;]+);", inline, text)


def platform_processes(
    web: Address, database: Address | None = None, redis: Address | None = None
) -> tuple[list[psutil.Process], list[str]]:
    """The roots of the platform's process trees, and a line on each server found or not."""
    listeners = Listeners()
    roots: dict[int, psutil.Process] = {}
    notes = []

    def add(what: str, address: Address, follow_nginx: bool = False) -> None:
        found = [tree_root(process) for process in listeners.of(address)]
        if not found:
            notes.append(f"{what} on {address}: nothing on this machine listens there")
            return
        for root in found:
            label = "manage.py up" if is_up(root) else kind_of(root) or root.name()
            if root.pid in roots:
                notes.append(f"{what} on {address}: {label}, pid {root.pid}, counted above")
                continue
            roots[root.pid] = root
            notes.append(f"{what} on {address}: {label}, pid {root.pid}, and its processes")
            if follow_nginx and kind_of(root) == NGINX:
                for upstream in nginx_upstreams(root):
                    add("  behind it", upstream)

    add("the platform", web, follow_nginx=True)
    if database is not None:
        add("PostgreSQL", database)
    if redis is not None:
        add("Redis", redis)
    return list(roots.values()), notes


def descendants(
    roots: list[psutil.Process], known: dict[int, psutil.Process] | None = None
) -> list[psutil.Process]:
    """The roots and all their descendants (one pass over the machine's parent links); `known`
    processes are reused (psutil keeps a process's CPU times and identity in its object)."""
    known = known or {}
    children: dict[int, list[int]] = defaultdict(list)
    for process in psutil.process_iter(["ppid"]):
        children[process.info["ppid"]].append(process.pid)
    pids = [root.pid for root in roots if root.is_running()]
    for pid in pids:  # grows as it goes
        pids.extend(child for child in children.get(pid, ()) if child not in pids)
    found = []
    for pid in pids:
        if pid in known:
            found.append(known[pid])
            continue
        try:
            found.append(psutil.Process(pid))
        except psutil.Error:
            continue
    return found


class Sampler:
    """Sample the resident memory of the server's processes every `interval` seconds: those
    named by `pids`, or every process of a known kind in the trees of `roots` (those that start
    during the run included: a database connection's backend, a restarted gunicorn worker)."""

    def __init__(
        self,
        pids: list[int] | None = None,
        interval: float = 0.5,
        roots: list[psutil.Process] | None = None,
    ):
        self.interval = interval
        self.pids = pids
        self.roots = roots or []
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
        """Watch the processes named at the start, or those of the roots' trees as they are."""
        if self.pids:
            if not started:
                return
            candidates = [psutil.Process(pid) for pid in self.pids if psutil.pid_exists(pid)]
        else:
            candidates = self._trees()
        for process in candidates:
            if process.pid == os.getpid() or process.pid in self.processes:
                continue
            kind = kind_of(process)
            if kind is None:
                continue
            self.processes[process.pid] = (kind, process)
            # A process that was there at the start counts from then; a later one from birth.
            self.cpu_start[process.pid] = self._cpu_of(process) if started else 0.0

    def _trees(self) -> list[psutil.Process]:
        known = {pid: process for pid, (_, process) in self.processes.items()}
        return descendants(self.roots, known)

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
        by_kind = self._by_kind()
        cpu_of = self.cpu_by_kind()
        lines = []
        all_cpu = 0.0
        for kind, pids in sorted(by_kind.items()):
            largest = max(self.peak_rss[pid] for pid in pids) / 2**20
            cpu = cpu_of[kind]
            all_cpu += cpu
            lines.append(
                f"{kind:<22} {len(pids):>2} process(es)  peak memory {largest:6.0f} MiB "
                f"(largest), {self.peak_total[kind] / 2**20:6.0f} MiB (together)  "
                f"CPU {100 * cpu / max(seconds, 1e-9):5.0f}%{_per_action(cpu, actions)}"
            )
        if lines and actions:
            lines.append(f"all of them: CPU{_per_action(all_cpu, actions)}")
        return lines

    def _by_kind(self) -> dict[str, list[int]]:
        by_kind: dict[str, list[int]] = defaultdict(list)
        for pid, (kind, _) in self.processes.items():
            by_kind[kind].append(pid)
        return by_kind

    def cpu_by_kind(self) -> dict[str, float]:
        """The CPU seconds each kind of process used while watched."""
        return {
            kind: sum(self.cpu_last.get(pid, 0) - self.cpu_start.get(pid, 0) for pid in pids)
            for kind, pids in self._by_kind().items()
        }


def _per_action(cpu_seconds: float, actions: int) -> str:
    return f"  {1000 * cpu_seconds / actions:5.1f} ms per action" if actions else ""
