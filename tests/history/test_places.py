"""A finished game leads with its winner, and every place shown says when it is shared."""

import pytest
from django.test import Client
from django.urls import reverse

from games.drawing.updates import draw_notice
from games.models import Game
from games.templatetags.game_extras import place_words, winner_line
from infra.words import and_list
from infra.words import place_words as words_place

from .playing import play_recorded

pytestmark = pytest.mark.django_db


def client_for(user):
    client = Client()
    client.force_login(user)
    return client


def test_a_place_says_shared_when_another_seat_has_it():
    assert words_place(1) == "1st"
    assert words_place(1, [1, 2]) == "1st"
    assert words_place(1, [1, 1, 3]) == "1st (shared)"
    assert words_place(3, [1, 1, 3]) == "3rd"
    assert words_place(2, [1, 2, 2, 2]) == "2nd (shared)"
    assert and_list([]) == "" and and_list(["ada"]) == "ada"
    assert and_list(["ada", "brian"]) == "ada and brian"
    assert and_list(["ada", "brian", "chloe"]) == "ada, brian and chloe"


def test_the_filters_take_seats_and_escape_names(players, ended_game):
    ada, brian, chloe = players[:3]
    ada.username = "<ada>"
    game = ended_game([(ada, 1, 10, 4, 12), (brian, 1, 10, 4, 12), (chloe, 3, 2, 1, 3)])
    seats = list(game.seats.select_related("user").order_by("number"))
    seats[0].user = ada

    assert [place_words(seat.place, seats) for seat in seats] == [
        "1st (shared)",
        "1st (shared)",
        "3rd",
    ]
    assert place_words(None, seats) == "" and place_words(2) == "2nd"
    line = winner_line(seats)
    assert (
        line
        == "<strong>&lt;ada&gt;</strong> and <strong>brian</strong> share 1st place with 10 points"
    )
    assert winner_line(seats[1:]) == "<strong>brian</strong> wins with 10 points"


def test_the_results_page_leads_with_the_winner_and_shared_places(players, start_game):
    game = start_game(2)
    play_recorded(game)
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED
    seats = list(game.seats.select_related("user").order_by("place", "number"))
    page = client_for(seats[0].user).get(reverse("games:game", args=[game.pk])).content.decode()
    results = page[page.index('aria-label="Results"') :]
    winner = seats[0].user.username
    if seats[0].place == seats[1].place:
        assert "share 1st place" in results
    else:
        assert f"<strong>{winner}</strong> wins with {seats[0].score} point" in results
    # The winner line comes before the table of places.
    assert results.index('class="winner-line"') < results.index("<table>")

    # A tie (as the rules make one when score and chip size are equal): both share first place.
    game.seats.update(place=1, score=7)
    page = client_for(seats[0].user).get(reverse("games:game", args=[game.pk])).content.decode()
    table = page[page.index("<table>") : page.index("</table>")]
    assert table.count("1st (shared)") == 2
    # The viewer's own place and score, under the winner line.
    assert "You placed <strong>1st (shared)</strong> with <strong>7</strong> points." in page
    names = " and ".join(f"<strong>{seat.user.username}</strong>" for seat in sorted(
        seats, key=lambda seat: seat.number))  # fmt: skip
    assert f"{names} share 1st place with 7 points" in page


def test_the_dashboard_archive_and_profile_say_shared_places(players, ended_game):
    ada, brian, chloe = players[:3]
    ended_game([(ada, 1, 10, 4, 12), (brian, 1, 10, 4, 12), (chloe, 3, 2, 1, 3)])
    ended_game([(ada, 2, 4, 3, 8), (chloe, 1, 9, 4, 11)])
    client = client_for(ada)

    dashboard = client.get(reverse("dashboard")).content.decode()
    assert "<td>1st (shared) of 3</td>" in dashboard
    assert "<td>2nd of 2</td>" in dashboard
    for url in (reverse("archive", args=["ada"]), reverse("players:profile", args=["ada"])):
        page = client.get(url).content.decode()
        assert page.count('<span class="place">1st (shared)</span>') == 2, url
        assert "1st (shared) of 3" in page and "2nd of 2" in page, url


def test_the_game_over_notice_says_a_shared_place(players, ended_game):
    ada, brian, chloe = players[:3]
    game = ended_game([(ada, 1, 10, 4, 12), (brian, 1, 10, 4, 12), (chloe, 3, 2, 1, 3)])
    seats = list(game.seats.all())

    assert "you placed 1st (shared) with 10 points" in draw_notice(ada, "game_over", game)
    pushed = draw_notice(chloe, "game_over", game, seat=seats[2], seats=seats)
    assert "you placed 3rd with 2 points" in pushed


MINUS = "\N{MINUS SIGN}"  # how the pages write a penalty


def test_no_penalty_is_written_0_not_minus_0(players, start_game):
    game = start_game(2)
    me = game.seats.order_by("number").first().user
    # In play, two empty boards: nothing outside a chip.
    page = client_for(me).get(reverse("games:game", args=[game.pk])).content.decode()
    assert f"{MINUS}0" not in page and "none outside" in page
    # Ended, one player with every tile in the chip: their penalty is 0; the other's is minus 4.
    game.seats.filter(number=0).update(
        place=1, score=9, chip_value=9, chip_tiles=4, penalty_tiles=0
    )
    game.seats.filter(number=1).update(
        place=2, score=-4, chip_value=0, chip_tiles=0, penalty_tiles=2
    )
    Game.objects.filter(pk=game.pk).update(status=Game.Status.ENDED)
    page = client_for(me).get(reverse("games:game", args=[game.pk])).content.decode()
    table = page[page.index("<table>") : page.index("</table>")]
    assert f"{MINUS}0" not in page
    assert "<td>0</td>" in table and f"<td>{MINUS}4</td>" in table
