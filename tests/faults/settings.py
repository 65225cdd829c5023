"""Settings of the daphne and Celery processes that the fault tests start: the site's own, with
the bots acting at once and thinking briefly (as tests/bots/conftest.py sets them in-process; the
short analysis and review come with every test server's environment, tests/conftest.py
`REVIEW_ENVIRONMENT`), and static files without a manifest (as tests/conftest.py does)."""

from microchip_site.settings import *  # noqa: F403
from microchip_site.settings import STORAGES

BOT_MOVE_DELAY = 0
BOT_STRONG_OPTIONS = {"draft_time": 0.05, "arrange_time": 0.05, "finish_time": 0.2, "deny": 0.5}
STORAGES = {
    **STORAGES,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
