"""Drawing a game's live updates for one viewer, from the partials that draw its page.

Drawing is per viewer because parts of the page are: the viewer's own board is interactive, the
pool has draft buttons for the player whose turn it is, the status speaks to the viewer in their
time zone, and tiles carry the colour-blind shapes when the viewer asked for them. The parts
that are the same for many viewers (another player's board, the pool as the non-drafters see
it) are drawn once per process and version and shared (games/drawing/cache/), because a board
with its tiles costs a few milliseconds to draw and a game has many viewers. A shared fragment
may depend on the viewer only through the colour-blind preference; the tests check that each
pushed fragment is the page's own markup for that viewer. Which of a drawing's pieces a push
sends depends on what the viewer's page shows (its socket's `shown`), so that choice is made
per socket, cheaply, from the shared drawings' looks (games/drawing/change.py). A player's
push is drawn so by the process that made the move (`draw_ahead`), and only picked by their
socket (`drawn_ahead`).
"""

import functools
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import timezone, translation

from accounts.models import zone_named
from games import chat
from games.access import Viewer
from games.drawing import change as drawings
from games.drawing import pieces
from games.drawing.ahead import ahead_view
from games.drawing.cache import looks
from games.drawing.cache.versions import fragment, keep_seen, kept, snapshot
from games.drawing.change import ChangeDrawing, Head, Part, Status, Whole
from games.drawing.rematch import rematch_view
from games.drawing.status import status_audience, status_piece
from games.drawing.view import GameView, as_seen_by, game_view, with_queued_draft
from games.lobby import waiting_room
from games.models import Game, Invitation, Seat
from games.state_store import load_state, read_game
from infra.lru import LRU


def draw_notice(
    user: Viewer,
    kind: str,
    game: Game | int,
    *,
    seat: Seat | None = None,
    seats: list[Seat] | None = None,
) -> str:
    """The notice of `kind` about `game` (or the game of that id: "" if there is none) for
    `user`; `seat`, the user's seat at the game if the caller has it (the end's notice shows
    its place and score), and `seats`, all of them (a shared place says so)."""
    if not isinstance(game, Game):
        game = Game.objects.filter(pk=game).select_related("created_by").first()
        if game is None:
            return ""
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


def draw_change(change: dict, viewer: Viewer, shown: dict[str, list[str]]) -> tuple[str, dict]:
    """Draw, for `viewer`, the parts of the game that the ``game.changed`` event lists: the
    status and, of the pool and the other players' boards, only the pieces whose look differs
    from what the viewer's page shows (`shown`, as games/drawing/cache/looks.py `page_looks`
    gives it; a part it does not name is drawn whole). Return the markup and the looks of the
    parts drawn, which the page shows once it has it (None for a part drawn whole in a way not
    kept: the viewer's own board)."""
    with timezone.override(_zone_of(viewer)):
        picked = change_drawing(change, viewer).pick(shown)
    assert picked is not None  # drawn here: every part can be drawn whole
    return picked


def change_drawing(change: dict, viewer: Viewer, seen: GameView | None = None) -> ChangeDrawing:
    """What the ``game.changed`` event shows `viewer`, piece by piece, before their page's looks
    pick from it (games/drawing/change.py): from `seen`, the version's view drawn for no one,
    if the caller has it, else this process's (`snapshot`)."""
    game_id, version = change["game"], change["version"]
    view = as_seen_by(seen or snapshot(game_id, version), viewer)
    colour_blind = bool(getattr(viewer, "colour_blind", False))
    mine = view.viewer_seat.number if view.viewer_seat else None
    context = {"view": view, "user": viewer}
    entries: list = []
    zone = _zone_of(viewer)
    with timezone.override(zone):
        if change["pool"] or (mine is not None and mine in change["seats"]):
            # The status speaks to its viewer (your turn, Confirm, Finish) in their time zone;
            # the players who wait see the same but for their own Resign and votes.
            key = (game_id, version, "status", status_audience(view), zone.key)
            entries.append(Status(fragment(key, lambda: status_piece(context))))
        if change["pool"]:
            # Only the player to move gets the draft buttons; the marked column is their next draw.
            drafter = mine if view.my_turn else None
            key = (game_id, version, "pool", drafter, view.next_draw_column, colour_blind)
            drawn = fragment(key, lambda: pieces.pool_drawing(context))
            whole = functools.partial(looks.pool_changes, context, {}, drawn=drawn, oob=False)
            entries.append(Part("pool", drawn, functools.partial(fragment, (*key, "whole"), whole)))
        for number in change["seats"]:
            if 0 <= number < len(view.seats):
                entries.append(_seat_change(game_id, view, number, context))
        for number in change.get("heads", ()):
            if 0 <= number < len(view.seats) and number not in change["seats"]:
                entries.append(_head_change(game_id, view, number, context))
        if change.get("logged"):  # in words for its reader ("you") and in their time zone
            # Only the readers it says "you" to read it in words of their own.
            says_you = mine is not None and view.log is not None
            reader = mine if says_you and mine in view.log.readers_of(version) else None
            key = (game_id, version, "log", reader, zone.key)
            entries.append(Whole(fragment(key, functools.partial(log_news, context, version))))
        if mine is not None and mine in change.get("concerns", ()):
            entries.append(Whole(_render("my_notices", context)))
        if change["pool"] and view.ahead is not None:  # their own queued draft, theirs alone
            key = ("ahead", view.ahead, colour_blind)
            draft_ahead = fragment(key, lambda: _render("draft_ahead", context, ahead=view.ahead))
            entries.append(Whole(draft_ahead))
    facts = (translation.get_language(), zone.key, colour_blind)
    return ChangeDrawing(tuple(entries), facts)


