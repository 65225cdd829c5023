"""The review of a finished game (games/rules/review.py), hindsight (hindsight.py) and puzzles
(puzzles.py), on small seeded games with small budgets."""

import json
import math

import pytest

from benchmarks.simulate import play_game
from games.rules import ConfirmDraft, Draft, UndoDraft, new_game, replay
from games.rules.analysis import can_finish
from games.rules.analysis import score as score_board
from games.rules.board import Board, Placed
from games.rules.engine import Budget
from games.rules.hindsight import hindsight, hindsight_all
from games.rules.puzzles import (
    ArrangementPuzzle,
    arrangement_puzzle,
    arrangement_puzzles,
    check_arrangement,
    check_draft,
    drafting_puzzles,
    greedy_score,
    puzzle_from_json,
    themes,
)
from games.rules.review import (
    ACCURACY_SCALE,
    chosen_drafts,
    draft_accuracy,
    review_game,
)
from games.rules.solver import best_arrangement
from games.rules.tiles import TILES

SMALL = Budget(iterations=40, samples=0, solver_nodes=500, time_cap=None)
CALIBRATED = Budget(iterations=30, samples=1, solver_nodes=400, time_cap=None)


@pytest.fixture(scope="module")
def greedy_two():
    state, events = play_game(2, 31)
    return state, events


@pytest.fixture(scope="module")
def review_two(greedy_two):
    _, events = greedy_two
    return review_game(2, 31, events, budget=SMALL, cpu_seconds=None)


# --- the drafts of a log ------------------------------------------------------------------


def test_an_undone_draft_is_not_a_draft_its_replacement_is():
    state = new_game(2, 3)
    seat = state.current
    first, second = state.draw_tiles()[:2]
    events = [(seat, Draft(first)), (seat, UndoDraft()), (seat, Draft(second)),
              (seat, ConfirmDraft())]  # fmt: skip
    drafts, final = chosen_drafts(2, 3, events)
    assert [(d.step, d.seat, d.tile) for d in drafts] == [(2, seat, second)]
    assert drafts[0].before == replay(2, 3, events[:2])
    assert final == replay(2, 3, events)


def test_forced_takes_are_no_drafts(greedy_two):
    _, events = greedy_two
    drafts, _ = chosen_drafts(2, 31, events)
    assert len(drafts) == 40  # 50 tiles: 10 columns of 4 choices and a forced take
    assert all(isinstance(events[d.step][1], Draft) for d in drafts)


# --- the review -----------------------------------------------------------------------------


def test_accuracy_is_100_without_loss_and_falls_off_exponentially():
    assert draft_accuracy(0) == 100
    assert draft_accuracy(-1) == 100  # a tile better than the engine's loses nothing
    assert draft_accuracy(ACCURACY_SCALE) == pytest.approx(100 / math.e)
    assert draft_accuracy(1) > draft_accuracy(3) > draft_accuracy(6) > draft_accuracy(12)


def test_every_chosen_draft_is_reviewed_with_its_loss_and_accuracy(review_two, greedy_two):
    final, events = greedy_two
    review = review_two
    assert review.measure == "margin" and review.complete
    drafts, _ = chosen_drafts(2, 31, events)
    with_choice = [d for d in drafts if len({(TILES[t].kind, TILES[t].colour)
                                             for t in d.before.draw_tiles()}) > 1]  # fmt: skip
    assert [d.step for d in review.drafts] == [d.step for d in with_choice]
    for draft in review.drafts:
        values = [c.value for c in draft.choices]
        assert values == sorted(values, reverse=True)
        assert draft.value_best == values[0]
        assert draft.loss == pytest.approx(max(0.0, draft.value_best - draft.value_taken))
        assert draft.accuracy == pytest.approx(draft_accuracy(draft.loss))
        if draft.loss == 0:
            assert draft.best == draft.taken
        assert len(draft.expected_scores) == 2
    for seat in review.seats:
        own = [d for d in review.drafts if d.seat == seat.seat]
        assert seat.drafts == len(own)
        assert seat.accuracy == pytest.approx(sum(d.accuracy for d in own) / len(own))
        assert seat.final_score == final.score(seat.seat).score
        assert all(n in {d.number for d in own} for n in seat.mistakes)
    losses = {d.number: d.loss for d in review.drafts}
    assert [losses[n] for n in review.mistakes] == sorted(
        (losses[n] for n in review.mistakes), reverse=True
    )


def test_a_review_is_plain_json_and_the_same_each_time(review_two, greedy_two):
    _, events = greedy_two
    data = review_two.to_json()
    assert json.loads(json.dumps(data)) == data
    again = review_game(2, 31, events, budget=SMALL, cpu_seconds=None).to_json()
    data.pop("seconds"), again.pop("seconds")
    assert again == data


