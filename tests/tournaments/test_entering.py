"""Opening, registering, withdrawing, starting: every refusal says why, and changes nothing."""

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from games.models import Event, Game, Rating
from games.play.errors import ActionRefused
from games.tournaments import actions
from games.tournaments.models import Entry, Tournament
from infra.models import OutboxEmail

pytestmark = pytest.mark.django_db


def refused(code, call, **kwargs):
    with pytest.raises(ActionRefused) as caught:
        call(**kwargs)
    assert caught.value.code == code, caught.value
    return str(caught.value)


def test_registering_is_refused_when_full_and_twice(open_tournament, players):
    tournament = open_tournament(max_players=2)
    actions.register(tournament_id=tournament.pk, user=players[0])
    refused("already_registered", actions.register, tournament_id=tournament.pk, user=players[0])
    actions.register(tournament_id=tournament.pk, user=players[1])
    words = refused("full", actions.register, tournament_id=tournament.pk, user=players[2])
    assert words == "This tournament is full."
    assert tournament.entries.count() == 2


def test_registration_closes_at_the_start_time_and_at_the_start(open_tournament, players):
    tournament = open_tournament()
    Tournament.objects.filter(pk=tournament.pk).update(starts_at=timezone.now())
    refused("closed", actions.register, tournament_id=tournament.pk, user=players[0])

    started = open_tournament(min_players=2)
    for player in players[:2]:
        actions.register(tournament_id=started.pk, user=player)
    actions.start(tournament_id=started.pk, by=started.created_by)
    refused("closed", actions.register, tournament_id=started.pk, user=players[2])
    refused("no_such_tournament", actions.register, tournament_id=999999, user=players[2])


def test_a_tournament_by_invitation_takes_the_invited_and_the_link(open_tournament, players):
    tournament = open_tournament(access=Tournament.Access.INVITATION)
    refused("not_invited", actions.register, tournament_id=tournament.pk, user=players[0])
    refused(
        "not_organiser",
        actions.invite,
        tournament_id=tournament.pk,
        by=players[1],
        username=players[0].username,
    )
    actions.invite(tournament_id=tournament.pk, by=tournament.created_by, username="ADA")
    refused(
        "already_invited",
        actions.invite,
        tournament_id=tournament.pk,
        by=tournament.created_by,
        username="ada",
    )
    refused(
        "no_such_player",
        actions.invite,
        tournament_id=tournament.pk,
        by=tournament.created_by,
        username="nobody",
    )
    actions.register(tournament_id=tournament.pk, user=players[0])
    refused(
        "not_invited",
        actions.register,
        tournament_id=tournament.pk,
        user=players[1],
        invite_token="wrong",
    )
    actions.register(
        tournament_id=tournament.pk, user=players[1], invite_token=tournament.invite_token
    )
    assert set(tournament.entries.values_list("user__username", flat=True)) == {"ada", "brian"}


def test_entry_limits_refuse_with_the_reason(open_tournament, players, start_game):
    rated = open_tournament(min_rated_games=5)
    words = refused("not_eligible", actions.register, tournament_id=rated.pk, user=players[0])
    assert "at least 5 rated games; you have 0" in words

    Rating.objects.create(user=players[1], mu=30, sigma=3, display=1700, games=12)
    ranged = open_tournament(min_rating=1500, max_rating=1650)
    words = refused("not_eligible", actions.register, tournament_id=ranged.pk, user=players[1])
    assert "rated 1650 or less; you are rated 1700" in words
    refused("not_eligible", actions.register, tournament_id=ranged.pk, user=players[2])
    actions.register(tournament_id=open_tournament(min_rating=1500).pk, user=players[1])

    game = start_game(2)
    late = game.seats.get(number=0)
    for number in (50, 51):
        Event.objects.create(
            game=game, number=number, kind="confirm_draft", seat=0, cause=Event.Cause.TIMEOUT
        )
    reliable = open_tournament(max_timeouts=1)
    words = refused("not_eligible", actions.register, tournament_id=reliable.pk, user=late.user)
    assert "at most 1 timeout in the last 90 days; you have 2" in words
    # Timeouts older than 90 days are forgiven; the other seat's player had none.
    Event.objects.filter(game=game).update(created_at=timezone.now() - timedelta(days=91))
    actions.register(tournament_id=reliable.pk, user=late.user)
    other = game.seats.get(number=1).user
    actions.register(tournament_id=reliable.pk, user=other)


