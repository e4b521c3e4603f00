"""``ggp serve`` as a process, driven through a whole match over loopback; its options."""

from __future__ import annotations

import asyncio
import re
import signal

import aiohttp
import pytest
from gdl_texts import TICTACTOE
from ggp.cli import main
from ggp_client import GGP_BASE_HEADERS, play_match
from served import served


@pytest.mark.asyncio
async def test_ggp_serve_plays_a_match_over_loopback_and_stops_on_ctrl_c() -> None:
    options = ["--iterations", "30", "--max-nodes", "5", "--workers", "2", "--races", "no"]
    options += ["--tactics", "no", "--final", "lower"]
    async with served(*options, name="e2e") as server:
        assert "e2e listening on" in server.log.decode()
        async with aiohttp.ClientSession() as http:

            async def send(text: str) -> str:
                async with http.post(server.url, data=text, headers=GGP_BASE_HEADERS) as response:
                    return (await response.text()).strip()

            assert await send("(info)") == "((name e2e) (status available))"
            history, _ = await play_match(send, "e2e.1", TICTACTOE, "xplayer")
        server.process.send_signal(signal.SIGINT)
        await asyncio.wait_for(server.process.wait(), 60)
    log = server.log.decode()
    assert server.process.returncode == 0, log
    plays = re.findall(r"INFO ggp\.player\.service\.http_player: play e2e\.1: ", log)
    assert len(plays) == len(history)
    assert "2 search worker(s) each" in log and ", no races, no tactics" in log
    assert ", final choice lower" in log
    assert "60 simulations" in log and "stop e2e.1: done" in log and "stopping" in log
    # Both workers searched 30 simulations, and the node limit, shared, reached
    # each of them: 2 nodes, or 10 in the native library's tree (five times the
    # limit); without it, 30 simulations hold ~30 nodes.
    searched = re.search(r"play e2e\.1: \(mark \d \d\) in [^,]*, 60 simulations, (\d+) nodes", log)
    assert searched is not None and int(searched[1]) in (4, 12, 20), log


@pytest.mark.parametrize(
    ("option", "words"),
    [
        (["--margin", "-1"], "the margin must be 0 or more seconds"),
        (["--max-matches", "0"], "max matches must be at least 1"),
        (["--max-body", "0"], "the largest body must be at least 1 byte"),
        (["--name", "my player"], "the player name must be one word"),
        (["--max-nodes", "-1"], "--max-nodes must be 0 (no limit) or more, got -1"),
        (["--workers", "0"], "workers must be at least 1, got 0"),
    ],
)
def test_bad_options_are_refused_clearly(capsys, option: list[str], words: str) -> None:
    assert main(["serve", *option]) == 2
    assert words in capsys.readouterr().err


@pytest.mark.parametrize(
    ("port", "words"),
    [("80000", "80000 is not a port: ports go from 0 to 65535"), ("x", "'x' is not a port")],
)
def test_a_port_out_of_range_is_refused_clearly(capsys, port: str, words: str) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--port", port])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_an_unknown_final_choice_is_refused_clearly(capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--final", "best"])
    assert stopped.value.code == 2
    assert "argument --final: invalid choice: 'best'" in capsys.readouterr().err
