"""The site's translations (locale/<language>/LC_MESSAGES/django.po and djangojs.po): compiled
to the .mo files Django reads, checked complete, and the templates' words checked marked.

`manage.py translations` runs these (microchip_site/management/commands/translations.py).
Compiling is polib's, in Python: a machine that runs the site needs no GNU gettext. Only
`makemessages`, which finds the marked strings in the code, needs it (a developer's machine and
CI have it; docs/i18n.md).
"""

import functools
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import polib
from django.conf import settings
from django.template.base import Lexer, TokenType
from django.utils.translation import to_locale

DOMAINS = ("django", "djangojs")
# What makemessages reads for each domain, and what it leaves out: the environment, the run
# folders, and the libraries' own scripts (htmx and its extensions come with django-htmx).
IGNORED = (".venv/*", "var/*", "node_modules/*", "docs/*", "benchmarks/*")
SOURCES = {"django": IGNORED, "djangojs": (*IGNORED, "*.min.js")}


def shipped_languages() -> list[str]:
    """The languages with translations: every one of LANGUAGES but the source language."""
    return [code for code, _ in settings.LANGUAGES if code != settings.LANGUAGE_CODE]


def po_path(language: str, domain: str) -> Path:
    return Path(settings.LOCALE_PATHS[0]) / language / "LC_MESSAGES" / f"{domain}.po"


def catalogues():
    """(language, domain, path) of every .po file the site ships."""
    for language in shipped_languages():
        for domain in DOMAINS:
            path = po_path(language, domain)
            if path.exists():
                yield language, domain, path


