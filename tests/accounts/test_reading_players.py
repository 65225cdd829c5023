"""The signed-in player is read on every request by their id (Django's authentication backend:
`User.objects.get(pk=...)`): accounts/models.py reads it with a select written once. It must
make the instance the queryset makes, and say "no such player" the same way."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

User = get_user_model()

pytestmark = pytest.mark.django_db


def values(user) -> dict:
    return {field.attname: getattr(user, field.attname) for field in user._meta.concrete_fields}


def test_a_player_read_by_id_is_the_one_the_queryset_reads(django_assert_num_queries):
    player = User.objects.create_user("ada", "ada@example.com", "a long pass phrase 1")
    player.language, player.colour_blind = "de", True
    player.save()

    with django_assert_num_queries(1):
        read = User.objects.get(pk=player.pk)
    again = User.objects.get(pk=str(player.pk))  # as a session keeps it: the id as text

    expected = User.objects.filter(pk=player.pk).get()
    assert values(read) == values(expected) == values(again)
    assert read.date_joined.tzinfo is not None and read.colour_blind is True
    assert read._state.adding is False and read._state.db == "default"


@pytest.mark.parametrize("pk", [987654, 10**30])
def test_no_such_player_is_no_such_player(pk):
    with pytest.raises(User.DoesNotExist):
        User.objects.get(pk=pk)


def test_a_bad_id_fails_as_the_queryset_fails():
    with pytest.raises(ValueError):
        User.objects.get(pk="12x")


def test_other_lookups_are_the_querysets():
    player = User.objects.create_user("bea", "bea@example.com", "a long pass phrase 2")
    assert User.objects.get(username="bea") == player
    assert User.objects.get(pk=player.pk, is_active=True) == player


def test_a_signed_in_page_knows_its_player():
    player = User.objects.create_user("cyd", "cyd@example.com", "a long pass phrase 3")
    client = Client()
    client.force_login(player)
    response = client.get("/")
    assert response.wsgi_request.user == player
    assert response.wsgi_request.user.is_authenticated