# The mover's answer waits for the pushes drawn ahead, and this process draws each from cold
# caches, where a daphne process shares the version's view and the pieces its players have in
# common among its sockets: so pushes are drawn ahead only when at most this many players watch
# besides the mover, or none (a share of them saves daphne nothing: it draws the view for the
# rest). Issue 36, five players all watching: four drawn ahead took the answer's median from 28
# to 39 ms and the CPU per move up by a tenth; two, from 34 to 40 ms, and daphne's CPU no lower.
MOST_DRAWN_AHEAD = 2


def draw_ahead(
    change: dict,
    game: Game,
    seats: list[Seat],
    events: list,
    online: frozenset[int] | None,
) -> bytes:
    """The push of `change` (a ``game.changed`` event) for each player who was watching the game
    (`online`) but the one whose page made the move, if they are at most MOST_DRAWN_AHEAD, drawn
    by the process that made the version
    (`game`, `seats` with their users, its new `events`) and packed for their pages' sockets,
    which pick from it by what each page shows (games/drawing/change.py); b"" for none. Each is
    drawn in the player's language (the site's when they chose none), time zone and
    colour-blind setting.

    Only for a move a page made: its answer is drawn next from the same view of the version
    (games/play/views.py), drawn once for both. A version the server made (a forced take, a
    timeout, a computer player's move, in a worker) is drawn where the pages' sockets are,
    whose drawings are kept warm by every push: in a worker each drawing began cold (issue 36:
    the workers' CPU per move doubled)."""
    mover = change.get("mover")
    if online is None or change["ended"] or mover is None:
        return b""
    watching = [seat.user for seat in seats if seat.user_id in online and seat.user_id != mover]
    if not watching or len(watching) > MOST_DRAWN_AHEAD:
        return b""
    seen = game_view(game, None, seats=seats, known_events=events, online=online)
    keep_seen(seen)  # the move's answer is drawn from it next
    drawn = {}
    for user in watching:
        with translation.override(user.language or settings.LANGUAGE_CODE):
            drawn[user.pk] = change_drawing(change, user, seen)
    return drawings.pack(drawn)


def drawn_ahead(event: dict, user_id: int, facts: tuple) -> ChangeDrawing | None:
    """The push of `event` drawn ahead for the player `user_id` (`draw_ahead`), if it was drawn
    as their page's socket would draw it (`facts`: its language, time zone and colour-blind
    setting), else None. Unpacked once per process for every socket of the game here."""
    blob = event.get("drawn")
    if not blob:
        return None
    key = (event["game"], event["version"], blob)  # ids come again in the tests
    drawing = _drawn_ahead.get_or_make(key, lambda: drawings.unpack(blob)).get(user_id)
    if drawing is None or drawing.facts != facts:
        return None
    return drawing


# The drawings of the last versions pushed (`drawn_ahead`): a push's sockets take theirs one
# after the other, and the markup of a space or column one of them draws serves the next.
_drawn_ahead = LRU(64)


def log_news(context: dict, version: int) -> str:
    """What `version` added to the move log's first page, for a page that shows the version
    before, in words for the context's viewer (its words and pages are made here, only when
    the drawing is not kept)."""
    log = context["view"].log_first_page
    return _render("move_log_news", context, **log.news_parts(version))


def watcher_facts(viewer: Viewer) -> tuple:
    """What a watcher's drawing depends on of the watcher themselves: whether they are signed in,
    their colour-blind setting and their time zone (a socket reads them once, on connecting)."""
    signed_in = bool(getattr(viewer, "is_authenticated", False))
    colour_blind = bool(getattr(viewer, "colour_blind", False))
    return (signed_in, colour_blind, _zone_of(viewer).key)


def watchers_key(change: dict, facts: tuple, shown: dict[str, list[str]]) -> tuple:
    """Everything a watcher's drawing of `change` depends on (someone with no seat at the game):
    the version, `facts` (`watcher_facts`) and what their page shows of the parts the change
    touched; with the language (`fragment`'s), every watcher with the same key gets the very
    same markup (issue 36: drawn once, not once a socket)."""
    touched = [f"seat-{number}" for number in {*change["seats"], *change.get("heads", ())}]
    seen = tuple((part, tuple(shown.get(part, ()))) for part in (looks.STATUS, "pool", *touched))
    return (change["game"], change["version"], "watcher", *facts, seen)


