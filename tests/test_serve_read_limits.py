"""``ggp serve`` against requests that stall or lie about their encoding (issue 35, item 7):
a connection stalled mid-header is closed and one stalled mid-body answered 408 within
``--read-timeout``; a body that is not encoded as its ``Content-Encoding`` says gets a
clear 400, one that is gets decoded."""

from __future__ import annotations

import asyncio
import gzip
import zlib
from urllib.parse import urlsplit

import pytest
from served import served

pytestmark = pytest.mark.asyncio

WAIT = 120.0
"""Seconds a test waits for what the server must do within its 1 s read timeout (a loaded
machine may be slow to run it)."""


async def _raw(url: str, data: bytes) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    writer.write(data)
    await writer.drain()
    return reader, writer


def _post(body: bytes, encoding: str, length: int | None = None) -> bytes:
    head = (
        "POST / HTTP/1.1\r\nHost: player\r\nContent-Type: text/acl\r\n"
        f"Content-Encoding: {encoding}\r\nContent-Length: {len(body) if length is None else length}"
        "\r\n\r\n"
    )
    return head.encode() + body


async def _answer(url: str, data: bytes) -> tuple[bytes, bytes]:
    """The status line and the body of the answer to the raw request `data`."""
    reader, writer = await _raw(url, data)
    answer = await asyncio.wait_for(reader.read(), WAIT)  # the player closes each connection
    writer.close()
    status, _, rest = answer.partition(b"\r\n")
    return status, rest.partition(b"\r\n\r\n")[2]


async def test_a_stalled_connection_is_let_go_within_the_read_timeout() -> None:
    async with served("--read-timeout", "1") as server:
        half_headers, writer = await _raw(server.url, b"POST / HTTP/1.1\r\nHost: player\r\nCon")
        status, reply = await _answer(server.url, _post(b"(inf", "identity", length=6))
        assert await asyncio.wait_for(half_headers.read(), WAIT) == b""  # closed, no reply
        writer.close()
        assert status == b"HTTP/1.1 408 Request Timeout"
        assert reply == b'(error "the message did not arrive whole in 1 s")'
        assert await server.send("(info)") == "((name hostile) (status available))"


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
async def test_a_body_not_encoded_as_it_says_gets_a_clear_400(encoding: str) -> None:
    async with served() as server:
        status, reply = await _answer(server.url, _post(b"(info)", encoding))
        assert status == b"HTTP/1.1 400 Bad Request"
        says = f"the body is not encoded as its Content-Encoding ({encoding}) says"
        assert reply == f'(error "{says}")'.encode()
        encoded = gzip.compress(b"(info)") if encoding == "gzip" else zlib.compress(b"(info)")
        status, reply = await _answer(server.url, _post(encoded, encoding))
        assert (status, reply) == (b"HTTP/1.1 200 OK", b"((name hostile) (status available))")
