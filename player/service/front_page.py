"""What a person who opens the player's address in a browser (``GET /``) reads.

Game managers POST their messages (or GET them as ``/<message>``); a bare ``GET /``
is a person, who would otherwise see ``(error "empty message")``.
"""

from __future__ import annotations

import html

from aiohttp import web


def front_page_text(name: str, busy: bool) -> str:
    """The page as plain text: what the server is and how to talk to it."""
    status = "busy (playing as many matches as it accepts)" if busy else "available"
    return (
        f"{name}: a General Game Playing (GGP) player, now {status}.\n"
        "\n"
        "It plays games described in GDL for a game manager (GGP-Base, Tiltyard...)\n"
        "that sends it the GGP protocol's messages, one per request: POST the message\n"
        "as the body, or GET /<url-encoded message>. For example:\n"
        "\n"
        "    curl -s -d '(info)' http://HOST:PORT/\n"
        "\n"
        "answers ((name NAME) (status available)); then (start ...), (play ...),\n"
        "(stop ...) and (abort ...) play a match.\n"
    )


def front_page(request: web.Request, name: str, busy: bool) -> web.Response:
    """The page, as HTML to a browser (which asks for text/html) and as text otherwise."""
    text = front_page_text(name, busy)
    if "text/html" not in request.headers.get("Accept", ""):
        return web.Response(text=text, content_type="text/plain")
    title, _, body = text.partition("\n\n")
    page = (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{html.escape(name)}'
        f"</title></head>\n<body><h1>{html.escape(title)}</h1>\n"
        f"<pre>{html.escape(body)}</pre></body></html>\n"
    )
    return web.Response(text=page, content_type="text/html")
