"""A player behind an HTTP address, spoken to as GGP-Base's game manager speaks.

One POST per message on a fresh connection (HTTP/1.0, as GGP-Base), with its
headers; the reply is the trimmed body, whatever the status line says.  A
reply that does not come within the clock plus the grace period is ``TO``;
a refused, reset or closed connection is ``CE``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from urllib.parse import urlsplit

import aiohttp
from ggp.games.base import GameError, State
from ggp.server.messages import abort_message, play_message, start_message, stop_message
from ggp.server.players import MatchSetup, Player, Reply


def is_player_url(spec: str) -> bool:
    """Whether a player spec names a remote player (``http://HOST:PORT``)."""
    return spec.lower().startswith(("http://", "https://"))


def player_url(spec: str) -> str:
    """``http://HOST:PORT/`` from a spec; a clear error if it is not such an address."""
    try:
        parts = urlsplit(spec)
        port = parts.port
    except ValueError as error:
        raise GameError(f"bad player address {spec!r}: {error}") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname or port is None:
        raise GameError(f"bad player address {spec!r}: expected http://HOST:PORT")
    return f"{parts.scheme.lower()}://{parts.netloc}{parts.path or '/'}"


class RemotePlayer(Player):
    """A GGP player at `url`, reached over HTTP."""

    needs_rules = True

    def __init__(self, spec: str) -> None:
        self.url = player_url(spec)
        self.name = spec
        netloc = urlsplit(self.url).netloc
        self.headers = {
            "Accept": "text/delim",
            "Sender": "GAMESERVER",
            "Receiver": netloc,
            "Content-Type": "text/acl",
        }
        self.session: aiohttp.ClientSession | None = None
        self.setup: MatchSetup | None = None

    async def send(self, message: str, timeout: float | None) -> Reply:
        """POST `message`; the reply's trimmed text, or ``TO``/``CE``."""
        if self.session is None:
            self.session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(force_close=True),
                version=aiohttp.HttpVersion10,
            )
        try:
            async with self.session.post(
                self.url,
                data=message.encode(),
                headers=self.headers,
                timeout=aiohttp.ClientTimeout(total=timeout),
            ) as response:
                body = await response.read()
        except TimeoutError:
            return Reply(None, "TO")
        except (aiohttp.ClientError, OSError):
            return Reply(None, "CE")
        return Reply(body.decode("utf-8", errors="replace").strip())

    async def start(self, setup: MatchSetup, role: int) -> Reply:
        self.setup = setup
        clocks = setup.clocks
        # The referee checks these before the match (`ggp.server.match.check_players`).
        assert setup.rules is not None and clocks.start is not None and clocks.play is not None
        message = start_message(
            setup.match_id, setup.game.roles[role], setup.rules, clocks.start, clocks.play
        )
        return await self.send(message, setup.timeout(clocks.start))

    async def play(self, state: State, joint: Sequence[str] | None) -> Reply:
        assert self.setup is not None
        message = play_message(self.setup.match_id, joint)
        return await self.send(message, self.setup.timeout(self.setup.clocks.play))

    async def stop(self, state: State, joint: Sequence[str] | None) -> None:
        assert self.setup is not None
        message = stop_message(self.setup.match_id, joint or ())
        await self.send(message, self.setup.timeout(self.setup.clocks.play))

    async def abort(self) -> None:
        if self.setup is not None:
            await self.send(abort_message(self.setup.match_id), self.setup.grace)

    async def close(self) -> None:
        if self.session is not None:
            await self.session.close()
            self.session = None
            await asyncio.sleep(0)  # let the connector close its transports
