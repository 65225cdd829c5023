"""`python -m games.api_client --url URL --token TOKEN [--seek N] [--accept-invitations]`."""

import argparse
import logging
import os
import sys

from games.rules.bots import LEVELS

from .connection import Connection, Refused
from .player import Options, Player


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m games.api_client",
        description="Play Microchip Online through its API with the rules package's bot.",
    )
    parser.add_argument("--url", required=True, help="the site, e.g. https://microchip.example.org")
    parser.add_argument(
        "--token",
        default=os.environ.get("MICROCHIP_TOKEN"),
        help="a play token (default: $MICROCHIP_TOKEN)",
    )
    parser.add_argument("--level", choices=LEVELS, default="strong")
    parser.add_argument("--seek", type=int, choices=range(2, 6), metavar="PLAYERS",
                        help="seek quick-play games of this many players")  # fmt: skip
    parser.add_argument("--time-per-move", default="1d", help="for --seek: 1h, 12h, 1d...")
    parser.add_argument("--unrated", action="store_true", help="for --seek: unrated games")
    parser.add_argument("--accept-invitations", action="store_true")
    parser.add_argument("--think", type=float, help="the strong player's seconds a decision")
    parser.add_argument("--games", type=int, help="stop after this many games have ended")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("give a play token: --token or $MICROCHIP_TOKEN")
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(name)s %(message)s",
    )
    options = Options(
        level=args.level,
        seek_players=args.seek,
        time_per_move=args.time_per_move,
        rated=not args.unrated,
        accept_invitations=args.accept_invitations,
        games=args.games,
        think=args.think,
    )
    connection = Connection(args.url, args.token)
    try:
        Player(connection, options).run()
    except Refused as refusal:
        print(f"The site refused: {refusal}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        connection.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
