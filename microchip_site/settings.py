"""Settings for Microchip Online, read from the environment.

Every value an operator may change comes from an environment variable (see the README); the
defaults are the ones a new user gets from the README's set-up command with nothing configured:
SQLite in ``var/``, email printed to the console, and the Redis that the command starts.
"""

import os
from email.utils import parseaddr
from pathlib import Path
from urllib.parse import urlsplit

import environ
from celery.schedules import crontab
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from infra.rates import parse_rate, parse_rates
from microchip_site.secret_key import local_secret_key
from microchip_site.vapid_keys import local_vapid_keys

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(environ.Env().str("MICROCHIP_VAR_DIR", default=str(BASE_DIR / "var")))

env = environ.Env()

DEBUG = env.bool("DEBUG", default=False)

# A deployment on several hosts must set SECRET_KEY; a single host may keep the generated one.
SECRET_KEY = env.str("SECRET_KEY", default="") or local_secret_key(VAR_DIR / "secret_key")

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
SITE_URL = env.str("SITE_URL", default="http://localhost:8000").rstrip("/")
# Web Push (games/notices/webpush.py): the VAPID key pair, base64url; a single host may keep the
# pair generated into var/vapid_keys. VAPID_SUBJECT: a mailto: or https: contact for push services.
VAPID_PRIVATE_KEY = env.str("VAPID_PRIVATE_KEY", default="")
VAPID_PUBLIC_KEY = env.str("VAPID_PUBLIC_KEY", default="")
if not (VAPID_PRIVATE_KEY and VAPID_PUBLIC_KEY):
    VAPID_PRIVATE_KEY, VAPID_PUBLIC_KEY = local_vapid_keys(VAR_DIR / "vapid_keys")
SITE_NAME = "Microchip Online"

INSTALLED_APPS = [
    "microchip_site",
    "infra",  # the outbox's table, below both apps
    "accounts",
    "games",
    "games.review",  # the engine's review of finished games (issue 38)
    "games.puzzles",  # puzzles cut from them
    "games.tournaments",  # label "tournaments": its rows, pages and tasks
    "games.first_visit.apps.FirstVisitConfig",  # the home page, guests, the guided game
    "daphne",
    "accounts.admin_app.StaffAdminConfig",  # django.contrib.admin behind the site's log-in
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.sites",
    "allauth",
    "allauth.account",
    "allauth.mfa",
    "django_htmx",
    "ninja",  # the API's docs page, served from its bundled static files (games/api/)
    "channels",
    "csp",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "microchip_site.canonical_host.LoopbackHostMiddleware",  # one host name on the loopback
    "games.api.middleware.ApiRefusalsInJson",  # the API's refusals are JSON, whoever makes them
    "games.api.middleware.RateLimitFields",  # and what is left of a rate limit, in its answers
    "microchip_site.middleware.RefuseNulInQuery",  # a NUL in a query parameter: 400
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",  # the visitor's language, from cookie or browser
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "accounts.middleware.UserTimezoneMiddleware",
    "accounts.middleware.PlayerLanguageMiddleware",  # a signed-in player's own language first
    "accounts.guests.GuestFence",  # a guest reaches their own games and little else
]

ROOT_URLCONF = "microchip_site.urls"
ASGI_APPLICATION = "microchip_site.asgi.application"
WSGI_APPLICATION = "microchip_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "microchip_site.context_processors.site",
            ],
        },
    },
]

# Database: SQLite in var/ unless DATABASE_URL says otherwise (PostgreSQL in production and CI).
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'microchip.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers run beside the one writer; IMMEDIATE takes the write lock when a
    # transaction starts, so two racing moves queue instead of failing half-way with "locked".
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # A file, not memory, so that a test's threads share the test database; one per test run.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-{os.getpid()}.sqlite3")}
else:
    # Under ASGI each request's sync code runs in a fresh thread, so a connection kept by the
    # thread (CONN_MAX_AGE) would be opened anew for nearly every request: a pool per process
    # (psycopg_pool) hands connections from request to request instead.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    # A pooled connection is checked before a request gets it (one empty round trip): after a
    # database restart the pool holds dead connections, and the first request must not get one
    # (infra/postgresql/base.py says why not Django's CONN_HEALTH_CHECKS).
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        DATABASES["default"]["ENGINE"] = "infra.postgresql"
    options = DATABASES["default"].setdefault("OPTIONS", {})
    options["pool"] = {
        "min_size": env.int("DATABASE_POOL_MIN", default=2),
        "max_size": env.int("DATABASE_POOL_MAX", default=10),
        # Fail fast when the database is out of reach: the player gets the 503 page (or "your
        # move was not saved") in seconds, not a request hanging on.
        "timeout": env.float("DATABASE_POOL_TIMEOUT", default=3.0),
    }
    options.setdefault("connect_timeout", env.int("DATABASE_CONNECT_TIMEOUT", default=3))

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"

