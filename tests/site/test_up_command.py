"""`manage.py up` brings the whole platform up on a machine with nothing configured, and down."""

import fcntl
import http.cookiejar
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings

from infra.services import free_port
from tests.conftest import unconfigured_environment as unconfigured_env

pytestmark = pytest.mark.servers


# `up` listens on its ports itself and hands them to the processes it starts: a connection is
# accepted at once and answered once daphne or gunicorn has started, which on a busy machine
# (the suite's other workers starting servers of their own) took more than 30 s.
FIRST_ANSWER = 90


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def port_open(port):
    with socket.socket() as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_up_migrates_serves_runs_worker_and_beat_and_stops_everything(tmp_path):
    port = free_port()
    env = unconfigured_env(tmp_path)
    log = open(tmp_path / "up.log", "w+")  # noqa: SIM115 - read after the process ends
    process = subprocess.Popen(
        [sys.executable, "manage.py", "up", "--demo", "--port", str(port)],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    _groups.append(process.pid)
    try:
        wait_for(lambda: port_open(port), 60, "daphne to listen")
        body = health_of(port)
        assert body == {"status": "ok", "database": True, "redis": True, "process": body["process"]}
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=10) as page:
            assert "Log in" in page.read().decode()
        wait_for(
            lambda: (
                "worker1@" in (tmp_path / "up.log").read_text()
                and "beat: Starting" in (tmp_path / "up.log").read_text()
            ),
            60,
            "the worker and beat",
        )
        output = (tmp_path / "up.log").read_text()
        redis_port = int(re.search(r"Redis: redis://127\.0\.0\.1:(\d+)/0", output).group(1))
        assert port_open(redis_port)
        assert f"Microchip Online is running at http://localhost:{port}/" in output
        assert "Demo players: ada" in output
        assert (tmp_path / "microchip.sqlite3").exists()

        # A second `up` on the same var directory (the same database) would start a second
        # beat: it is refused at once, naming the first.
        second = run_up(env, "--port", str(free_port()))
        assert second.returncode == 1
        assert second.stderr.strip() == (
            f"CommandError: Another `manage.py up` (pid {process.pid}) is still running on "
            f"{tmp_path} (it holds {tmp_path / 'up.lock'}): stop it first, or give this one a "
            "var directory of its own (MICROCHIP_VAR_DIR)."
        ), second.stderr

        # The site runs as players see it: a mistyped address is its own 404 page, not
        # Django's debug page with the site's URL patterns.
        missing = urllib.request.Request(f"http://localhost:{port}/no-such-page/")
        with pytest.raises(urllib.error.HTTPError) as not_found:
            urllib.request.urlopen(missing, timeout=10)
        page = not_found.value.read().decode()
        assert not_found.value.code == 404 and "<h1>Page not found</h1>" in page
        assert "URLconf" not in page and "DEBUG" not in output

        # The sign-up email names the site where it runs (not localhost:8000) and links there;
        # a browser that came to 127.0.0.1 was sent to that address first, so the link opened
        # in it confirms the address and signs the player in.
        opener = sign_up_over_http(f"http://127.0.0.1:{port}", "zed", "zed@example.com")
        wait_for(lambda: "Thank you for using" in (tmp_path / "up.log").read_text(), 30, "email")
        email = (tmp_path / "up.log").read_text().split("To: zed@example.com", 1)[1]
        assert f"register an account on localhost:{port}." in email
        link = re.search(rf"go to (http://localhost:{port}/accounts/confirm-email/\S+/)", email)
        assert link
        assert f"Thank you for using Microchip Online!\nlocalhost:{port}\n" in email
        assert "localhost:8000" not in email
        with opener.open(link.group(1), timeout=30) as confirmed:
            signed_in = confirmed.read().decode()
        assert "/accounts/login/" not in confirmed.url, confirmed.url
        assert "Log out" in signed_in and ">zed</a>" in signed_in
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        log.close()

    assert process.returncode == 0
    assert "SIGTERM received." in (tmp_path / "up.log").read_text()
    assert not port_open(port)
    assert not port_open(redis_port)
    # Nothing it started is left running: the worker and beat went with it, and so did the
    # lock that refused the second `up`.
    wait_for(lambda: not group_alive(process.pid), 15, "every child to exit")
    with open(tmp_path / "up.lock") as free:
        fcntl.flock(free, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises if anything still held it


def sign_up_over_http(base_url, username, email):
    """Sign up through the site's form, as a browser would (its CSRF cookie and token, its
    redirects, the form posted to the address the page came from); return the browser (its
    cookies)."""
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )
    with opener.open(f"{base_url}/accounts/signup/", timeout=30) as page:
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.read().decode())[1]
        form_url = page.url
    password = "a-long-Passphrase-42"
    form = {"csrfmiddlewaretoken": token, "username": username, "email": email,
            "password1": password, "password2": password}  # fmt: skip
    request = urllib.request.Request(form_url, data=urllib.parse.urlencode(form).encode())
    with opener.open(request, timeout=30) as answer:
        assert "/accounts/confirm-email/" in answer.url, answer.url  # the "check your email" page
    return opener


