"""Round-robin sections, ICCF style: the field split into sections of balanced strength, each a
small tournament of its own whose games are all created at once."""

from __future__ import annotations

from collections.abc import Sequence

from .formats import FormatError


def split_sections(order: Sequence[int], section_size: int) -> list[list[int]]:
    """Split the players (`order`: in seeding order) into as few sections of at most
    `section_size` as hold them, their sizes as even as possible, dealt like cards in a snake
    (1st seed to section A, 2nd to B, ..., then back: the last section takes the next seed
    too) so that every section has a like share of the strong and the weak. Each section keeps
    seeding order."""
    if section_size < 2:
        raise FormatError("a section has at least two players")
    if len(set(order)) != len(order):
        raise FormatError("a player is listed twice")
    if len(order) < 2:
        raise FormatError("at least two players are needed")
    count = -(-len(order) // section_size)
    sections: list[list[int]] = [[] for _ in range(count)]
    for index, player in enumerate(order):
        lap, step = divmod(index, count)
        sections[step if lap % 2 == 0 else count - 1 - step].append(player)
    return sections