# Redis carries the channel layer, the cache (shared rate-limit counters) and Celery's broker.
REDIS_URL = env.str("REDIS_URL", default="")
if REDIS_URL:
    # django-redis keeps one connection pool per process and URL (its ConnectionFactory) and
    # one redis-py client per cache object; presence uses that client (get_redis_connection).
    # It raises redis-py's own errors when Redis is down (IGNORE_EXCEPTIONS stays off): the
    # rate limits and the session store catch them, and a log-out fails loudly.
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "microchip",
        }
    }
    # Sessions stay in the database (they outlive a Redis restart) and are read from Redis.
    SESSION_ENGINE = "infra.sessions"  # cached_db that still reads without Redis
    # Redis's publish/subscribe: a consumer's channel and its groups are subscriptions of its
    # process, dropped when the consumer ends. The list-based RedisChannelLayer keeps, in each
    # daphne, the messages that arrive for a consumer that has gone, for ever (channels_redis
    # issue 384: the hour-long soak's daphne memory kept rising, docs/performance.md); and a
    # push here is one PUBLISH instead of a script over the group's sorted set.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {
                # A subscriber's connection pings when idle, so one that died without a word is
                # noticed and re-subscribed (redis-py re-subscribes on reconnecting).
                "hosts": [
                    {"address": REDIS_URL, "socket_timeout": 15, "health_check_interval": 30}
                ],
                "prefix": "microchip:asgi",
            },
        }
    }
else:
    # Only a bare `manage.py` without the README's command lands here: one process, no Redis.
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