def test_a_review_that_would_outrun_its_cpu_budget_lowers_the_budget_of_the_rest():
    _, events = play_game(2, 32)
    review = review_game(2, 32, events, budget=Budget(iterations=400, samples=0),
                         cpu_seconds=1e-6)  # fmt: skip
    assert not review.complete
    assert review.drafts[0].iterations == 400
    assert review.drafts[-1].iterations == 50  # an eighth: the floor
    assert [d.iterations for d in review.drafts] == sorted(
        (d.iterations for d in review.drafts), reverse=True
    )


def _same(a, b):
    return (TILES[a].kind, TILES[a].colour) == (TILES[b].kind, TILES[b].colour)


def test_with_more_players_the_review_judges_expected_scores():
    _, events = play_game(5, 4)
    review = review_game(5, 4, events, budget=SMALL, cpu_seconds=None)
    assert review.measure == "score"
    for draft in review.drafts:
        assert len(draft.expected_scores) == 5
        taken = next(c for c in draft.choices if _same(c.tile, draft.taken))
        assert draft.value_taken == taken.score == taken.value


def test_a_calibrated_review_says_so_draft_by_draft():
    _, events = play_game(4, 9)
    drafts, _ = chosen_drafts(4, 9, events)
    # The last column's drafts only: a few calibrations of nearly final tiles.
    last = [d.before.drafts + 1 for d in drafts[-4:]]
    review = review_game(4, 9, events, budget=CALIBRATED, cpu_seconds=None, numbers=last)
    assert review.drafts and {d.samples for d in review.drafts} == {1}
    assert {d.number for d in review.drafts} <= set(last)


# --- hindsight ------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4])
def test_hindsight_is_a_set_the_offers_allowed_and_no_worse_than_the_game(players):
    final, events = play_game(players, 50 + players)
    drafts, _ = chosen_drafts(players, 50 + players, events)
    for seat in range(players):
        found = hindsight(players, 50 + players, events, seat, max_solves=4, solver_nodes=1000)
        assert found.actual_score == final.score(seat).score
        assert found.actual_score <= found.best_score <= found.bound_score
        assert found.proved == (found.best_score == found.bound_score)
        own = {d.step: d for d in drafts if d.seat == seat}
        # The changes, applied to the game's drafts, give the hindsight tiles.
        tiles = set(final.trays[seat]) | set(final.boards[seat].tiles())
        for change in found.changes:
            draft = own[change.step]
            assert draft.tile == change.taken and change.number == draft.before.drafts + 1
            assert change.instead in draft.before.draw_tiles()  # it was offered then
            tiles = (tiles - {change.taken}) | {change.instead}
        assert tiles == set(found.tiles)
        board = Board(final.boards[seat].colours,
                      [None if c is None else Placed(*c) for c in found.cells])  # fmt: skip
        assert can_finish(board)
        assert score_board(board, len(found.tray)).score == found.best_score
        assert sorted([*board.tiles(), *found.tray]) == sorted(found.tiles)


def test_hindsight_of_every_seat_is_plain_json():
    _, events = play_game(3, 8)
    found = hindsight_all(3, 8, events, max_solves=4, solver_nodes=1000)
    assert [h.seat for h in found] == [0, 1, 2]
    data = [h.to_json() for h in found]
    assert json.loads(json.dumps(data)) == data


# --- puzzles --------------------------------------------------------------------------------


def _best_placements(puzzle):
    return [
        {"space": space, "tile": cell[0], "rotation": cell[1]}
        for space, cell in enumerate(puzzle.best_cells)
        if cell is not None
    ]


@pytest.fixture(scope="module")
def a_puzzle():
    """An arrangement puzzle of a greedy player's final tiles (greedy play leaves a gap): the
    second player's of this 4-player game."""
    final, _ = play_game(4, 60)
    found = arrangement_puzzles(final)
    assert [p.source["seat"] for p in found] == [1, 2]
    return final, found[1]


def test_an_arrangement_puzzle_is_far_from_played_hard_for_greedy_and_near_unique(a_puzzle):
    final, puzzle = a_puzzle
    seat = puzzle.source["seat"]
    colours = final.boards[seat].colours
    best = best_arrangement(colours, puzzle.tiles)
    assert puzzle.best_score == best.score
    assert puzzle.played_score == final.score(seat).score <= best.score - 4
    assert puzzle.greedy_score == greedy_score(colours, puzzle.tiles) < best.score
    chip = [s for s, c in enumerate(puzzle.best_cells) if c is not None]
    assert len(chip) == puzzle.chip_spaces
    assert puzzle.chip_spaces - puzzle.essential == len(puzzle.avoidable) <= 2
    for space in puzzle.avoidable:  # some best board leaves it empty
        assert best_arrangement(colours, puzzle.tiles, blocked=[space]).score == best.score
    essential = [s for s in chip if s not in puzzle.avoidable]
    for space in essential[:2]:  # every best board covers it
        assert best_arrangement(colours, puzzle.tiles, blocked=[space]).score < best.score
    assert puzzle_from_json(json.loads(json.dumps(puzzle.to_json()))) == puzzle


