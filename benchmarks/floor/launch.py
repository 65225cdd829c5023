"""Start the floor like the project's `manage.py up --web 2 --http 6`: one listening socket shared
by 2 daphne processes (--fd, port FLOOR_WEB_PORT, 8510), and gunicorn with 6 sync workers (port
FLOOR_HTTP_PORT, 8511). WEB and HTTP change the counts. SIGTERM stops them."""

import os
import signal
import socket
import subprocess
import sys
import time

py = sys.executable
web, http = int(os.environ.get("WEB", 2)), int(os.environ.get("HTTP", 6))
sock = socket.socket()
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("127.0.0.1", int(os.environ.get("FLOOR_WEB_PORT", 8510))))
sock.listen(1024)
sock.set_inheritable(True)
procs = [
    subprocess.Popen(
        [py, "-m", "daphne", "--fd", str(sock.fileno()), "floorsite.asgi:application"],
        pass_fds=[sock.fileno()],
    )
    for _ in range(web)
]
procs.append(
    subprocess.Popen(
        [
            py,
            "-m",
            "gunicorn",
            "--bind",
            f"127.0.0.1:{os.environ.get('FLOOR_HTTP_PORT', 8511)}",
            "--workers",
            str(http),
            "floorsite.wsgi:application",
        ]
    )
)
sock.close()
stop = False


def on_term(*a):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_term)
try:
    while not stop and all(p.poll() is None for p in procs):
        time.sleep(0.5)
finally:
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
