"""Usernames that look like an existing player's are refused (accounts/names.py): at sign-up,
in the admin's forms, and by the database (a unique key per name)."""

import importlib

import pytest
from django.db import IntegrityError, transaction
from django.test import Client, override_settings
from django.urls import reverse

from accounts import bots, names
from accounts.models import User

from .conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)

CYRILLIC_A = "\u0430"
LOOK_ALIKES = {
    "alice": [
        f"{CYRILLIC_A}lice",  # a Cyrillic a: the example
        "AIice",  # a capital I for the l
        "al\u0456ce",  # a Cyrillic i (U+0456)
        "\uff41\uff4c\uff49\uff43\uff45",  # full-width letters
        f"{CYRILLIC_A.upper()}LICE",  # Cyrillic, in capitals: "ALICE" is alice's too
        "a1ice",  # a one for the l
    ],
    "mary": ["rnary"],  # r and n side by side read as an m
    "EasyBot": ["EasyB0t", "Easy\u0392ot"],  # a zero, a Greek capital beta
}
DIFFERENT = ["alicia", "alice2", "malice", "Alicé", "bob"]


def sign_up(username, email=None):
    return Client().post(
        reverse("account_signup"),
        {
            "username": username,
            "email": email or f"{abs(hash(username))}@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )


def people() -> set[str]:
    return set(User.objects.filter(bot_level__isnull=True).values_list("username", flat=True))


@pytest.mark.parametrize(
    ("existing", "look_alike"),
    [(existing, alike) for existing, alikes in LOOK_ALIKES.items() for alike in alikes],
)
def test_a_name_that_looks_like_an_existing_one_is_refused_at_sign_up(
    mailoutbox, existing, look_alike
):
    if existing == "EasyBot":
        if not User.objects.filter(username="EasyBot").exists():  # (its migration made it)
            bots.new_bot("easy")
    else:
        assert sign_up(existing).status_code == 302

    refused = sign_up(look_alike)

    assert refused.status_code == 200
    assert "This name looks like an existing player&#x27;s name." in refused.content.decode()
    assert look_alike not in people()
    assert not User.objects.filter(username=look_alike).exists()


def test_names_that_only_resemble_are_accepted(mailoutbox):
    assert sign_up("alice").status_code == 302
    for name in DIFFERENT:
        assert sign_up(name).status_code == 302, name
    assert people() == {"alice", *DIFFERENT}


def test_the_database_refuses_a_look_alike_made_another_way():
    User.objects.create_user("alice", "alice@example.com", PASSWORD)

    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user(f"{CYRILLIC_A}lice", "mallory@example.com", PASSWORD)


def test_the_admin_refuses_a_look_alike_name_too(make_player):
    staff = make_player("root")
    User.objects.filter(pk=staff.pk).update(is_staff=True, is_superuser=True)
    make_player("alice")
    admin = Client()
    admin.force_login(staff)
    with override_settings(ADMIN_REQUIRE_MFA=False):  # this test is about the admin's forms
        added = admin.post(
            "/admin/accounts/user/add/",
            {"username": "AIice", "password1": PASSWORD, "password2": PASSWORD},
        )
        assert added.status_code == 200
        assert "This name looks like an existing player" in added.content.decode()
        assert not User.objects.filter(username="AIice").exists()

        bob = make_player("bob")
        change = f"/admin/accounts/user/{bob.pk}/change/"
        form = admin.get(change).context["adminform"].form
        data = {
            name: value
            for name, value in form.initial.items()
            if value is not None and not isinstance(value, list | tuple)
        }
        data.update(
            username=f"{CYRILLIC_A}lice", date_joined_0="2030-01-01", date_joined_1="12:00:00"
        )
        renamed = admin.post(change, data)
        assert "This name looks like an existing player" in renamed.content.decode()
        bob.refresh_from_db()
        assert bob.username == "bob"


def test_a_new_bot_takes_no_name_that_looks_like_a_players(make_player):
    User.objects.filter(bot_level__isnull=False).delete()
    bots.new_bot("strong")
    make_player("StrongB0t2")  # a player took the look-alike of the next bot's name

    bot = bots.new_bot("strong")

    assert bot.username == "StrongBot3"


def test_the_migration_gives_each_existing_name_its_key_keeping_the_older_of_two_alikes():
    """The migration runs on a database whose names were never checked: the older of two
    look-alikes keeps the key, the younger has none (and so cannot block anyone)."""
    alice = User.objects.create_user("alice", "alice@example.com", PASSWORD)
    twin = User.objects.create_user("twin", "twin@example.com", PASSWORD)
    User.objects.filter(pk=twin.pk).update(username=f"{CYRILLIC_A}lice")  # as they were
    User.objects.update(name_key=None)

    migration = importlib.import_module("accounts.migrations.0007_look_alike_names")
    from django.apps import apps

    migration.fill_keys(apps, None)

    keys = dict(User.objects.values_list("username", "name_key"))
    assert keys["alice"] == names.name_key("alice") == names.name_key("AL\u0406CE")
    assert keys[f"{CYRILLIC_A}lice"] is None
    # The younger keeps its name and its settings can still be saved.
    twin.refresh_from_db()
    twin.theme = "dark"
    twin.save()
    assert alice.pk < twin.pk


def test_the_confusables_data_is_stars_around_prototypes():
    """names.py takes the member of a group paired with all the others as its prototype: in
    the data every group of look-alikes must be such a star."""
    from confusable_homoglyphs.utils import load

    pairs = {}
    for glyph, others in load("confusables.json").items():
        glyph = glyph.translate(names.MARKS)
        pairs.setdefault(glyph, set()).update(o["c"].translate(names.MARKS) for o in others)
    for glyph, others in pairs.items():
        if len(others) > 1:  # a prototype: each of its glyphs is paired with it alone
            assert all(pairs[other] == {glyph} for other in others), glyph


def test_a_name_that_normalisation_makes_long_is_handled(mailoutbox):
    """U+FDFA is one letter that NFKC makes 18: 150 of them are a 2,700-character skeleton,
    whose digest is what the unique index holds."""
    name = "\ufdfa" * 150

    assert sign_up(name).status_code == 302
    assert sign_up("\ufdfa" * 149 + "x").status_code == 302
    assert len(User.objects.get(username=name).name_key) == 64
