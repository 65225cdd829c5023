"""The rematch box of an ended game, as one viewer sees it (the rematch itself:
games/play/rematches.py)."""

from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser

from accounts.models import User
from games.models import Game, Seat
from infra.words import and_list


def current_rematch(game_id: int) -> Game | None:
    """The newest rematch of an ended game (games/play/rematches.py): waiting for its players,
    under way, over, or called off."""
    rematches = Game.objects.filter(rematch_of_id=game_id).select_related("created_by")
    return rematches.order_by("-pk").first()


@dataclass(frozen=True)
class RematchView:
    """The rematch box under an ended game's results, as one viewer sees it."""

    game_id: int
    player: bool  # the viewer played this game: they may offer or join the rematch
    rematch: Game | None
    seated: bool = False  # the viewer has a seat at the rematch's table (asked, or accepted)
    invited: bool = False  # the viewer is invited to it and has not answered yet
    asked: bool = False  # the viewer asked for it
    waiting_for: tuple[str, ...] = ()  # the invited players who have not accepted yet

    @property
    def open(self) -> bool:
        return self.rematch is not None and self.rematch.status != Game.Status.CANCELLED

    @property
    def waiting_for_words(self) -> str:
        return and_list(self.waiting_for)


def rematch_view(
    game_id: int, viewer: User | AnonymousUser, *, player: bool | None = None
) -> RematchView:
    """The rematch box of an ended game for `viewer`, read afresh (a push: its offer changed).
    `player`: whether the viewer played the game, if the caller knows."""
    if player is None:
        player = (
            viewer.is_authenticated and Seat.objects.filter(game_id=game_id, user=viewer).exists()
        )
    rematch = current_rematch(game_id)
    if rematch is None or rematch.status != Game.Status.WAITING:
        return RematchView(game_id, player, rematch)
    seated = set(rematch.seats.values_list("user_id", flat=True))
    invited = [
        (user_id, name)
        for user_id, name in rematch.invitations.order_by("user__username").values_list(
            "user_id", "user__username"
        )
        if user_id not in seated
    ]
    viewer_id = viewer.pk if viewer.is_authenticated else None
    return RematchView(
        game_id,
        player,
        rematch,
        seated=viewer_id in seated,
        invited=any(user_id == viewer_id for user_id, _ in invited),
        asked=viewer_id == rematch.created_by_id,
        waiting_for=tuple(name for _, name in invited),
    )
