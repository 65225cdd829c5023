"""The engine (games/rules/engine.py) and the expert computer player: legal, deterministic, within
its budget; the solver's node budget and blocked spaces; the duel of expert against strong."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.duel import play_bots, run
from games.rules import ConfirmDraft, Draft, new_game
from games.rules import engine as eng
from games.rules.bots import LEVELS, EasyBot, ExpertBot, apply_all, make_bot, owned_tiles
from games.rules.deal import make_board_colours
from games.rules.engine import Budget, Position, Search, evaluate, search
from games.rules.potential import Potential
from games.rules.solver import ChipBound, best_arrangement, packed_tiles
from games.rules.state import DRAFTING, FINISHING
from games.rules.tiles import TILES

#: Budgets small enough for the suite: the engine's logic, not its strength.
TINY = Budget(iterations=60, samples=1, calibrate=2, solver_nodes=3000, time_cap=None)
QUICK_EXPERT = {"iterations": 40, "samples": 1, "calibrate": 1, "solver_nodes": 500,
                "arrange_nodes": 300}  # fmt: skip


def _fresh_caches():
    """Forget what the process remembers, so that a second run cannot lean on the first."""
    from games.rules import bots, potential

    potential._EXACT.clear()

    bots._NODES_CACHE.clear()


def _drafting_state(players: int, seed: int, drafts: int):
    """A state after `drafts` completed drafts of greedy play and the forced takes due then
    (so that the seat to draft has a choice)."""
    state = new_game(players, seed)
    bot = EasyBot()
    while state.phase == DRAFTING:
        seat = state.current
        forced = state.forced_action()
        if forced is not None:
            state = state.apply(forced, seat)
        elif state.drafts < drafts:
            state = apply_all(state, seat, bot.next_actions(state, seat))
        else:
            break
    return state


# --- the position ---------------------------------------------------------------------------


def test_the_position_counts_a_pending_draft_as_not_made():
    state = new_game(3, 5)
    seat = state.current
    tile = state.draw_tiles()[2]
    pending = state.apply(Draft(tile), seat)
    assert Position.of(pending) == Position.of(state)
    assert Position.of(state).supplies == (0, 0, 0)


def test_after_a_choice_the_forced_takes_follow_and_the_turn_passes():
    state = _drafting_state(2, 3, 2)  # two drafts made: the draw column holds 3 tiles
    position = Position.of(state)
    assert len(position.draw_tiles()) == 3
    first = position.after(position.draw_tiles()[0])
    assert first.seat == 1 - position.seat and len(first.draw_tiles()) == 2
    # The next choice leaves one tile: the forced take gives it to the seat after, whose
    # turn it was, and the next column's first draft is the other seat's.
    second = first.after(first.draw_tiles()[0])
    assert len(second.draw_tiles()) == 5
    assert second.seat == first.seat
    assert eng.tile_count(second.supplies[position.seat]) == 3  # 2 drafts + the forced take
    # The model agrees with the rules: play the same drafts on the state.
    real = state
    for tile in (position.draw_tiles()[0], first.draw_tiles()[0]):
        real = apply_all(real, real.current, [Draft(tile), ConfirmDraft()])
    real = real.apply(real.forced_action(), real.current)
    assert Position.of(real) == second


def _kind(tile):
    return TILES[tile].kind, TILES[tile].colour


def test_choices_are_one_tile_per_kind_and_colour_topmost_first():
    for seed in range(20):
        position = Position.of(new_game(2, seed))
        column = position.draw_tiles()
        choices = position.choices()
        kinds = [_kind(t) for t in choices]
        assert len(set(kinds)) == len(kinds) == len({_kind(t) for t in column})
        for tile in choices:
            assert column.index(tile) == min(
                i for i, other in enumerate(column) if _kind(other) == _kind(tile)
            )


def test_final_counts_give_every_seat_its_drafts():
    for players in (2, 3, 4, 5):
        position = Position.of(new_game(players, 1))
        per_seat = 50 // players if players == 2 else 60 // players
        assert position.final_counts() == (per_seat,) * players


# --- the bound and the solver's budgets -----------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 25))
def test_the_chip_bound_is_never_below_the_proved_best(seed, count):
    rng = random.Random(seed)
    colours = make_board_colours(rng, [])
    tiles = rng.sample(range(60), count)
    best = best_arrangement(colours, tiles)
    gain = best.score + 2 * count
    assert ChipBound(colours).gain(packed_tiles(tiles)) >= gain
    assert eng.exact_gain(colours, packed_tiles(tiles), None) == gain


def test_a_node_budget_gives_the_same_board_every_time_and_stops_the_search():
    rng = random.Random(4)
    colours = make_board_colours(rng, [])
    tiles = rng.sample(range(60), 22)
    first = best_arrangement(colours, tiles, max_nodes=500)
    again = best_arrangement(colours, tiles, max_nodes=500)
    assert first.board == again.board and first.score == again.score
    assert first.nodes <= 500 + 128  # checked every 128 nodes
    proved = best_arrangement(colours, tiles)
    assert first.score <= proved.score


def test_blocked_spaces_stay_empty():
    rng = random.Random(9)
    colours = make_board_colours(rng, [])
    tiles = rng.sample(range(60), 18)
    best = best_arrangement(colours, tiles)
    used = [space for space, cell in enumerate(best.board.cells) if cell is not None]
    without = best_arrangement(colours, tiles, blocked=used[:3])
    assert all(without.board.cells[space] is None for space in used[:3])
    assert without.score <= best.score


# --- the search -----------------------------------------------------------------------------


def test_a_search_makes_exactly_its_iterations_and_calibrates_the_most_visited():
    position = Position.of(_drafting_state(3, 11, 7))
    result = search(position, TINY, seed=3)
    assert result.iterations == TINY.iterations and not result.capped
    calibrated = [c for c in result.choices if c.gap is not None]
    assert len(calibrated) == min(TINY.calibrate, len(position.choices()))
    assert sum(c.visits for c in result.choices) == TINY.iterations
    # The best is the calibrated choice of highest value.
    assert result.best.value == max(c.value for c in calibrated)
    assert result.best.tile in position.choices()


def test_a_search_depends_only_on_its_position_budget_and_seed():
    position = Position.of(_drafting_state(2, 21, 12))
    _fresh_caches()
    first = search(position, TINY, seed=7)
    second = search(position, TINY, seed=7)
    _fresh_caches()
    third = Search(position, seed=7).run(TINY)
    assert first.choices == second.choices == third.choices
    assert first.expected_scores == third.expected_scores


def test_the_time_cap_is_a_safety_net_that_says_when_it_stopped_a_search():
    position = Position.of(new_game(2, 2))
    result = search(position, Budget(iterations=10**9, samples=0, time_cap=0.0))
    assert result.capped and result.iterations < 10**9


def test_evaluate_judges_every_choice_with_the_same_effort():
    position = Position.of(_drafting_state(2, 5, 6))
    budget = Budget(iterations=120, samples=1, solver_nodes=3000, time_cap=None)
    judged = evaluate(position, budget, taken=position.choices()[-1], seed=1)
    assert sorted(c.tile for c in judged.choices) == sorted(position.choices())
    per_choice = budget.iterations // len(position.choices())
    assert {c.visits for c in judged.choices} == {per_choice}
    assert judged.choices == sorted(judged.choices, key=lambda c: -c.value)
    assert len(judged.after_taken) == 2
    again = evaluate(position, budget, taken=position.choices()[-1], seed=1)
    assert again.choices == judged.choices


def test_a_time_cap_leaves_every_choice_judged_but_none_calibrated():
    position = Position.of(_drafting_state(3, 5, 6))
    judged = evaluate(position, Budget(iterations=10**7, samples=2, time_cap=0.0), seed=1)
    assert judged.capped
    assert sorted(c.tile for c in judged.choices) == sorted(position.choices())
    assert all(c.gap is None and c.visits >= 1 for c in judged.choices)


def test_the_potential_is_the_bound_and_its_steps():
    colours = new_game(2, 8).boards[0].colours
    potential = Potential(colours)
    tiles = [0, 13, 27, 40, 52, 11]
    supply = packed_tiles(tiles)
    for tile in (5, 30, 59):
        kind_colour = eng.TYPE_OF[tile]
        stepped = potential.delta(supply, kind_colour)
        assert stepped >= 0
        assert ChipBound(colours).gain(supply + packed_tiles([tile])) >= potential.gain(supply)


# --- the expert ----------------------------------------------------------------------------


def test_the_expert_is_a_level():
    assert "expert" in LEVELS
    assert isinstance(make_bot("expert", iterations=10), ExpertBot)


def test_the_expert_decides_the_same_draft_for_the_same_state():
    state = _drafting_state(3, 17, 9)
    seat = state.current
    _fresh_caches()
    plan = ExpertBot(**QUICK_EXPERT).next_actions(state, seat)
    _fresh_caches()
    again = ExpertBot(**QUICK_EXPERT).next_actions(state, seat)
    assert plan == again
    assert isinstance(plan[0], Draft) and plan[-1] == ConfirmDraft()
    apply_all(state, seat, plan)  # every action legal


@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)  # fmt: skip
@given(st.integers(2, 5), st.integers(0, 10_000), st.integers(0, 2**16))
def test_the_experts_decisions_are_legal_in_random_playouts(players, seed, engine_seed):
    """Every seat an expert with a tiny budget or a random drafter: every action the experts
    choose is applied by the rules (which refuse what is not legal), and the game ends with
    every board finished."""
    rng = random.Random(seed)
    bots = [
        ExpertBot(**{**QUICK_EXPERT, "seed": engine_seed})
        if rng.random() < 0.5 else None
        for _ in range(players)
    ]  # fmt: skip
    state = new_game(players, seed)
    while state.phase == DRAFTING:
        seat = state.current
        if (forced := state.forced_action()) is not None:
            state = state.apply(forced, seat)
            continue
        bot = bots[seat]
        if bot is None:
            state = apply_all(state, seat, [Draft(rng.choice(state.draw_tiles())), ConfirmDraft()])
        else:
            state = apply_all(state, seat, bot.next_actions(state, seat))
    for seat in range(players):
        bot = bots[seat] or EasyBot()
        state = apply_all(state, seat, bot.next_actions(state, seat))
    assert state.phase not in (DRAFTING, FINISHING) and all(state.finished)
    for seat, bot in enumerate(bots):
        if bot is not None:  # the expert submits the proved best board of its tiles
            best = best_arrangement(state.boards[seat].colours, owned_tiles(state, seat))
            assert state.score(seat).score == best.score


def test_a_short_duel_of_the_expert_against_the_strong_bot_reports_its_figures():
    """The duel's short version: two games, tiny budgets. The report's shape and the games'
    legality, not strength (the long run is in docs/engine.md)."""
    summary = run(
        games=2, players=2, seed=40, processes=1, bot="expert", against="strong",
        draft_time=0.01, arrange_time=0.01, finish_time=0.05, expert=QUICK_EXPERT,
    )  # fmt: skip
    assert summary["bot"] == "expert" and summary["against"] == "strong"
    assert summary["games"] == 2 and len(summary["rows"]) == 2
    assert {row["bot_seat"] for row in summary["rows"]} == {0, 1}
    assert 0 <= summary["wins"] <= 2 and summary["win_rate"] == summary["wins"] / 2
    for row in summary["rows"]:
        assert row["margin"] == row["scores"][row["bot_seat"]] - row["scores"][1 - row["bot_seat"]]
        assert len(row["bot_draft_cpu"]) == 20  # 25 tiles each: 20 chosen, 5 forced takes
    assert summary["cpu_per_draft"]["bot"]["drafts"] == 40
    assert summary["cpu_per_draft"]["opponent"]["drafts"] == 40


def test_play_bots_with_an_expert_ends_every_game():
    expert = make_bot("expert", **QUICK_EXPERT)
    bots = [expert, make_bot("easy"), make_bot("expert", **QUICK_EXPERT)]
    state = play_bots(3, 12, bots)
    assert all(state.finished)
