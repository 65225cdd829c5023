"""Each pytest-xdist worker's own Redis and var directory, for `manage.py test -n N`.

Loaded with `-p tests.xdist_workers` (the test command adds it), so it is imported in every worker
before pytest-django sets Django up and the settings read REDIS_URL and MICROCHIP_VAR_DIR. Worker
`gwK` takes the K-th URL of MICROCHIP_TEST_REDIS_URLS (the test command starts one Redis a
worker: the tests use fixed database numbers of the run's Redis, and flush them) and the
subdirectory `gwK` of the run's var directory. In the controlling process it does nothing.
"""

import os
from pathlib import Path

_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if _worker:
    _urls = os.environ["MICROCHIP_TEST_REDIS_URLS"].split(",")
    os.environ["REDIS_URL"] = _urls[int(_worker.removeprefix("gw"))]
    _var = Path(os.environ["MICROCHIP_VAR_DIR"]) / _worker
    (_var / "static").mkdir(parents=True, exist_ok=True)  # whitenoise looks at it on start
    os.environ["MICROCHIP_VAR_DIR"] = str(_var)
