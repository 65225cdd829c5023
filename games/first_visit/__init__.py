"""A visitor's first five minutes (issue 39): the home page that shows the game, "Play now"
as a guest against the computer, and the guided first game.

- guests.py: a guest's games against the computer, and their removal (on logging out, by the
  sweep after GUEST_DAYS); accounts/guests.py makes the accounts and fences them in.
- tutorial.py: the guided game's deal and its steps, each read from the game's real state.
- showcase.py: the home page's parts: a computer game replayed, the open tables, the best.
- views.py, urls.py: the pages; templates/first_visit/.
"""
