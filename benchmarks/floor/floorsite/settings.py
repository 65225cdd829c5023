"""The floor: the least a Microchip move must do, on the same stack (Django 5.2, Channels,
channels-redis, gunicorn for HTTP, daphne for websockets, PostgreSQL, Redis)."""

import os

BASE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECRET_KEY = "floor-not-secret-0123456789abcdefghijklmnopqrstuvwxyz-0123456789"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "daphne",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "channels",
    "floorapp",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
ROOT_URLCONF = "floorsite.urls"
WSGI_APPLICATION = "floorsite.wsgi.application"
ASGI_APPLICATION = "floorsite.asgi.application"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ.get("FLOOR_PG_NAME", "floor"),
        "USER": os.environ.get("FLOOR_PG_USER", "postgres"),
        "PASSWORD": os.environ.get("FLOOR_PG_PASSWORD", ""),
        "HOST": os.environ.get("FLOOR_PG_HOST", "127.0.0.1"),
        "PORT": os.environ.get("FLOOR_PG_PORT", "5432"),
        "CONN_MAX_AGE": 600,  # one persistent connection per gunicorn worker
    }
}
# How a move's HTML is made (benchmarks/floor/floorapp/html.py): "template" (the floor since
# issue 36: drawn by a Django template once per move for the answer and once for the push, which
# the consumer forwards) or "fixed" (the floor of issue 21: 2 KB made once at start, numbers
# filled in).
FLOOR_HTML = os.environ.get("FLOOR_HTML", "template")
if FLOOR_HTML not in ("template", "fixed"):
    raise ValueError(f"FLOOR_HTML must be template or fixed, not {FLOOR_HTML!r}")
REDIS_URL = os.environ.get("FLOOR_REDIS_URL", "redis://127.0.0.1:6379/0")
# The channel layer: the platform's (publish/subscribe, since issue 20) for the floor of issue
# 36; the list-based one the floor of issue 21 was measured with. FLOOR_LAYER overrides it.
FLOOR_LAYER = os.environ.get("FLOOR_LAYER", "pubsub" if FLOOR_HTML == "template" else "core")
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": {
            "pubsub": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "core": "channels_redis.core.RedisChannelLayer",
        }[FLOOR_LAYER],
        "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": 15}], "prefix": "floor:asgi"},
    }
}
SESSION_ENGINE = os.environ.get("FLOOR_SESSION_ENGINE", "django.contrib.sessions.backends.db")
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        # Cached templates, as Django does by default with DEBUG off: the platform's too.
        "OPTIONS": {"context_processors": []},
    }
]
LANGUAGE_CODE = "en"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
}
