"""The arena's page in a real browser: Playwright for Python driving Debian's Chromium.

Skipped, saying why, where the playwright package or /usr/bin/chromium is
missing (``pip install -e '.[web-test]'``; ``apt-get install chromium``).
No browser is ever downloaded.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from arena_server import arena_process
from gdl_texts import PENNIES

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WAIT = 120_000
"""Milliseconds a page may take to show what a test waits for (a loaded machine)."""

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install -e '.[web-test]')"
)
if not CHROMIUM.is_file():
    pytest.skip(
        f"no browser: {CHROMIUM} is absent (apt-get install chromium)", allow_module_level=True
    )

BROKEN_AT_LINE_3 = """(role x)
(init (p 1))
(<= (legal x (go ?y)) (true (p 1)))
(<= (next (p 2)) (does x go))
(<= terminal (true (p 2)))
(goal x 100)
"""


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def arena(tmp_path_factory):
    """One arena for the module's tests (each plays its own match)."""
    with arena_process(tmp_path_factory.mktemp("arena")) as (address, _):
        yield address


@pytest.fixture
def page(browser, arena: str):
    context = browser.new_context(base_url=arena, viewport={"width": 1100, "height": 850})
    opened = context.new_page()
    opened.set_default_timeout(WAIT)
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert not errors, f"the page raised: {errors}"


def wait_for_status(page, pattern: str) -> None:
    """Wait until the match's status line matches the regular expression `pattern`."""
    page.wait_for_function(
        "pattern => new RegExp(pattern).test(document.querySelector('.status')?.textContent)",
        arg=pattern,
    )


def choose_player(page, role: int, kind: str, iterations: str | None = None) -> None:
    page.select_option(f"select[name=kind-{role}]", kind)
    if iterations is not None:
        page.fill(f"input[name=iterations-{role}]", iterations)


def test_a_person_plays_tictactoe_against_mcts_by_clicking(page) -> None:
    page.goto("/")
    choose_player(page, 0, "person")
    choose_player(page, 1, "mcts", "200")
    page.click("button[name=start]")
    status = page.locator(".status")
    while True:
        wait_for_status(page, "Your turn|Finished|Aborted")
        if re.search("Finished|Aborted", status.inner_text()):
            break
        played = page.locator(".moves li").count()
        page.locator("rect.legal").first.click()
        page.wait_for_function(
            "played => document.querySelectorAll('.moves li').length > played", arg=played
        )
    assert status.inner_text().startswith("Finished: xplayer")
    assert page.locator(".moves li").count() >= 5


def test_an_mcts_match_of_connect_four_is_watched_to_its_result(page) -> None:
    page.goto("/")
    page.select_option("select[name=game]", "builtin:connect_four")
    choose_player(page, 0, "mcts", "30")
    choose_player(page, 1, "mcts", "30")
    page.click("button[name=start]")
    page.wait_for_selector("svg.board")
    wait_for_status(page, "Finished")
    assert page.locator("svg.board .piece").count() >= 7
    assert "red" in page.locator(".status").inner_text()


def test_a_broken_gdl_upload_shows_its_fault_with_the_line(page, tmp_path: Path) -> None:
    rules = tmp_path / "broken.kif"
    rules.write_text(BROKEN_AT_LINE_3)
    page.goto("/")
    page.select_option("select[name=game]", "gdl")
    page.set_input_files("input[name=upload]", str(rules))
    fault = page.locator(".fault").first
    fault.wait_for()
    assert fault.inner_text().startswith("line 3: ")
    assert "unsafe variable ?y" in fault.inner_text()


def test_a_person_picks_legal_moves_in_a_pasted_gdl_game(page) -> None:
    page.goto("/")
    page.select_option("select[name=game]", "gdl")
    page.fill("textarea[name=rules]", PENNIES)
    page.click("button[name=check]")
    assert "roles left, right" in page.locator(".ok").inner_text()
    choose_player(page, 0, "person")
    choose_player(page, 1, "random")
    page.click("button[name=start]")
    for _ in range(2):  # two rounds, both roles moving at once
        wait_for_status(page, "Your turn: left")
        assert page.locator(".facts h4", has_text="round").count() == 1
        assert page.locator(".legal-list").inner_text() == "right may play: Heads, Tails"
        played = page.locator(".moves li").count()
        page.locator(".legal-moves button", has_text="Heads").click()
        page.wait_for_function(
            "played => document.querySelectorAll('.moves li').length > played", arg=played
        )
    wait_for_status(page, "Finished: left")
    assert page.locator(".moves li").first.inner_text().startswith("left Heads, right ")