def group_alive(group):
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.usefixtures("after_a_first_up")
def test_up_runs_several_web_processes_gunicorn_and_workers_and_starts_a_dead_one_again(tmp_path):
    # Started as a background job of a shell (SIGINT ignored: `start_up_in_background`) and
    # stopped with SIGINT, as a person would with Ctrl+C after `fg`.
    port, http_port = free_port(), free_port()
    env = unconfigured_env(tmp_path)
    env["GAMES_SWEEP_SECONDS"] = "2"  # so that beat's first sweep comes soon
    log_path = tmp_path / "up.log"
    shell, up = start_up_in_background(
        tmp_path, env, "--web", "2", "--workers", "2", "--port", str(port), "--http", "2",
        "--http-port", str(http_port),
    )  # fmt: skip
    try:
        wait_for(lambda: "Microchip Online is running" in log_path.read_text(), 90, "up")
        output = log_path.read_text()
        assert "2 web processes (daphne), 2 workers, 1 beat." in output
        assert f"HTTP also from 2 gunicorn processes on port {http_port}" in output
        redis_url = re.search(r"Redis: (redis://127\.0\.0\.1:(\d+)/0)", output)
        redis_url, redis_port = redis_url.group(1), int(redis_url.group(2))

        # Both daphne processes answer on the one port: the kernel hands each new connection to
        # whichever of them accepts it first.
        pids = set()

        def two_processes_answered():
            body = health_of(port)
            assert body["status"] == "ok", body
            pids.add(body["process"])
            return len(pids) == 2

        wait_for(lambda: port_open(port), 60, "daphne to listen")
        wait_for(two_processes_answered, 2 * FIRST_ANSWER, "both web processes to answer")
        for pid in pids:
            command = (Path("/proc") / str(pid) / "cmdline").read_bytes().split(b"\0")
            assert b"daphne" in command and b"--fd" in command, command
            assert parent_of(pid) == up

        # gunicorn's workers serve the same site's HTTP on the other port (the proxy's "/").
        wait_for(lambda: port_open(http_port), 60, "gunicorn to listen")
        body = health_of(http_port)
        assert body["status"] == "ok" and body["process"] not in pids, body
        command = (Path("/proc") / str(parent_of(body["process"])) / "cmdline").read_bytes()
        assert b"gunicorn" in command and parent_of(parent_of(body["process"])) == up
        login_page = f"http://127.0.0.1:{http_port}/accounts/login/"
        with urllib.request.urlopen(login_page, timeout=10) as page:
            assert "Log in" in page.read().decode()

        health_env = {**env, "REDIS_URL": redis_url}
        answers = []

        def two_workers_answer():
            answers.append(run_health(health_env, "--worker", "--min-workers", "2"))
            return answers[-1].returncode == 0

        wait_for(two_workers_answer, 90, "both workers to answer a ping")
        workers = answers[-1]
        assert "worker: ok (2 answered" in workers.stdout
        assert "worker1@" in workers.stdout and "worker2@" in workers.stdout
        # The engine's reviews have a worker of their own, apart from the games' two.
        engine = run_health(health_env, "--engine")
        assert "engine: ok (1 answered" in engine.stdout and "engine@" in engine.stdout, engine
        # Beat's sweep, run by a worker, stamps the clock within a few seconds.
        wait_for(lambda: run_health(health_env, "--beat").returncode == 0, 60, "the first sweep")

        # A web process or a worker that dies is started again, and the site goes on serving.
        os.kill(min(pids), signal.SIGKILL)

        def two_web_processes_again():
            now = [pid for pid in descendants(up) if "daphne" in command_of(pid)]
            return len(now) == 2 and min(pids) not in now

        wait_for(two_web_processes_again, 30, "the web process to be started again")
        assert re.search(r"The web \d process exited \(-9\); starting it again in 1 s",
                         log_path.read_text())  # fmt: skip
        answered = set()

        def both_answer():
            answered.add(health_of(port)["process"])
            return max(pids) in answered and bool(answered - pids)

        wait_for(both_answer, 60, "the new web process to answer on the one port")
        (worker,) = [pid for pid in descendants(up) if "worker1@" in command_of(pid)
                     and parent_of(pid) == up]  # fmt: skip
        os.kill(worker, signal.SIGKILL)
        wait_for(lambda: "The worker 1 process exited (-9)" in log_path.read_text(), 30, "restart")
        wait_for(two_workers_answer, 90, "both workers to answer again")

        children = descendants(up)
        commands = " ".join(command_of(pid) for pid in children)
        for kind in ("daphne", "gunicorn", "celery -A microchip_site worker",
                     "celery -A microchip_site beat", "redis-server"):  # fmt: skip
            assert kind in commands, commands
        os.kill(up, signal.SIGINT)
        shell.wait(timeout=60)
    finally:
        if shell.poll() is None:
            os.killpg(shell.pid, signal.SIGKILL)
            shell.wait()

    log = log_path.read_text()
    assert shell.returncode == 0, log[-3000:]  # the shell's `wait` passes on up's status
    assert "SIGINT received." in log and "Stopping ..." in log
    assert log.count("beat: Starting") == 1  # exactly one beat
    assert not port_open(port) and not port_open(http_port) and not port_open(redis_port)
    # Every process it started, and theirs (gunicorn's and Celery's workers), is gone.
    wait_for(lambda: not any_running(children), 10, "every process it started to exit")
    assert not group_alive(shell.pid)


