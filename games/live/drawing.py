"""Drawing a game's live updates for one viewer, from the partials that draw its page.

Drawing is per viewer because parts of the page are: the viewer's own board is interactive, the
pool has draft buttons for the player whose turn it is, the status speaks to the viewer in their
time zone, and tiles carry the colour-blind shapes when the viewer asked for them. The parts
that are the same for many viewers (another player's board, the pool as the non-drafters see
it) are drawn once per process and version and shared, because a board with its tiles costs a
few milliseconds to draw and a game has many viewers. A shared fragment may depend on the viewer
only through the colour-blind preference; the tests check that each pushed fragment is the
page's own markup for that viewer. Which of a drawing's pieces a push sends depends on what the
viewer's page shows (its socket's `shown`), so that choice is made per socket, cheaply, from the
shared drawings' looks.
"""

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import BooleanField, ExpressionWrapper
from django.template.loader import render_to_string
from django.utils import timezone, translation

from accounts.models import zone_named
from games import chat, moves, selectors
from games.live import carried, looks, pieces
from games.models import Game, Invitation, Seat, waiting_for_move
from games.state_store import load_state, read_game
from infra.lru import LRU, MIB, text_size

logger = logging.getLogger(__name__)


@dataclass
class Badge:
    """What the nav badge counts, game by game: for each running game of the player, its version
    and whether it waits for their move (the player drafts, or has still to finish), and their
    invitations to tables still waiting for players.

    Each open page's consumer keeps one (games/live/consumers.py), read on connect, and updates it
    from the ``user.notify`` events of the moves that made a game start or stop waiting for the
    player (games/live/changes.py `waiting_changed`): each says which version of which game, so
    events that arrive late or out of order change nothing, and the count needs no query. An
    event about a game it does not know, or with no version (an invitation, a game that
    started), makes it count again."""

    games: dict[int, tuple[int, bool]]
    invitations: int

    @property
    def turns(self) -> int:
        return sum(1 for _, waiting in self.games.values() if waiting)

    def update(self, game_id: int, version: int, waiting: bool) -> bool | None:
        """Take the news that `game_id` at `version` waits for the player or not; return whether
        the count changed, or None when the game is not one this count knows."""
        known = self.games.get(game_id)
        if known is None:
            return None
        if version <= known[0]:
            return False  # the count was read at this version or later
        self.games[game_id] = (version, waiting)
        return waiting != known[1]

    def draw(self) -> str:
        return _draw_badge(self.turns, self.invitations)


def count_badge(user) -> Badge:
    """Read the player's badge: two queries, whatever the number of games."""
    rows = (
        Seat.objects.filter(user=user, game__status=Game.Status.PLAYING)
        .annotate(waiting=ExpressionWrapper(waiting_for_move(), output_field=BooleanField()))
        .values_list("game_id", "game__version", "waiting")
    )
    games = {game_id: (version, waiting) for game_id, version, waiting in rows}
    return Badge(games, selectors.invitations_for(user).count())


def draw_badge(user) -> str:
    """The nav badge: how many games wait for the player (one way to draw it, page and push)."""
    return count_badge(user).draw()


def _draw_badge(turns: int, invitations: int) -> str:
    return _draw_badge_in(turns, invitations, translation.get_language())


@functools.lru_cache(maxsize=256)
def _draw_badge_in(turns: int, invitations: int, language: str) -> str:
    """The badge for these counts: the same for everyone who reads this language, so drawn
    once per process."""
    return render_to_string(
        "games/partials/badge.html", {"turns": turns, "invitations": invitations}
    )


def draw_notice(user, kind: str, game: Game, *, seat: Seat | None = None, seats=None) -> str:
    """The notice of `kind` about `game` for `user`; `seat`, the user's seat at the game if the
    caller has it (the end's notice shows its place and score), and `seats`, all of them (a
    shared place says so)."""
    context = {"notice": kind, "game": game, "user": user}
    if kind == "invitation":
        invitation = (
            Invitation.objects.filter(game=game, user=user).select_related("invited_by").first()
        )
        context["inviter"] = invitation.invited_by.username if invitation else ""
    elif kind == "game_over":
        if seats is None:
            seats = list(Seat.objects.filter(game=game))
        context["seat"] = seat or next((s for s in seats if s.user_id == user.pk), None)
        context["seats"] = seats
    with timezone.override(_zone_of(user)):
        return render_to_string("games/partials/notice.html", context)


