"""An arena agent in its own process (`ggp.server.arena.process_player`): moves, thinking,
and the errors that stand in for a move (TO, CE) or abort the match."""

from __future__ import annotations

import signal

import pytest
from ggp.games.base import GameError
from ggp.player.agents import Clocks
from ggp.server.arena.process_player import ProcessAgentPlayer
from ggp.server.players import MatchSetup
from ggp.server.rules import referee_game

pytestmark = pytest.mark.asyncio


def setup_of(play: float | None, grace: float = 0.0) -> MatchSetup:
    game = referee_game("tictactoe")
    return MatchSetup("m.1", game.game, game.rules, Clocks(60, play), grace)


async def test_an_agent_moves_and_says_how_it_thinks() -> None:
    setup = setup_of(None)
    state = setup.game.initial_state()
    player = ProcessAgentPlayer("mcts:time=1.5", {"builtin": "tictactoe"}, 1)
    thoughts = []
    player.on_thinking = lambda role, ranking: thoughts.append((role, ranking))
    try:
        assert (await player.start(setup, 0)).text == "ready"
        reply = await player.play(state, None)
        assert reply.text in state.legal_moves(0) and reply.error is None
        assert len(player.ranking) == 9 and player.ranking[0]["visits"] > 0
        assert thoughts and thoughts[0][0] == 0 and thoughts[-1][1][0]["visits"] > 0
        # The child plays the joint moves it is told: now the other role is on move.
        joint = (reply.text, "noop")
        assert (await player.play(state.next(joint), joint)).text == "noop"
    finally:
        await player.close()


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="needs SIGSTOP (POSIX)")
async def test_a_late_move_is_TO_and_a_dead_process_CE() -> None:
    # The agent answers within the clock it is given, so lateness is made, not waited
    # for: the child is stopped before it is asked (a fast machine once answered the
    # 0.2 s clock in time).
    setup = setup_of(0.2)
    state = setup.game.initial_state()
    player = ProcessAgentPlayer("mcts:time=3", {"builtin": "tictactoe"}, 1)
    try:
        await player.start(setup, 0)
        assert player.child.process is not None
        player.child.process.send_signal(signal.SIGSTOP)
        late = await player.play(state, None)
        assert (late.text, late.error) == (None, "TO")
        player.child.process.kill()
        await player.child.process.wait()
        assert (await player.play(state, None)).error == "CE"
    finally:
        await player.close()


async def test_a_broken_agent_aborts_the_match() -> None:
    setup = setup_of(None)
    player = ProcessAgentPlayer("mcts", {"builtin": "tictactoe"}, 1)
    try:
        await player.start(setup, 0)
        with pytest.raises(GameError, match="illegal move"):
            await player.play(setup.game.initial_state(), ["(mark 9 9)", "noop"])
    finally:
        await player.close()
