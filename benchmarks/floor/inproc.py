"""In-process CPU of the floor's move, through Django's full stack (test Client, CSRF on): the
floor that FLOOR_HTML names (template, the default, or fixed:
benchmarks/floor/floorsite/settings.py).

Usage: python3 inproc.py [MOVES [WARM_UP]] (600 moves, the first 100 not counted).
"""

import os
import statistics
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "floorsite.settings")
import django

django.setup()
from django.conf import settings

settings.ALLOWED_HOSTS.append("testserver")
from django.contrib.auth.models import User
from django.test import Client
from floorapp.models import Game

run = uuid.uuid4().hex[:6]
users = []
for s in range(2):
    u = User(username=f"fin-{run}-{s}")
    u.set_unusable_password()
    u.save()
    users.append(u)
g = Game.objects.create(state={"players": [u.pk for u in users]})
clients = []
for u in users:
    c = Client(enforce_csrf_checks=True)
    c.force_login(u)
    c.cookies[settings.CSRF_COOKIE_NAME] = "a" * 32
    clients.append(c)
N = int(sys.argv[1]) if len(sys.argv) > 1 else 600
WARM_UP = int(sys.argv[2]) if len(sys.argv) > 2 else 100
times = []
sizes = []
for i in range(N):
    c = clients[i % 2]
    t0 = time.process_time()
    r = c.post(
        f"/games/{g.pk}/move/",
        {"tile": "R3a", "space": "7"},
        HTTP_X_CSRFTOKEN="a" * 32,
        HTTP_X_PAGE_ID="p" * 16,
    )
    times.append(time.process_time() - t0)
    sizes.append(len(r.content))
    assert r.status_code == 200, r.content
time.sleep(0.5)
w = times[WARM_UP:]
print(
    f"floor ({settings.FLOOR_HTML}) in-process: {len(w)} moves, "
    f"CPU mean {1000 * statistics.mean(w):.2f} ms, "
    f"median {1000 * statistics.median(w):.2f} ms, answer {statistics.median(sizes):.0f} B"
)
