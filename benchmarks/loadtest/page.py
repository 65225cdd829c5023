"""What a player's page shows of a game's pieces, kept as the browser keeps it: the whole game
on a load, then each answer's and push's pieces swapped by their ids. A client that plays as a
page does (the load benchmark, the bytes test) sends its X-Page-Looks from it, as live.js does
(games/drawing/cache/looks.py has the form)."""

import re

_LOOK = re.compile(r'id="([a-z0-9-]+)" data-look="([0-9a-f]{8})"')
_PART = re.compile(r"pool|seat-\d+")
_SEAT_PIECES = {
    "-head": (1, 0),
    "-time": (1, 1),
    "-score": (1, 2),
    "-tray-title": (3, 0),
    "-tray-tiles": (4, 0),
    "-history": (5, 0),
    "-actions": (6, 0),
    "-hint": (7, 0),
}


class PageLooks:
    def __init__(self) -> None:
        self.looks: dict[str, str] = {}

    def load(self, html: str) -> None:
        """The whole game drawn again (a page load, a resync)."""
        self.looks = {}
        self.swap(html)

    def swap(self, html: str) -> None:
        """Pieces swapped by id; a whole seat or pool replaces all its pieces."""
        for piece_id, look in _LOOK.findall(html):
            if _PART.fullmatch(piece_id):
                for key in [key for key in self.looks if key.startswith(f"{piece_id}-")]:
                    del self.looks[key]
            self.looks[piece_id] = look

    def header(self) -> str:
        """The X-Page-Looks header: the status's look, then each part's look and its pieces', in
        the page's order."""
        parts = [f"status:{self.looks['game-status']}"] if "game-status" in self.looks else []
        for own in ["pool", *sorted(key for key in self.looks if re.fullmatch(r"seat-\d", key))]:
            if own not in self.looks:
                continue
            order = [own, *(key for key in self.looks if key.startswith(f"{own}-"))]
            order.sort(key=lambda key: _page_order(own, key))
            parts.append(f"{own}:" + "".join(self.looks[key] for key in order))
        return " ".join(parts)


def _page_order(own: str, key: str) -> tuple:
    rest = key[len(own) :]
    if rest == "":
        return (0, 0)
    if own == "pool":
        return (1, 0) if rest == "-title" else (2, int(rest.rsplit("-", 1)[1]))
    return _SEAT_PIECES.get(rest) or (2, int(rest.rsplit("-", 1)[1]))
