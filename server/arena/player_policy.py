"""Which players the arena's visitors may name: GGP players by URL, agents' options.

On loopback the visitor is the person at this machine: any http(s) player (their
own ``ggp serve``, a peer's) may be named.  Beyond loopback the arena reaches only
the players given at its start (``--allow-players HOST:PORT,...``): a visitor must
not make it knock on other hosts and ports.  Either way the requests themselves
follow `ggp.server.remote`'s rules (no credentials or redirects, timeouts, a
reply size cap, errors in the referee's words).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from ggp.games.base import GameError
from ggp.games.registry import parse_spec
from ggp.player.agents import MCTS_OPTIONS
from ggp.server.remote import is_player_url, player_url


def _address(text: str) -> tuple[str, int]:
    host, colon, port = text.strip().rpartition(":")
    host = host.strip("[]").lower()
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise GameError(f"--allow-players {text!r}: expected HOST:PORT")
    return host, int(port)


@dataclass(frozen=True)
class PlayerPolicy:
    """`anyone`: every http(s) address may be named; else only those of `allowed`."""

    anyone: bool = True
    allowed: frozenset[tuple[str, int]] = frozenset()

    @classmethod
    def for_arena(cls, loopback: bool, listed: Iterable[str]) -> PlayerPolicy:
        """Anyone on loopback unless a list is given; beyond loopback, the list only."""
        allowed = frozenset(_address(item) for text in listed for item in text.split(",") if item)
        return cls(anyone=loopback and not allowed, allowed=allowed)

    def check(self, spec: str) -> None:
        """A `GameError` unless the player at `spec` may be reached from this arena."""
        if not is_player_url(spec):
            return
        parts = urlsplit(player_url(spec))
        if self.anyone:
            return
        assert parts.hostname is not None and parts.port is not None
        if (parts.hostname.lower(), parts.port) not in self.allowed:
            listed = ", ".join(f"{host}:{port}" for host, port in sorted(self.allowed)) or "none"
            raise GameError(
                f"players by URL: this arena reaches only the players it was started with "
                f"(--allow-players), not {parts.hostname}:{parts.port}; allowed: {listed}"
            )


def check_agent_spec(spec: str) -> None:
    """A `GameError` for an agent option that names a folder: a page chooses no paths."""
    if is_player_url(spec):
        return
    _, options = parse_spec(spec, what="agent")
    paths = [key for key in options if key in MCTS_OPTIONS and MCTS_OPTIONS[key][1] == "DIR"]
    if paths:
        raise GameError(
            f"agent option {paths[0]}= names a folder of this machine; the arena takes no paths"
        )
