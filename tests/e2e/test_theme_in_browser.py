"""The light and dark themes (the device's setting or the player's), checked by axe-core, and the
focus ring on the dark board."""

import base64
from datetime import timedelta

import pytest

from games import rules
from games.play import actions
from games.rules.analysis import legal_spots

from .conftest import screenshot
from .helpers import game_state, open_live, serious_violations, settled

pytestmark = pytest.mark.servers

# The paper of each palette (microchip/site.css, microchip/dark.css), as the browser computes it.
PAPER = {"light": "rgb(246, 247, 251)", "dark": "rgb(17, 20, 27)"}


@pytest.fixture
def game_under_way(make_player):
    """A game in its second turn: a tile placed on the first player's board, the move log
    started, the second player to draft."""
    ada, brian = make_player("ada"), make_player("brian")
    game = actions.create_game(creator=ada, player_count=2, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=brian)
    game, state = game_state(game.pk)
    first = next(seat.user for seat in game.seats.all() if seat.number == state.current)
    tile = state.draw_tiles()[0]
    for action in (rules.Draft(tile), rules.ConfirmDraft()):
        actions.play(game_id=game.pk, user=first, action=action, seen_version=None)
    _, state = game_state(game.pk)
    seat = next(seat.number for seat in game.seats.all() if seat.user_id == first.pk)
    space, rotation = (legal_spots(state.boards[seat], tile) or [(12, 0)])[0]
    actions.play(
        game_id=game.pk,
        user=first,
        action=rules.Place(tile, space, rotation),
        seen_version=None,
    )
    return game, first, space


def still(page, element) -> dict:
    """The element's box once the page has stopped moving it (a late part of the page can shift
    the board after it was measured: the pixels read would then miss the tile)."""
    box = element.bounding_box()
    for _ in range(50):
        page.wait_for_timeout(100)
        now = element.bounding_box()
        if now == box:
            return box
        box = now
    raise AssertionError(f"the element kept moving: {box}")


def shows_theme(page, theme):
    assert page.evaluate("getComputedStyle(document.documentElement).colorScheme") == theme
    assert (
        page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
        == (PAPER[theme])
    )


# (the player's setting, the device's setting, the theme the page must show)
THEMES = [
    ("system", "light", "light"),
    ("system", "dark", "dark"),
    ("light", "dark", "light"),
    ("dark", "light", "dark"),
]


@pytest.mark.parametrize(("setting", "device", "theme"), THEMES)
def test_both_themes_pass_axe_core_on_the_main_pages(
    open_page, game_under_way, setting, device, theme
):
    """Seen by the player to move: the pool to draft from, the other's placed tile, the move log,
    the dashboard's row of a game waiting for them."""
    game, _, _ = game_under_way
    game, state = game_state(game.pk)
    player = game.seats.get(number=state.current).user
    player.theme = setting
    player.save(update_fields=["theme"])
    page = open_page(player, color_scheme=device)
    for path in (f"/games/{game.pk}/", "/dashboard/", "/games/", "/settings/"):
        page.goto(path)
        assert page.get_attribute("html", "data-theme") == setting
        shows_theme(page, theme)
        serious, results = serious_violations(page)
        assert serious == [], f"{path}: {results.generate_report()}"
    assert page.errors == []


def test_a_visitor_follows_the_device(open_page, game_under_way):
    page = open_page(color_scheme="dark")
    page.goto("/accounts/login/")
    assert page.get_attribute("html", "data-theme") == "system"
    shows_theme(page, "dark")
    serious, results = serious_violations(page)
    assert serious == [], results.generate_report()


def test_the_theme_switch_in_settings_changes_the_pages(open_page, game_under_way):
    game, first, _ = game_under_way
    page = open_page(first, color_scheme="light")
    page.goto("/settings/")
    shows_theme(page, "light")
    page.get_by_label("dark").check()
    page.get_by_role("button", name="Save settings").click()
    page.get_by_text("Your settings are saved.").wait_for()
    shows_theme(page, "dark")
    assert page.get_by_label("dark").is_checked()
    page.goto(f"/games/{game.pk}/")
    shows_theme(page, "dark")
    first.refresh_from_db()
    assert first.theme == "dark"
    screenshot(page, "dark")


# Reads the screenshot's pixels in the page itself (the browser decodes the PNG), so the check sees
# what is drawn, neighbours and all.
PIXELS = """async ([png, points]) => {
  const image = new Image();
  image.src = "data:image/png;base64," + png;
  await image.decode();
  const canvas = document.createElement("canvas");
  canvas.width = image.width;
  canvas.height = image.height;
  const context = canvas.getContext("2d");
  context.drawImage(image, 0, 0);
  return points.map(([x, y]) => Array.from(context.getImageData(x, y, 1, 1).data.slice(0, 3)));
}"""


def luminance(rgb):
    def linear(channel):
        channel /= 255
        return channel / 12.92 if channel <= 0.03928 else ((channel + 0.055) / 1.055) ** 2.4

    red, green, blue = (linear(channel) for channel in rgb)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(one, other):
    lighter, darker = sorted((luminance(one), luminance(other)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_focused_tile_on_the_board_shows_a_ring_that_stands_out(open_page, game_under_way, theme):
    """Around a placed tile of the player's board, focused from the keyboard, a ring is drawn on
    all four sides, over the neighbouring spaces too: it changes what was there by 3:1 at least
    (WCAG 2.2's focus appearance) and its inside differs from the tile's own colour as much."""
    game, first, space = game_under_way
    first.theme = theme
    first.save(update_fields=["theme"])
    page = open_page(first)
    open_live(page, f"/games/{game.pk}/")  # nothing redrawn under the focus from here on
    settled(page)
    shows_theme(page, theme)
    button = page.locator(f"#my-space-{space}")
    button.evaluate("element => element.scrollIntoView({block: 'center'})")  # the ring too
    button.focus()
    assert button.evaluate("element => element.matches(':focus-visible')")
    box = still(page, button)
    left, top = box["x"], box["y"]
    right, bottom = left + box["width"], top + box["height"]
    middle_x, middle_y = left + box["width"] / 2, top + box["height"] / 2
    fill = button.evaluate("b => getComputedStyle(b.querySelector('.tile')).color")  # its face's
    tile_colour = [int(channel) for channel in fill.removeprefix("rgb(").strip(")").split(",")]

    def side_points(distance):
        """`distance` px outside the middle of each side: left, right, top, bottom."""
        return [
            (left - distance, middle_y),
            (right + distance, middle_y),
            (middle_x, top - distance),
            (middle_x, bottom + distance),
        ]

    bands = [side_points(distance) for distance in (1, 3.5, 6)]

    def pixels(points):
        png = base64.b64encode(page.screenshot()).decode()
        whole = [(int(x), int(y)) for x, y in points]
        return page.evaluate(PIXELS, [png, whole])

    focused = pixels([point for band in bands for point in band])
    # The pixels were read where the tile was, still focused.
    assert page.evaluate("document.activeElement.id") == f"my-space-{space}"
    assert button.bounding_box() == box
    page.evaluate("document.activeElement.blur()")
    unfocused = pixels([point for band in bands for point in band])
    for side in range(4):
        changes = [
            contrast(focused[4 * band + side], unfocused[4 * band + side]) for band in range(3)
        ]
        assert max(changes) >= 3, (side, focused, unfocused)
        assert contrast(focused[side], tile_colour) >= 3, (side, focused, tile_colour)
