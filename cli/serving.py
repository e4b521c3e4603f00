"""Serve an aiohttp application from the command line until SIGINT or SIGTERM.

`ggp serve` and `ggp arena` share this: both listen, say where, wait for a signal
and clean up, and both turn a port that cannot be listened on into a one-line error.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from typing import Any

from ggp.games.base import GameError


def serve_until_signal(
    make_app: Callable[[], Any],
    host: str,
    port: int,
    announce: Callable[[list[Any]], None],
    stopping: Callable[[], None],
    shutdown_timeout: float = 60.0,
    server_options: dict[str, Any] | None = None,
) -> None:
    """Serve the application `make_app()` builds on `host`:`port` until SIGINT or SIGTERM.

    `announce` gets the addresses listened on once the server is up; `stopping` is called
    when a signal arrives, before the connections are closed (`shutdown_timeout` seconds
    at most for the replies under way); `server_options` go to the server's connections
    (`aiohttp.web.AppRunner`: its timeouts, say).
    """
    try:
        asyncio.run(
            _serve(make_app, host, port, announce, stopping, shutdown_timeout, server_options or {})
        )
    except OSError as error:
        raise GameError(f"cannot listen on {host}:{port}: {error.strerror}") from None


async def _serve(make_app, host, port, announce, stopping, shutdown_timeout, options) -> None:
    from aiohttp import web

    runner = web.AppRunner(
        make_app(), access_log=None, shutdown_timeout=shutdown_timeout, **options
    )
    await runner.setup()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await web.TCPSite(runner, host, port).start()
        announce(runner.addresses)
        await stop.wait()
        stopping()
    finally:
        await runner.cleanup()
