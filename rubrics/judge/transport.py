"""The HTTP transport under litellm's OpenAI-family calls: aiohttp's speed, httpx's strictness.

litellm's own aiohttp transport roughly doubles judge throughput over httpx's, but it hands a reply
cut off mid-body (fewer bytes than its ``Content-Length``) to the SDK as if whole, and its sessions
are never closed, so responses and connections left over at exit were finalized after the loop
closed and printed "Unclosed connection" and tracebacks. This transport reads through aiohttp too,
refuses a short body as httpx does (``RemoteProtocolError``), releases every response it opened,
and keeps one session per event loop that :meth:`AiohttpTransport.close_session` closes before the
loop ends.
"""

from __future__ import annotations

import asyncio
import ssl
import urllib.request
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager

import aiohttp
import httpx
from yarl import URL

CHUNK = 64 * 1024


@contextmanager
def _as_httpx(reading: bool) -> Iterator[None]:
    """aiohttp's errors as the httpx ones the SDKs know (a timeout, a refused or dropped connection)."""
    try:
        yield
    except aiohttp.ClientConnectorError as exc:
        raise httpx.ConnectError(str(exc)) from exc
    except (TimeoutError, aiohttp.ServerTimeoutError) as exc:
        kind = httpx.ReadTimeout if reading else httpx.TimeoutException
        raise kind(str(exc) or "the server sent nothing within the timeout") from exc
    except aiohttp.TooManyRedirects as exc:
        raise httpx.TooManyRedirects(str(exc)) from exc
    except aiohttp.InvalidURL as exc:
        raise httpx.InvalidURL(str(exc)) from exc
    except aiohttp.ClientError as exc:
        raise httpx.ReadError(str(exc)) from exc


class _Body(httpx.AsyncByteStream):
    """An aiohttp response's body as httpx reads it; short of its ``Content-Length`` it is an error."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._response = response

    async def __aiter__(self) -> AsyncIterator[bytes]:
        received = 0
        try:
            with _as_httpx(reading=True):
                async for chunk in self._response.content.iter_chunked(CHUNK):
                    received += len(chunk)
                    yield chunk
        except httpx.ReadError as exc:
            if not isinstance(exc.__cause__, aiohttp.ClientPayloadError):
                raise
            expected = self._response.content_length
            said = f"received {received} bytes, expected {expected}" if expected is not None else str(exc.__cause__)
            # httpx's own words for the same fault, so a reply reads the same whichever transport ran
            # (and no chain: aiohttp's parser error under it reads "400, message:", not a cause)
            raise httpx.RemoteProtocolError(
                f"peer closed connection without sending complete message body ({said})") from None

    async def aclose(self) -> None:
        # a body read to its end returns the connection to the pool; one cut short closes it
        self._response.release()


class AiohttpTransport(httpx.AsyncBaseTransport):
    """An httpx transport that sends through one aiohttp session per event loop."""

    def __init__(self, ssl_setting: bool | ssl.SSLContext = True) -> None:
        self._ssl = ssl_setting
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._proxies: dict[tuple[str, str], str | None] = {}

    def _proxy(self, url: httpx.URL) -> str | None:
        """The proxy the environment names for this URL's scheme and host (``NO_PROXY`` honoured),
        looked up once per host and session: reading the environment on every call costs throughput."""
        key = (url.scheme, url.host)
        if key not in self._proxies:
            found = None
            if not urllib.request.proxy_bypass(url.host):
                proxies = urllib.request.getproxies()
                found = proxies.get(url.scheme) or proxies.get("all")
                found = f"http://{found}" if found and "://" not in found else found
            self._proxies[key] = found
        return self._proxies[key]

    def _current(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            # a session left from an ended loop cannot be closed from this one: drop it
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=0, ssl=self._ssl),
                auto_decompress=False,  # httpx decodes the body by its Content-Encoding
            )
            self._loop = loop
            self._proxies.clear()  # read the environment again for each loop's session
        return self._session

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send one request; the response's body is read (and checked) as httpx reads it."""
        limits = request.extensions.get("timeout", {})
        session = self._current()
        body = await request.aread()
        with _as_httpx(reading=False):
            response = await session.request(
                request.method, URL(str(request.url), encoded=True), headers=list(request.headers.multi_items()),
                data=body, allow_redirects=False, proxy=self._proxy(request.url),
                timeout=aiohttp.ClientTimeout(total=None, sock_connect=limits.get("connect"),
                                              sock_read=limits.get("read"), connect=limits.get("pool")),
            )
        return httpx.Response(response.status, headers=list(response.raw_headers), stream=_Body(response),
                              request=request)

    async def close_session(self) -> None:
        """Close this loop's session and every connection it holds (call before the loop ends)."""
        session, self._session = self._session, None
        if session is not None and not session.closed and self._loop is asyncio.get_running_loop():
            await session.close()
        self._loop = None

    async def aclose(self) -> None:
        """httpx's close: the session of the running loop."""
        await self.close_session()


def http_client() -> tuple[httpx.AsyncClient, AiohttpTransport]:
    """An httpx client over a new :class:`AiohttpTransport`, verifying TLS as litellm is set to.

    Proxies from the environment are the transport's to honour: httpx's would route around it."""
    from litellm.llms.custom_httpx.http_handler import get_ssl_configuration

    setting = get_ssl_configuration()
    verify: bool | ssl.SSLContext = (setting if isinstance(setting, bool | ssl.SSLContext)
                                     else ssl.create_default_context(cafile=setting))
    transport = AiohttpTransport(verify)
    return httpx.AsyncClient(transport=transport, trust_env=False, follow_redirects=True), transport
