"""A player's page and its buttons: games/players/views.py, at /players/<name>/."""
