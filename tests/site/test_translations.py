"""The translations ship complete (issue 24): every message of Spanish, French and German is
translated and none fuzzy, each compiled .mo says what its .po says, and no word in the
templates is left without a mark (microchip_site/translations.py, docs/i18n.md)."""

import json
import re
from pathlib import Path

import polib
import pytest
from django.utils import translation

from microchip_site import translations


def test_every_shipped_language_is_complete():
    assert translations.shipped_languages() == ["es", "fr", "de"]
    for language in translations.shipped_languages():
        assert translations.po_path(language, "django").exists(), language
    gaps = [f"{gap.language}: {gap.why}: {gap.message!r}" for gap in translations.gaps()]
    assert gaps == [], "\n".join(gaps[:40])


def test_the_compiled_catalogues_say_what_their_po_files_say():
    assert translations.stale_mo_files() == []


def test_a_gap_or_a_stale_catalogue_is_found(tmp_path, settings):
    folder = tmp_path / "es" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    catalogue = polib.POFile()
    catalogue.metadata = {"Content-Type": "text/plain; charset=UTF-8"}
    catalogue.append(polib.POEntry(msgid="Lobby", msgstr="Salón"))
    catalogue.append(polib.POEntry(msgid="Leaderboard", msgstr=""))
    catalogue.append(polib.POEntry(msgid="Settings", msgstr="Ajustes", flags=["fuzzy"]))
    catalogue.save(str(folder / "django.po"))
    settings.LOCALE_PATHS = [tmp_path]
    settings.LANGUAGES = [("en-gb", "English"), ("es", "Español")]
    assert {(gap.message, gap.why) for gap in translations.gaps()} == {
        ("Leaderboard", "untranslated"),
        ("Settings", "fuzzy"),
    }
    english = tmp_path / "en_GB" / "LC_MESSAGES" / "django.mo"
    assert translations.stale_mo_files() == [folder / "django.mo", english]  # never compiled
    translations.compile_all()
    assert translations.stale_mo_files() == []
    catalogue[0].msgstr = "Vestíbulo"
    catalogue.save(str(folder / "django.po"))
    assert translations.stale_mo_files() == [folder / "django.mo"]
    catalogue.append(polib.POEntry(msgid="Tournaments", msgstr="Torneos"))
    catalogue.save(str(folder / "django.po"))
    assert translations.stale_mo_files() == [folder / "django.mo", english]  # a new message


def test_the_source_language_has_each_message_as_itself(tmp_path, settings):
    """English is the source language: its catalogue (which spares each English word a search
    of every other catalogue) says every message of the site as it is, plurals and contexts
    too, so English pages read exactly as the code writes them."""
    folder = tmp_path / "de" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    catalogue = polib.POFile()
    catalogue.metadata = {
        "Content-Type": "text/plain; charset=UTF-8",
        "Plural-Forms": "nplurals=2; plural=(n != 1);",
    }
    catalogue.append(polib.POEntry(msgid="Lobby", msgstr="Lobby-DE"))
    catalogue.append(
        polib.POEntry(
            msgid="%(n)s tile", msgid_plural="%(n)s tiles", msgstr_plural={0: "x", 1: "y"}
        )
    )
    catalogue.append(polib.POEntry(msgctxt="a button", msgid="Finish", msgstr="Fertig"))
    catalogue.save(str(folder / "django.po"))
    settings.LOCALE_PATHS = [tmp_path]
    settings.LANGUAGES = [("en-gb", "English"), ("de", "Deutsch")]
    translations.compile_all()
    english = polib.mofile(str(tmp_path / "en_GB" / "LC_MESSAGES" / "django.mo"))
    said = {(entry.msgctxt, entry.msgid): entry for entry in english}
    assert said[(None, "Lobby")].msgstr == "Lobby"
    assert said[(None, "%(n)s tile")].msgstr_plural == {0: "%(n)s tile", 1: "%(n)s tiles"}
    assert said[("a button", "Finish")].msgstr == "Finish"
    assert "nplurals=2" in english.metadata["Plural-Forms"]


def test_english_reads_as_the_code_writes_it():
    """The shipped English catalogue changes no word: singular, plural and context."""
    # The site's own messages, held in variables: `translations update` (makemessages) would
    # take literal ones here for messages of the tests.
    title, button = "Game status", ("the button that ends a player's arranging", "Finish")
    one, many = "path open to the %(sides)s", "paths open to the %(sides)s"
    with translation.override("en-gb"):
        assert translation.gettext(title) == title
        assert translation.ngettext(one, many, 1) == one
        assert translation.ngettext(one, many, 3) == many
        assert translation.pgettext(*button) == "Finish"


@pytest.mark.parametrize(
    ("template", "unmarked"),
    [
        ("<p>Hello there</p>", ["Hello there"]),
        ('{% load i18n %}<p>{% translate "Hello there" %}</p>', []),
        ("{% blocktranslate trimmed %}Hello {{ name }}{% endblocktranslate %}", []),
        ('<button title="Rotate it" aria-label="{% translate \'Rotate\' %}">', ["Rotate it"]),
        ('<a href="{% url \'home\' %}" class="x">Home page</a>', ["Home page"]),
        ("<script>const words = 'not shown';</script><style>.a{}</style>", []),
        ("{# a comment #}<!-- an HTML comment --><p>{{ username }} · 12</p>", []),
        ("<p>Microchip Online</p>", []),  # a name, the same in every language
    ],
)
def test_the_unmarked_word_finder(tmp_path, template, unmarked):
    (tmp_path / "page.html").write_text(template)
    found = translations.unmarked_words([tmp_path])
    assert [item.text for item in found] == unmarked


@pytest.mark.django_db
def test_the_site_speaks_each_language_on_its_pages(client):
    for language, word in (("es", "Clasificación"), ("fr", "Classement"), ("de", "Rangliste")):
        page = client.get("/leaderboard/", HTTP_ACCEPT_LANGUAGE=language)
        assert f'<html lang="{language}"' in page.content.decode()
        assert word in page.content.decode(), language
    with translation.override("en-gb"):
        assert "Leaderboard" in client.get("/leaderboard/").content.decode()
    assert Path(translations.po_path("es", "django")).with_suffix(".mo").exists()


def test_no_template_word_is_left_unmarked():
    found = [f"{item.template}:{item.line}: {item.text}" for item in translations.unmarked_words()]
    assert found == [], "\n".join(found[:40])


@pytest.mark.django_db
def test_the_scripts_catalogue_speaks_the_pages_language_at_a_versioned_address(client):
    page = client.get("/leaderboard/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    address = re.search(r'src="(/jsi18n/\?l=es&amp;v=(\w+))"', page)
    assert address and address.group(2) == translations.scripts_catalogue_version()
    catalogue = client.get(address.group(1).replace("&amp;", "&"), HTTP_ACCEPT_LANGUAGE="es")
    scripts = polib.pofile(str(translations.po_path("es", "djangojs")))
    spanish = next(entry.msgstr for entry in scripts if entry.msgid == "Your queue is empty")
    assert spanish and spanish != "Your queue is empty"
    assert json.dumps(spanish)[1:-1] in catalogue.content.decode()  # as the catalogue writes it
