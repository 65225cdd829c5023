"""Puzzles and the engine's review in the browser: an arrangement puzzle solved by dragging its
tiles and by the keyboard alone, on the game's own board drawing; the replay of a finished game
with the engine's analysis. Screenshots (MICROCHIP_SCREENSHOTS) at 1366x768 and 390x844."""

from datetime import timedelta

import pytest

from accounts.bots import new_bot
from games.models import Game
from games.play import actions
from games.puzzles.models import PuzzleAttempt
from games.review.models import GameReview
from tests.puzzles.conftest import small_arrangement, store

from .conftest import screenshot
from .helpers import TIMEOUT, settled

pytestmark = pytest.mark.servers

WIDE = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}


def centre_of(locator):
    box = locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def board_of(user, puzzle):
    attempt = PuzzleAttempt.objects.filter(user=user, puzzle=puzzle).first()
    return attempt.board if attempt and attempt.board else [None] * 25


def turn_with_the_keyboard(page, user, puzzle, space, rotation):
    """Press R on the placed tile until it lies as the best board has it."""
    for _ in range(4):
        if board_of(user, puzzle)[space][1] == rotation:
            return
        page.locator(f"#my-space-{space}").focus()
        page.keyboard.press("r")
        settled(page)
        page.wait_for_function(
            "n => document.getElementById('game').dataset.version === String(n)",
            arg=PuzzleAttempt.objects.get(user=user, puzzle=puzzle).version,
            timeout=TIMEOUT,
        )
    assert board_of(user, puzzle)[space][1] == rotation


def submit_and_see_solved(page):
    page.locator("#submit-puzzle").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#puzzle-verdict.solved", timeout=TIMEOUT)
    text = page.locator("#puzzle-verdict").inner_text()
    assert "Solved!" in text
    assert page.locator("#puzzle-verdict .small-board").count() == 2  # yours beside the best


def test_a_puzzle_solved_by_dragging_its_tiles(open_page, make_player):
    ada = make_player("ada")
    puzzle = store(small_arrangement())
    page = open_page(ada, viewport=WIDE)
    page.goto(f"/puzzles/{puzzle.pk}/")
    page.wait_for_selector("#game .seat.mine", timeout=TIMEOUT)
    screenshot(page, "puzzle-wide")

    for space, cell in enumerate(puzzle.data["best_cells"]):
        if cell is None:
            continue
        start = centre_of(page.locator(f"#my-tray-{cell[0]}"))
        end = centre_of(page.locator(".seat.mine .board .space-box").nth(space))
        page.mouse.move(*start)
        page.mouse.down()
        page.mouse.move(start[0] + 10, start[1] + 10, steps=3)
        page.mouse.move(*end, steps=8)
        page.mouse.up()
        page.wait_for_selector(f"#my-space-{space}[class='tile-button']", timeout=TIMEOUT)
        settled(page)
        assert board_of(ada, puzzle)[space][0] == cell[0]
        turn_with_the_keyboard(page, ada, puzzle, space, cell[1])

    submit_and_see_solved(page)
    screenshot(page, "puzzle-solved-wide")
    assert PuzzleAttempt.objects.get(user=ada, puzzle=puzzle).status == "solved"


def test_a_puzzle_solved_with_the_keyboard_alone_on_a_phone(open_page, make_player):
    ada = make_player("ada")
    puzzle = store(small_arrangement())
    page = open_page(ada, viewport=PHONE, touch=True)
    page.goto(f"/puzzles/{puzzle.pk}/")
    page.wait_for_selector("#game .seat.mine", timeout=TIMEOUT)
    screenshot(page, "puzzle-phone", full_page=False)

    for space, cell in enumerate(puzzle.data["best_cells"]):
        if cell is None:
            continue
        page.locator(f"#my-tray-{cell[0]}").focus()
        page.keyboard.press("Enter")  # picked up: the focus goes on to the board
        page.wait_for_selector(f'#my-tray-{cell[0]}[aria-pressed="true"]', timeout=TIMEOUT)
        page.wait_for_function(
            "() => /^my-space-\\d+$/.test(document.activeElement.id)", timeout=TIMEOUT
        )
        at = int(page.evaluate("() => document.activeElement.id").rsplit("-", 1)[1])
        while at != space:  # the arrow keys walk the board, a space at a time
            row, col, to_row, to_col = at // 5, at % 5, space // 5, space % 5
            key = (
                "ArrowDown" if to_row > row else "ArrowUp" if to_row < row
                else "ArrowRight" if to_col > col else "ArrowLeft"
            )  # fmt: skip
            page.keyboard.press(key)
            at = int(page.evaluate("() => document.activeElement.id").rsplit("-", 1)[1])
        page.keyboard.press("Enter")
        page.wait_for_function(
            "s => document.querySelector('#my-space-' + s + '.tile-button')", arg=space,
            timeout=TIMEOUT,
        )  # fmt: skip
        settled(page)
        turn_with_the_keyboard(page, ada, puzzle, space, cell[1])

    submit_and_see_solved(page)
    page.locator("#puzzle-verdict").scroll_into_view_if_needed()
    screenshot(page, "puzzle-solved-phone", full_page=False)


def test_the_replay_shows_the_engines_analysis(open_page, make_player):
    ada = make_player("ada")
    bot = new_bot("easy")
    game = actions.create_game(
        creator=bot, player_count=2, time_per_move=timedelta(days=1), bots=("easy",), rated=False
    )
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    review = GameReview.objects.get(game=game)
    worst = max(review.drafts["drafts"], key=lambda d: d["loss"])

    page = open_page(ada, viewport=WIDE)
    page.goto(f"/games/{game.pk}/replay/?step={worst['step'] + 1}")
    page.wait_for_selector("#engine-review .accuracy-figure", timeout=TIMEOUT)
    assert page.locator("#engine-here").count() == 1
    assert "Value lost" in page.locator("#engine-here").inner_text() or worst["loss"] == 0
    assert page.locator("#engine-review .expected-line").count() == 2
    assert page.locator("#engine-review .hindsight-boards .small-board").count() == 2
    screenshot(page, "replay-analysis-wide")
    # A mistake's link goes to its draft in the replay.
    if page.locator(".mistake-list a").count():
        page.locator(".mistake-list a").first.click()
        page.wait_for_selector("#engine-here", timeout=TIMEOUT)
        assert "step=" in page.url

    phone = open_page(ada, viewport=PHONE, touch=True)
    phone.goto(f"/games/{game.pk}/replay/?step={worst['step'] + 1}")
    phone.wait_for_selector("#engine-review", timeout=TIMEOUT)
    phone.locator("#engine-review").scroll_into_view_if_needed()
    screenshot(phone, "replay-analysis-phone", full_page=False)