CELERY_BROKER_URL = REDIS_URL or "memory://"
# kombu's Redis transport, reconnecting after a Redis restart (infra/redis_transport.py).
CELERY_BROKER_TRANSPORT = "infra.redis_transport:Transport" if REDIS_URL else None
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
# A worker killed in the middle of a task (tests/faults): with acks_late a message is acknowledged
# only after its task ran, so the task is not lost but delivered again (every task is safe to run
# twice). A prefork child that dies gives its message back at once (reject_on_worker_lost); a
# whole worker that dies leaves its messages unacknowledged in Redis, delivered again after the
# visibility timeout, which must outlast the longest task (the analysis, 3 min) or a healthy
# worker's task would run twice: kombu's default hour, stated. Nothing waits that long: the sweep
# queues whatever game work is still due, and every email not marked sent (the outbox), within a
# sweep or two.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 60
# The engine's work (a finished game's review, its puzzles: seconds to minutes of CPU) has a
# queue and a worker of its own (`up` starts it: infra/launcher.py), so that it never holds the
# slots of the games' own tasks (a forced take, a bot's move, a timeout).
CELERY_TASK_DEFAULT_QUEUE = "celery"
ENGINE_QUEUE = "engine"
CELERY_TASK_ROUTES = {
    "games.review_game": {"queue": ENGINE_QUEUE},
    "games.cut_puzzles": {"queue": ENGINE_QUEUE},
}
CELERY_TASK_SOFT_TIME_LIMIT = 50
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# The engine's review of a finished game (games/review/compute.py, docs/engine.md): its CPU
# budget in seconds for the whole game; past the pace that keeps to it, the review lowers the
# budget of the drafts left. ENGINE_REVIEW_SAMPLES, if set, is how many playouts per draft check
# the engine against the solver (the budget's own by default; 0 checks none: the cheapest review,
# for machines that run tests or benchmarks). Hindsight runs after the review, outside that CPU
# budget: ENGINE_REVIEW_HINDSIGHT_SOLVES and _NODES (solver calls per seat, nodes per call: 40 and
# 50,000 by default) and ENGINE_REVIEW_ITERATIONS (the engine's per draft) shrink the whole review
# on such machines too. Puzzles are cut from each game once it is reviewed.
ENGINE_REVIEW = {
    "cpu_seconds": env.float("ENGINE_REVIEW_CPU_SECONDS", default=120.0),
    "samples": env.int("ENGINE_REVIEW_SAMPLES", default=None),
    "iterations": env.int("ENGINE_REVIEW_ITERATIONS", default=None),
    "hindsight_solves": env.int("ENGINE_REVIEW_HINDSIGHT_SOLVES", default=None),
    "hindsight_nodes": env.int("ENGINE_REVIEW_HINDSIGHT_NODES", default=None),
}
CUT_PUZZLES_AFTER_REVIEW = env.bool("CUT_PUZZLES_AFTER_REVIEW", default=True)
# The post-game analysis's time for each seat's best arrangement (unset: games/history/analysis.py's
# own, 5 s).
ANALYSIS_TIME_LIMIT = env.float("ANALYSIS_TIME_LIMIT", default=None)
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
# The sweep is the clock of every game (games/tasks.py): forced takes, reminders, timeouts and
# finishing deadlines. A sweep not started within its interval is dropped, not piled up.
GAMES_SWEEP_SECONDS = env.int("GAMES_SWEEP_SECONDS", default=60)
CELERY_BEAT_SCHEDULE = {
    "games-sweep": {
        "task": "games.sweep",
        "schedule": float(GAMES_SWEEP_SECONDS),
        "options": {"expires": GAMES_SWEEP_SECONDS},
    },
    # Quick play's windows widen with waiting: pair again what now fits (games/play/quickplay.py).
    "games-quick-play": {
        "task": "games.pair_quick_play",
        "schedule": 30.0,
        "options": {"expires": 30},
    },
    # Tournaments: starts, "starts soon", rounds whose deadline passed (games/tournaments/tasks.py).
    "tournaments-sweep": {
        "task": "tournaments.sweep",
        "schedule": float(GAMES_SWEEP_SECONDS),
        "options": {"expires": GAMES_SWEEP_SECONDS},
    },
    # Guests older than GUEST_DAYS go, with their games (games/first_visit/guests.py).
    "games-sweep-guests": {
        "task": "games.sweep_guests",
        "schedule": 3600.0,
        "options": {"expires": 30 * 60},
    },
    "games-daily-digests": {
        "task": "games.send_daily_digests",
        "schedule": crontab(minute=5),  # hourly: each reader gets theirs in their own morning
        "options": {"expires": 30 * 60},
    },
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]

