"""Who may reach a player and see their games: the player's own settings, and blocks.

- **Invitations by name** (`accepts_invitation_from`): refused if either blocked the other, and,
  with "only players I follow", from anyone the invitee does not follow. One sentence says
  both (`REFUSES_INVITATION`), so an inviter cannot tell a block from the setting.
- **Games and rating history** (`shows_games_to`): with "signed-in players", a signed-out visitor
  sees the player's name and profile, not their games, statistics, rating or its chart, nor their
  archive (games/players/views.py `profile`, games/history/views.py `archive`), nor any game they
  play, whoever else plays it (its page, replay and socket: games/access.py `can_view`), nor
  their line on the leaderboard (games/history/archive.py `leaderboard`).
"""

from django.utils.translation import gettext_lazy as _

from . import blocking
from .models import Follow, User

# The inviter's refusal, whatever the reason: the setting or a block. Lazy, and with a brace
# placeholder: its caller (games/play/actions/tables.py) fills it in with str.format(name=...).
# Translators: {name} is the player who was to be invited.
REFUSES_INVITATION = _("{name} does not accept invitations from you.")


def accepts_invitation_from(invitee: User, inviter: User) -> bool:
    """Whether `inviter` may invite `invitee` by name (one or two small queries). Nobody
    invites a guest (accounts/guests.py)."""
    if invitee.is_guest:
        return False
    if blocking.blocked_either_way(invitee.pk, inviter.pk):
        return False
    if invitee.invitations_from == User.InvitationsFrom.FOLLOWED:
        return Follow.objects.filter(follower=invitee, followed=inviter).exists()
    return True


def shows_games_to(player: User, viewer) -> bool:
    """Whether `viewer` (maybe signed out) may see `player`'s games and rating history."""
    if player.games_shown_to == User.GamesShownTo.SIGNED_IN:
        return viewer.is_authenticated
    return True