def test_withdrawing_before_the_start_leaves_no_entry(open_tournament, players):
    tournament = open_tournament()
    refused("not_registered", actions.withdraw, tournament_id=tournament.pk, user=players[0])
    actions.register(tournament_id=tournament.pk, user=players[0])
    actions.withdraw(tournament_id=tournament.pk, user=players[0])
    assert not tournament.entries.exists()
    actions.register(tournament_id=tournament.pk, user=players[0])  # and may come back


def test_only_the_organiser_starts_cancels_or_invites(open_tournament, players):
    tournament = open_tournament(min_players=3)
    actions.register(tournament_id=tournament.pk, user=players[0])
    refused("not_organiser", actions.start, tournament_id=tournament.pk, by=players[0])
    refused("not_organiser", actions.cancel, tournament_id=tournament.pk, by=players[0])
    words = refused("too_few", actions.start, tournament_id=tournament.pk, by=tournament.created_by)
    assert words == "A tournament needs at least 3 players to start."
    actions.cancel(tournament_id=tournament.pk, by=tournament.created_by)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    refused("closed", actions.start, tournament_id=tournament.pk, by=tournament.created_by)


def test_too_few_players_at_the_start_time_cancels_with_a_notice(
    open_tournament, players, committed
):
    tournament = open_tournament(min_players=3, name="Quiet cup")
    committed(actions.register, tournament_id=tournament.pk, user=players[0])
    mail.outbox.clear()
    Tournament.objects.filter(pk=tournament.pk).update(starts_at=timezone.now())

    committed(actions.start, tournament_id=tournament.pk)  # the sweep's

    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert tournament.ending == Tournament.Ending.TOO_FEW
    assert [message.to for message in mail.outbox] == [[players[0].email]]
    assert "Quiet cup is cancelled" in mail.outbox[0].subject
    assert "too few players registered" in mail.outbox[0].body
    assert not Game.objects.exists()


def test_registration_is_told_by_email_in_the_players_language(open_tournament, players, committed):
    players[0].language = "fr"
    players[0].save()
    tournament = open_tournament(name="Coupe")
    mail.outbox.clear()
    committed(actions.register, tournament_id=tournament.pk, user=players[0])
    assert len(mail.outbox) == 1
    assert mail.outbox[0].subject.endswith("Vous êtes inscrit à Coupe")
    assert "nous vous dirons alors votre table et vos adversaires" in mail.outbox[0].body
    # Those who turned the tournaments' emails off get none.
    players[1].email_tournaments = False
    players[1].save()
    committed(actions.register, tournament_id=tournament.pk, user=players[1])
    assert OutboxEmail.objects.filter(user=players[1]).count() == 0


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"table_size": 6}, "bad_table_size"),
        ({"rounds": 0}, "bad_rounds"),
        ({"rounds": 16}, "bad_rounds"),
        ({"name": "  "}, "bad_name"),
        ({"starts_at": "past"}, "bad_start"),
        ({"round_time": timedelta(hours=2)}, "bad_round_time"),
        ({"min_players": 10, "max_players": 4}, "bad_players"),
        ({"min_rating": 1800, "max_rating": 1500}, "bad_limits"),
        ({"place_points": {"2": ["0", "1"]}}, "bad_points"),
        ({"format": "round_robin", "section_size": 2}, "bad_section_size"),
        ({"clock": "per_move", "time_per_move": timedelta(seconds=5)}, "bad_time"),
    ],
)
def test_opening_refuses_bad_settings(make_player, change, code):
    organiser = make_player("orla")
    options = {"name": "Cup", "starts_at": timezone.now() + timedelta(days=1), **change}
    if options["starts_at"] == "past":
        options["starts_at"] = timezone.now() - timedelta(minutes=1)
    with pytest.raises(ActionRefused) as caught:
        actions.create_tournament(organiser=organiser, **options)
    assert caught.value.code == code, caught.value
    assert not Tournament.objects.exists()


def test_a_player_organises_at_most_three_at_once(make_player):
    organiser = make_player("orla")
    start = timezone.now() + timedelta(days=1)
    for index in range(actions.MAX_ORGANISED):
        actions.create_tournament(organiser=organiser, name=f"Cup {index}", starts_at=start)
    with pytest.raises(ActionRefused) as caught:
        actions.create_tournament(organiser=organiser, name="One more", starts_at=start)
    assert caught.value.code == "too_many_tournaments"
    assert Entry.objects.count() == 0