# Accounts: django-allauth runs sign-up, email confirmation, log in, password change and reset.
SITE_ID = 1
ACCOUNT_LOGIN_METHODS = {"username", "email"}
# allauth's emails name the site and link to it at SITE_URL, not by the Site row, and leave
# through the site's outbox (accounts/adapter.py).
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
# allauth's log-in form with a length limit on its "login" field (accounts/forms.py).
ACCOUNT_FORMS = {"login": "accounts.forms.LoginForm"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_CONFIRM_EMAIL_ON_GET = True
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_PRESERVE_USERNAME_CASING = True
ACCOUNT_USERNAME_MIN_LENGTH = 3
ACCOUNT_EMAIL_SUBJECT_PREFIX = f"[{SITE_NAME}] "
# Links in emails use the scheme of the public address.
ACCOUNT_DEFAULT_HTTP_PROTOCOL = urlsplit(SITE_URL).scheme or "https"
ACCOUNT_LOGOUT_REDIRECT_URL = "/"

# Rate limits, counted in the shared cache (Redis with REDIS_URL; per process without it) by
# infra/rate_limits.py, written as infra/rates.py reads them (240/m, 10/5m, 5/5m/key). A bad value
# stops the start here rather than failing every request that would be counted.


def _rate_limit(name: str, default: str, *, several: bool = True) -> str:
    value = env.str(name, default=default).replace(" ", "")
    try:
        parse_rates(value) if several else parse_rate(value)
    except ValueError:
        raise ImproperlyConfigured(
            f"{name}={value!r} is not a rate limit like {default!r}"
        ) from None
    return value


# Counted per address by allauth (answered 429 with templates/429.html): log-in attempts,
# password reset emails (also per address email), confirmation emails sent again. Each reset
# and confirmation sends an email, so those also keep the site from mailing strangers in bulk.
# Other allauth limits keep allauth's defaults. Counted by the site itself (infra/rate_limits.py),
# whose 429 says how long to wait: sign-ups per address (accounts/views.py), and failed log-ins
# (accounts/lockout.py) per account (/key, a lock) and per address (/ip, a wait that locks no
# account); allauth's own `login_failed` limit counts only wrong second-factor codes, per account.
# "Play now" makes a guest account (accounts/guests.py) per press: counted per address, as
# sign-ups are. A guest and their games are removed when they log out, or GUEST_DAYS after.
GUEST_RATE_LIMIT = _rate_limit("GUEST_RATE_LIMIT", "10/h/ip,30/d/ip")
GUEST_DAYS = env.int("GUEST_DAYS", default=7)
SIGNUP_RATE_LIMIT = _rate_limit("SIGNUP_RATE_LIMIT", "20/h/ip,100/d/ip")
LOGIN_FAILED_RATE_LIMIT = _rate_limit("LOGIN_FAILED_RATE_LIMIT", "10/m/ip,5/5m/key")
ACCOUNT_RATE_LIMITS = {
    "signup": None,  # SIGNUP_RATE_LIMIT, counted by accounts/views.py
    "login": _rate_limit("LOGIN_RATE_LIMIT", "30/m/ip"),
    "login_failed": ",".join(
        rate for rate in LOGIN_FAILED_RATE_LIMIT.split(",") if rate.endswith("/key")
    ),
    "reset_password": _rate_limit("PASSWORD_RESET_RATE_LIMIT", "20/m/ip,5/h/key"),
    "confirm_email": _rate_limit("EMAIL_CONFIRMATION_RATE_LIMIT", "1/3m/key"),
}
# Behind N proxies of your own, the client's address is the Nth from the right in
# X-Forwarded-For; with 0 (the default) the header is ignored and the peer's address counts.
ALLAUTH_TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)
# Moves, new games and invitations are counted per signed-in player (never per address: many
# players may share one), by games/play/rate_limits.py (one round trip on Redis).
# Bots move through games/play/actions/, not these views, and are never counted.
ACTION_RATE_LIMIT = _rate_limit("ACTION_RATE_LIMIT", "240/m", several=False)
GAME_CREATE_RATE_LIMIT = _rate_limit("GAME_CREATE_RATE_LIMIT", "20/h", several=False)
INVITE_RATE_LIMIT = _rate_limit("INVITE_RATE_LIMIT", "60/h", several=False)
# Joining, leaving, starting and cancelling tables: each writes an event and pushes to every
# waiting room of the table (60 join/leave cycles wrote 121 events in 4 s).
SEAT_CHANGE_RATE_LIMIT = _rate_limit("SEAT_CHANGE_RATE_LIMIT", "30/10m", several=False)
# A player's messages in the table talk (games/chat.py), across their games.
CHAT_RATE_LIMIT = _rate_limit("CHAT_RATE_LIMIT", "12/m", several=False)
# Reports of players and messages to the admins (games/play/reports.py).
REPORT_RATE_LIMIT = _rate_limit("REPORT_RATE_LIMIT", "10/h", several=False)
# Opening the report form (it names a message's author and game): a player looks one up now
# and then, a script that walks every message id is stopped.
REPORT_LOOKUP_RATE_LIMIT = _rate_limit("REPORT_LOOKUP_RATE_LIMIT", "60/h", several=False)
# Following, unfollowing, blocking and unblocking players (games/players/views.py `people_change`).
PEOPLE_RATE_LIMIT = _rate_limit("PEOPLE_RATE_LIMIT", "60/h", several=False)
# Reads through the public API (games/api/), per player: a program polling what it could
# follow on the stream is told to slow down.
API_READ_RATE_LIMIT = _rate_limit("API_READ_RATE_LIMIT", "600/m", several=False)
# The API's stream (games/api/stream.py): an empty line after this many quiet seconds (nginx's
# proxy_read_timeout must be longer), a look at the player's games and token this often, and at
# most this many streams open at once per player.
API_STREAM_KEEPALIVE = env.float("API_STREAM_KEEPALIVE", default=20.0)
API_STREAM_CHECK = env.float("API_STREAM_CHECK", default=20.0)
API_STREAMS_PER_PLAYER = env.int("API_STREAMS_PER_PLAYER", default=4)
# How long after writing a message its author may still delete it.
CHAT_DELETE_MINUTES = env.int("CHAT_DELETE_MINUTES", default=5)
# Live sockets (games/live/sockets.py): held at once per player (every open tab holds one; a new
# one closes the oldest) and per address (shared by many players: past it, "try later"); opened
# per minute by a player and by an address; seconds a flooding player and address wait.
LIVE_SOCKETS_PER_PLAYER = env.int("LIVE_SOCKETS_PER_PLAYER", default=20)
LIVE_SOCKETS_PER_ADDRESS = env.int("LIVE_SOCKETS_PER_ADDRESS", default=200)
LIVE_CONNECTS_PER_PLAYER = env.int("LIVE_CONNECTS_PER_PLAYER", default=60)
LIVE_CONNECTS_PER_ADDRESS = env.int("LIVE_CONNECTS_PER_ADDRESS", default=240)
LIVE_FLOOD_PAUSE = env.int("LIVE_FLOOD_PAUSE", default=60)
# Seconds between each daphne process's checks that its channel layer still carries messages
# (games/live/layer_watch.py); 0 turns the check off.
LIVE_LAYER_WATCH_SECONDS = env.float("LIVE_LAYER_WATCH_SECONDS", default=3.0)
LOGIN_REDIRECT_URL = "/"
LOGIN_URL = "account_login"

