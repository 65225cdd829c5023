"""The site's one rate limiter (infra/rate_limits.py) and its one syntax (infra/rates.py): a
sliding window, the same on Redis (one round trip per count) and on a process's own cache."""

import uuid
from datetime import UTC, datetime

import pytest
import time_machine
from django.core.cache import caches
from django.utils import translation

from infra import rate_limits
from infra.rates import Rate, parse_rate, parse_rates

START = datetime(2030, 3, 4, 12, 0, tzinfo=UTC)


@pytest.fixture(params=["redis", "locmem"])
def cache(request, settings, redis_url):
    if request.param == "redis":
        backend = {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": f"limiter-{uuid.uuid4().hex[:8]}",
        }
    else:
        backend = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    settings.CACHES = {"default": backend}
    yield caches["default"]
    caches["default"].clear()


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


def test_one_syntax_reads_every_rate_of_the_settings():
    assert parse_rates("240/m") == [Rate(240, 60, "ip", "240/m")]
    assert parse_rates("10/m/ip, 5/5m/key") == [
        Rate(10, 60, "ip", "10/m/ip"),
        Rate(5, 300, "key", "5/5m/key"),
    ]
    assert parse_rate("20/h").seconds == 3600
    for wrong in ("240", "240/minute", "5/5m/everyone", "-1/m", ""):
        with pytest.raises(ValueError):
            parse_rates(wrong) if wrong else parse_rate(wrong)
    with pytest.raises(ValueError, match="one rate"):
        parse_rate("10/m,20/h")


def test_a_rate_is_said_in_words_in_the_readers_language():
    assert parse_rate("240/m").in_words() == "240 a minute"
    assert parse_rate("10/5m").in_words() == "10 every 5 minutes"
    with translation.override("de"):
        assert parse_rate("10/5m").in_words() != "10 every 5 minutes"


def test_the_window_slides_and_a_refusal_says_the_exact_wait(cache, clock):
    rate = parse_rate("3/m")
    for _ in range(2):
        assert rate_limits.hit("test", rate, "ada").allowed
        clock.shift(10)
    third = rate_limits.hit("test", rate, "ada")  # at 0 s, 10 s and 20 s
    assert third.allowed and third.left == 0
    refused = rate_limits.hit("test", rate, "ada")
    assert not refused.allowed
    assert refused.wait == pytest.approx(40)  # the first comes of age at 60 s
    clock.shift(39)
    assert not rate_limits.hit("test", rate, "ada").allowed
    clock.shift(1)
    # Refusals were not counted: the first one's place is free exactly on time, and only it.
    assert rate_limits.hit("test", rate, "ada").allowed
    again = rate_limits.hit("test", rate, "ada")
    assert not again.allowed and again.wait == pytest.approx(10)


def test_each_key_and_each_name_counts_apart_and_clear_forgets(cache, clock):
    rate = parse_rate("1/h")
    assert rate_limits.hit("test", rate, "ada").allowed
    assert rate_limits.hit("test", rate, "brian").allowed
    assert rate_limits.hit("other", rate, "ada").allowed
    assert not rate_limits.hit("test", rate, "ada").allowed
    rate_limits.clear("test", rate, "ada")
    assert rate_limits.hit("test", rate, "ada").allowed


def test_peek_counts_nothing_and_record_counts_what_happened(cache, clock):
    rate = parse_rate("2/m/key")
    assert rate_limits.wait("login", rate, "ada") == 0
    rate_limits.record("login", rate, "ada")
    assert rate_limits.peek("login", rate, "ada").left == 1
    rate_limits.record("login", rate, "ada")
    usage = rate_limits.peek("login", rate, "ada")
    assert usage.left == 0 and usage.wait == pytest.approx(60)
    assert rate_limits.peek("login", rate, "ada").wait == pytest.approx(60)  # still not counted


def test_every_rate_must_allow_and_a_refused_event_counts_in_none(cache, clock):
    rates = parse_rates("2/m/ip,3/h/ip")
    assert rate_limits.wait_then_record("signup", rates, "10.0.0.1") == 0
    assert rate_limits.wait_then_record("signup", rates, "10.0.0.1") == 0
    assert rate_limits.wait_then_record("signup", rates, "10.0.0.1") == pytest.approx(60)
    clock.shift(60)
    assert rate_limits.wait_then_record("signup", rates, "10.0.0.1") == 0  # the hour's third
    clock.shift(60)
    assert rate_limits.wait_then_record("signup", rates, "10.0.0.1") == pytest.approx(3600 - 120)


def test_a_rate_of_nothing_refuses_everything(cache, clock):
    usage = rate_limits.hit("closed", parse_rate("0/h"), "ada")
    assert not usage.allowed and usage.wait == 3600


def test_the_answer_past_a_limit_says_when_to_retry(rf):
    response = rate_limits.too_many(rf.get("/"), 12.2, "Too many. Try again in 13 seconds.")
    assert response.status_code == 429
    assert response["Retry-After"] == "13"
    assert "Try again in 13 seconds." in response.content.decode()


def test_a_large_counter_near_its_amount_says_the_same_waits(cache, clock):
    # Redis reads only the times a usage needs (the oldest, the amount-th and the one before):
    # each answer must be what the whole list of times would say.
    rate = parse_rate("50/m")
    for second in range(50):
        usage = rate_limits.hit("test", rate, "ada")
        assert usage.allowed and usage.left == 49 - second
        assert usage.reset == pytest.approx(60 - second)  # the first, counted at 0 s
        clock.shift(1)
    # At 50 s: fifty counted, at 0 s to 49 s.
    peeked = rate_limits.peek("test", rate, "ada")
    assert (peeked.left, peeked.wait, peeked.reset) == (0, pytest.approx(10), pytest.approx(10))
    refused = rate_limits.hit("test", rate, "ada")
    assert not refused.allowed and refused.wait == pytest.approx(10)
    clock.shift(14.5)  # at 64.5 s: the five at 0 s to 4 s have come of age
    assert rate_limits.peek("test", rate, "ada").left == 5
    for _ in range(5):
        assert rate_limits.hit("test", rate, "ada").allowed
    last = rate_limits.hit("test", rate, "ada")
    assert not last.allowed and last.wait == pytest.approx(0.5)  # the one at 5 s
    rate_limits.record("test", rate, "ada")  # counted past the limit, as a failed log-in is
    counted = rate_limits.peek("test", rate, "ada")
    assert counted.left == 0 and counted.wait == pytest.approx(1.5)  # now the one at 6 s
