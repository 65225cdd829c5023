import pytest

from tests.tasks.conftest import clock  # noqa: F401 (fixture)

from .smtp import smtp_server


@pytest.fixture
def inbox(settings):
    """Every email of the test goes through a real SMTP server on the loopback: its Inbox."""
    with smtp_server() as (received, port):
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
        settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
        settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
        yield received
