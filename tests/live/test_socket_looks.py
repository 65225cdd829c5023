"""A page's socket keeps what the page shows, piece by piece (games/live/consumers.py), so that a
push brings only the pieces that look different: from the looks the page gives when it connects,
from what the socket sent it, and from what the page says after its own move's answer."""

from urllib.parse import quote

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from benchmarks.loadtest.page import PageLooks
from games import rules
from games.rules.greedy import choose_draft
from tests.games.playing import current_state

from .conftest import connect, game_path, messages, next_of
from .test_pushes import seated

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

WHOLE_POOL = 'id="pool" data-look='


class Tab:
    """A player's open game page: what it shows, its socket, its moves as live.js posts them."""

    def __init__(self, client, game, name):
        self.client, self.game, self.name = client, game, name
        self.looks = PageLooks()
        self.version = game.version

    async def open(self, *, with_looks=True):
        fragment = reverse("games:fragment", args=[self.game.pk])
        response = await sync_to_async(self.client.get)(fragment, HTTP_HX_REQUEST="true")
        self.looks.load(response.content.decode())
        path = f"{game_path(self.game, self.version)}&page={self.name}"
        if with_looks:
            path += f"&looks={quote(self.looks.header())}"
        self.socket = await connect(path, self.client)
        await messages(self.socket)

    async def move(self, action):
        response = await sync_to_async(self.client.post)(
            reverse("games:act", args=[self.game.pk]),
            action.to_json(),
            HTTP_HX_REQUEST="true",
            HTTP_X_PAGE_VERSION=str(self.version),
            HTTP_X_PAGE_ID=self.name,
            HTTP_X_PAGE_LOOKS=self.looks.header(),
        )
        assert response.get("X-Game-Parts") == "changed", (
            response.status_code,
            response.content[:300],
        )
        self.looks.swap(response.content.decode())
        self.version = int(response["X-Game-Version"])

    async def say_looks(self):
        looks = {"type": "looks", "version": self.version, "looks": self.looks.header()}
        await self.socket.send_json_to(looks)

    async def push(self) -> str:
        push = await next_of(self.socket, "push")
        self.looks.swap(push["html"])
        self.version = push["version"]
        return push["html"]


async def a_draft_and_its_confirmation(tab):
    state = await sync_to_async(current_state)(tab.game)
    await tab.move(choose_draft(state, state.current))
    await tab.move(rules.ConfirmDraft())


async def two_tabs(start_game):
    game, _, clients = await seated(start_game, 2)
    drafter = await sync_to_async(lambda: current_state(game).current)()
    return (
        Tab(clients[drafter], game, "firsttab01"),
        Tab(clients[1 - drafter], game, "secondtab1"),
    )


async def test_a_socket_that_knows_the_pages_looks_pushes_only_the_changed_pieces(start_game):
    first, second = await two_tabs(start_game)
    await first.open()
    await second.open()
    blind = Tab(second.client, second.game, "blindtab01")
    await blind.open(with_looks=False)  # an older page: it does not say what it shows

    await a_draft_and_its_confirmation(first)

    draft, confirmation = await second.push(), await second.push()
    assert WHOLE_POOL not in draft and "pool-column-" in draft
    assert WHOLE_POOL not in confirmation
    # The turn passed to the second player: of their own board only the head (the turn's
    # marker) comes, so a tile they picked up stays picked up.
    mine = await sync_to_async(lambda: current_state(second.game).current)()
    assert f'id="seat-{mine}-head"' in confirmation
    assert f'id="seat-{mine}" ' not in confirmation and f"seat-{mine}-space-" not in confirmation
    assert WHOLE_POOL in await blind.push()  # the socket knows nothing of what it shows
    assert WHOLE_POOL not in await blind.push()  # but it knows what it sent
    for tab in (first, second, blind):
        await tab.socket.disconnect()


@pytest.mark.parametrize("says", [True, False])
async def test_after_its_own_move_the_page_says_what_it_shows_or_gets_the_pool_whole(
    start_game, says
):
    first, second = await two_tabs(start_game)
    await first.open()
    await second.open()
    await a_draft_and_its_confirmation(first)  # its answers changed the pool on its page
    if says:
        await first.say_looks()  # as live.js does after an answer that changed the pool
    for _ in range(2):
        await second.push()

    await a_draft_and_its_confirmation(second)

    draft = await first.push()
    assert (WHOLE_POOL in draft) is not says
    assert "pool-column-" in draft
    await first.push()  # the confirmation
    # Either way the page now shows what a reload would.
    fragment = reverse("games:fragment", args=[first.game.pk])
    reloaded = PageLooks()
    response = await sync_to_async(first.client.get)(fragment, HTTP_HX_REQUEST="true")
    reloaded.load(response.content.decode())
    assert first.looks.header() == reloaded.header()
    for tab in (first, second):
        await tab.socket.disconnect()