def kept_for_watchers(key: tuple, language: str) -> tuple[str, dict] | None:
    """A watcher's drawing kept under `key` (`watchers_key`) in `language` (the active one, said
    by the caller: asking for it at every push of every socket cost more than the lookup), or
    None; no query, no thread."""
    return kept(key, language)  # type: ignore[return-value]


def draw_for_watchers(
    key: tuple, change: dict, viewer: Viewer, shown: dict[str, list[str]]
) -> tuple[str, dict]:
    """`draw_change` for a watcher, kept under `key` for every other watcher who sees the same."""
    return fragment(key, lambda: draw_change(change, viewer, shown))  # type: ignore[return-value]


def _seat_change(game_id, view, number, context) -> Part | Whole:
    """A seat's board and tray that changed: the owner's drawn whole (it is interactive, and its
    page may show a tile picked up that no push knows of); another player's, in pieces."""
    seat = view.seats[number]
    colour_blind = bool(getattr(context["user"], "colour_blind", False))
    owner = view.viewer_seat.number if seat.is_viewer else None
    key = (game_id, view.game.version, "seat", number, owner, colour_blind)
    own = f"seat-{number}"
    if seat.is_viewer:
        return Whole(fragment(key, functools.partial(_render, "seat", context, seat=seat)), own)
    drawn = fragment((*key, "pieces"), lambda: pieces.seat_drawing(context, seat))
    whole = functools.partial(looks.seat_changes, context, seat, {}, drawn=drawn, oob=False)
    return Part(own, drawn, functools.partial(fragment, (*key, "whole"), whole))


def _head_change(game_id, view, number, context) -> Head:
    """A seat whose head alone changed (the turn's marker, a clock): its name line and the line
    under it (`pieces.seat_head`, `pieces.seat_time`)."""
    seat = view.seats[number]
    key = (game_id, view.game.version, "head", number, seat.is_viewer)
    head = fragment(key, functools.partial(pieces.seat_head, context, seat))
    time = fragment((*key, "time"), functools.partial(pieces.seat_time, context, seat))
    return Head(f"seat-{number}", head, time)


def draw_queue(game_id: int, viewer: Viewer) -> str:
    """The viewer's Drafting-ahead panel of the game as it is now (they changed their queued
    draft on another page): the same partial as the page; "" if they have no seat there."""
    try:
        game, seats = read_game(game_id)
    except Game.DoesNotExist:
        return ""
    seat = next((seat for seat in seats if seat.user_id == viewer.pk), None)
    if seat is None:
        return ""
    ahead = ahead_view(game, load_state(game, seats), seat)
    return _render("draft_ahead", {"ahead": ahead, "user": viewer})


def draw_chat(message: dict, viewer: Viewer, game_id: int) -> str:
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


def draw_rematch(game_id: int, viewer: Viewer) -> str:
    """The rematch box of an ended game for `viewer`, as its results draw it (its offer changed:
    games/play/rematches.py)."""
    return _render("rematch", {"rematch": rematch_view(game_id, viewer)})


def draw_game(game_id: int, viewer: Viewer) -> tuple[int, str] | None:
    """Draw the whole game area for `viewer` at the current version (a resync)."""
    game = Game.objects.filter(pk=game_id).only("version", "status").first()
    if game is None or game.status not in (Game.Status.PLAYING, Game.Status.ENDED):
        return None
    view = as_seen_by(snapshot(game_id, game.version), viewer)
    if view.viewer_seat is not None and view.game.is_playing:
        # Their queued draft may have changed since this version was drawn (no new version).
        found = Seat.objects.filter(pk=view.viewer_seat.seat.pk).values_list("queued_draft")
        view = with_queued_draft(view, (found.first() or (None,))[0])
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


def draw_lobby(game_id: int, viewer: Viewer) -> Lobby | None:
    """Draw, for `viewer`, the seats of a table's waiting room as they are now (two queries):
    the same partial as the page (templates/games/partials/seats.html)."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return None
    context = {**waiting_room(game, viewer), "user": viewer}
    with timezone.override(_zone_of(viewer)):
        html = _render("seats", context)
    if not game.is_waiting:
        html += NO_SEAT_ACTIONS
    return Lobby(game.version, game.status, html)


def draw_presence(seats: Iterable[tuple[int, int, str]], online: Collection[int]) -> str:
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


def _zone_of(viewer):
    """The viewer's time zone, as the pages use it (accounts.middleware); UTC for a visitor."""
    return viewer.zone if getattr(viewer, "is_authenticated", False) else zone_named("UTC")