@dataclass(frozen=True)
class Access:
    """Who may open a game's socket, and what the consumer needs to know about its seats."""

    allowed: bool
    started: bool
    version: int
    seats: tuple[tuple[int, int, str], ...]  # (number, user id, username)


def access(game_id: int, user) -> Access | None:
    """Return whether `user` may watch the game (None: there is no such game)."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return None
    seats = tuple(game.seats.order_by("number").values_list("number", "user_id", "user__username"))
    return Access(
        allowed=selectors.can_view(game, user),
        started=game.status in (Game.Status.PLAYING, Game.Status.ENDED),
        version=game.version,
        seats=seats,
    )


def current_version(game_id: int) -> int | None:
    return Game.objects.filter(pk=game_id).values_list("version", flat=True).first()


def draw_change(change: dict, viewer, shown: dict[str, list[str]]) -> tuple[str, dict]:
    """Draw, for `viewer`, the parts of the game that the ``game.changed`` event lists: the
    status and, of the pool and the other players' boards, only the pieces whose look differs
    from what the viewer's page shows (`shown`, as games/live/looks.py `page_looks` gives it;
    a part it does not name is drawn whole). Return the markup and the looks of the parts drawn,
    which the page shows once it has it (None for a part drawn whole in a way not kept: the
    viewer's own board)."""
    game_id, version = change["game"], change["version"]
    view = selectors.as_seen_by(_snapshot(game_id, version), viewer)
    colour_blind = bool(getattr(viewer, "colour_blind", False))
    mine = view.viewer_seat.number if view.viewer_seat else None
    context = {"view": view, "user": viewer}
    parts, now = [], {}
    zone = _zone_of(viewer)
    with timezone.override(zone):
        if change["pool"] or (mine is not None and mine in change["seats"]):
            # The status speaks to its viewer (your turn, Confirm, Finish) in their time zone.
            key = (game_id, version, "status", mine, zone.key)
            status = _fragment(key, lambda: pieces.status_piece(context))
            parts.append(looks.status_change(status, shown, oob=False))
            now[looks.STATUS] = [status.look]
        if change["pool"]:
            # Only the player to move gets the draft buttons; the marked column is their next draw.
            drafter = mine if view.my_turn else None
            key = (game_id, version, "pool", drafter, view.next_draw_column, colour_blind)
            drawn = _fragment(key, lambda: pieces.pool_drawing(context))
            if "pool" in shown:
                parts.append(looks.pool_changes(context, shown, drawn=drawn, oob=False))
            else:
                whole = functools.partial(looks.pool_changes, context, {}, drawn=drawn, oob=False)
                parts.append(_fragment((*key, "whole"), whole))
            now.update(looks.looks_of(drawn))
        for number in change["seats"]:
            if not 0 <= number < len(view.seats):
                continue
            parts.append(_seat_change(game_id, view, number, context, shown, now))
        for number in change.get("heads", ()):
            if 0 <= number < len(view.seats) and number not in change["seats"]:
                parts.append(_head_change(game_id, view, number, context, shown, now))
        if change.get("logged"):  # in words for its reader ("you") and in their time zone
            key = (game_id, version, "log", mine, zone.key)
            log = view.log_first_page  # the page shows the version before: what it added
            news = functools.partial(
                _render, "move_log_news", context, log=log, news=log.news(version)
            )
            parts.append(_fragment(key, news))
        if mine is not None and mine in change.get("concerns", ()):
            parts.append(_render("my_notices", context))
        if change["pool"] and view.ahead is not None:  # their own queued draft, theirs alone
            key = ("ahead", view.ahead, colour_blind)
            parts.append(_fragment(key, lambda: _render("draft_ahead", context, ahead=view.ahead)))
    return looks.compact("".join(parts)), now


def _seat_change(game_id, view, number, context, shown, now) -> str:
    """A seat's board and tray that changed: the owner's drawn whole (it is interactive, and its
    page may show a tile picked up that no push knows of); another player's, the pieces whose
    look differs from `shown`, or all of it. Adds the looks the page will show to `now`."""
    seat = view.seats[number]
    colour_blind = bool(getattr(context["user"], "colour_blind", False))
    owner = view.viewer_seat.number if seat.is_viewer else None
    key = (game_id, view.game.version, "seat", number, owner, colour_blind)
    own = f"seat-{number}"
    if seat.is_viewer:
        now[own] = None
        return _fragment(key, functools.partial(_render, "seat", context, seat=seat))
    drawn = _fragment((*key, "pieces"), lambda: pieces.seat_drawing(context, seat))
    now.update(looks.looks_of(drawn))
    if own in shown:
        return looks.seat_changes(context, seat, shown, drawn=drawn, oob=False)
    whole = functools.partial(looks.seat_changes, context, seat, {}, drawn=drawn, oob=False)
    return _fragment((*key, "whole"), whole)


def _head_change(game_id, view, number, context, shown, now) -> str:
    """A seat whose head alone changed (the turn's marker, a clock): the head, unless the page
    shows it so already. Adds the looks the page will show to `now`."""
    seat = view.seats[number]
    key = (game_id, view.game.version, "head", number, seat.is_viewer)
    head = _fragment(key, functools.partial(pieces.seat_head, context, seat))
    own = f"seat-{number}"
    known = shown.get(own)
    if known is not None and len(known) > 1:
        if known[1] == head.look:
            return ""
        now[own] = [known[0], head.look, *known[2:]]  # the head is the seat's first piece
    return head.html


def draw_queue(game: Game, seats, viewer) -> str:
    """The viewer's Drafting-ahead panel, from the game and seats as a change left them (the
    queued draft they just changed): the same partial as the page."""
    seat = next(seat for seat in seats if seat.user_id == viewer.pk)
    ahead = selectors.ahead_view(game, load_state(game, seats), seat)
    return _render("draft_ahead", {"ahead": ahead, "user": viewer})


def draw_chat(message: dict, viewer, game_id: int) -> str:
    """A message of the table talk (games/chat.py `message_event`) as `viewer` sees it: their
    own can be deleted for a few minutes; a deleted one is drawn empty, to be taken away."""
    shown = chat.shown(message, viewer)
    return _render(
        "chat_message",
        {
            "message": message,
            "mine": shown.mine,
            "deletable": shown.deletable,
            "reportable": shown.reportable,
            "game_id": game_id,
        },
    )


def draw_rematch(game_id: int, viewer) -> str:
    """The rematch box of an ended game for `viewer`, as its results draw it (its offer changed:
    games/play/rematches.py)."""
    return _render("rematch", {"rematch": selectors.rematch_view(game_id, viewer)})


def draw_game(game_id: int, viewer) -> tuple[int, str] | None:
    """Draw the whole game area for `viewer` at the current version (a resync)."""
    game = Game.objects.filter(pk=game_id).only("version", "status").first()
    if game is None or game.status not in (Game.Status.PLAYING, Game.Status.ENDED):
        return None
    view = selectors.as_seen_by(_snapshot(game_id, game.version), viewer)
    if view.viewer_seat is not None and view.game.is_playing:
        # Their queued draft may have changed since this version was drawn (no new version).
        found = Seat.objects.filter(pk=view.viewer_seat.seat.pk).values_list("queued_draft")
        view = selectors.with_queued_draft(view, (found.first() or (None,))[0])
    with timezone.override(_zone_of(viewer)):
        html = _render("game", {"view": view, "user": viewer})
    return view.game.version, html


@dataclass(frozen=True)
class Lobby:
    """A table's waiting room as one viewer sees it now (`draw_lobby`)."""

    version: int
    status: str
    html: str

    @property
    def started(self) -> bool:
        return self.status in (Game.Status.PLAYING, Game.Status.ENDED)


# What a waiting room's push swaps besides its seats once the table no longer waits: the join,
# leave and invite forms go (games/partials/seats.html says why).
NO_SEAT_ACTIONS = '<div id="seat-actions"></div>'


def draw_lobby(game_id: int, viewer) -> Lobby | None:
    """Draw, for `viewer`, the seats of a table's waiting room as they are now (two queries):
    the same partial as the page (templates/games/partials/seats.html)."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return None
    context = {**selectors.waiting_room(game, viewer), "user": viewer}
    with timezone.override(_zone_of(viewer)):
        html = _render("seats", context)
    if not game.is_waiting:
        html += NO_SEAT_ACTIONS
    return Lobby(game.version, game.status, html)


def draw_presence(seats, online) -> str:
    """Draw the online dots of `seats` ((number, user id, username) each)."""
    language = translation.get_language()
    return "".join(
        _draw_dot(number, user_id in online, name, language) for number, user_id, name in seats
    )


@functools.lru_cache(maxsize=4096)
def _draw_dot(number: int, online: bool, username: str, language: str) -> str:
    """One seat's online dot: the same for every viewer who reads `language` (the active one,
    in which it is drawn), so drawn once per process."""
    seat = {"number": number, "online": online, "user": {"username": username}}
    return _render("presence", {"seat": seat})


def _render(name: str, context: dict, **extra) -> str:
    return render_to_string(f"games/partials/{name}.html", {**context, **extra})


# One drawn-for-no-one view per (game, version), and the fragments drawn from it. A push only
# needs them for the moment its viewers draw it, so small bounds are plenty.
_snapshots = LRU(256)


_fragments = LRU(1024, max_bytes=8 * MIB, weigh=text_size)


# Whether this process holds open pages' sockets (games/live/consumers.py says so when one
# connects): a web process that only answers moves (gunicorn) or a worker keeps no versions.
_holds_sockets = False


def holds_sockets() -> None:
    global _holds_sockets
    _holds_sockets = True


def keep_made(version: int, game, seats, events=(), online=None) -> None:
    """Keep the game and seats as the move that made `version` left them, for the pushes this
    process's sockets draw next (only where there are sockets)."""
    if _holds_sockets:
        _snapshots.put((game.pk, version), _Made(game, list(seats), list(events), online))


