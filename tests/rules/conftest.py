"""The rules tests need no Django.

The platform's tests/conftest.py reads Django settings in `pytest_configure`. When the suite runs
with `-p no:django` and no settings module, give Django its bare defaults so that hook (and its
cache fixture) still work; with the django plugin on, pytest-django has already set
DJANGO_SETTINGS_MODULE and nothing happens here.
"""

import os

if "DJANGO_SETTINGS_MODULE" not in os.environ:
    try:
        from django.conf import settings
    except ImportError:  # pragma: no cover - Django not installed: nothing to appease
        pass
    else:
        if not settings.configured:
            settings.configure()
