"""Rates as the settings write them, read by one parser, and said in words.

A rate is written `amount/period`, the period a unit (`s`, `m`, `h`, `d`) with an optional number
before it, and optionally what it counts by after a slash (`ip`, `user` or `key`; `ip` if none):
`240/m`, `10/5m`, `5/5m/ip`, `20/h/key`. Several rates are joined by commas (`10/m/ip,5/5m/key`):
each must allow the event. The settings read theirs here, so a bad value stops the start; the
limiter that counts them is infra/rate_limits.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.utils.translation import gettext_lazy, ngettext_lazy

UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
ONE_RATE = re.compile(r"(\d+)/(\d+(?:\.\d+)?)?([smhd])(?:/(ip|user|key))?")

PER_PERIOD = {
    # Translators: a rate limit, "240 a minute": at most %(count)s requests in that time.
    "s": gettext_lazy("%(count)s a second"),
    "m": gettext_lazy("%(count)s a minute"),
    "h": gettext_lazy("%(count)s an hour"),
    "d": gettext_lazy("%(count)s a day"),
}
EVERY_PERIODS = {
    "s": ngettext_lazy(
        # Translators: a rate limit, "10 every 5 minutes": at most %(count)s requests in that
        # time.
        "%(count)s every %(multiple)s second",
        "%(count)s every %(multiple)s seconds",
        "multiple",
    ),
    "m": ngettext_lazy(
        "%(count)s every %(multiple)s minute", "%(count)s every %(multiple)s minutes", "multiple"
    ),
    "h": ngettext_lazy(
        "%(count)s every %(multiple)s hour", "%(count)s every %(multiple)s hours", "multiple"
    ),
    "d": ngettext_lazy(
        "%(count)s every %(multiple)s day", "%(count)s every %(multiple)s days", "multiple"
    ),
}


@dataclass(frozen=True)
class Rate:
    """At most `amount` events in any `seconds`, counted by `per` ("ip", "user" or "key")."""

    amount: int
    seconds: float
    per: str = "ip"
    text: str = ""  # as written in the settings, for its words

    def __str__(self) -> str:
        return f"{self.amount}/{self.seconds:g}s/{self.per}"

    def in_words(self) -> str:
        """'240 a minute', '10 every 5 minutes', in the active language."""
        found = ONE_RATE.fullmatch(self.text)
        if not found:
            return str(self)
        count, multiple, unit, _ = found.groups()
        if multiple and float(multiple) != 1:
            return EVERY_PERIODS[unit] % {"count": count, "multiple": int(float(multiple))}
        return PER_PERIOD[unit] % {"count": count}


def parse_rates(text: str) -> list[Rate]:
    """`10/m/ip,5/5m/key` as rates; ValueError for anything else."""
    rates = []
    for part in filter(None, text.replace(" ", "").split(",")):
        found = ONE_RATE.fullmatch(part)
        if not found:
            raise ValueError(f"{part!r} is not a rate like 240/m or 5/5m/key")
        amount, number, unit, per = found.groups()
        seconds = float(number or 1) * UNIT_SECONDS[unit]
        rates.append(Rate(int(amount), seconds, per or "ip", part))
    return rates


def parse_rate(text: str) -> Rate:
    """`240/m` as one rate; ValueError for anything else (several rates included)."""
    rates = parse_rates(text)
    if len(rates) != 1:
        raise ValueError(f"{text!r} is not one rate like 240/m")
    return rates[0]
