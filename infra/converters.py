"""Path converters shared by the URL configurations. Importing this module registers them, once.

A path that cannot name a row must be a 404 before it reaches a query, which the database may
refuse outright (a 500):

``<name:...>`` is Django's ``<str:...>`` for usernames and invitation tokens: at most 150
characters (the longest username) and no NUL byte. PostgreSQL refuses a NUL in text; SQLite
refuses a case-insensitive match on a pattern past 50,000 characters.

``<id:...>`` is Django's ``<int:...>`` with at most 18 digits, within a 64-bit id. SQLite
refuses a larger number in a query (Django guards a lookup by primary key, not one by foreign
key, such as a game's seats).
"""

from django.urls import register_converter
from django.urls.converters import IntConverter, StringConverter


class NameConverter(StringConverter):
    regex = "[^/\\x00]{1,150}"


class IdConverter(IntConverter):
    regex = "[0-9]{1,18}"


register_converter(NameConverter, "name")
register_converter(IdConverter, "id")
