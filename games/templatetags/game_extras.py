from datetime import UTC

from django import template
from django.utils import formats
from django.utils.html import conditional_escape, format_html, urlize
from django.utils.safestring import mark_safe
from django.utils.translation import ngettext

from games.drawing.pieces import action_json
from infra import words

register = template.Library()


@register.simple_tag(takes_context=True)
def action_vals(context, action_type, **fields):
    """Return the hx-vals JSON of a game action, for an attribute in single quotes
    (``hx-vals='{% action_vals "undo" %}'``). Not the version: the page's version travels with
    every request it makes (X-Page-Version, games/static/games/live.js), so a button drawn for one
    version serves the next."""
    return action_json(action_type, fields.items())


@register.filter
def duration_words(duration) -> str:
    """``timedelta(days=2)`` -> "2 days"; ``timedelta(hours=3)`` -> "3 hours"."""
    return "" if duration is None else words.duration_words(duration)


@register.filter
def utc_iso(moment) -> str:
    """An instant as ISO 8601 in UTC, the same whatever the viewer's time zone."""
    return moment.astimezone(UTC).isoformat(timespec="seconds") if moment else ""


@register.simple_tag
def utc_time(moment):
    """A <time> of an instant, in words in UTC, which games/static/games/clocks.js puts in the
    reader's own time: for the parts drawn once for viewers in every time zone (a board)."""
    words_utc = formats.date_format(moment.astimezone(UTC), "D j M, H:i")
    return format_html('<time datetime="{}" data-local>{} UTC</time>', utc_iso(moment), words_utc)


@register.filter
def place_words(place, seats=None) -> str:
    """1 -> "1st", 2 -> "2nd", 3 -> "3rd", 4 -> "4th"; with the game's seats (Seats or a game
    view's SeatViews, prefetched: no query), a place two seats share is "1st (shared)":
    ``{{ seat.place|place_words:game.seats.all }}``."""
    if place is None:
        return ""
    return words.place_words(place, [_place_of(seat) for seat in seats or ()])


@register.filter
def without_player(seats, player) -> list:
    """The seats (prefetched: no query) but `player`'s: ``game.seats.all|without_player:user``,
    to list the others with a comma between each two."""
    return [seat for seat in seats or () if seat.user_id != player.pk]


@register.filter
def winners(seats) -> list:
    """The seats in first place (Seats or SeatViews), in the order given."""
    return [seat for seat in seats or () if _place_of(seat) == 1]


@register.filter
def winner_line(seats) -> str:
    """Who won, leading a game's results: "<strong>ada</strong> wins with 23 points", or
    "<strong>ada</strong> and <strong>brian</strong> share 1st place with 23 points"."""
    first = winners(seats)
    if not first:
        return ""
    names = [format_html("<strong>{}</strong>", _seat(seat).user.username) for seat in first]
    score = _seat(first[0]).score
    if len(first) == 1:
        # Translators: who won a game, at the head of its results: "ada wins with 23 points".
        message = ngettext(
            "%(players)s wins with %(score)s point",
            "%(players)s wins with %(score)s points",
            abs(score),
        )
    else:
        # Translators: who won a game, at the head of its results, when two or more tie:
        # "ada and brian share 1st place with 23 points".
        message = ngettext(
            "%(players)s share 1st place with %(score)s point",
            "%(players)s share 1st place with %(score)s points",
            abs(score),
        )
    # Safe: the message is escaped, and the names were (format_html).
    return mark_safe(
        conditional_escape(message) % {"players": words.and_list(names), "score": score}
    )


def _seat(seat):
    """The Seat of a Seat or of a game view's SeatView."""
    return getattr(seat, "seat", seat)


def _place_of(seat):
    return _seat(seat).place


@register.filter
def chat_text(text: str):
    """A message of the table talk as it is shown: escaped, its web addresses made links that
    open apart from the game and pass nothing of it on (Django's `urlize`, which escapes)."""
    linked = urlize(text, nofollow=True, autoescape=True)
    # Safe: urlize escaped the text; only its own links' attributes are added to.
    return mark_safe(
        linked.replace(' rel="nofollow"', ' rel="nofollow noopener noreferrer" target="_blank"')
    )
