from django import template

from games.tournaments.reading import points_words

register = template.Library()


@register.filter
def points(value) -> str:
    """Tournament points as a player reads them: 3, 2½, ½."""
    return points_words(value) if value is not None else ""


@register.filter
def cell(results) -> str:
    """A crosstable cell: the results of the games a pair shared, "·" for one still going on."""
    return " ".join(points_words(result) if result is not None else "·" for result in results)
