import pytest
from django.conf import settings


def pytest_configure(config):
    # Unit tests run Celery tasks in-process, at once; the worker tests start a real worker.
    from microchip_site.celery import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True

    # Hashing passwords slowly on purpose is for production, not for a test's made-up players.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # The manifest storage needs `collectstatic` first; the suite checks pages, not the build.
    settings.STATIC_ROOT.mkdir(parents=True, exist_ok=True)
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(autouse=True)
def _isolated_cache():
    """Give each test empty rate-limit counters and cache."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()
