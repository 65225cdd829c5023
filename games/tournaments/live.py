"""A tournament's open pages hear of each change (an entry, a game's end, a new round): one
small ``tournament.changed`` event with the tournament's new version to its group, recorded on
the change's effects (games/effects.py `Effects.push`) and sent by the one after-commit
dispatcher, as a game's events are. The page's consumer (games/tournaments/consumers.py) tells
the page, which fetches its standings and rounds again (the same partials as the first load).
"""


def group(tournament_id: int) -> str:
    return f"tournament-{tournament_id}"


def changed(tournament_id: int, version: int) -> tuple[str, dict]:
    """The push that tells the tournament's pages it is at `version`: (group, event)."""
    event = {"type": "tournament.changed", "tournament": tournament_id, "version": version}
    return group(tournament_id), event