def run_health(env, *args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "health", *args],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def parent_of(pid: int) -> int:
    status = (Path("/proc") / str(pid) / "status").read_text()
    return int(re.search(r"^PPid:\s+(\d+)", status, re.MULTILINE).group(1))


def test_up_refuses_several_web_processes_on_an_ipv6_address(tmp_path):
    # daphne adopts an inherited listening socket only for IPv4; one process may bind IPv6.
    answer = subprocess.run(
        [sys.executable, "manage.py", "up", "--host", "::1", "--web", "2"],
        cwd=settings.BASE_DIR,
        env=unconfigured_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert answer.returncode == 1
    assert "--web above 1 needs an IPv4 --host" in answer.stderr
    assert not (tmp_path / "microchip.sqlite3").exists()  # refused before anything started


_groups = []  # the process groups of the `up`s started below, reaped whatever the test did


@pytest.fixture(autouse=True)
def _reap_what_up_left():
    yield
    while _groups:
        group = _groups.pop()
        if group_alive(group):  # only after a failure: an `up` that left processes running
            os.killpg(group, signal.SIGKILL)


def run_up(env, *args) -> subprocess.CompletedProcess:
    process = subprocess.Popen(
        [sys.executable, "manage.py", "up", *args],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    _groups.append(process.pid)
    try:
        stdout, stderr = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--port", "99999"], "--port must be a port number from 1 to 65535, not 99999"),
        (["--port", "0"], "--port must be a port number from 1 to 65535, not 0"),
        (
            ["--port", "65535", "--http", "2"],
            "--http-port (--port + 1) must be a port number from 1 to 65535, not 65536",
        ),
        (
            ["--http", "1", "--http-port", "70000"],
            "--http-port must be a port number from 1 to 65535, not 70000",
        ),
        (["--host", "no-such-host.invalid", "--port", "8765"], "Cannot listen on no-such-host"),
    ],
)
def test_up_refuses_a_bad_address_in_one_line_before_anything_starts(tmp_path, args, error):
    answer = run_up(unconfigured_env(tmp_path), *args)

    assert answer.returncode == 1
    assert answer.stderr.startswith(f"CommandError: {error}"), answer.stderr
    assert len(answer.stderr.strip().splitlines()) == 1, answer.stderr  # no traceback
    assert not (tmp_path / "microchip.sqlite3").exists()  # no migration ran


