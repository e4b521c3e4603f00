"""How soon ``ggp arena`` shows its first page, and what the page weighs.

    python benchmarks/arena_page.py [--runs 5] [--screenshots DIR]

Starts ``ggp arena --port 0`` as its own process `--runs` times, and for each
prints the seconds from the start of the process to its first page (the
index, its stylesheet, every JavaScript module and the list of games, fetched
one after the other as a browser would, each answered 200).  Then the page's
weight: the bytes of each of those files, their sum and gzip's size of it.
With `--screenshots`, it also drives Debian's Chromium (Playwright) through
a live match, a person's game, the history and a tournament, saving PNGs.
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from arena_server import arena_process  # noqa: E402

STATIC = Path(__file__).resolve().parent.parent / "server" / "arena" / "static"


def first_page(address: str) -> dict[str, bytes]:
    """The files of the first page, by path, as the arena serves them."""
    paths = ["", "static/style.css", *(f"static/{p.name}" for p in sorted(STATIC.glob("*.js")))]
    paths.append("api/games")
    files = {}
    for path in paths:
        with urllib.request.urlopen(address + path, timeout=60) as response:
            assert response.status == 200, path
            files[path or "/"] = response.read()
    return files


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds a process has used so far (Linux's /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def startup(runs: int) -> tuple[list[float], list[float], dict[str, bytes]]:
    """Per run, the wall seconds and the arena's CPU seconds to its first page."""
    times, cpu, files = [], [], {}
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as folder:
            began = time.perf_counter()
            with arena_process(Path(folder)) as (address, process):
                files = first_page(address)
                times.append(time.perf_counter() - began)
                cpu.append(cpu_seconds(process.pid))
    return times, cpu, files


def screenshots(folder: Path) -> None:
    from playwright.sync_api import sync_playwright

    args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
    ]
    folder.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory() as work,
        arena_process(Path(work)) as (address, _),
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=args)
        page = browser.new_page(base_url=address, viewport={"width": 1100, "height": 760})
        page.set_default_timeout(120_000)
        # A live match: MCTS against MCTS on Connect Four, caught while one thinks.
        page.goto("/")
        page.select_option("select[name=game]", "builtin:connect_four")
        page.select_option("select[name=kind-0]", "mcts")
        page.fill("input[name=time-0]", "2")
        page.fill("input[name=time-1]", "2")
        page.click("button[name=start]")
        page.wait_for_function("() => document.querySelectorAll('.moves li').length >= 9")
        page.wait_for_selector(".ranking")
        page.wait_for_timeout(1200)
        page.screenshot(path=str(folder / "arena-live.png"))
        page.click("text=Abort")
        # A person's game of Othello against MCTS, with a hint.
        page.goto("/#/")
        page.select_option("select[name=game]", "builtin:othello")
        page.fill("input[name=time-1]", "0.5")
        page.click("button[name=start]")
        for _ in range(3):
            page.wait_for_selector(".status .turn")
            played = page.locator(".moves li").count()
            page.locator(".square.legal").first.click()
            page.wait_for_function(
                "n => document.querySelectorAll('.moves li').length > n + 1", arg=played
            )
        page.wait_for_selector(".status .turn")
        page.click("button[name=hint]")
        page.wait_for_selector("text=Hint for black")
        page.wait_for_function("() => !/thinking…/.test(document.body.textContent)")
        page.screenshot(path=str(folder / "arena-play.png"))
        # A tournament, then the history.
        page.goto("/#/tournaments")
        page.select_option("select[name=kind-0]", "mcts")
        page.fill("input[name=iterations-0]", "100")
        page.fill("input[name=matches]", "20")
        page.fill("input[name=jobs]", "2")
        page.click("button[name=start]")
        page.wait_for_function("() => /finished: 20 of 20/.test(document.body.textContent)")
        page.screenshot(path=str(folder / "arena-tournament.png"), full_page=True)
        page.goto("/#/history")
        page.wait_for_selector("text=replay")
        page.screenshot(path=str(folder / "arena-history.png"))
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--screenshots", type=Path, metavar="DIR")
    args = parser.parse_args()
    times, cpu, files = startup(args.runs)
    print(
        f"ggp arena to first page: median {statistics.median(times):.2f} s, "
        f"min {min(times):.2f} s, max {max(times):.2f} s ({args.runs} runs); the arena's "
        f"CPU time by then: median {statistics.median(cpu):.2f} s, max {max(cpu):.2f} s"
    )
    for path, body in files.items():
        print(f"  {path:<28} {len(body):>7,} bytes")
    total = b"".join(files.values())
    print(
        f"page weight: {len(total):,} bytes in {len(files)} requests, "
        f"{len(gzip.compress(total)):,} gzipped"
    )
    if args.screenshots:
        screenshots(args.screenshots)
        print(f"screenshots in {args.screenshots}")


if __name__ == "__main__":
    main()
