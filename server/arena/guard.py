"""Who may drive the arena: its page, from a Host it serves, with its key beyond loopback.

Three checks, in one aiohttp middleware, before any handler runs:

- **Host**: the ``Host`` header must name the arena (its bind address, ``localhost``, a
  loopback address, a name given with ``--allow-host``; any IP address when it listens
  on every interface).  A page of another site whose name an attacker points at
  127.0.0.1 (DNS rebinding) sends its own name and is refused.
- **Key**: when the arena has a token (it must, beyond loopback), every request carries
  it, as ``Authorization: Bearer TOKEN`` or as the cookie the login link
  ``/login?token=TOKEN`` sets.
- **Same origin**: a request that changes something (any method but GET, HEAD and
  OPTIONS) must send ``Content-Type: application/json`` (a plain HTML form cannot) and
  come from the arena's own page: an ``Origin`` equal to the arena's, or, without one,
  ``Sec-Fetch-Site: same-origin``.  A request whose ``Origin`` is another site's (a
  WebSocket opened from another page, say) is refused whatever its method.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from aiohttp import web

TOKEN_COOKIE = "arena_token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARDS = frozenset({"", "0.0.0.0", "::"})

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def is_loopback(host: str) -> bool:
    """Whether listening on `host` keeps the arena to this machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def host_name(host_header: str) -> str:
    """The name in a ``Host`` header, without its port or brackets, lower case."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    if host.count(":") == 1:
        return host.partition(":")[0]
    return host


@dataclass(frozen=True)
class Access:
    """What the guard lets through: the Hosts served and the key, if any."""

    bind: str = "127.0.0.1"
    allowed_hosts: tuple[str, ...] = ()
    token: str | None = None

    def serves(self, name: str) -> bool:
        """Whether ``Host: name`` names this arena."""
        names = LOOPBACK_NAMES | {self.bind.lower()} | {h.lower() for h in self.allowed_hosts}
        return name in names or (self.bind in WILDCARDS and _is_ip(name))

    def has_key(self, request: web.Request) -> bool:
        if self.token is None:
            return True
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            given = request.cookies.get(TOKEN_COOKIE, "")
        return hmac.compare_digest(given.encode(), self.token.encode())


def _refuse(request: web.Request, status: int, message: str) -> web.Response:
    if request.path.startswith("/api/"):
        return web.json_response({"error": message}, status=status)
    return web.Response(status=status, text=message + "\n")


def _same_origin(request: web.Request) -> tuple[int, str] | None:
    """The status and reason that refuse a request not from the arena's own page
    (None when it is)."""
    origin = request.headers.get("Origin")
    own = f"{request.scheme}://{request.host}".lower()
    if request.method in SAFE_METHODS and not request.path.startswith("/api/"):
        return None  # the page itself may be linked to from anywhere
    if origin is not None and origin.lower() != own:
        return 403, f"requests from another page ({origin}) are refused"
    if request.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
        return 403, "requests from another site are refused"
    if request.method in SAFE_METHODS:
        return None
    if request.content_type != "application/json":
        return 415, "a request that changes something must be sent as application/json"
    if origin is None and request.headers.get("Sec-Fetch-Site") != "same-origin":
        return 403, (
            "a request that changes something must come from the arena's page: "
            f"send the header Origin: {own}"
        )
    return None


async def login(request: web.Request, access: Access) -> web.StreamResponse:
    """``/login?token=TOKEN``: set the key as a cookie of this site, then open the page."""
    given = request.query.get("token", "")
    if access.token is None or not hmac.compare_digest(given.encode(), access.token.encode()):
        return _refuse(request, 401, "wrong or missing key: open the login link the arena printed")
    response = web.Response(status=303, headers={"Location": "/"})
    response.set_cookie(
        TOKEN_COOKIE, access.token, httponly=True, samesite="Strict", path="/", max_age=30 * 86400
    )
    return response


def guard(access: Access) -> Callable[[web.Request, Handler], Awaitable[web.StreamResponse]]:
    """The middleware that applies `access` to every request."""

    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        name = host_name(request.host)
        if not access.serves(name):
            return _refuse(
                request,
                421,
                f"this arena does not answer to the name {name!r}: "
                "open it by its address, or start it with --allow-host NAME",
            )
        if request.path == "/login":
            return await login(request, access)
        if not access.has_key(request):
            return _refuse(
                request, 401, "this arena needs its key: open the login link it printed at start"
            )
        if (refused := _same_origin(request)) is not None:
            return _refuse(request, *refused)
        return await handler(request)

    return check


def listed_hosts(text: Iterable[str]) -> tuple[str, ...]:
    """Names given with ``--allow-host`` (comma-separated, repeatable), lower case."""
    return tuple(name.strip().lower() for item in text for name in item.split(",") if name.strip())
