"""`manage.py up`'s supervision (infra/supervisor.py) on a clock of the test's own: a
child that exits is started again after a back-off that doubles, and one that keeps crashing
stops the platform."""

import pytest

from infra import supervisor as supervision
from infra.supervisor import Child, GaveUp, Supervisor


class FakeProcess:
    count = 0

    def __init__(self):
        FakeProcess.count += 1
        self.pid = 1000 + FakeProcess.count
        self.returncode = None

    def poll(self):
        return self.returncode


class Clock:
    def __init__(self):
        self.time = 0.0

    def __call__(self):
        return self.time


def platform(*names):
    clock, lines = Clock(), []
    children = [Child(name, FakeProcess) for name in names]
    tended = Supervisor(children, say=lines.append, now=clock)
    tended.start_all()
    return tended, clock, lines


def test_a_child_that_exits_is_started_again_after_a_back_off_that_doubles():
    tended, clock, lines = platform("web 1", "beat")
    web, beat = tended.children
    first = web.process
    first.returncode = -9

    tended.tend()
    assert web.process is first and web.restart_at == 1.0
    assert lines == ["The web 1 process exited (-9); starting it again in 1 s (crash 1 of 5 "
                     "allowed in 120 s)."]  # fmt: skip
    clock.time = 0.5
    tended.tend()
    assert web.process is first  # not yet
    clock.time = 1.0
    tended.tend()
    assert web.process is not first and web.process.poll() is None
    assert lines[-1] == f"Started the web 1 process again (pid {web.process.pid})."
    assert beat.process.poll() is None and len(lines) == 2  # the others are left alone

    waits = []
    for _ in range(3):
        web.process.returncode = 1
        tended.tend()
        waits.append(web.restart_at - clock.time)
        clock.time = web.restart_at
        tended.tend()
    assert waits == [2.0, 4.0, 8.0]


def test_a_child_that_keeps_crashing_stops_the_platform():
    tended, clock, _ = platform("beat")
    (beat,) = tended.children
    for _ in range(supervision.MAX_CRASHES - 1):
        beat.process.returncode = -9
        tended.tend()
        clock.time = beat.restart_at
        tended.tend()
    beat.process.returncode = -9
    with pytest.raises(GaveUp, match=r"The beat process exited \(-9\) 5 times in 120 s"):
        tended.tend()


def test_crashes_older_than_the_window_are_forgotten():
    tended, clock, _ = platform("worker 1")
    (worker,) = tended.children
    for _ in range(supervision.MAX_CRASHES + 3):  # one crash every ten minutes: never gives up
        worker.process.returncode = 1
        tended.tend()
        assert worker.restart_at - clock.time == supervision.FIRST_BACKOFF
        clock.time += 600
        tended.tend()
    assert len(worker.crashes) == 1


def test_the_back_off_is_capped():
    child = Child("web 1", FakeProcess)
    waits = [child.crashed(now=float(n)) for n in range(4)]
    assert waits == [1.0, 2.0, 4.0, 8.0]
    many = Child("web 2", FakeProcess)
    many.crashes.extend([0.0] * 10)
    assert many.crashed(now=1.0) == supervision.MAX_BACKOFF
