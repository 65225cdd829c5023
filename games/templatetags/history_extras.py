from django import template

register = template.Library()


@register.filter
def signed(number) -> str:
    """Return the number with its sign: "+12", "±0", or a true minus sign (U+2212) and "5"."""
    if number is None:
        return ""
    if number > 0:
        return f"+{number}"
    if number < 0:
        return f"\u2212{-number}"
    return "±0"