@pytest.mark.parametrize("taken", ["--port", "--http-port"])
def test_up_refuses_a_port_already_in_use_before_anything_starts(tmp_path, taken):
    with socket.socket() as other:  # another server on the port
        other.bind(("127.0.0.1", 0))
        other.listen()
        busy, free = other.getsockname()[1], free_port()
        ports = {"--port": busy, "--http-port": free} if taken == "--port" else {
            "--port": free, "--http-port": busy}  # fmt: skip
        answer = run_up(unconfigured_env(tmp_path), "--http", "1",
                        *(str(part) for item in ports.items() for part in item))  # fmt: skip

    assert answer.returncode == 1
    assert answer.stderr.strip() == (
        f"CommandError: Cannot listen on 127.0.0.1:{busy}: [Errno 98] Address already in use"
    ), answer.stderr
    assert not (tmp_path / "microchip.sqlite3").exists()


def start_up_in_background(tmp_path, env, *args):
    """Start `up` as a background job of a non-interactive shell (`up ... &`), which starts it
    with SIGINT ignored; return the shell (whose exit status is up's) and up's pid."""
    pid_file = tmp_path / "up.pid"
    up = shlex.join([sys.executable, "manage.py", "up", *args])
    log = open(tmp_path / "up.log", "w")  # noqa: SIM115 - the shell has its own copy
    shell = subprocess.Popen(
        ["bash", "-c", f"{up} & echo $! > {shlex.quote(str(pid_file))}; wait $!"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    _groups.append(shell.pid)
    log.close()
    wait_for(lambda: pid_file.exists() and pid_file.read_text().strip(), 10, "the shell")
    return shell, int(pid_file.read_text())


def test_a_background_job_of_a_shell_starts_with_sigint_ignored():
    # Why the tests below start `up` that way: Python then never raises KeyboardInterrupt.
    status = subprocess.run(
        ["bash", "-c", "grep SigIgn /proc/self/status & wait"],  # the job reads its own
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert int(status.split()[1], 16) & (1 << (signal.SIGINT - 1))


# Each signal `up` stops on is sent by one test: SIGINT by the test of several processes (a
# background job's, above), SIGTERM by the test of the first start, SIGHUP by the test of a stop
# during the migration (a platform start is tens of seconds of the suite: none twice).


def any_running(pids: list[int]) -> bool:
    return any(os.path.exists(f"/proc/{pid}") for pid in pids)


def descendants(pid: int) -> list[int]:
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if parent_of(int(entry.name)) == pid:
                    children.append(int(entry.name))
            except (OSError, AttributeError):
                continue  # gone meanwhile
    return children + [grandchild for child in children for grandchild in descendants(child)]


def command_of(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def test_up_stopped_while_it_migrates_stops_there_and_exits_0(tmp_path):
    log_path = tmp_path / "up.log"
    env = unconfigured_env(tmp_path)
    shell, up = start_up_in_background(tmp_path, env, "--port", str(free_port()))
    try:
        wait_for(lambda: "Applying " in log_path.read_text(), 60, "the migration to begin")
        os.kill(up, signal.SIGHUP)  # the terminal it was started from closed
        assert shell.wait(timeout=30) == 0
    finally:
        if shell.poll() is None:
            os.killpg(shell.pid, signal.SIGKILL)
            shell.wait()
    log = log_path.read_text()
    assert log.rstrip().endswith("Stopped (SIGHUP) before the platform started."), log[-2000:]
    assert "Redis:" not in log  # nothing was started
    wait_for(lambda: not group_alive(shell.pid), 10, "up to exit")


def health_of(port) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=FIRST_ANSWER) as answer:
        return json.load(answer)


@pytest.mark.usefixtures("after_a_first_up")
def test_up_stops_everything_and_exits_1_when_a_process_keeps_crashing(tmp_path):
    shell, up = start_up_in_background(
        tmp_path, unconfigured_env(tmp_path), "--port", str(free_port())
    )
    log_path = tmp_path / "up.log"
    killed = []
    try:
        wait_for(lambda: "Microchip Online is running" in log_path.read_text(), 90, "up")
        for _ in range(5):  # five crashes within two minutes: the back-offs are 1, 2, 4, 8 s

            def a_new_beat():
                beats = [
                    pid
                    for pid in descendants(up)
                    if "celery -A microchip_site beat" in command_of(pid) and pid not in killed
                ]
                return beats[0] if beats else None

            wait_for(a_new_beat, 30, "a beat to kill")
            killed.append(a_new_beat())
            os.kill(killed[-1], signal.SIGKILL)
        assert shell.wait(timeout=60) == 1
    finally:
        if shell.poll() is None:
            os.killpg(shell.pid, signal.SIGKILL)
            shell.wait()
    log = log_path.read_text()
    assert log.count("Started the beat process again") == 4, log[-3000:]
    assert "CommandError: The beat process exited (-9) 5 times in 120 s: stopped them all." in log
    assert not group_alive(shell.pid)


@pytest.mark.usefixtures("after_a_first_up")
def test_what_an_up_killed_with_sigkill_left_running_still_holds_the_lock(tmp_path):
    env = unconfigured_env(tmp_path)
    shell, first = start_up_in_background(tmp_path, env, "--port", str(free_port()))
    log_path = tmp_path / "up.log"
    wait_for(lambda: "Microchip Online is running" in log_path.read_text(), 90, "up")
    orphans = descendants(first)

    os.kill(first, signal.SIGKILL)  # its children live on: beat among them
    shell.wait(timeout=30)
    second = run_up(env, "--port", str(free_port()))

    assert second.returncode == 1
    assert f"What `manage.py up` (pid {first}, gone) started is still running on {tmp_path}" in (
        second.stderr
    ), second.stderr
    assert any_running(orphans)


def test_up_runs_the_site_as_players_see_it_unless_told_to_debug():
    from microchip_site.management.commands.up import child_environment

    plain = child_environment({}, 8123)
    assert plain["DEBUG"] == "false"  # the site's own 404 and 500 pages
    assert plain["SITE_URL"] == "http://localhost:8123"
    assert plain["SESSION_COOKIE_SECURE"] == plain["CSRF_COOKIE_SECURE"] == "false"  # plain http
    assert child_environment({}, 8123, debug=True)["DEBUG"] == "true"
    assert child_environment({"DEBUG": "true"}, 8123)["DEBUG"] == "true"
    deployed = child_environment({"SITE_URL": "https://microchip.example"}, 8123)
    assert "SESSION_COOKIE_SECURE" not in deployed and deployed["DEBUG"] == "false"
