"""The rounds: a game's end moves its tournament on; the next Swiss round paired, a round robin's
sections scheduled, each table opened and seated; the end with the final standings."""

from django.utils import timezone

from accounts.models import User
from games.models import Game
from games.play import actions as game_actions
from games.tournaments import notices, reading
from games.tournaments.actions.changing import Caused, bump, changing
from games.tournaments.formats import table_sizes
from games.tournaments.meetings import Meetings
from games.tournaments.models import Entry, Pairing, Round, Tournament
from games.tournaments.pairing import PairingError, SwissPlayer, pair_round
from games.tournaments.round_robin import schedule_section


def game_ended(*, game_id: int) -> str | None:
    """A game of a tournament ended (its end queues this by name: games/effects.py): the
    standings change, and the round or the tournament may be over."""
    tournament_id = (
        Game.objects.filter(pk=game_id)
        .values_list("tournament_round__tournament_id", flat=True)
        .first()
    )
    if tournament_id is None:
        return None
    return advance(tournament_id=tournament_id, changed=True)


def advance(*, tournament_id, changed: bool = False) -> str | None:
    """Move a running tournament on if it is due: the next Swiss round when the current
    round's games have all ended or its deadline has passed; the end when every round is made
    and every game has ended. Return "paired", "finished" or None. Safe to run any number of
    times, at once or late: it decides under the tournament's lock, on the games as they are.
    `changed`: a game ended, so the standings on open pages are redrawn even if nothing else
    moves on."""
    with changing(tournament_id, missing_ok=True) as (tournament, caused):
        if tournament is None or not tournament.is_running:
            return None
        now = timezone.now()
        games = Game.objects.filter(tournament_round__tournament=tournament)
        playing = games.filter(status=Game.Status.PLAYING)
        more_rounds = (
            tournament.is_swiss
            and tournament.round < (tournament.rounds or 0)
            and tournament.ending != Tournament.Ending.NONE_LEFT
        )
        if more_rounds:
            current = Round.objects.filter(tournament=tournament, number=tournament.round).first()
            round_over = not playing.filter(tournament_round__number=tournament.round).exists()
            late = current is not None and current.deadline is not None and current.deadline <= now
            if round_over or late:
                if pair_next_round(tournament, caused, now):
                    return "paired"
                more_rounds = False
        if not more_rounds and not playing.exists():
            _finish(tournament, caused, now)
            return "finished"
        if changed:
            bump(tournament, caused)
    return None


def pair_next_round(tournament: Tournament, caused: Caused, now) -> bool:
    """Pair and make the next Swiss round, whole, in the caller's transaction; False (and no
    more rounds) when fewer than two players are left to pair."""
    read = reading.read(tournament)
    games = read.games
    walked = reading.abandons(games)
    players = [
        SwissPlayer(
            id=row.entry.user_id,
            seed=row.entry.seed,
            points=row.standing.points,
            byes=row.standing.byes,
            withdrawn=row.entry.withdrawn_at is not None,
            abandons=walked[row.entry.user_id],
        )
        for row in read.rows
    ]
    meetings = Meetings(tuple(seat.user_id for seat in game.seats.all()) for game in games)
    try:
        paired = pair_round(players, meetings, tournament.table_size)
    except PairingError:
        tournament.ending = Tournament.Ending.NONE_LEFT
        bump(tournament, caused, "ending")
        return False
    number = tournament.round + 1
    made = Round.objects.create(
        tournament=tournament,
        number=number,
        started_at=now,
        deadline=now + tournament.round_time,
        repeats=paired.repeats,
        repeat_bound=paired.repeat_bound,
    )
    users = {entry.user_id: entry.user for entry in read.entries}
    pairings = []
    for index, table in enumerate(paired.tables, start=1):
        game = _open_table(
            tournament, made, [users[user_id] for user_id in table], f"{number}.{index}"
        )
        pairings += [
            Pairing(round=made, user_id=user_id, game=game, table=index) for user_id in table
        ]
    if paired.bye is not None:
        pairings.append(Pairing(round=made, user_id=paired.bye))
    Pairing.objects.bulk_create(pairings)
    tournament.round = number
    bump(tournament, caused, "round")
    caused.notify(notices.ROUND, [p.user_id for p in pairings], {"rounds": [number]})
    return True


def make_sections(tournament: Tournament, caused: Caused, entries: list[Entry], now) -> None:
    """Every game of every section of a round robin, at once: each section's schedule (its
    rounds are the order the games are listed in; they are all played at the same time)."""
    by_section: dict[int, list[Entry]] = {}
    for entry in sorted(entries, key=lambda e: e.seed):
        by_section.setdefault(entry.section, []).append(entry)
    schedules = {
        section: schedule_section(
            [entry.user_id for entry in members],
            tournament.table_size,
            tournament.rounds,
            seed=tournament.seed % (2**31),
        )
        for section, members in by_section.items()
    }
    count = max(len(schedule.rounds) for schedule in schedules.values())
    users = {entry.user_id: entry.user for entry in entries}
    deadline = now + tournament.round_time
    pairings = []
    for number in range(1, count + 1):
        made = Round.objects.create(
            tournament=tournament, number=number, started_at=now, deadline=deadline
        )
        table_number = 0
        for section in sorted(schedules):
            schedule = schedules[section]
            if number > len(schedule.rounds):
                continue
            letter = chr(ord("A") + section)
            for table in schedule.rounds[number - 1]:
                table_number += 1
                seated = [users[user_id] for user_id in table]
                game = _open_table(tournament, made, seated, f"{letter}{number}.{table_number}")
                pairings += [
                    Pairing(round=made, user_id=user_id, game=game, table=table_number)
                    for user_id in table
                ]
    Pairing.objects.bulk_create(pairings)
    tournament.round = count
    tournament.save(update_fields=["round"])
    caused.notify(
        notices.ROUND,
        sorted({p.user_id for p in pairings}),
        {"rounds": list(range(1, count + 1))},
    )


def _open_table(tournament: Tournament, made: Round, players: list[User], label: str) -> Game:
    """One game of a round, through the games' own changes: opened by its first player with
    the tournament's table settings, the others seated by its invitation link, started by the
    last seat (games/play/actions/tables.py); each a savepoint of the round's transaction."""
    game = game_actions.create_game(
        creator=players[0],
        player_count=len(players),
        name=f"{tournament.name} · {label}",
        access=Game.Access.INVITATION,
        private=False,
        tournament_round=made,
        **tournament.game_settings(),
    )
    for player in players[1:]:
        game = game_actions.join_game(game_id=game.pk, user=player, invite_token=game.invite_token)
    if not game.is_playing:  # a table of one cannot be: table_sizes never makes it
        raise RuntimeError(f"the table {label} of {tournament} did not start")
    return game


def _finish(tournament: Tournament, caused: Caused, now) -> None:
    """The last game ended: the final standings are kept on the entries (the profile lists
    them), and everyone hears their place."""
    read = reading.read(tournament)
    for row in read.rows:
        row.entry.place = row.standing.place
        row.entry.points = str(row.standing.points)
    Entry.objects.bulk_update([row.entry for row in read.rows], ["place", "points"])
    tournament.status = Tournament.Status.FINISHED
    tournament.ended_at = now
    bump(tournament, caused, "status", "ended_at")
    caused.notify(notices.OVER, [row.entry.user_id for row in read.rows])


def table_sizes_for(tournament: Tournament, players: int) -> tuple[int, ...]:
    """How the players would sit in a Swiss round (the page's preview of the first round)."""
    if players < 2:
        return ()
    return table_sizes(players, tournament.table_size)
