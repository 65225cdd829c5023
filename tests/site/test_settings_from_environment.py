import json

import pytest

from tests.conftest import settings_in_a_new_process

PROBE = """
import json, django
from django.conf import settings
django.setup()
print(json.dumps({
    "db": settings.DATABASES["default"]["ENGINE"],
    "db_name": settings.DATABASES["default"]["NAME"],
    "db_host": settings.DATABASES["default"].get("HOST"),
    "redis": settings.REDIS_URL,
    "cache": settings.CACHES["default"]["BACKEND"],
    "layer": settings.CHANNEL_LAYERS["default"]["BACKEND"],
    "broker": settings.CELERY_BROKER_URL,
    "debug": settings.DEBUG,
    "secret": settings.SECRET_KEY,
    "hosts": settings.ALLOWED_HOSTS,
    "email_backend": settings.EMAIL_BACKEND,
    "email_host": getattr(settings, "EMAIL_HOST", None),
    "email_port": getattr(settings, "EMAIL_PORT", None),
    "session_secure": getattr(settings, "SESSION_COOKIE_SECURE", False),
    "csrf_secure": getattr(settings, "CSRF_COOKIE_SECURE", False),
    "hsts": getattr(settings, "SECURE_HSTS_SECONDS", 0),
    "sqlite_options": settings.DATABASES["default"].get("OPTIONS", {}),
}))
"""


def read_settings(tmp_path, **environment):
    result = settings_in_a_new_process(PROBE, tmp_path, **environment)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_production_services_come_from_the_environment(tmp_path):
    values = read_settings(
        tmp_path,
        DATABASE_URL="postgres://player:secret@db.internal:5432/microchip",
        REDIS_URL="redis://cache.internal:6379/0",
        SECRET_KEY="from-the-environment",
        ALLOWED_HOSTS="microchip.example,www.microchip.example",
        EMAIL_URL="smtp+tls://mailer:pw@mail.internal:587",
    )

    # Django's PostgreSQL backend, its pooled connections checked before use (issue 20).
    assert values["db"] == "infra.postgresql"
    assert values["db_name"] == "microchip"
    assert values["db_host"] == "db.internal"
    assert values["redis"] == "redis://cache.internal:6379/0"
    assert values["cache"] == "django_redis.cache.RedisCache"
    assert values["layer"] == "channels_redis.pubsub.RedisPubSubChannelLayer"
    assert values["broker"] == "redis://cache.internal:6379/0"
    assert values["secret"] == "from-the-environment"
    assert values["hosts"] == ["microchip.example", "www.microchip.example"]
    assert values["email_backend"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (values["email_host"], values["email_port"]) == ("mail.internal", 587)


def test_with_debug_off_cookies_are_secure_and_hsts_is_on(tmp_path):
    values = read_settings(tmp_path, SECRET_KEY="x" * 50)

    assert values["debug"] is False
    assert values["session_secure"] is True
    assert values["csrf_secure"] is True
    assert values["hsts"] > 0


def test_defaults_are_sqlite_with_wal_and_immediate_transactions_and_console_email(tmp_path):
    values = read_settings(tmp_path, DEBUG="true")

    assert values["debug"] is True
    assert values["db"] == "django.db.backends.sqlite3"
    assert values["db_name"] == str(tmp_path / "microchip.sqlite3")
    assert values["sqlite_options"]["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in values["sqlite_options"]["init_command"]
    assert values["email_backend"] == "django.core.mail.backends.console.EmailBackend"
    assert values["session_secure"] is False


@pytest.mark.slow
def test_without_a_secret_key_one_is_generated_once_and_kept(tmp_path):
    first = read_settings(tmp_path)["secret"]
    second = read_settings(tmp_path)["secret"]

    assert len(first) >= 50
    assert first == second
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0
