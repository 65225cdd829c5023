import pytest
import redis

from infra.services import private_redis


def test_a_private_redis_runs_for_the_block_and_stops_after():
    with private_redis() as url:
        client = redis.Redis.from_url(url)
        assert client.ping() is True
        client.set("microchip", "chip")
        assert client.get("microchip") == b"chip"

    with pytest.raises(redis.ConnectionError):
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()


@pytest.mark.django_db
def test_health_answers_ok_when_the_database_is_reachable(client):
    response = client.get("/health/")

    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert response.json()["database"] is True


@pytest.mark.django_db
def test_pages_carry_a_content_security_policy_without_inline_code(client):
    policy = client.get("/accounts/login/")["Content-Security-Policy"]

    directives = dict(part.strip().split(" ", 1) for part in policy.split(";") if part.strip())
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert directives["frame-ancestors"] == "'none'"
