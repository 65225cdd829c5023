"""The platform's rows as the API shows them: one function per shape, shared by the read and
play endpoints and the stream, so a game looks the same whichever way it is asked for."""

from django.utils import timezone

from accounts.models import User
from games import rules, selectors
from games.models import Event, Game, Seat
from games.state_store import load_state


def player(user: User) -> dict:
    return {
        "username": user.username,
        "bot": user.is_bot or bool(getattr(user, "bot_owner_id", None)),
    }


def your_move(state: rules.GameState, seat: int) -> bool:
    """Whether the game waits for the player of `seat` to move: their turn to draft, or their
    board to finish; not while the server's forced take of a column's last tile is due (the
    server moves then, not the player: issue 34)."""
    return state.waits_for(seat) and state.forced_action() is None


def turn(state: rules.GameState) -> int:
    """The turn the game is at, for saying `your_move` once a turn: the drafts made so far (a
    draft of the player's own, still to confirm, is the same turn), one for the whole finishing
    phase."""
    return state.drafts if state.phase == rules.DRAFTING else -1


# Actions only the server makes: never among a client's legal actions.
SERVER_ACTIONS = frozenset({"take_last", "conclude", "resign"})


def summary(
    game: Game, seats: list[Seat], viewer: User, state: rules.GameState | None = None
) -> dict:
    """A game as lists show it; `state` (its rules state, if read already) says whose move."""
    mine = next((seat for seat in seats if seat.user_id == viewer.pk), None)
    waits = False
    if mine is not None and game.is_playing and not mine.left:
        state = state or load_state(game, seats)
        waits = your_move(state, mine.number)
    return {
        "id": game.pk,
        "name": game.title,
        "status": game.status,
        "version": game.version,
        "player_count": game.player_count,
        "players": [player(seat.user) for seat in seats],
        "rated": game.rated,
        "time_control": game.time_control,
        "created_at": game.created_at,
        "started_at": game.started_at,
        "ended_at": game.ended_at,
        "your_seat": None if mine is None else mine.number,
        "your_move": waits,
    }


def full(game: Game, seats: list[Seat], viewer: User, *, arranging: bool = False) -> dict:
    """A game with everything a client needs to play it: the pool, every board and tray, the
    clocks, and the caller's legal actions."""
    out = summary(game, seats, viewer)
    out.update(
        phase=game.phase,
        current_seat=game.current_seat,
        draw_column=None,
        pool=[],
        removed=[],
        pending_draft=None,
        drafts=game.drafts,
        deadline=game.deadline,
        seats=[],
        can_arrange=False,
        rules_state=None,
        legal_actions=[],
    )
    if game.seed is None:  # a table still waiting: no deal yet
        out["seats"] = [_seat_waiting(seat) for seat in seats]
        return out
    state = load_state(game, seats)
    now = timezone.now()
    out.update(
        draw_column=state.draw_column() if game.is_playing else None,
        pool=[list(column) for column in state.columns],
        removed=list(state.removed),
        pending_draft=None if state.pending is None else state.pending.to_json(),
        seats=[_seat(game, seat, state, now) for seat in seats],
        rules_state=_rules_state(state, game, out["your_seat"]),
    )
    mine = out["your_seat"]
    if mine is not None and game.is_playing and not seats[mine].left:
        out["can_arrange"] = state.can_arrange(mine)
        legal = _highlighted(state, mine, state.legal_actions(mine, arranging=arranging))
        out["legal_actions"] = [
            action.to_json() for action in legal if action.type not in SERVER_ACTIONS
        ]
    return out


def _highlighted(state: rules.GameState, seat: int, legal: list) -> list:
    """`legal` with its placements and moves only where the board highlights them: where the
    tile may stay, of its colour and fitting its neighbours (the rules package's legal_spots and
    legal_moves). The rules take a tile on any empty space while arranging; a board with one
    elsewhere cannot finish, and a client should not have to know why (issue 34)."""
    board = state.boards[seat]
    spots = {tile: set(rules.legal_spots(board, tile)) for tile in state.trays[seat]}
    moves: dict[int, set[int]] = {}
    kept = []
    for action in legal:
        if isinstance(action, rules.Place):
            if (action.space, action.rotation) not in spots[action.tile_id]:
                continue
        elif isinstance(action, rules.Move):
            if action.from_space not in moves:
                moves[action.from_space] = set(rules.legal_moves(board, action.from_space))
            if action.to_space not in moves[action.from_space]:
                continue
        kept.append(action)
    return kept


def _rules_state(state: rules.GameState, game: Game, mine: int | None) -> dict:
    data = state.to_json()
    if not game.is_over:
        data["seed"] = 0  # everything it dealt is on the table already
    for seat in range(state.players):
        if seat != mine:
            data["undo"][seat], data["redo"][seat] = [], []
    return data


def _seat(game: Game, seat: Seat, state: rules.GameState, now) -> dict:
    waited_for = game.is_playing and state.waits_for(seat.number)
    clock = selectors.clock_view(game, seat, waited_for=waited_for, now=now)
    return {
        "number": seat.number,
        "player": player(seat.user),
        "tray": list(state.trays[seat.number]),
        "board": state.boards[seat.number].cells_to_json(),
        "colours": state.boards[seat.number].colours_to_json(),
        "score": state.score(seat.number).score,
        "finished": bool(state.finished[seat.number]),
        "left": seat.left,
        "place": seat.place,
        "clock": None
        if clock is None
        else {
            "seconds_left": clock.left_seconds,
            "running": clock.running,
            "deadline": clock.deadline,
        },
    }


def _seat_waiting(seat: Seat) -> dict:
    return {
        "number": seat.number,
        "player": player(seat.user),
        "tray": [],
        "board": [],
        "colours": [],
        "score": 0,
        "finished": False,
        "left": seat.left,
        "place": None,
        "clock": None,
    }


def event(item: Event, names: dict[int, str], *, hide_seed: bool) -> dict:
    """One event of the log; `names` are the usernames by seat number. While the game is
    played its seed stays hidden: everything it dealt is on the table already."""
    data = dict(item.data or {})
    if hide_seed:
        data.pop("seed", None)
    return {
        "version": item.number,
        "kind": item.kind,
        "seat": item.seat,
        "player": names.get(item.seat),
        "cause": item.cause,
        "action": item.action,
        "data": data,
        "at": item.created_at,
    }
