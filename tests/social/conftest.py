from tests.tasks.conftest import clock  # noqa: F401 (fixture)
