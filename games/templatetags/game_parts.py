"""The template tags that draw a game's board, tray and pool from their cached pieces
(games/drawing/pieces.py says how).

Usage (see templates/games/partials/seat.html and pool.html)::

    {% load game_parts %}
    {% game_urls view.game as urls %}          urls.act, urls.fragment, urls.game
    {% may_arrange seat as arranging %}        the board and tray are the viewer's to arrange
    {% seat_drawing seat as drawn %}           the seat's pieces: head, rows, tray, actions
    {% pool_drawing as drawn %}                the pool's pieces: title, columns
    {% status_piece %}                         the game's status (games/drawing/status.py)
"""

from django import template

from games.drawing import pieces, status

register = template.Library()

register.simple_tag(pieces.game_urls, name="game_urls")
register.simple_tag(pieces.may_arrange, takes_context=True, name="may_arrange")
register.simple_tag(pieces.seat_drawing, takes_context=True, name="seat_drawing")
register.simple_tag(pieces.pool_drawing, takes_context=True, name="pool_drawing")
register.simple_tag(status.status_piece, takes_context=True, name="status_piece")
