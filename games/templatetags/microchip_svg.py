"""The SVG tiles' and spaces' template tags and filters: ``{% load microchip_svg %}``.

The drawing is games/drawing/svg.py's; this library only registers it.
"""

from django import template

from games.drawing import svg

register = template.Library()

register.simple_tag(svg.tile_sprite, name="tile_sprite")
register.simple_tag(svg.tile_svg, name="tile_svg")
register.simple_tag(svg.space_svg, name="space_svg")
register.filter("path_names", svg.path_names, is_safe=False)
register.filter("colour_shape", svg.colour_shape, is_safe=False)
