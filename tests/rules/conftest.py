"""The rules tests need no Django.

The platform's tests/conftest.py reads Django settings in `pytest_configure`. When the suite runs
with `-p no:django` (so pytest-django has not set DJANGO_SETTINGS_MODULE), point Django at the
project's settings if they import, else give it bare defaults, so those platform hooks still
work. With the django plugin on, nothing happens here.
"""

import os
import tempfile
from pathlib import Path

SETTINGS = "microchip_site.settings"

if "DJANGO_SETTINGS_MODULE" not in os.environ:
    try:
        from django.conf import settings
    except ImportError:  # pragma: no cover - no Django: nothing to appease
        settings = None
    if settings is not None and not settings.configured:
        try:
            __import__(SETTINGS)
        except Exception:  # missing or in flux: fall back to Django's defaults
            settings.configure(STATIC_ROOT=Path(tempfile.mkdtemp(prefix="rules-tests-static-")))
        else:
            os.environ["DJANGO_SETTINGS_MODULE"] = SETTINGS
