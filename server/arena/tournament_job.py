"""A tournament of the arena, run as its own process: ``python -m ggp.server.arena.tournament_job``.

It reads the setup as one JSON object on stdin, plays the tournament with
`ggp.server.tournament.run_tournament` (worker processes for its matches at once)
and writes one JSON line per finished match on stdout, then ``{"done": true}``
or ``{"error": TEXT}``.  Its own process so that the arena's event loop never
waits for it and a stop is a SIGINT: the matches under way are aborted and
logged, as with Ctrl-C in ``ggp tournament``.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from typing import Any

from ggp.games.base import GameError
from ggp.player.agents import Clocks
from ggp.server.remote import RemotePlayer
from ggp.server.tournament import MatchResult, run_tournament


def run(setup: dict[str, Any]) -> None:
    def report(result: MatchResult) -> None:
        print(json.dumps(asdict(result)), flush=True)

    run_tournament(
        setup["game"],
        setup["players"],
        games=setup["matches"],
        swap=setup["swap"],
        seed=setup["seed"],
        jobs=setup["jobs"],
        gdl=setup["gdl"],
        clocks=Clocks(setup["startclock"], setup["playclock"]),
        log_dir=setup["log_dir"],
        on_result=report,
    )


def main() -> int:
    RemotePlayer.quote_replies = False  # the arena shows no address's replies to its visitors
    try:
        run(json.loads(sys.stdin.read()))
    except GameError as error:
        print(json.dumps({"error": str(error)}), flush=True)
        return 2
    except KeyboardInterrupt:
        print(json.dumps({"error": "the tournament was stopped"}), flush=True)
        return 130
    print(json.dumps({"done": True}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
