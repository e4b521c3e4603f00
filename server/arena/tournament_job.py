"""A tournament of the arena, run as its own process: ``python -m ggp.server.arena.tournament_job``.

It reads the setup as one JSON line on stdin, plays the tournament with
`ggp.server.tournament.run_tournament` (worker processes for its matches at once)
and writes one JSON line per finished match on stdout, then ``{"done": true}``
or ``{"error": TEXT}``.  Its own process so that the arena's event loop never
waits for it and a stop is a SIGINT: the matches under way are aborted and
logged, as with Ctrl-C in ``ggp tournament``.

Its stdin stays open as a lifeline: the arena never writes to it again, and when
it ends (the arena exited, however: even killed with SIGKILL, the kernel closes
the pipe) the tournament stops itself as a stop would, and exits for good
`LIFELINE_GRACE` seconds later if it has not by then.  No tournament outlives
its arena.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from dataclasses import asdict
from typing import Any

from ggp.games.base import GameError
from ggp.player.agents import Clocks
from ggp.server.remote import RemotePlayer
from ggp.server.tournament import MatchResult, run_tournament

LIFELINE_GRACE = 10.0


def _hold_lifeline() -> None:
    """Wait for the end of stdin (the arena gone), then stop as the arena's stop would."""
    while os.read(0, 4096):  # not sys.stdin: its lock would hold up the exit
        pass
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(LIFELINE_GRACE)
    os._exit(130)


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
        max_steps=setup.get("max_steps"),
    )


def main() -> int:
    RemotePlayer.quote_replies = False  # the arena shows no address's replies to its visitors
    setup = json.loads(sys.stdin.readline())
    threading.Thread(target=_hold_lifeline, name="lifeline", daemon=True).start()
    try:
        run(setup)
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
