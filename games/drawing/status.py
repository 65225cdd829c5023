"""The game's status (whose turn, the deadline, the viewer's buttons, their Resign), drawn from
what it shows and kept by it.

The status is drawn for every answer and every push, and it was the costliest template of both
(issue 36: 0.7 ms of a push's 4.7). Move after move it says the same few things to a viewer
("Ada is drafting", "Your turn: confirm your draft"), except its deadline, which each turn moves.
So the template is given `StatusFacts` alone, everything it shows and nothing else, and its
drawing is kept by them and the language, with a mark where the deadline goes; the deadline is
drawn apart (templates/games/partials/status_deadline.html) and put in its place. Being the
template's only context, the facts are its key by construction: the template cannot show
anything that would not tell two drawings apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.safestring import mark_safe

from games import rules
from games.drawing.pieces import GameUrls, Piece, badge_key, clock_key, game_urls, make_piece
from infra.lru import LRU, MIB, memo, text_size

# Where the deadline goes in a kept drawing: escaped text never holds it (a title's "<" is "&lt;").
DEADLINE = mark_safe("<!--deadline-->")


@dataclass(frozen=True, slots=True)
class Vote:
    """A seat the viewer may vote to hand to the server, or has voted on (view.py `ExpelRow`)."""

    number: int
    player: str
    timeouts: int
    votes: int
    needed: int
    voted: bool


@dataclass(frozen=True, slots=True)
class StatusFacts:
    """All that templates/games/partials/status.html shows but the deadline: its one context."""

    urls: GameUrls
    title: str
    time_control: str
    strict_finish: bool
    playing: bool
    ended: bool
    finishing: bool
    my_turn: bool
    drafter: str  # the name of the player drafting now, "" when nobody drafts
    drafter_left: bool  # they left: the server drafts for them
    drafter_bot: tuple  # what their bot badge shows (pieces.badge_key)
    error: str
    player: bool  # the viewer has a seat
    left: str  # why the viewer left, in words ("resigned"), "" while they play
    pending: bool  # the viewer's draft waits for its confirmation
    finished: bool
    can_finish: bool
    illegal_count: int
    open_paths: str  # the spaces whose open paths keep them from finishing, in words
    votes: tuple[Vote, ...]
    may_resign: bool
    resign_question: str
    # The drafter's account, for their badge alone: `drafter_bot` keys what it shows of them.
    drafter_user: object = field(default=None, compare=False)


def status_facts(view) -> StatusFacts:
    """What the status of `view` shows its viewer, in the active language (its words are
    part of the key with the language)."""
    game, me, drafting = view.game, view.viewer_seat, view.current_seat
    may_resign = view.may_resign
    return StatusFacts(
        urls=game_urls(game),
        title=game.title,
        time_control=game.time_control,
        strict_finish=game.strict_finish,
        playing=game.is_playing,
        ended=game.status == game.Status.ENDED,
        finishing=game.phase == rules.FINISHING,
        my_turn=view.my_turn,
        drafter=drafting.user.username if drafting is not None else "",
        drafter_left=bool(drafting is not None and drafting.left),
        drafter_bot=badge_key(drafting.user) if drafting is not None else (),
        error=str(view.error) if view.error else "",
        player=me is not None,
        left=str(me.left_words) if me is not None else "",
        pending=me is not None and me.pending_tile is not None,
        finished=me is not None and me.seat.finished,
        can_finish=me is not None and me.can_finish,
        illegal_count=me.illegal_count if me is not None else 0,
        open_paths=me.open_paths if me is not None else "",
        votes=tuple(
            Vote(
                row.seat.number,
                row.seat.user.username,
                row.seat.seat.timeouts_in_row,
                row.votes,
                row.needed,
                row.voted,
            )
            for row in view.expel_votes
        ),
        may_resign=may_resign,
        resign_question=view.resign_question if may_resign else "",
        drafter_user=drafting.user if drafting is not None else None,
    )


def status_audience(view) -> object:
    """Whom the status speaks to, as far as it shows it, for keeping its drawing: a watcher
    (None), a player by their seat number, or, for a player who waits while another drafts,
    what their status shows of them alone (their Resign and its question, their votes to hand
    a seat to the server). Every other waiting player with the same sees the same status, so a
    5-player move draws it once for the three who wait, not once each (issue 36: the status was
    13 % of daphne's CPU in 5-player games)."""
    me = view.viewer_seat
    if me is None:
        return None
    game, current = view.game, view.current_seat
    if (
        not game.is_playing
        or game.phase != rules.DRAFTING
        or current is None
        or current.is_viewer
        or me.pending_tile is not None
        or view.error
    ):
        return me.number
    votes = tuple((row.seat.number, row.votes, row.needed, row.voted) for row in view.expel_votes)
    question = view.resign_question if view.may_resign else ""
    return ("waiting", me.left, me.seat.finished, view.may_resign, question, votes)


def status_piece(context) -> Piece:
    """The game's status as one piece, so that an answer or a push leaves it out when the page
    shows it already: ``{% status_piece %}``. Its deadline is drawn in the active time zone."""
    view = context["view"]
    kept = _drawn(status_facts(view), translation.get_language())
    return make_piece(kept.replace(DEADLINE, _deadline(view.status_seat)), "game-status")


@memo(max_bytes=4 * MIB)
def _drawn(facts: StatusFacts, language: str) -> str:
    # `language` keys the drawing only: the template speaks the active one.
    return render_to_string(
        "games/partials/status.html", {"status": facts, "deadline": DEADLINE}
    ).strip()


def _deadline(timed) -> str:
    """The status's deadline: whose clock it shows runs (`view.status_seat`), else nothing.
    Kept by all it shows (`_deadline_key`): each status drawn for a viewer drew it again, the
    same for every player who waits and for every version of a turn (issue 36: a twentieth of
    daphne's CPU in five-player games)."""
    if timed is None or timed.clock is None or not timed.clock.deadline:
        return ""
    return _deadlines.get_or_make(
        _deadline_key(timed),
        lambda: render_to_string("games/partials/status_deadline.html", {"timed": timed}).strip(),
    )


_deadlines = LRU(1024, max_bytes=MIB, weigh=text_size)


def _deadline_key(timed) -> tuple:
    """Everything templates/games/partials/status_deadline.html shows of `timed` (with the clock
    it includes: `clock_key`), in the words and the time zone it is drawn in."""
    return (
        clock_key(timed.clock),
        timed.vacation_until,
        timed.is_viewer,
        timed.user.username,
        translation.get_language(),
        timezone.get_current_timezone_name(),
    )
