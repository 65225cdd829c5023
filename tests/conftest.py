import pytest
from django.conf import settings
from django.test.signals import setting_changed


def pytest_configure(config):
    # Unit tests run Celery tasks in-process, at once; the worker tests start a real worker.
    from microchip_site.celery import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True

    # Hashing passwords slowly on purpose is for production, not for a test's made-up players.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # The manifest storage needs `collectstatic` first; the suite checks pages, not the build.
    settings.STATIC_ROOT.mkdir(parents=True, exist_ok=True)
    storages = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    settings.STORAGES = storages
    # Drop any storage built before this point, as override_settings would.
    setting_changed.send(sender=None, setting="STORAGES", value=storages, enter=True)


@pytest.fixture(autouse=True)
def _isolated_cache():
    """Give each test empty rate-limit counters and cache."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()
