"""Who is calling: the client address a request or a socket counts against, behind proxies.

The REST rate limits (app/api/ratelimit.py) and the WebSocket cap (app/ws/limits.py) both count
against ``client_address``.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress

from fastapi import FastAPI
from starlette.requests import HTTPConnection

from app.settings import Settings

UNKNOWN_ADDRESS = "unknown"


def client_address(conn: HTTPConnection) -> str:
    """The address a request or a socket counts against.

    The peer's address as the ASGI server saw it; in production, ``trust_proxy_headers`` has
    already replaced it with the client named by a trusted proxy's X-Forwarded-For. An IPv6
    client counts as its /64, which is what one subscriber gets (else each of its 2**64
    addresses would have a budget of its own).
    """
    host = conn.client.host if conn.client else ""
    if not host:
        return UNKNOWN_ADDRESS
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host  # not an IP (a Unix socket, a test client's name): count it as it is
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def trust_proxy_headers(app: FastAPI, settings: Settings) -> None:
    """In production the app sits behind a proxy: believe X-Forwarded-For/-Proto, but only from
    the proxies in FORWARDED_ALLOW_IPS (uvicorn's middleware does the parsing; applying it
    again, as ``gaple serve`` also does in production, changes nothing). Elsewhere the headers
    are ignored: anybody can send them."""
    if settings.production:
        from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.forwarded_allow_ips)


def address_mark(address: str, secret: str) -> str:
    """What a rated set keeps of a seat's address (docs/FAIRPLAY.md): a keyed hash that tells two
    seats' addresses equal or not, and never the address itself."""
    digest = hmac.new(secret.encode(), address.encode(), hashlib.sha256).hexdigest()
    return digest[:ADDRESS_MARK_LENGTH]


ADDRESS_MARK_LENGTH = 16
