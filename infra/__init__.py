"""The plumbing both apps stand on: what `games` and `accounts` use and neither owns.

Nothing here imports `games`, `accounts` or the project root (`microchip_site`); an
import-linter contract in pyproject.toml says so. Each module knows one thing:

- words.py: lengths of time, places and lists in the reader's language;
- lru.py: bounded in-process caches; converters.py: the URL path converters;
- outbox.py (with models.py, tasks.py): every email and Web Push leaves through one table of
  rows, sent after the commit by a task, at least once; the apps register how their kinds of
  row become messages (games/notices/delivery.py, accounts/adapter.py writes allauth's);
- health.py: the checks of the web, worker and beat processes;
- postgresql/, sessions.py, redis_transport.py: the database backend, session store and broker
  transport the settings choose, each surviving a restart of what it talks to;
- services.py, supervisor.py, launcher.py: a private Redis for a run, and keeping the
  platform's processes running for `manage.py up`.
"""
