import pytest

from tests.tasks.conftest import clock  # noqa: F401 (fixture)


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Run a call and then its on-commit side effects (the queued tasks and emails)."""

    def run(call, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return call(*args, **kwargs)

    return run
