"""Schemathesis fuzzes every endpoint of the live API from its own OpenAPI schema, with a valid
play token: no answer is a server error, every answer (each documented refusal included)
matches the schema, what the schema calls valid is never refused as malformed and what it calls
invalid always is, and every check Schemathesis has runs, but for those named below with the
reason they cannot apply.

The API is served by a real server in this process (pytest-django's live_server) and driven by
the schemathesis command line, as anyone would run it against the site; a few games exist, so
generated game ids find real games too. The number of examples per endpoint is
SCHEMATHESIS_EXAMPLES (CI keeps it small; `python3 manage.py test tests/api -k fuzz` with a
larger one runs longer). The stream is fuzzed too, each stream held for a second (its `timeout`
pinned): it answers for as long as the client listens, and tests/api/test_stream.py tests what
it says.
"""

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from games.play import actions

from .helpers import token_for

pytestmark = [pytest.mark.servers, pytest.mark.django_db(transaction=True)]

# Schemathesis's checks that are left out, each for a reason (every other one runs: `all`).
LEFT_OUT = {
    # They judge a sequence of calls linked by the schema's OpenAPI links (a resource made, then
    # read, then deleted), which only the stateful phase makes; the API's schema declares no
    # links (its resources are games, made by several endpoints and never deleted).
    "use_after_free": "stateful only",
    "ensure_resource_availability": "stateful only",
}
CONFIG = """
# Written by tests/api/test_schema_fuzz.py.

[checks.positive_data_acceptance]
# 400 is the game's or the table's refusal of a well-formed request: a space taken, a table
# full, too many computer players for its seats (what a schema cannot say). A request the schema
# calls valid must never be refused as malformed (422).
expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429"]

[[operations]]
# The stream answers for as long as the client listens: each one a second, as a client that
# asked for ?timeout=1.
include-path = "/api/v1/stream"
parameters = { "query.timeout" = 1 }
request-timeout = 10
"""


def test_every_endpoint_answers_as_its_schema_says(live_server, players, tmp_path, settings):
    settings.ACTION_RATE_LIMIT = "100000/m"  # the fuzzer plays far faster than anyone may
    settings.GAME_CREATE_RATE_LIMIT = "100000/m"
    settings.SEAT_CHANGE_RATE_LIMIT = "100000/m"
    settings.INVITE_RATE_LIMIT = "100000/m"
    settings.API_READ_RATE_LIMIT = "100000/m"
    settings.CHAT_RATE_LIMIT = "100000/m"
    for count in (2, 3):  # games for the generated ids to find
        game = actions.create_game(
            creator=players[0], player_count=count, time_per_move=timedelta(days=1), bots=("easy",)
        )
        for player in players[1 : count - 1]:
            actions.join_game(game_id=game.pk, user=player)
    secret = token_for(players[0], "play")
    examples = os.environ.get("SCHEMATHESIS_EXAMPLES", "5")
    (tmp_path / "schemathesis.toml").write_text(CONFIG)
    command = [
        str(Path(sys.executable).with_name("schemathesis")),
        "--config-file", str(tmp_path / "schemathesis.toml"),
        "run",
        f"{live_server.url}/api/v1/openapi.json",
        "--checks", "all",
        "--exclude-checks", ",".join(LEFT_OUT),
        "--max-examples", examples,
        "--header", f"Authorization: Bearer {secret}",
        "--seed", os.environ.get("SCHEMATHESIS_SEED", "23"),
        "--workers", "1",
        "--generation-database", "none",
        "--phases", "examples,coverage,fuzzing",
        "--no-color",
        "--request-timeout", "30",
    ]  # fmt: skip
    run = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=1200, check=False
    )
    assert run.returncode == 0, run.stdout[-12000:] + run.stderr[-2000:]
    assert "passed" in run.stdout