# A second factor (allauth.mfa): an authenticator app (TOTP) and recovery codes, set up under
# Settings by anyone. Wrong codes count against the account's lock (accounts/forms.py).
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes"]
MFA_TOTP_ISSUER = SITE_NAME
MFA_FORMS = {
    "authenticate": "accounts.forms.SecondFactorForm",
    "reauthenticate": "accounts.forms.SecondFactorAgainForm",
}
# The admin (accounts/admin_site.py) is reached through the site's log-in, and with
# ADMIN_REQUIRE_MFA only by staff whose session used their second factor; on by default, off
# by default for a local run (DEBUG).
ADMIN_REQUIRE_MFA = env.bool("ADMIN_REQUIRE_MFA", default=not DEBUG)

# Email: printed to the console by default; EMAIL_URL (e.g. smtp+tls://user:pass@host:587)
# sends it through a real SMTP server.
EMAIL_CONFIG = env.email_url("EMAIL_URL", default="consolemail://")
vars().update(EMAIL_CONFIG)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Microchip Online <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
VAPID_SUBJECT = env.str(
    "VAPID_SUBJECT", default=f"mailto:{parseaddr(DEFAULT_FROM_EMAIL)[1] or 'noreply@localhost'}"
)
# How long a push service may keep a push for a device that is offline, and wait for it.
PUSH_TTL = env.int("PUSH_TTL", default=12 * 3600)
PUSH_TIMEOUT = env.int("PUSH_TIMEOUT", default=10)
# The push services a browser's subscription may name (a host or its parent domain): the
# worker posts to that address, so not to any a player makes up. "*" allows every https host.
PUSH_SERVICE_HOSTS = env.list(
    "PUSH_SERVICE_HOSTS",
    default=[
        "fcm.googleapis.com",  # Chrome, Edge on Android, Samsung Internet, Opera, Brave
        "android.googleapis.com",
        "push.services.mozilla.com",  # Firefox
        "push.apple.com",  # Safari
        "notify.windows.com",  # Edge on Windows
    ],
)
# An SMTP server that hangs must not hold a worker past the email task's time limit (it retries).
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=20)
# The times of the emails that the notices keep (games/notices/) and the settings page tells
# players (accounts/views.py): the local hour from which the daily digest comes, and the seconds
# the email of a timeout or of the game's end waits for a player who was watching the game (it
# is dropped if their page showed it meanwhile).
DIGEST_HOUR = 8
WATCHER_EMAIL_DELAY = 90

LANGUAGE_CODE = "en-gb"
# The site's languages (issue 24): a player's own choice (accounts.User.language), else the
# browser's Accept-Language, else English. The translations are in locale/ (docs/i18n.md).
LANGUAGES = [
    ("en-gb", "English"),
    ("es", "Español"),
    ("fr", "Français"),
    ("de", "Deutsch"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # htmx reads it to send the token with its requests.
X_FRAME_OPTIONS = "DENY"
# Content Security Policy (django-csp): scripts, styles and sockets from this site only, no
# inline script or style anywhere; htmx is told not to inject its indicator styles.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

if not DEBUG:
    SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=True)
    CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=True)
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=False)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    # Start small and raise it once HTTPS is known to work for every subdomain.
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
    SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
