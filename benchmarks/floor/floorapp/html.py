"""~2 KB of board-like HTML (a tile space per cell), made once; a move only fills in numbers."""


def _board():
    cells = "".join(
        f'<button class="space s{i}" name="space" value="{i}" hx-post="act" '
        f"hx-vals='{{\"version\": %(version)d}}'>"
        f'<svg viewBox="0 0 10 10"><use href="#t{i % 7}"/></svg></button>'
        for i in range(13)
    )
    return (
        '<div id="board-%(seat)d" class="board" data-version="%(version)d" hx-swap-oob="true">'
        + cells
        + "</div>"
    )


BOARD = _board()


def board(seat, version):
    return BOARD % {"seat": seat, "version": version}
