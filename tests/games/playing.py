"""Drive whole games through the platform, choosing moves with the rules package's greedy player."""

from games import rules
from games.models import Game
from games.rules.greedy import best_placement, choose_draft
from games.state_store import load_state


def current_state(game: Game) -> rules.GameState:
    game.refresh_from_db()
    return load_state(game, list(game.seats.order_by("number")))


def next_move(game: Game):
    """Return (seat, action) for the next thing a sensible player would do, or None at the end.

    Every player arranges greedily after each draft; in the finishing phase each finishes.
    """
    state = current_state(game)
    if game.status != Game.Status.PLAYING:
        return None
    for seat in range(state.players):
        if state.can_arrange(seat) and state.trays[seat]:
            found = best_placement(state.boards[seat], list(state.trays[seat]))
            if found is not None:
                return seat, found[1]
    if state.phase == rules.DRAFTING:
        seat = state.current
        if state.pending is not None:
            return seat, rules.ConfirmDraft()
        if state.forced_action() is not None:
            raise AssertionError("a forced take was due but not taken by the task")
        return seat, choose_draft(state, seat)
    for seat in range(state.players):
        if not state.finished[seat]:
            return seat, rules.Finish()
    return None


def draft_the_top_tile(game: Game, committed) -> object:
    """The player whose turn it is drafts the draw column's top tile and confirms it, each
    change committed with its effects; return that player."""
    from games.play import actions

    state = current_state(game)
    user = game.seats.get(number=state.current).user
    for action in (rules.Draft(state.draw_tiles()[0]), rules.ConfirmDraft()):
        committed(actions.play, game_id=game.pk, user=user, action=action, seen_version=None)
    return user
