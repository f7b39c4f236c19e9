"""An asyncio loopback OpenAI chat-completions server, for load benchmarks.

The threaded :class:`~tests.fakes.llm_server.FakeLLMServer` scripts every reply (errors, 429s,
malformed bodies) but spends a thread and a GIL slice per connection; under 64 concurrent
keep-alive connections it could become the bottleneck of the client it is meant to measure. This
one answers every POST with the same completion after ``--latency`` seconds, from one event loop,
speaking just enough HTTP/1.1 (Content-Length bodies, keep-alive) for aiohttp and httpx.

``python -m tests.fakes.llm_async_server --latency 0.1`` prints its base URL and serves until
killed. It counts connections opened and prints the count on stderr when stopped (SIGTERM).
``--tls-cert FILE --tls-key FILE`` serves HTTPS instead (tests/fakes/tls.py makes a private CA):
the stand-in for the provider's own endpoint in benchmarks.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import ssl
import sys

from tests.fakes.llm_server import Reply, _completion_body


class Stats:
    connections = 0
    requests = 0


async def _serve(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, latency: float, reply: Reply
) -> None:
    Stats.connections += 1
    try:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            raw = await reader.readexactly(length) if length else b"{}"
            Stats.requests += 1
            if head.startswith(b"POST"):
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {}
                payload = json.dumps(_completion_body(body, reply)).encode()
            else:
                payload = b'{"object": "list", "data": []}'
            if latency:
                await asyncio.sleep(latency)
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n%s" % (len(payload), payload)
            )
            await writer.drain()
    except ConnectionError:
        return
    finally:
        writer.close()


async def serve(latency: float, content: str, tls: ssl.SSLContext | None = None) -> None:
    reply = Reply(content=content)
    server = await asyncio.start_server(
        lambda r, w: _serve(r, w, latency, reply), "127.0.0.1", 0, backlog=1024, ssl=tls
    )
    port = server.sockets[0].getsockname()[1]
    print(f"{'https' if tls else 'http'}://127.0.0.1:{port}/v1", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with server:
        await stop.wait()
    print(
        json.dumps({"connections": Stats.connections, "requests": Stats.requests}),
        file=sys.stderr,
        flush=True,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per answer")
    parser.add_argument("--content", default="OK", help="the assistant's reply")
    parser.add_argument("--tls-cert", help="serve HTTPS with this certificate (PEM)")
    parser.add_argument("--tls-key", help="the certificate's private key (PEM)")
    args = parser.parse_args(argv)
    tls = None
    if args.tls_cert:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(args.tls_cert, args.tls_key)
    asyncio.run(serve(args.latency, args.content, tls))


if __name__ == "__main__":
    main()