def test_a_finished_match_is_replayed_from_the_history(page) -> None:
    page.goto("/")
    choose_player(page, 0, "random")
    choose_player(page, 1, "random")
    page.click("button[name=start]")
    wait_for_status(page, "Finished")
    page.click("text=History")
    page.fill("input[name=game]", "tictactoe")
    page.fill("input[name=player]", "random")  # not the other tests' matches
    page.click("text=Filter")
    page.wait_for_function("() => document.querySelectorAll('table.history tr').length === 2")
    page.locator("a", has_text="replay").first.click()
    page.wait_for_selector("svg.board")
    last = int(page.locator("input[name=step]").get_attribute("max"))
    assert last >= 5 and page.locator("svg.board .piece").count() == last
    page.locator("input[name=step]").fill("0")
    assert page.locator("svg.board .piece").count() == 0
    page.locator("input[name=step]").fill("2")
    assert page.locator("svg.board .piece").count() == 2
    assert page.locator(".moves li.current").inner_text().startswith("oplayer")


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: one match at once")
def test_a_tournament_of_pasted_gdl_runs_two_matches_at_once(page) -> None:
    page.goto("/#/tournaments")
    page.select_option("select[name=game]", "gdl")
    page.fill("textarea[name=rules]", PENNIES)
    page.click("button[name=check]")
    assert "roles left, right" in page.locator(".ok").inner_text()
    choose_player(page, 0, "random")
    choose_player(page, 1, "legal")
    page.fill("input[name=matches]", "4")
    page.fill("input[name=jobs]", "2")
    page.click("button[name=start]")
    page.wait_for_function(
        "() => /finished: 4 of 4 matches, seats swapped, 2 at once/"
        ".test(document.querySelector('.tournament p')?.textContent)"
    )
    overall = page.locator("table.standings tr", has_text="all")
    assert overall.count() == 2
    assert page.locator(".tournament svg.plot rect.bar").count() == 2


def test_the_hex_board_colours_the_sides_each_player_joins(page) -> None:
    page.goto("/")
    edges = page.evaluate(
        """async () => {
          const { drawBoard } = await import('/static/boards.js');
          const board = drawBoard({ kind: 'hex', size: 5 }, ['(cell a 1 red)'], null);
          return [...board.querySelectorAll('polyline.hexedge')]
            .map((line) => [line.classList[1], line.getAttribute('stroke'),
                            line.getAttribute('points').split(' ').length]);
        }"""
    )
    red = [edge for edge in edges if edge[0] == "red"]
    blue = [edge for edge in edges if edge[0] == "blue"]
    # Each of the 5 cells of the top and bottom rows (red), and of the first and last
    # columns (blue), has its two outer sides drawn in its player's colour.
    assert len(red) == len(blue) == 10
    assert {edge[1] for edge in red} != {edge[1] for edge in blue}
    assert all(edge[2] == 3 for edge in edges)


def _known(arena: str) -> tuple[int, int]:
    """How many matches and tournaments the arena knows (asked as a script would)."""
    import json
    import urllib.request

    def count(path: str, key: str) -> int:
        with urllib.request.urlopen(arena + path, timeout=30) as response:
            return len(json.load(response)[key])

    return count("api/matches", "matches"), count("api/tournaments", "tournaments")