@functools.cache
def scripts_catalogue_version() -> str:
    """A short digest of the scripts' compiled catalogues: the JavaScript catalog's address and
    cache key carry it, so a release with new words is never served the old ones from a cache."""
    digest = hashlib.sha256()
    for path in sorted(Path(settings.LOCALE_PATHS[0]).glob("*/LC_MESSAGES/djangojs.mo")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def compile_all() -> list[Path]:
    """Write each .po file's .mo beside it, and the source language's catalogue; return the .mo
    files written."""
    written = []
    for _, _, path in catalogues():
        target = path.with_suffix(".mo")
        polib.pofile(str(path)).save_as_mofile(str(target))
        written.append(target)
    target = source_catalogue_path()
    if target is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        source_catalogue().save(str(target))
        written.append(target)
    return written


# The source language's words are in no catalogue, so each lookup of one of them by gettext
# misses, and a miss is asked again of every catalogue Django merged (its own, each app's) and of
# each of their English fallbacks before the word comes back as it is: about 5 µs a word, where a
# found one takes 2, and a push or an answer says hundreds (issue 36: 6-8% of a web process's
# CPU). A catalogue in which each of the site's messages is its own translation, as GNU gettext's
# msgen makes, ends the search at the first catalogue. Only the server's domain: the scripts'
# catalogue is read once per page.
def source_catalogue_path() -> Path | None:
    """Where the source language's catalogue is compiled: None with no shipped language to take
    the messages from."""
    if next(catalogues(), None) is None:
        return None
    folder = to_locale(settings.LANGUAGE_CODE)
    return Path(settings.LOCALE_PATHS[0]) / folder / "LC_MESSAGES" / "django.mo"


def source_catalogue() -> polib.MOFile:
    """Every message of the shipped languages' server catalogues, each translated as itself."""
    catalogue = polib.MOFile()
    catalogue.metadata = {
        "Content-Type": "text/plain; charset=UTF-8",
        "Language": to_locale(settings.LANGUAGE_CODE),
        "Plural-Forms": "nplurals=2; plural=(n != 1);",
    }
    seen = set()
    for _, domain, path in catalogues():
        if domain != "django":
            continue
        for entry in polib.pofile(str(path)):
            key = (entry.msgctxt, entry.msgid, entry.msgid_plural)
            if entry.obsolete or key in seen:
                continue
            seen.add(key)
            same = polib.MOEntry(msgctxt=entry.msgctxt, msgid=entry.msgid)
            if entry.msgid_plural:
                same.msgid_plural = entry.msgid_plural
                same.msgstr_plural = {0: entry.msgid, 1: entry.msgid_plural}
            else:
                same.msgstr = entry.msgid
            catalogue.append(same)
    return catalogue


@dataclass(frozen=True)
class Gap:
    language: str
    domain: str
    message: str
    why: str  # "untranslated" or "fuzzy"


def gaps() -> list[Gap]:
    """Every message of a shipped language that is not translated, or only fuzzily."""
    found = []
    for language, domain, path in catalogues():
        catalogue = polib.pofile(str(path))
        for entry in catalogue.untranslated_entries():
            found.append(Gap(language, domain, entry.msgid, "untranslated"))
        for entry in catalogue.fuzzy_entries():
            found.append(Gap(language, domain, entry.msgid, "fuzzy"))
    return found


def stale_mo_files() -> list[Path]:
    """The .mo files that do not say what their .po file says (compile again)."""
    stale = []
    for _, _, path in catalogues():
        target = path.with_suffix(".mo")
        if not target.exists() or _messages(polib.mofile(str(target))) != _messages(
            polib.pofile(str(path))
        ):
            stale.append(target)
    target = source_catalogue_path()
    if target is not None and (
        not target.exists() or _messages(polib.mofile(str(target))) != _messages(source_catalogue())
    ):
        stale.append(target)
    return stale


def _messages(catalogue) -> dict:
    out = {}
    for entry in catalogue:
        # A .mo file holds only the translated messages, none fuzzy.
        translated = entry.msgstr or any(entry.msgstr_plural.values())
        if entry.obsolete or "fuzzy" in entry.flags or not translated:
            continue
        key = (entry.msgctxt, entry.msgid, entry.msgid_plural)
        out[key] = (entry.msgstr, tuple(sorted(entry.msgstr_plural.items())))
    return out


# --- words in templates that no one marked ------------------------------------------------------

# Attributes whose values people read (or hear).
READ_ATTRIBUTES = ("title", "aria-label", "alt", "placeholder", "aria-description", "label")
ATTRIBUTE = re.compile(r"\b(" + "|".join(READ_ATTRIBUTES) + r""")\s*=\s*(["'])(.*?)\2""", re.S)
TAG = re.compile(r"<[^>]*>", re.S)
ENTITY = re.compile(r"&[#a-zA-Z0-9]+;")
A_WORD = re.compile(r"[^\W\d_]{2,}")  # two letters or more in a row
# Text that is the same in every language: names, not words.
NOT_WORDS = {"Microchip Online", "Microchip", "Néstor Romeral Andrés", "htmx", "OpenAPI", "API"}
# Blocks whose text is not shown (scripts' data, styles) or is marked as a whole.
SKIPPED_BLOCKS = {"blocktranslate": "endblocktranslate", "blocktrans": "endblocktrans",
                  "comment": "endcomment", "verbatim": "endverbatim"}  # fmt: skip


@dataclass(frozen=True)
class Unmarked:
    template: str
    line: int
    text: str


def unmarked_words(template_dirs=None) -> list[Unmarked]:
    """Text in the templates that a person reads but no `{% translate %}` or
    `{% blocktranslate %}` marks: between tags, and in the attributes people read."""
    found = []
    for folder in template_dirs or _template_dirs():
        for path in sorted(Path(folder).rglob("*")):
            if path.suffix not in (".html", ".txt") or not path.is_file():
                continue
            relative = path.relative_to(folder).as_posix()
            if relative.startswith(("games/svg/", "admin/")):
                continue
            found += _unmarked_in(relative, path.read_text())
    return found


def _template_dirs() -> list[Path]:
    return [Path(folder) for engine in settings.TEMPLATES for folder in engine.get("DIRS", [])]


def _unmarked_in(name: str, source: str) -> list[Unmarked]:
    """The template with every template tag and variable (and every marked block) masked, then
    read as HTML: so a tag cut by a `{% url %}` in an attribute is still a tag."""
    masked, skipping_until = [], None
    for token in Lexer(source).tokenize():
        raw = _raw(token)
        if token.token_type == TokenType.BLOCK:
            command = token.contents.split()[0] if token.contents else ""
            if skipping_until and command == skipping_until:
                skipping_until = None
            elif not skipping_until and command in SKIPPED_BLOCKS:
                skipping_until = SKIPPED_BLOCKS[command]
        if token.token_type == TokenType.TEXT and not skipping_until:
            masked.append(raw)
        else:  # no letters, the same lines
            masked.append(re.sub(r"[^\n]", MASK, raw))
    text = "".join(masked)
    found = [
        Unmarked(name, text[:offset].count("\n") + 1, re.sub(MASK + "+", "…", words))
        for words, offset in _read_text(text)
    ]
    return sorted(found, key=lambda item: item.line)


MASK = "\u00a7"  # §: not a letter, so a masked tag reads as no word


def _raw(token) -> str:
    if token.token_type == TokenType.VAR:
        return "{{ " + token.contents + " }}" if token.contents else "{{}}"
    if token.token_type == TokenType.BLOCK:
        return "{% " + token.contents + " %}"
    if token.token_type == TokenType.COMMENT:
        return "{# " + token.contents + " #}"
    return token.contents


def _read_text(text: str):
    """The pieces of `text` a person reads: the attributes above, then the text between tags
    (not inside <script> or <style>, nor HTML comments)."""
    for match in ATTRIBUTE.finditer(text):
        if _has_words(match.group(3)):
            yield match.group(3).strip(), match.start(3)
    blank = lambda m: re.sub(r"[^\n]", " ", m.group())  # noqa: E731
    text = re.sub(r"<(script|style)\b.*?</\1>", blank, text, flags=re.S | re.I)
    text = re.sub(r"<!--.*?-->", blank, text, flags=re.S)
    text = TAG.sub(blank, text)
    text = ENTITY.sub(" ", text)
    for match in re.finditer(r"[^\s](?:.*?)(?=\s{2,}|\n|$)", text):
        if _has_words(match.group()):
            yield match.group().strip(), match.start()


def _has_words(text: str) -> bool:
    for name in sorted(NOT_WORDS, key=len, reverse=True):
        text = text.replace(name, " ")
    return bool(A_WORD.search(text))
