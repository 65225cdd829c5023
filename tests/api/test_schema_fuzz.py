"""Schemathesis fuzzes every endpoint of the live API from its own OpenAPI schema: no answer is
a server error, and every answer — each documented refusal included — matches the schema.

The API is served by a real server in this process (pytest-django's live_server) and driven by
the schemathesis command line, as anyone would run it against the site; a few games exist, so
generated game ids find real games too. The number of examples per endpoint is
SCHEMATHESIS_EXAMPLES (CI keeps it small; `python3 manage.py test tests/api -k fuzz` with a
larger one runs longer). The stream is left out: it answers for as long as the client listens,
and tests/api/test_stream.py tests it.
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

CHECKS = ",".join(
    [
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_headers_conformance",
        "response_schema_conformance",
        "negative_data_rejection",
        "ignored_auth",
    ]
)


def test_every_endpoint_answers_as_its_schema_says(live_server, players, tmp_path, settings):
    settings.ACTION_RATE_LIMIT = "100000/m"  # the fuzzer plays far faster than anyone may
    settings.GAME_CREATE_RATE_LIMIT = "100000/m"
    settings.SEAT_CHANGE_RATE_LIMIT = "100000/m"
    settings.INVITE_RATE_LIMIT = "100000/m"
    settings.API_READ_RATE_LIMIT = "100000/m"
    for count in (2, 3):  # games for the generated ids to find
        game = actions.create_game(
            creator=players[0], player_count=count, time_per_move=timedelta(days=1), bots=("easy",)
        )
        for player in players[1 : count - 1]:
            actions.join_game(game_id=game.pk, user=player)
    secret = token_for(players[0], "play")
    examples = os.environ.get("SCHEMATHESIS_EXAMPLES", "15")
    command = [
        str(Path(sys.executable).with_name("schemathesis")),
        "run",
        f"{live_server.url}/api/v1/openapi.json",
        "--checks", CHECKS,
        "--max-examples", examples,
        "--header", f"Authorization: Bearer {secret}",
        "--exclude-path", "/api/v1/stream",
        "--seed", os.environ.get("SCHEMATHESIS_SEED", "23"),
        "--workers", "1",
        "--generation-database", "none",
        "--phases", "examples,coverage,fuzzing",
        "--no-color",
        "--request-timeout", "30",
    ]  # fmt: skip
    run = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=900, check=False
    )
    assert run.returncode == 0, run.stdout[-8000:] + run.stderr[-2000:]
    assert "passed" in run.stdout