def test_a_page_of_another_site_starts_nothing(browser, arena: str) -> None:
    """A page of another origin (another port of this machine) fetches the API with and
    without a JSON type and posts a plain form: nothing starts."""
    from aiohttp import web
    from fake_players import served_apps

    body = '{"game": {"builtin": "tictactoe"}, "players": ["random", "random"]}'
    attacker = f"""<!doctype html><body>
    <form id=f method=post enctype=text/plain action="{arena}api/matches" target=sink>
      <input name='{body[:-1]}, "x": "' value='"}}'>
    </form><iframe name=sink></iframe>
    <script>
      window.tries = Promise.allSettled([
        fetch("{arena}api/matches", {{method: "POST", mode: "no-cors", body: '{body}',
                                      headers: {{"Content-Type": "text/plain"}}}}),
        fetch("{arena}api/tournaments", {{method: "POST", mode: "no-cors", body: '{body}'}}),
        fetch("{arena}api/matches", {{method: "POST", body: '{body}',
                                      headers: {{"Content-Type": "application/json"}}}}),
      ]).then((all) => all.map((one) => one.status));
      document.getElementById("f").submit();
    </script></body>"""

    async def page_of_another_site(request: web.Request) -> web.Response:
        return web.Response(text=attacker, content_type="text/html")

    app = web.Application()
    app.router.add_get("/", page_of_another_site)
    before = _known(arena)
    context = browser.new_context()
    page = context.new_page()
    answered: list[int] = []
    page.on(
        "response",
        lambda response: (
            answered.append(response.status) if response.request.method == "POST" else None
        ),
    )
    with served_apps(app) as (elsewhere,):
        page.goto(elsewhere)
        outcomes = page.evaluate("window.tries")
        for _ in range(WAIT // 100):  # the form's answer, in the frame
            if len(answered) >= 3:
                break
            page.wait_for_timeout(100)
    context.close()
    assert outcomes[2] == "rejected"  # no CORS: the JSON fetch is not even sent
    assert answered == [403, 403, 403], answered  # the form and the two no-cors fetches
    assert _known(arena) == before


def play_person_moves(page, moves: list[str]) -> None:
    """Play `moves` as the page's person by clicking their squares, one turn after another."""
    for move in moves:
        wait_for_status(page, "Your turn")
        played = page.locator(".moves li").count()
        page.locator(f'svg.board [data-move="{move}"].legal').click()
        page.wait_for_function(
            "played => document.querySelectorAll('.moves li').length > played", arg=played
        )


def start_against_legal(page) -> None:
    """Tic-tac-toe: the person as xplayer, `legal` (the first legal move) as oplayer."""
    page.goto("/")
    choose_player(page, 0, "person")
    choose_player(page, 1, "legal")
    page.click("button[name=start]")
    page.wait_for_selector("svg.board")


def test_a_won_match_says_you_won_and_draws_the_winning_line(page) -> None:
    start_against_legal(page)
    # legal answers (mark 1 1), then (mark 1 2): column 3 is the person's.
    play_person_moves(page, ["(mark 1 3)", "(mark 2 3)", "(mark 3 3)"])
    wait_for_status(page, "Finished")
    banner = page.locator(".banner")
    assert banner.inner_text() == "You won (xplayer): xplayer 100, oplayer 0"
    assert page.locator("svg.board line.winning-line").count() == 1
    assert "null" not in page.locator(".right").inner_text()


def test_the_boards_show_their_coordinates(page) -> None:
    page.goto("/")
    shown = page.evaluate(
        """async () => {
          const { drawBoard } = await import('/static/boards.js');
          const boards = {
            tictactoe: { kind: 'tictactoe' }, connect_four: { kind: 'connect_four', width: 7,
            height: 6 }, othello: { kind: 'othello' }, breakthrough: { kind: 'breakthrough' },
            hex: { kind: 'hex', size: 5 }, ultimate_tictactoe: { kind: 'ultimate_tictactoe' } };
          const cells = { tictactoe: ['(cell 1 1 b)'], ultimate_tictactoe: ['(cell 1 1 1 1 b)'] };
          return Object.fromEntries(Object.entries(boards).map(([name, board]) => [name,
            [...drawBoard(board, cells[name] || [], null).querySelectorAll('text.coordinate')]
              .map((node) => node.textContent).join(' ')]));
        }"""
    )
    assert shown["tictactoe"] == "1 2 3 1 2 3"
    assert shown["connect_four"] == "1 2 3 4 5 6 7"
    assert shown["othello"] == shown["breakthrough"] == " ".join(["1 2 3 4 5 6 7 8"] * 2)
    assert shown["hex"].split() == ["1", "a", "2", "3", "4", "5", "b", "c", "d", "e"]
    assert shown["ultimate_tictactoe"].split().count("3") == 2 + 3 * 2


def test_a_hint_is_shown_on_the_board(page) -> None:
    start_against_legal(page)
    wait_for_status(page, "Your turn")
    page.click("button[name=hint]")
    page.wait_for_selector("table.ranking tr:nth-child(2)")
    best = page.locator("table.ranking tr:nth-child(2) td").first.inner_text()
    marked = page.locator("svg.board .hint")
    marked.first.wait_for()
    assert marked.count() == 1 and marked.get_attribute("data-move") == best
    assert page.locator(".key.hint").inner_text() == f"the hint's move {best}"