def test_the_checker_solves_the_best_board_and_refuses_what_is_not_an_answer(a_puzzle):
    _, puzzle = a_puzzle
    best = _best_placements(puzzle)
    assert check_arrangement(puzzle, best).solved
    assert check_arrangement(puzzle, best).score == puzzle.best_score
    empty = check_arrangement(puzzle, [])
    assert not empty.solved and empty.score == -2 * len(puzzle.tiles)
    stranger = next(t for t in range(60) if t not in puzzle.tiles)
    assert check_arrangement(puzzle, [{"space": 0, "tile": stranger, "rotation": 0}]).error == (
        "tile_not_in_puzzle"
    )
    twice = [best[0], {**best[0], "space": (best[0]["space"] + 1) % 25}]
    assert check_arrangement(puzzle, twice).error == "tile_not_in_puzzle"
    turned = [{**p, "rotation": (p["rotation"] + 1) % 4} for p in best]
    verdict = check_arrangement(puzzle, turned)
    assert not verdict.solved
    assert check_arrangement(puzzle, [{"space": "a", "tile": 1}]).error == "bad_placement"


def test_a_board_worse_than_the_best_is_scored_but_not_solved(a_puzzle):
    _, puzzle = a_puzzle
    best = _best_placements(puzzle)
    # Take the chip apart: the rest of it has open paths, no chip, every tile costs 2.
    verdict = check_arrangement(puzzle, best[:1])
    if verdict.error is None:
        assert not verdict.solved and verdict.score < puzzle.best_score


def test_no_puzzle_when_the_player_found_the_best():
    final, _ = play_game(2, 5)
    seat = 0
    tiles = [*final.trays[seat], *final.boards[seat].tiles()]
    best = best_arrangement(final.boards[seat].colours, tiles)
    assert arrangement_puzzle(final.boards[seat].colours, tiles, best.score) is None


def test_themes_say_what_the_best_board_shows():
    from games.rules.tiles import Colour

    colours = [Colour.BLUE] * 25
    # A ring of 8 tiles around the centre: corners (rotation 0 is N+E) and straights (0: N+S).
    blue_corners, red_corners, blue_straights, red_straights = (6, 7), (18, 19), (4, 5), (16, 17)
    cells = [None] * 25
    cells[6] = Placed(blue_corners[0], 1)  # E+S
    cells[8] = Placed(blue_corners[1], 2)  # S+W
    cells[16] = Placed(red_corners[0], 0)  # N+E
    cells[18] = Placed(red_corners[1], 3)  # N+W
    cells[7] = Placed(blue_straights[0], 1)  # E+W
    cells[17] = Placed(blue_straights[1], 1)
    cells[11] = Placed(red_straights[0], 0)  # N+S
    cells[13] = Placed(red_straights[1], 0)
    ring = Board(colours, cells)
    assert score_board(ring, 0).chip_tiles == 8
    assert themes(ring, 0) == ["loop", "every_tile"]
    assert themes(ring, 3) == ["loop", "leave_out"]
    # Open the ring: no loop is left.
    assert "loop" not in themes(ring.with_cells({7: None}), 0)
    cells = [None] * 25
    cells[12] = Placed(11, 0)  # the blue cross on the centre space
    cells[0] = Placed(23, 0)  # the red cross
    assert themes(Board(colours, cells), 1) == ["centre_cross", "crosses"]


def test_drafting_puzzles_have_a_clear_answer_and_the_checker_knows_it(review_two, greedy_two):
    _, events = greedy_two
    found = drafting_puzzles(review_two, 2, 31, events, min_margin=1.0)
    drafts = {d.step: d for d in review_two.drafts}
    for puzzle in found:
        draft = drafts[puzzle.source["step"]]
        assert puzzle.margin >= 1.0
        assert puzzle.answer == draft.choices[0].tile
        assert puzzle.choices[0]["value"] - puzzle.choices[1]["value"] == pytest.approx(
            puzzle.margin, abs=0.02
        )
        verdict = check_draft(puzzle, puzzle.answer)
        assert verdict.solved and verdict.score == verdict.best
        worse = puzzle.choices[-1]["tile"]
        assert not check_draft(puzzle, worse).solved
        assert check_draft(puzzle, 99).error == "not_in_draw_column"
        assert puzzle_from_json(json.loads(json.dumps(puzzle.to_json()))) == puzzle
        assert isinstance(puzzle_from_json(puzzle.to_json()), type(puzzle))
    assert not isinstance(found, ArrangementPuzzle)
