"""The many small parts of a game's partials, each drawn once per process and reused.

Every move draws boards and the pool again, for the mover and for every other open page, and
almost every space and tile looks as it did before (the same tile, the same marker, the same
button). So games/selectors.py works out what each one shows (`SpaceControl`, `TrayControl`,
`PoolControl`), and each is drawn by its own small partial, cached here on that control plus
the few things the partial adds: the game's URLs and the version stamped into a posted
action's hx-vals (only when it draws them), and the colour-blind setting. The key is everything
the partial is given, so a cached part can never show a stale or another viewer's control.

Usage (see templates/games/partials/seat.html and pool.html)::

    {% load game_parts %}
    {% game_urls view.game as urls %}          urls.act, urls.fragment, urls.game
    {% may_arrange seat as arranging %}        the board and tray are the viewer's to arrange
    {% board_rows seat as rows %}              5 lists of 5 drawn spaces
    {% tray_tiles seat as tiles %}             the drawn tiles of the tray
    {% pool_columns as columns %}              a list of drawn tiles per column
"""

from __future__ import annotations

import functools
import json
from typing import NamedTuple

from django import template
from django.template.loader import render_to_string
from django.urls import get_script_prefix, reverse

from games import selectors

register = template.Library()


class GameUrls(NamedTuple):
    act: str
    fragment: str
    game: str


@register.simple_tag
def game_urls(game) -> GameUrls:
    """Return the URLs a game's partials link to: ``{% game_urls view.game as urls %}``."""
    return _game_urls(game.pk, get_script_prefix())


@functools.lru_cache(maxsize=1024)
def _game_urls(game_id: int, prefix: str) -> GameUrls:
    # `prefix` only keys the cache: reverse() reads the script prefix itself.
    return GameUrls(
        reverse("games:act", args=[game_id]),
        reverse("games:fragment", args=[game_id]),
        reverse("games:game", args=[game_id]),
    )


@register.simple_tag(takes_context=True)
def may_arrange(context, seat) -> bool:
    """Whether the viewer may arrange `seat`'s board now: ``{% may_arrange seat as mine %}``."""
    return selectors.arranging(context["view"], seat)


def _colour_blind(context) -> bool:
    return bool(getattr(context.get("user"), "colour_blind", False))


@register.simple_tag(takes_context=True)
def board_rows(context, seat) -> list[list[str]]:
    """Return the spaces of `seat`'s board as its viewer sees them, drawn, row by row."""
    view = context["view"]
    colour_blind = _colour_blind(context)
    urls = game_urls(view.game)
    version = view.game.version
    # Only a space with a button draws the game's URLs, only a posted action the version: the
    # others are shared by every game and version.
    spaces = [
        _space_html(
            control,
            colour_blind,
            urls if control.action else None,
            version if control.vals or control.menu else None,
        )
        for control in selectors.space_controls(view, seat)
    ]
    return [spaces[row : row + 5] for row in range(0, 25, 5)]


@register.simple_tag(takes_context=True)
def tray_tiles(context, seat) -> list[str]:
    """Return the tiles of `seat`'s tray as its viewer sees them, drawn."""
    view = context["view"]
    colour_blind = _colour_blind(context)
    urls = game_urls(view.game)
    return [
        _tray_tile_html(control, colour_blind, urls if control.action else None)
        for control in selectors.tray_controls(view, seat)
    ]


@register.simple_tag(takes_context=True)
def pool_columns(context) -> list[list[str]]:
    """Return the tiles of the pool as the viewer sees them, drawn, column by column."""
    view = context["view"]
    colour_blind = _colour_blind(context)
    urls = game_urls(view.game)
    version = view.game.version
    return [
        [
            _pool_tile_html(
                control,
                colour_blind,
                urls if control.draftable else None,
                version if control.draftable else None,
            )
            for control in column
        ]
        for column in selectors.pool_controls(view)
    ]


def action_json(action: str, fields, version: int) -> str:
    """The hx-vals of a game action, as games.templatetags.game_extras.action_vals writes it."""
    return json.dumps({"type": action, **dict(fields), "version": version})


# A board's 25 spaces are most of a page's markup and nearly all of them are drawn the same way
# move after move; sized for a few hundred boards being played at once in one process.
@functools.lru_cache(maxsize=16384)
def _space_html(control, colour_blind, urls, version):
    context = {"space": control, "colour_blind": colour_blind, "urls": urls}
    if version is not None and control.vals:
        context["vals"] = action_json(control.action, control.vals, version)
    if version is not None and control.menu:
        space = (("space", control.index),)
        context["menu"] = {
            "anticlockwise": action_json("rotate", (*space, ("quarter_turns", 3)), version),
            "clockwise": action_json("rotate", (*space, ("quarter_turns", 1)), version),
            "back": action_json("return", space, version),
        }
    return render_to_string("games/partials/space.html", context)


@functools.lru_cache(maxsize=4096)
def _tray_tile_html(control, colour_blind, urls):
    return render_to_string(
        "games/partials/tray_tile.html",
        {"tray_tile": control, "colour_blind": colour_blind, "urls": urls},
    )


@functools.lru_cache(maxsize=4096)
def _pool_tile_html(control, colour_blind, urls, version):
    context = {"pool_tile": control, "colour_blind": colour_blind, "urls": urls}
    if version is not None:
        context["vals"] = action_json("draft", (("tile_id", control.tile.id),), version)
    return render_to_string("games/partials/pool_tile.html", context)
