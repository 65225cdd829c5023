"""Playing the same people again: a rematch of an ended game, and the table settings a new game
takes from an old one.

A rematch is a new table by invitation with the old one's players and settings (seat order and
first player drawn anew at its start, as for every game): the player who offers it takes the
first seat, every other person is invited at once (the usual invitation notices and emails),
computer players sit down at once, and it starts when the last invitee accepts (joins). One
invitee declining calls it off (games/play/actions/tables.py `decline_invitation`). An ended
game has at most one rematch waiting or under way: a second offer, even at the same moment, is
the first.
"""

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import User
from games.drawing.rematch import current_rematch
from games.live.changes import game_group, rematch_event
from games.models import Game
from games.play.actions import create_game
from games.play.applying import changing
from games.play.errors import ActionRefused


def table_settings(game: Game) -> dict:
    """What `create_game` needs to open a table like `game`'s (players, clock, options)."""
    return {
        "player_count": game.player_count,
        "clock": game.clock,
        "time_per_move": game.time_per_move,
        "fischer_bank": game.fischer_bank,
        "fischer_increment": game.fischer_increment,
        "fischer_cap": game.fischer_cap,
        "finishing_time": game.finishing_time,
        "weekends_off": game.weekends_off,
        "rated": game.rated,
        "strict_finish": game.strict_finish,
        "private": game.private,
        "spectators_read_chat": game.spectators_read_chat,
        "abandon_after_row": game.abandon_after_row,
        "abandon_after_total": game.abandon_after_total,
    }


def offer_rematch(*, game_id: int, user: User) -> Game:
    """Open the rematch of the ended game `game_id` as its player `user`; return it (the one
    already offered, if there is one that was not called off)."""
    with changing(game_id) as table:
        game = table.game
        if table.seat_of(user) is None:
            raise ActionRefused(
                _("Only the game's players can ask for a rematch."), code="not_a_player"
            )
        if game.status != Game.Status.ENDED:
            raise ActionRefused(
                _("A rematch can be asked for once the game is over."), code="not_over"
            )
        offered = current_rematch(game.pk)
        if offered is not None and offered.status != Game.Status.CANCELLED:
            return offered
        others = [seat.user for seat in table.seats if seat.user_id != user.pk]
        with transaction.atomic():
            rematch = create_game(
                creator=user,
                **table_settings(game),
                access=Game.Access.INVITATION,
                # The series' name: the first game's, or its number (`Game.title` says which
                # rematch this one is).
                name=game.name or f"Game {game.pk}",
                invitees=tuple(other.username for other in others if not other.bot_level),
                bots=tuple(other.bot_level for other in others if other.bot_level),
            )
            number = game.rematch_number + 1
            Game.objects.filter(pk=rematch.pk).update(rematch_of=game, rematch_number=number)
            rematch.rematch_of, rematch.rematch_number = game, number
        table.effects.push(game_group(game.pk), rematch_event(game.pk))
    return rematch
