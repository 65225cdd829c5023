import pytest
import redis

from microchip_site.services import private_redis


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
    assert response.json() == {"status": "ok", "database": True}
