"""A tournament's open pages hear of each change (an entry, a game's end, a new round): one
small ``tournament.changed`` event with the tournament's new version to its group, sent
through the site's push sender (games/live/pushes.py: never blocking nor breaking the change).
The page's consumer (games/tournaments/consumers.py) tells the page, which fetches its
standings and rounds again (the same partials as the first load).
"""

from games.live import pushes


def group(tournament_id: int) -> str:
    return f"tournament-{tournament_id}"


def changed(tournament_id: int, version: int) -> None:
    pushes.send(
        [
            (
                group(tournament_id),
                {"type": "tournament.changed", "tournament": tournament_id, "version": version},
            )
        ]
    )
