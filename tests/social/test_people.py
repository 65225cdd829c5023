"""Players together (issue 22): following a player and the dashboard's Following section,
blocking (each of its refusals, and that it is silent to the blocked player), invitations by
name from followed players only, and the privacy of a profile's games."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.contrib.messages import get_messages
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts import blocking, following, privacy
from accounts.bots import new_bot
from accounts.models import Block, Follow, User
from accounts.refusals import Refused
from games import chat, selectors
from games.models import Game, Invitation, Seat
from games.play import actions
from games.play import chat as talk
from games.play.errors import ActionRefused
from infra.models import OutboxEmail
from tests.live.conftest import login as client_of
from tests.social.test_chat import unread

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def post(client, change, player, **data):
    return client.post(reverse(f"players:{change}", args=[player.username]), data)


def page(client, url) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def profile_url(player):
    return reverse("players:profile", args=[player.username])


def open_table(creator, **options):
    options.setdefault("time_per_move", timedelta(days=1))
    return actions.create_game(creator=creator, player_count=3, **options)


def played_game(players, *, private=False):
    """A game in play between `players`, made directly (the pages read rows, not boards)."""
    game = Game.objects.create(
        created_by=players[0],
        player_count=len(players),
        time_per_move=timedelta(days=1),
        status=Game.Status.PLAYING,
        private=private,
        access=Game.Access.INVITATION if private else Game.Access.OPEN,
    )
    for number, player in enumerate(players):
        Seat.objects.create(game=game, user=player, number=number)
    return game


def ended_game(results):
    """A finished game's rows: `results` [(player, place, score)] in seat order, each game
    ending a minute after the one made before."""
    ended = timezone.now() - timedelta(days=1) + timedelta(minutes=Game.objects.count())
    game = Game.objects.create(
        created_by=results[0][0],
        player_count=len(results),
        time_per_move=timedelta(days=1),
        status=Game.Status.ENDED,
        phase="ended",
        started_at=ended - timedelta(hours=3),
        ended_at=ended,
    )
    for number, (player, place, score) in enumerate(results):
        Seat.objects.create(
            game=game, user=player, number=number, place=place, score=score, finished=True
        )
    return game


# --- following ---------------------------------------------------------------------------------


def test_a_player_follows_and_unfollows_another_from_their_profile(players):
    ada, brian = players[:2]
    client = client_of(ada)
    assert 'id="follow-button"' in page(client, profile_url(brian))

    response = post(client, "follow", brian)

    assert response.status_code == 302 and response.url == profile_url(brian)
    assert following.follows(ada, brian)
    shown = page(client, profile_url(brian))
    assert "You follow brian" in shown and ">Unfollow<" in shown
    assert not following.follows(brian, ada)  # one way only

    post(client, "unfollow", brian)
    assert not following.follows(ada, brian)
    assert ">Follow<" in page(client, profile_url(brian))


def test_htmx_gets_the_buttons_drawn_again_in_place(players):
    ada, brian = players[:2]
    client = client_of(ada)

    response = client.post(reverse("players:follow", args=["brian"]), **HTMX)

    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="people-buttons"')
    assert ">Unfollow<" in html and "<html" not in html
    assert Follow.objects.filter(follower=ada, followed=brian).exists()


def test_following_twice_keeps_one_follow(players):
    ada, brian = players[:2]
    assert following.follow(follower=ada, followed=brian) is True
    assert following.follow(follower=ada, followed=brian) is False
    assert Follow.objects.count() == 1


def test_no_buttons_on_one_s_own_profile_nor_for_a_signed_out_visitor(players):
    ada = players[0]
    own = page(client_of(ada), profile_url(ada))
    assert "people-buttons" not in own

    signed_out = page(Client(), profile_url(ada))
    assert "people-buttons" not in signed_out


def test_the_dashboard_lists_followed_players_with_games_to_watch_and_their_latest_results(players):
    ada, brian, chloe, dmitri, esme = players
    following.follow(follower=ada, followed=brian)
    public = played_game([brian, chloe])
    hidden = played_game([brian, dmitri], private=True)  # ada has no seat nor invitation
    invited = played_game([brian, esme], private=True)
    Invitation.objects.create(game=invited, user=ada, invited_by=brian)
    results = [ended_game([(brian, 1, 40 + n), (chloe, 2, 30)]) for n in range(5)]
    played_game([chloe, dmitri])  # chloe is not followed

    html = page(client_of(ada), reverse("dashboard"))

    section = html[html.index('id="following"') :]
    assert "brian" in section and f"/games/{public.pk}/" in section
    assert f"/games/{invited.pk}/" in section  # private, but ada is invited: she may watch
    assert f"/games/{hidden.pk}/" not in section  # a private table is not shown
    # The latest three results only, the newest first.
    shown = [game.pk for game in results if f"/games/{game.pk}/" in section]
    assert shown == [game.pk for game in results[-3:]]
    assert section.index(f"/games/{results[-1].pk}/") < section.index(f"/games/{results[-3].pk}/")
    assert "score 44" in section
    assert f'<h3><a href="{profile_url(chloe)}"' not in section
    # Whom a game is with: the others, one after the other, with no comma left over when the
    # followed player sits last.
    line = section[section.index(f"/games/{public.pk}/") :]
    line = re.sub(r"\s+", " ", line[: line.index("</li>")])
    assert f"with {chloe.username}</small>" in line
    last = played_game([chloe, esme, brian])
    section = page(client_of(ada), reverse("dashboard"))
    line = section[section.index(f"/games/{last.pk}/") :]
    line = re.sub(r"\s+", " ", line[: line.index("</li>")])
    assert f"with {chloe.username}, {esme.username}</small>" in line


def test_the_following_section_costs_the_same_queries_for_one_player_or_many(players, make_player):
    ada, brian, chloe, dmitri, esme = players
    client = client_of(ada)
    following.follow(follower=ada, followed=brian)
    played_game([brian, chloe])
    ended_game([(brian, 1, 40), (chloe, 2, 30)])
    with CaptureQueriesContext(connection) as one:
        client.get(reverse("dashboard"))

    for player in (chloe, dmitri, esme, *(make_player(f"extra{n}") for n in range(4))):
        following.follow(follower=ada, followed=player)
        played_game([player, brian])
        played_game([brian, player])
        ended_game([(player, 1, 40), (brian, 2, 30)])
    with CaptureQueriesContext(connection) as many:
        html = client.get(reverse("dashboard")).content.decode()

    assert "extra3" in html
    assert len(many) == len(one)


def test_the_dashboard_says_so_when_one_follows_nobody(players):
    html = page(client_of(players[0]), reverse("dashboard"))
    assert "You follow nobody yet" in html


# --- invitations by name: anyone, or only players I follow --------------------------------------


def test_with_only_followed_players_an_invitation_from_anyone_else_is_refused_in_words(players):
    ada, brian, chloe = players[:3]
    ada.invitations_from = User.InvitationsFrom.FOLLOWED
    ada.save()
    following.follow(follower=ada, followed=brian)
    game = open_table(chloe)

    with pytest.raises(ActionRefused) as refused:
        actions.invite_player(game_id=game.pk, inviter=chloe, username="ada")
    assert refused.value.message == "ada does not accept invitations from you."
    assert not Invitation.objects.filter(user=ada).exists()

    actions.join_game(game_id=game.pk, user=brian)
    actions.invite_player(game_id=game.pk, inviter=brian, username="ada")  # followed: accepted
    assert Invitation.objects.filter(user=ada, invited_by=brian).exists()


def test_by_default_anyone_may_invite(players):
    game = open_table(players[2])
    actions.invite_player(game_id=game.pk, inviter=players[2], username="ada")
    assert Invitation.objects.filter(user=players[0]).exists()


def test_a_refused_invitee_on_a_new_game_refuses_the_whole_game(players):
    ada, brian = players[:2]
    ada.invitations_from = User.InvitationsFrom.FOLLOWED
    ada.save()

    with pytest.raises(ActionRefused) as refused:
        actions.create_game(
            creator=brian, player_count=2, time_per_move=timedelta(days=1), invitees=("ada",)
        )

    assert refused.value.message == "ada does not accept invitations from you."
    assert not Game.objects.exists() and not Invitation.objects.exists()


# --- blocking ----------------------------------------------------------------------------------


def test_blocking_is_read_both_ways(players):
    ada, brian, chloe = players[:3]
    blocking.block(blocker=ada, blocked=brian)

    assert blocking.blocked_either_way(ada.pk, brian.pk)
    assert blocking.blocked_either_way(brian.pk, ada.pk)
    assert not blocking.blocked_either_way(ada.pk, chloe.pk)
    assert not blocking.blocked_either_way(ada.pk, None)
    assert blocking.blocked_ids(ada.pk) == {brian.pk}
    assert blocking.blocked_ids(brian.pk) == {ada.pk}
    assert blocking.blocked_ids(chloe.pk) == set()


def test_a_player_blocks_from_the_profile_and_the_follows_between_them_end(players):
    ada, brian = players[:2]
    following.follow(follower=ada, followed=brian)
    following.follow(follower=brian, followed=ada)
    client = client_of(ada)

    response = post(client, "block", brian)

    assert response.status_code == 302
    assert Block.objects.filter(blocker=ada, blocked=brian).exists()
    assert not Follow.objects.exists()
    shown = page(client, profile_url(brian))
    assert "You blocked brian" in shown and ">Unblock<" in shown
    assert 'id="follow-button"' not in shown  # no following a player one blocks
    assert "New game with brian" not in shown  # nor a new game, which would be refused
    assert "New game with ada" in page(client_of(brian), profile_url(ada))  # they are not told


def test_a_blocked_player_cannot_invite_by_name_and_is_told_what_the_setting_would_say(players):
    ada, brian, chloe = players[:3]
    blocking.block(blocker=ada, blocked=brian)
    game = open_table(brian)

    with pytest.raises(ActionRefused) as by_block:
        actions.invite_player(game_id=game.pk, inviter=brian, username="ada")

    ada.invitations_from = User.InvitationsFrom.FOLLOWED
    ada.save()
    blocking.unblock(blocker=ada, blocked=brian)
    with pytest.raises(ActionRefused) as by_setting:
        actions.invite_player(game_id=game.pk, inviter=brian, username="ada")
    assert by_block.value.message == by_setting.value.message
    assert by_block.value.code == by_setting.value.code
    assert "block" not in by_block.value.message.lower()
    assert not Invitation.objects.filter(user=ada).exists()
    assert not privacy.accepts_invitation_from(ada, chloe)


def test_the_blocked_player_s_refusal_over_http_says_nothing_of_a_block(players):
    ada, brian = players[:2]
    blocking.block(blocker=ada, blocked=brian)
    game = open_table(brian)
    client = client_of(brian)

    response = client.post(reverse("games:invite", args=[game.pk]), {"username": "ada"})

    html = client.get(response.url).content.decode()
    assert "ada does not accept invitations from you." in html
    assert "block" not in html.lower()


def test_one_who_blocked_a_player_is_told_to_unblock_them_to_invite_them(players):
    ada, brian = players[:2]
    blocking.block(blocker=ada, blocked=brian)
    game = open_table(ada)

    with pytest.raises(ActionRefused) as refused:
        actions.invite_player(game_id=game.pk, inviter=ada, username="brian")
    assert "You blocked brian" in refused.value.message


@pytest.mark.parametrize("who_blocks", ["creator", "joiner"])
def test_the_lobby_hides_open_tables_between_blocked_players_both_ways(players, who_blocks):
    ada, brian, chloe = players[:3]
    if who_blocks == "creator":
        blocking.block(blocker=ada, blocked=brian)
    else:
        blocking.block(blocker=brian, blocked=ada)
    table = open_table(ada, name="Ada's table")

    for_brian = page(client_of(brian), reverse("games:lobby"))
    for_chloe = page(client_of(chloe), reverse("games:lobby"))

    assert "Ada&#x27;s table" not in for_brian and f"/games/{table.pk}/join/" not in for_brian
    assert "Ada&#x27;s table" in for_chloe


def test_the_lobby_hides_a_table_where_a_blocker_sits_without_having_made_it(players):
    ada, brian, chloe = players[:3]
    table = open_table(chloe, name="Chloe's table")
    actions.join_game(game_id=table.pk, user=ada)
    blocking.block(blocker=ada, blocked=brian)

    assert "Chloe&#x27;s table" not in page(client_of(brian), reverse("games:lobby"))
    with pytest.raises(ActionRefused) as refused:
        actions.join_game(game_id=table.pk, user=brian)
    assert refused.value.code == "not_offered"


def test_a_blocked_player_cannot_join_an_open_table_by_its_address_nor_by_its_link(players):
    ada, brian, chloe = players[:3]
    blocking.block(blocker=ada, blocked=brian)
    table = open_table(ada)
    client = client_of(brian)

    by_address = client.post(reverse("games:join", args=[table.pk]))
    by_link = client.post(reverse("games:join_by_link", args=[table.invite_token]))

    assert not table.seats.filter(user=brian).exists()
    html = client.get(by_link.url).content.decode()
    assert actions.SEAT_NOT_OFFERED in html
    assert "block" not in html.lower()
    assert by_address.status_code == 302
    actions.join_game(game_id=table.pk, user=chloe)  # no block: chloe sits down
    assert table.seats.filter(user=chloe).exists()


def test_one_who_blocked_cannot_join_the_blocked_player_s_table_either(players):
    ada, brian = players[:2]
    blocking.block(blocker=ada, blocked=brian)
    table = open_table(brian)

    with pytest.raises(ActionRefused) as refused:
        actions.join_game(game_id=table.pk, user=ada, invite_token=table.invite_token)
    assert refused.value.message == actions.SEAT_NOT_OFFERED


def test_neither_reads_the_other_s_table_talk_on_the_page(start_game, players):
    game = start_game(3)
    ada, brian, chloe = players[:3]
    talk.send_message(game_id=game.pk, user=brian, text="from brian")
    talk.send_message(game_id=game.pk, user=ada, text="from ada")
    blocking.block(blocker=ada, blocked=brian)
    url = reverse("games:game", args=[game.pk])

    for_ada, for_brian, for_chloe = (page(client_of(p), url) for p in (ada, brian, chloe))

    assert "from brian" not in for_ada and "from ada" in for_ada
    assert "from ada" not in for_brian and "from brian" in for_brian
    assert "from ada" in for_chloe and "from brian" in for_chloe
    messages_url = reverse("games:chat", args=[game.pk])
    assert "from brian" not in page(client_of(ada), messages_url)
    # Nor in the replay, nor as unread.
    panel = chat.panel(game, ada, list(game.seats.all()), versions=(0, None))
    assert [shown.event["text"] for shown in panel.messages] == ["from ada"]


def test_a_blocked_player_s_messages_are_not_counted_unread(start_game, players):
    game = start_game(3)
    ada, brian, chloe = players[:3]
    blocking.block(blocker=brian, blocked=ada)
    talk.send_message(game_id=game.pk, user=chloe, text="one")
    talk.send_message(game_id=game.pk, user=brian, text="two")

    seat = Seat.objects.get(game=game, user=ada)
    assert chat.unread_for_seat(seat) == 1
    counted = Seat.objects.filter(pk=seat.pk).annotate(unread=chat.unread_of_seat()).get()
    assert counted.unread == 1
    assert unread(chloe, game) == 1  # brian's, no block there


def test_blocking_is_silent_to_the_blocked_player(players, django_capture_on_commit_callbacks):
    ada, brian = players[:2]
    emails = OutboxEmail.objects.count()
    with django_capture_on_commit_callbacks(execute=True):
        post(client_of(ada), "block", brian)

    assert OutboxEmail.objects.count() == emails  # no email, no notice
    client = client_of(brian)
    pages = [
        page(client, profile_url(ada)),
        page(client, reverse("dashboard")),
        page(client, reverse("accounts:settings")),
        page(client, reverse("games:lobby")),
    ]
    for html in pages:
        for words in ("blocked you", "you blocked", "ada blocked", "has blocked", "is blocked"):
            assert words not in html.lower()
    assert "You have blocked nobody" in pages[2]  # his own list, empty
    assert 'id="follow-button"' in pages[0] and ">Block<" in pages[0]  # as for anyone


def test_neither_player_of_a_block_may_follow_the_other_again(players):
    """A block ends the follows both ways, and neither may follow the other while it lasts
    (issue 34: the blocked player followed again, and the dashboard showed the blocker's games).
    The words name no block to the blocked player."""
    ada, brian = players[:2]
    game = actions.create_game(creator=ada, player_count=2, time_per_move=timedelta(days=1))
    actions.join_game(game_id=game.pk, user=players[2])
    blocking.block(blocker=ada, blocked=brian)

    answer = post(client_of(brian), "follow", ada, **{"back": ""})
    with pytest.raises(Refused) as refused:
        following.follow(follower=ada, followed=brian)

    assert answer.status_code == 302
    assert not Follow.objects.exists()
    said = [str(message) for message in get_messages(answer.wsgi_request)]
    assert said == ["You cannot follow ada."]
    assert "block" in refused.value.message  # ada is told of her own block
    assert f"/games/{game.pk}/" not in page(client_of(brian), reverse("dashboard"))
    assert blocking.blocked_either_way(ada.pk, brian.pk)  # the block stays
    blocking.unblock(blocker=ada, blocked=brian)
    assert following.follow(follower=brian, followed=ada) is True


def test_unblocking_lifts_one_s_own_block_only(players):
    ada, brian = players[:2]
    blocking.block(blocker=ada, blocked=brian)
    blocking.block(blocker=brian, blocked=ada)

    assert blocking.unblock(blocker=ada, blocked=brian) is True
    assert blocking.blocked_either_way(ada.pk, brian.pk)  # brian's own block stays
    assert blocking.unblock(blocker=ada, blocked=brian) is False


def test_a_computer_player_cannot_be_blocked(players):
    bot = new_bot("easy")
    with pytest.raises(Refused):
        blocking.block(blocker=players[0], blocked=bot)
    assert ">Block<" not in page(client_of(players[0]), profile_url(bot))


# --- security ----------------------------------------------------------------------------------


@pytest.mark.parametrize("change", ["follow", "block"])
def test_following_or_blocking_oneself_is_refused_in_words(players, change):
    ada = players[0]
    client = client_of(ada)

    response = post(client, change, ada)

    assert not Follow.objects.exists() and not Block.objects.exists()
    html = client.get(response.url).content.decode()
    assert f"You cannot {change} yourself." in html
    htmx = client.post(reverse(f"players:{change}", args=["ada"]), **HTMX)
    assert f"You cannot {change} yourself." in htmx.content.decode()
    with pytest.raises(Refused):
        if change == "follow":
            following.follow(follower=ada, followed=ada)
        else:
            blocking.block(blocker=ada, blocked=ada)


def test_the_database_refuses_a_follow_or_block_of_oneself_too(players):
    from django.db import IntegrityError, transaction

    for model, fields in ((Follow, ("follower", "followed")), (Block, ("blocker", "blocked"))):
        with pytest.raises(IntegrityError), transaction.atomic():
            model.objects.create(**dict.fromkeys(fields, players[0]))


@pytest.mark.parametrize("change", ["follow", "unfollow", "block", "unblock"])
def test_a_forged_or_closed_username_is_not_found(players, change):
    client = client_of(players[0])
    assert post(client, change, User(username="nobody-here")).status_code == 404
    players[1].is_active = False
    players[1].save()
    assert post(client, change, players[1]).status_code == 404


@pytest.mark.parametrize("change", ["follow", "block"])
def test_changes_need_a_signed_in_post_with_its_csrf_token(players, change):
    ada = players[0]
    url = reverse(f"players:{change}", args=["brian"])

    signed_out = Client().post(url)
    assert signed_out.status_code == 302 and "login" in signed_out.url
    assert client_of(ada).get(url).status_code == 405
    forged = Client(enforce_csrf_checks=True)
    forged.force_login(ada)
    assert forged.post(url).status_code == 403  # a page elsewhere cannot make ada follow or block

    assert not Follow.objects.exists() and not Block.objects.exists()


def test_back_goes_only_to_the_settings_page(players):
    ada, brian = players[:2]
    blocking.block(blocker=ada, blocked=brian)

    response = post(client_of(ada), "unblock", brian, back="https://evil.example/")

    assert response.url == profile_url(brian)


# --- privacy of a profile's games ---------------------------------------------------------------


def test_a_signed_out_visitor_sees_the_name_but_not_the_games_of_a_private_player(players):
    ada, brian = players[:2]
    game = ended_game([(ada, 1, 44), (brian, 2, 30)])
    ada.games_shown_to = User.GamesShownTo.SIGNED_IN
    ada.save()

    profile = page(Client(), profile_url(ada))
    archive = page(Client(), reverse("archive", args=["ada"]))

    line = "ada shows their games and rating history to signed-in players only."
    for html in (profile, archive):
        assert line in html
        assert f"/games/{game.pk}/" not in html
        assert "rating-chart" not in html and "Rating <strong" not in html
    assert "<h1>ada" in profile
    htmx = Client().get(reverse("archive", args=["ada"]), HTTP_HX_TARGET="archive", **HTMX)
    assert line in htmx.content.decode() and f"/games/{game.pk}/" not in htmx.content.decode()

    signed_in = client_of(players[2])
    assert f"/games/{game.pk}/" in page(signed_in, profile_url(ada))
    assert f"/games/{game.pk}/" in page(signed_in, reverse("archive", args=["ada"]))
    # brian shows his to everyone, but a game of ada's is hers too: not his to show.
    assert f"/games/{game.pk}/" not in page(Client(), profile_url(brian))
    assert f"/games/{game.pk}/" in page(signed_in, profile_url(brian))


def test_a_private_players_games_are_hidden_from_visitors_by_their_address_too(players, start_game):
    """ "Signed-in players" hides every game the player plays from signed-out visitors,
    whoever else plays it: its page, its move log, its replay and its socket, as their profile
    and archive do, and their rating on the leaderboard (issue 34: the pages by id showed)."""
    ada, brian = players[:2]
    playing = start_game(2)
    ended = start_game(2)
    actions.resign(game_id=ended.pk, user=brian)
    ada.games_shown_to = User.GamesShownTo.SIGNED_IN
    ada.save()
    visitor = Client()

    for game in (playing, ended):
        answer = visitor.get(reverse("games:game", args=[game.pk]))
        assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")
        assert visitor.get(reverse("games:log", args=[game.pk])).status_code == 404
        assert visitor.get(reverse("games:fragment", args=[game.pk])).status_code == 404
    assert visitor.get(reverse("games:replay", args=[ended.pk])).status_code == 404
    assert not selectors.can_view(playing, AnonymousUser())  # the socket's check (4404)
    signed_in = client_of(players[2])
    assert signed_in.get(reverse("games:game", args=[playing.pk])).status_code == 200
    assert signed_in.get(reverse("games:replay", args=[ended.pk])).status_code == 200
    User.objects.filter(pk=brian.pk).update(games_shown_to=User.GamesShownTo.EVERYONE)
    ada.games_shown_to = User.GamesShownTo.EVERYONE
    ada.save()
    assert visitor.get(reverse("games:game", args=[playing.pk])).status_code == 200


def test_a_private_players_rating_is_not_on_the_visitors_leaderboard(players, settings):
    from games.models import Rating

    for number, player in enumerate(players[:3]):
        figures = {"games": 20, "display": 1500 + number, "mu": 25.0, "sigma": 3.0}
        Rating.objects.update_or_create(user=player, defaults=figures)
    ada = players[0]
    ada.games_shown_to = User.GamesShownTo.SIGNED_IN
    ada.save()

    visitors = page(Client(), reverse("leaderboard"))
    members = page(client_of(players[3]), reverse("leaderboard"))

    assert profile_url(players[1]) in visitors and profile_url(ada) not in visitors
    assert profile_url(ada) in members


def test_a_private_player_cannot_be_picked_as_opponent_by_a_signed_out_visitor(players):
    ada, brian = players[:2]
    game = ended_game([(ada, 1, 44), (brian, 2, 30)])
    ada.games_shown_to = User.GamesShownTo.SIGNED_IN
    ada.save()

    html = page(Client(), reverse("archive", args=["brian"]) + "?opponent=ada")

    assert "ada shows their games to signed-in players only." in html
    assert f"/games/{game.pk}/" not in html


def test_by_default_everyone_sees_a_player_s_games(players):
    game = ended_game([(players[0], 1, 44), (players[1], 2, 30)])
    html = page(Client(), profile_url(players[0]))
    assert f"/games/{game.pk}/" in html and "signed-in players only" not in html


# --- the settings page --------------------------------------------------------------------------


def test_the_settings_page_saves_who_may_invite_and_who_sees_one_s_games(players):
    ada = players[0]
    client = client_of(ada)
    html = page(client, reverse("accounts:settings"))
    assert "Who may invite me by name" in html and "only players I follow" in html
    assert "Who may see my games and rating history" in html

    response = client.post(
        reverse("accounts:settings"),
        {"time_zone": "UTC", "theme": "system", "invitations_from": "followed",
         "games_shown_to": "signed_in"},
    )  # fmt: skip

    assert response.status_code == 302
    ada.refresh_from_db()
    assert ada.invitations_from == User.InvitationsFrom.FOLLOWED
    assert ada.games_shown_to == User.GamesShownTo.SIGNED_IN


def test_a_settings_form_without_the_choices_keeps_them_and_a_forged_one_is_refused(players):
    ada = players[0]
    ada.invitations_from = User.InvitationsFrom.FOLLOWED
    ada.save()
    client = client_of(ada)

    client.post(reverse("accounts:settings"), {"time_zone": "UTC", "theme": "dark"})
    ada.refresh_from_db()
    assert ada.invitations_from == User.InvitationsFrom.FOLLOWED and ada.theme == "dark"

    forged = client.post(
        reverse("accounts:settings"),
        {"time_zone": "UTC", "theme": "dark", "games_shown_to": "nobody"},
    )
    assert forged.status_code == 200 and "Select a valid choice" in forged.content.decode()
    ada.refresh_from_db()
    assert ada.games_shown_to == User.GamesShownTo.EVERYONE


def test_the_settings_page_lists_one_s_blocks_only_and_unblocks_back_there(players):
    ada, brian, chloe = players[:3]
    blocking.block(blocker=ada, blocked=brian)
    blocking.block(blocker=chloe, blocked=ada)  # not hers to see
    client = client_of(ada)

    html = page(client, reverse("accounts:settings"))
    listed = html[html.index('id="blocked-players"') :]
    assert "brian" in listed and "chloe" not in listed

    response = post(client, "unblock", brian, back="settings")

    assert response.url == reverse("accounts:settings")
    assert not Block.objects.filter(blocker=ada).exists()
    assert "You have blocked nobody" in page(client, reverse("accounts:settings"))


def test_following_and_blocking_are_rate_limited(players, settings):
    settings.PEOPLE_RATE_LIMIT = "3/h"
    ada = client_of(players[0])
    changes = ["follow", "unfollow", "follow", "unfollow"]
    statuses = [post(ada, change, players[1]).status_code for change in changes]
    assert statuses == [302, 302, 302, 429]
    answer = ada.post(reverse("players:block", args=[players[2].username]), HTTP_HX_REQUEST="true")
    assert answer.status_code == 429 and "Too many follows and blocks" in answer.content.decode()


def test_an_invitation_from_before_a_block_leaves_the_dashboard(players):
    ada, brian = players[0], players[1]
    game = actions.create_game(
        creator=brian,
        player_count=2,
        time_per_move=timedelta(days=1),
        access="invitation",
        invitees=(ada.username,),
    )
    dashboard = client_of(ada).get(reverse("dashboard")).content.decode()
    assert game.title in dashboard
    blocking.block(blocker=ada, blocked=brian)
    assert game.title not in client_of(ada).get(reverse("dashboard")).content.decode()