def keep_carried(event: dict) -> None:
    """Keep the version a ``game.changed`` event carries (games/live/carried.py), once per
    process, whether or not a page here draws it: the move log of the next version drawn here
    continues from its events."""
    blob = event.get("made")
    key = (event["game"], event["version"])
    if not blob or key in _snapshots:
        return
    found = carried.unpack(blob)
    if found is None:
        return
    game, seats, events, online = found
    _snapshots.put(key, _Made(game, seats, events, online))
    try:
        moves.keep_events(game, seats, events)
    except Exception:  # on the consumer's loop, for every socket: never let it end one
        logger.exception("live: cannot extend the log of game %s with version %s", *key)


@dataclass(frozen=True)
class _Made:
    """A version this process has just made (`game_changed`): its game and seats as the move's
    transaction left them, kept in `_snapshots` until a push needs its view."""

    game: Game
    seats: list[Seat]
    events: list  # the new events of the transaction, for the move log
    online: frozenset[int] | None = None  # who was watching, if the move read it


def _snapshot(game_id: int, version: int) -> selectors.GameView:
    """The game as nobody in particular sees it, at `version` or later."""

    def load():
        game, seats = read_game(game_id)
        return selectors.game_view(game, None, seats=seats)

    view = _snapshots.get_or_make((game_id, version), load)
    if isinstance(view, _Made):  # no need to read it: the move that made it left it here
        made = view
        view = selectors.game_view(
            made.game, None, seats=made.seats, known_events=made.events, online=made.online
        )
        _snapshots.put((game_id, version), view)
    return view


def _fragment(key, draw: Callable[[], str]) -> str:
    """`draw()`, kept for the next viewer who would see the very same markup: in the same
    language (each socket draws in its viewer's, games/live/consumers.py)."""
    return _fragments.get_or_make((*key, translation.get_language()), draw)


def _zone_of(viewer):
    """The viewer's time zone, as the pages use it (accounts.middleware); UTC for a visitor."""
    return viewer.zone if getattr(viewer, "is_authenticated", False) else zone_named("UTC")
