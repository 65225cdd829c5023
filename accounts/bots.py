"""The accounts of computer players: users with a `bot_level`, no email and no password.

games/rules/bots.py is how each level plays; games/bots/ plays their moves on the site.
"""

from accounts.forms import NOTIFICATION_FIELDS
from accounts.models import User, looks_taken

BOT_NAMES = {"easy": "EasyBot", "strong": "StrongBot", "expert": "ExpertBot"}
MAX_BOTS_PER_LEVEL = 99


class NoFreeBot(LookupError):
    """Every name a bot of this level may have is taken."""


def free_bot(level: str, *, not_at_game: int) -> User:
    """Return a bot account of this level that has no seat at game `not_at_game` yet, making a
    new one (EasyBot2, EasyBot3...) if every one has (the migrations make four of each level)."""
    bot = (
        User.objects.filter(bot_level=level, is_active=True)
        .exclude(seats__game_id=not_at_game)
        .order_by("pk")
        .first()
    )
    return bot or new_bot(level)


def new_bot(level: str) -> User:
    """Create a bot account of this level under the first free name: no email, no password."""
    stem = BOT_NAMES[level]
    for n in range(1, MAX_BOTS_PER_LEVEL + 1):
        name = stem if n == 1 else f"{stem}{n}"
        # Nor a name that looks like a player's ("StrongB0t5"): it would pass for theirs.
        if not User.objects.named(name).exists() and not looks_taken(name):
            bot = User(username=name, email="", bot_level=level)
            bot.first_name = f"{level.capitalize()} computer player"
            for field in NOTIFICATION_FIELDS:
                setattr(bot, field, False)
            bot.set_unusable_password()
            bot.save()
            return bot
    raise NoFreeBot(f"No more {level} computer players are free.")
