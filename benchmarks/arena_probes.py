"""Issue 35's probes of ``ggp arena``, as an attacker and a careless visitor would try them.

    python benchmarks/arena_probes.py

Starts ``ggp arena --port 0`` on 127.0.0.1 (its files in a temporary folder) and three
GGP "players" of its own on loopback ports (one that answers a single term, one that
redirects to a fourth, one that answers 20 MB), then prints what each probe gets:
status codes, what a match's page shows, the processes and resident memory of the
arena with its children, and how long ``GET /`` takes meanwhile.  Last, it starts
``ggp arena --host 0.0.0.0`` and asks it without the key.  Takes a minute or two.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from arena_server import arena_process  # noqa: E402
from served import descendants, memory_kib, running  # noqa: E402

ENDLESS = (
    "(role a) (init (c 0)) (<= (legal a (go ?x)) (true (c ?x)))"
    " (<= (next (c ?x)) (true (c ?x))) (<= terminal (true (c 9))) (goal a 0)"
)
GROWING = ENDLESS.replace("(next (c ?x))", "(next (c (s ?x)))")


def tree_memory(pid: int) -> tuple[int, float]:
    """How many processes `pid` and its descendants are, and their resident MB."""
    pids = {pid} | descendants(pid)
    return len(pids), sum(memory_kib(p, "VmRSS") for p in pids) / 1024


async def players() -> tuple[dict[str, str], list[int], list[web.AppRunner]]:
    """The probes' players on loopback, by what they do, and the redirect target's hits."""
    reached: list[int] = []

    async def one_term(request: web.Request) -> web.Response:
        text = await request.text()
        return web.Response(text="ready" if text.startswith("(start") else "secret-term")

    async def inner(request: web.Request) -> web.Response:
        reached.append(1)
        return web.Response(text="an internal service's answer")

    async def huge(request: web.Request) -> web.Response:
        if (await request.text()).startswith("(start"):
            return web.Response(text="ready")
        return web.Response(body=b"x" * (20 << 20))

    runners, urls = [], {}
    for name, handler in (("one term", one_term), ("inner", inner), ("20 MB", huge)):
        app = web.Application()
        app.router.add_route("*", "/", handler)
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        runners.append(runner)
        urls[name] = f"http://127.0.0.1:{runner.addresses[0][1]}/"

    async def redirect(request: web.Request) -> web.Response:
        raise web.HTTPTemporaryRedirect(urls["inner"])

    app = web.Application()
    app.router.add_route("*", "/", redirect)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    runners.append(runner)
    urls["redirect"] = f"http://127.0.0.1:{runner.addresses[0][1]}/"
    return urls, reached, runners


async def page_latency(http: aiohttp.ClientSession, base: str) -> float:
    began = time.perf_counter()
    async with http.get(base) as response:
        await response.read()
    return time.perf_counter() - began


def url_match(url: str) -> dict:
    return {
        "game": {"builtin": "tictactoe", "gdl": True},
        "players": [url, "random"],
        "startclock": 5,
        "playclock": 5,
    }


async def probe(folder: Path) -> list[tuple[str, object]]:
    urls, reached, runners = await players()
    found: list[tuple[str, object]] = []
    with arena_process(folder) as (base, process):
        own = {"Content-Type": "application/json", "Origin": base.rstrip("/")}
        evil = "http://evil.example"
        async with aiohttp.ClientSession() as http:

            async def post(path: str, body: object, headers=own) -> tuple[int, dict]:
                data = body if isinstance(body, str) else json.dumps(body)
                async with http.post(base + path, data=data, headers=headers) as response:
                    return response.status, await response.json(content_type=None)

            async def said(path: str, body: object) -> tuple[int, str]:
                """The status and the error of a request that should be refused."""
                status, answer = await post(path, body)
                return status, answer.get("error", "")

            async def until_over(match_id: str) -> tuple[dict, float]:
                worst = 0.0
                while True:
                    worst = max(worst, await page_latency(http, base))
                    async with http.get(f"{base}api/matches/{match_id}") as response:
                        view = await response.json()
                    if view["status"] != "running":
                        return view, worst
                    await asyncio.sleep(0.2)

            # 1. cross-site requests
            body = json.dumps({"game": {"builtin": "tictactoe"}, "players": ["random"] * 2})
            plain = {"Content-Type": "text/plain"}
            found.append(
                (
                    "text/plain POST from another origin",
                    (await post("api/matches", body, {**plain, "Origin": evil}))[0],
                )
            )
            found.append(
                (
                    "text/plain POST with no Origin (a form)",
                    (await post("api/matches", body, plain))[0],
                )
            )
            found.append(
                (
                    "abort from another origin",
                    (await post("api/matches/x/abort", "{}", {**own, "Origin": evil}))[0],
                )
            )
            async with http.get(base, headers={"Host": "rebound.example:8080"}) as response:
                found.append(("forged Host", response.status))
            # 2. requests to anywhere
            found.append(
                (
                    "credentials in a player's URL",
                    await said("api/matches", url_match("http://user:pw@127.0.0.1:9/")),
                )
            )
            status, started = await post("api/matches", url_match(urls["redirect"]))
            view, _ = await until_over(started["id"])
            start = view["steps"][0]
            found.append(
                (
                    "a player that redirects",
                    (
                        start["errors"][0],
                        start["reasons"][0],
                        f"redirect target hit {len(reached)} times",
                    ),
                )
            )
            status, started = await post("api/matches", url_match(urls["one term"]))
            view, _ = await until_over(started["id"])
            errors = sorted({step["errors"][0] for step in view["steps"][1:]})
            found.append(
                (
                    "a one-term reply",
                    (f"shown: {'secret-term' in json.dumps(view)}", f"errors {errors}"),
                )
            )
            began = time.perf_counter()
            status, started = await post("api/matches", url_match(urls["20 MB"]))
            view, worst = await until_over(started["id"])
            size = (folder / "logs" / f"{view['id']}.json").stat().st_size
            found.append(
                (
                    "20 MB replies",
                    (
                        view["steps"][1]["errors"][0],
                        view["steps"][1]["reasons"][0],
                        f"match {time.perf_counter() - began:.1f} s",
                        f"GET / at worst {worst * 1000:.0f} ms",
                        f"log {size / 1024:.1f} KB",
                    ),
                )
            )
            # 3. files
            for path in ("/etc/passwd.kif", "/nonexistent/x.kif"):
                found.append(
                    (
                        f"tournament of builtin {path}",
                        await said(
                            "api/tournaments",
                            {"game": {"builtin": path}, "players": ["random"] * 2},
                        ),
                    )
                )
            # 4. bounds
            match = {
                "game": {"builtin": "connect_four"},
                "players": ["mcts", "mcts"],
                "startclock": 10,
                "playclock": 5,
            }
            answers = await asyncio.gather(*(post("api/matches", match) for _ in range(50)))
            await asyncio.sleep(8)
            latency = [await page_latency(http, base) for _ in range(5)]
            count, megabytes = tree_memory(process.pid)
            codes = [status for status, _ in answers]
            found.append(
                (
                    "50 MCTS matches at once",
                    (
                        f"{codes.count(201)} started, {codes.count(429)} answered 429",
                        f"{count} processes, {megabytes:.0f} MB resident",
                        f"GET / {min(latency) * 1000:.0f} to {max(latency) * 1000:.0f} ms",
                    ),
                )
            )
            for status, started in answers:
                if status == 201:
                    await post(f"api/matches/{started['id']}/abort", {})
            tournament = {**url_match(urls["one term"]), "matches": 20, "jobs": 16}
            answers = await asyncio.gather(
                *(post("api/tournaments", tournament) for _ in range(10))
            )
            codes = [status for status, _ in answers]
            found.append(
                (
                    "10 tournaments at once",
                    (f"{codes.count(201)} started, {codes.count(429)} answered 429"),
                )
            )
            for status, started in answers:
                if status == 201:
                    await post(f"api/tournaments/{started['id']}/stop", {})
            began = time.perf_counter()
            status, started = await post(
                "api/matches", {"game": {"rules": ENDLESS}, "players": ["random"]}
            )
            view, _ = await until_over(started["id"])
            found.append(
                (
                    "a game with no terminal state",
                    (
                        view["status"],
                        f"{len(view['steps']) - 1} steps",
                        f"{time.perf_counter() - began:.1f} s",
                        view["failure"],
                    ),
                )
            )
            found.append(
                (
                    "a growing term",
                    await said("api/matches", {"game": {"rules": GROWING}, "players": ["random"]}),
                )
            )
            slow = {**url_match(urls["one term"]), "matches": 1000}
            await post("api/tournaments", slow)
            await asyncio.sleep(3)
            children = descendants(process.pid)
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
            began = time.perf_counter()
            while running(children) and time.perf_counter() - began < 60:
                await asyncio.sleep(0.1)
            found.append(
                (
                    "kill -9 of the arena during a tournament",
                    (
                        f"{len(children)} child processes, {len(running(children))} left "
                        f"{time.perf_counter() - began:.1f} s later"
                    ),
                )
            )
    for runner in runners:
        await runner.cleanup()
    return found


def open_arena(folder: Path) -> tuple[str, object]:
    """``ggp arena --host 0.0.0.0``, asked without its key."""
    command = [
        sys.executable,
        "-m",
        "ggp",
        "arena",
        "--host",
        "0.0.0.0",
        "--port",
        "0",
        "--db",
        str(folder / "open.sqlite"),
        "--log-dir",
        str(folder / "open-logs"),
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        link = process.stdout.readline() if process.stdout else ""
        port = re.search(r":(\d+)/login\?token=", link)
        assert port, link
        import urllib.error
        import urllib.request

        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port.group(1)}/api/games", timeout=30)
            status = 200
        except urllib.error.HTTPError as error:
            status = error.code
        return "--host 0.0.0.0 without the key", (status, "a login link printed once")
    finally:
        process.terminate()
        process.wait()


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        found = asyncio.run(probe(Path(folder)))
        found.append(open_arena(Path(folder)))
    for name, outcome in found:
        print(f"{name}: {outcome}")
    print(f"load average: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
