"""The slow tiers are marked in the test files (tests/tiers.py): a test that starts servers,
browsers or workers through a fixture and is not marked `servers` (or `slow`) fails before they
start, so a forgotten mark cannot put it into `manage.py test --fast` unseen."""

import pytest

from tests import tiers


class Item:
    """What pytest tells about a test: its id, its fixtures, its marks."""

    def __init__(self, fixtures, marks=()):
        self.nodeid = "tests/x/test_y.py::test_z"
        self.fixturenames = list(fixtures)
        self.marks = set(marks)

    def get_closest_marker(self, name):
        return name if name in self.marks else None


@pytest.fixture
def starter(monkeypatch):
    """A fixture declared as starting processes, as the conftests declare theirs."""
    monkeypatch.setattr(tiers, "_starters", {})

    @tiers.starts_processes("a made-up server")
    def made_up_server():
        pass

    return "made_up_server"


def test_an_unmarked_test_that_starts_a_server_fails_with_what_to_do(starter):
    test = Item(["db", starter])
    with pytest.raises(pytest.fail.Exception) as failed:
        tiers.refuse_unmarked(test)
    message = str(failed.value)
    assert "tests/x/test_y.py::test_z starts a made-up server (`made_up_server`" in message
    assert "pytestmark = pytest.mark.servers" in message


@pytest.mark.parametrize("mark", ["servers", "slow"])
def test_a_test_marked_servers_or_slow_may_start_one(starter, mark):
    tiers.refuse_unmarked(Item(["db", starter], marks=[mark]))


def test_a_test_that_starts_nothing_needs_no_mark(starter):
    tiers.refuse_unmarked(Item(["db", "client", "settings"]))


def test_the_fixtures_that_start_processes_are_declared():
    # Imported here as pytest imports them: a run of this file alone has not collected them.
    import tests.api.test_stream_daphne
    import tests.e2e.conftest
    import tests.faults.conftest
    import tests.scale.conftest
    import tests.site.test_bootstrap
    import tests.tasks.conftest  # noqa: F401

    declared = set(tiers._starters)
    assert declared >= {
        "server", "browser", "fault_redis", "stack", "two_servers", "one_daphne",
        "celery_worker_process", "daphne", "new_venv", "live_server",
    }  # fmt: skip


def test_every_test_of_this_run_that_starts_a_server_is_marked(request):
    unmarked = {
        item.nodeid: tiers.processes_started_unmarked(item)
        for item in request.session.items
        if tiers.processes_started_unmarked(item)
    }
    assert unmarked == {}
