"""The project root: settings, URLs, the ASGI and WSGI entry points, the Celery app and the
commands. Nothing of the apps or of infra/ imports it (pyproject.toml's contracts).

It imports nothing itself: `manage.py` runs bootstrap.py before the environment exists.
"""
