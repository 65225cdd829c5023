"""Drive whole games through the platform, choosing moves with the rules package's greedy player."""

from itertools import permutations

from django.db import transaction

from games import rules
from games.models import Game
from games.rules.analysis import side_markers
from games.rules.greedy import next_action
from games.state_store import load_state


def current_state(game: Game) -> rules.GameState:
    # Under the game's row lock, as every change is made: with a worker playing meanwhile, the
    # game and its seats read in two statements could otherwise come from two different moves.
    with transaction.atomic():
        Game.objects.select_for_update().only("pk").get(pk=game.pk)  # held until the end
        game.refresh_from_db()
        return load_state(game, list(game.seats.order_by("number")))


def next_move(game: Game):
    """Return (seat, action) for the next thing a sensible player would do, or None at the end
    (games/rules/greedy.py `next_action`): every player arranges greedily after each draft; in
    the finishing phase each finishes.
    """
    state = current_state(game)
    if game.status != Game.Status.PLAYING:
        return None
    found = next_action(state)
    if (
        found is not None
        and isinstance(found[1], rules.Draft)
        and state.forced_action() is not None
    ):
        raise AssertionError("a forced take was due but not taken by the task")
    return found


def play_to_the_end(game: Game, before_move=None) -> Game:
    """Every player, sensibly (`next_move`), to the end of the game, each change committed; the
    forced takes are made here, as the worker makes them (the same change whoever makes it first).
    `before_move(game)`, if given, runs before each change (a word in the table talk, say)."""
    from games.play import actions

    while True:
        state = current_state(game)
        if game.status != Game.Status.PLAYING:
            return game
        if before_move is not None:
            before_move(game)
        if state.forced_action() is not None:
            actions.take_last_tile(game_id=game.pk)
            continue
        seat, action = next_move(game)
        user = game.seats.get(number=seat).user
        actions.play(game_id=game.pk, user=user, action=action, seen_version=None)


def draft_the_top_tile(game: Game, committed) -> object:
    """The player whose turn it is drafts the draw column's top tile and confirms it, each
    change committed with its effects; return that player."""
    from games.play import actions

    state = current_state(game)
    user = game.seats.get(number=state.current).user
    for action in (rules.Draft(state.draw_tiles()[0]), rules.ConfirmDraft()):
        committed(actions.play, game_id=game.pk, user=user, action=action, seen_version=None)
    return user


def mark_every_way(game: Game, seat: int) -> list[rules.Place]:
    """Clear `seat`'s board and place two of its tiles, one above the other, so that the board
    shows every kind of marker: a wrong colour, broken connections (the tile above runs off the
    board to the north alone, so that its words name that one side, and disagrees with the tile
    below) and an open path. Two terminals
    cannot (that takes three path ends), so sensible moves are played until the seat has
    another kind of tile. Return the two placements, the top one first."""
    from games.play import actions

    while (places := _marked_every_way(current_state(game), seat)) is None:
        if (state := current_state(game)).forced_action() is not None:
            actions.take_last_tile(game_id=game.pk)
            continue
        mover, action = next_move(game)
        user = game.seats.get(number=mover).user
        actions.play(game_id=game.pk, user=user, action=action, seen_version=None)
    state = current_state(game)
    user = game.seats.get(number=seat).user
    for action in (rules.Clear(), *places) if state.boards[seat].tile_count else places:
        actions.play(game_id=game.pk, user=user, action=action, seen_version=None)
    game.refresh_from_db()
    return list(places)


def _marked_every_way(state: rules.GameState, seat: int) -> tuple[rules.Place, ...] | None:
    board = state.boards[seat]
    tiles = list(state.trays[seat]) + [cell.tile for cell in board.cells if cell is not None]
    cleared = board.with_cells({space: None for space in range(25)})

    def every_way(a, b):
        after = cleared.with_cells({a.space: rules.Placed(a.tile_id, a.rotation),
                                    b.space: rules.Placed(b.tile_id, b.rotation)})  # fmt: skip
        sides, top = side_markers(after), 1 << a.space
        # In a corner, a path may run off to the west or the east as well: "north and west".
        alone = not (sides.off_board.e | sides.off_board.w) & top
        return all((after.wrong, sides.off_board.n & top, alone, sides.mismatch.s & top,
                    sides.open_path.tiles))  # fmt: skip

    return next(
        (
            (a, b)
            for first, second in permutations(tiles, 2)
            for top in range(5)
            for a in (rules.Place(first, top, rotation) for rotation in range(4))
            for b in (rules.Place(second, top + 5, rotation) for rotation in range(4))
            if every_way(a, b)
        ),
        None,
    )
