"""How each change to a tournament is made: one transaction with its row locked (`changing`),
what it caused (`Caused`), sent on after the commit, and the version bumped."""

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from django.db import transaction
from django.utils.translation import gettext as _

from games import effects
from games.effects import Effects, send_email
from games.play.errors import ActionRefused
from games.tournaments import live, notices
from games.tournaments.models import (
    Tournament,
)


@dataclass
class Caused:
    """What one change to a tournament caused (its emails' tasks, its page's push), sent on by
    the one after-commit dispatcher (games/effects.py)."""

    tournament: Tournament
    effects: Effects = field(default_factory=Effects)
    changed: bool = False  # its page shows something new: push the new version

    def notify(self, kind: str, user_ids, data: dict | None = None) -> None:
        """Write the notice `kind` for these players (each as their settings allow) in this
        transaction; its rows are sent after the commit."""
        written = notices.write(kind, self.tournament, list(user_ids), data or {})
        self.effects.tasks += [send_email(pk) for pk in written]

    def after_commit(self) -> None:
        if self.changed:
            self.effects.push(*live.changed(self.tournament.pk, self.tournament.version))
        effects.after_commit(self.effects)


@contextlib.contextmanager
def changing(tournament_id, *, missing_ok: bool = False) -> Iterator[tuple]:
    """A change of the tournament: a transaction with its row locked, and what it causes."""
    with transaction.atomic():
        tournament = None
        with contextlib.suppress(ValueError, TypeError):
            tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None:
            if not missing_ok:
                raise ActionRefused(_("There is no such tournament."), code="no_such_tournament")
            yield None, None
            return
        caused = Caused(tournament)
        yield tournament, caused
        caused.after_commit()


def bump(tournament: Tournament, caused: Caused, *fields: str) -> None:
    tournament.version += 1
    tournament.save(update_fields=["version", *fields])
    caused.changed = True


def require_open(tournament: Tournament) -> None:
    if not tournament.is_open:
        raise ActionRefused(_("This tournament has already started or is closed."), code="closed")
