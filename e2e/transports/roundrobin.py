"""A round-robin TCP proxy on 127.0.0.1, standing in for a load balancer without sticky sessions.

Each connection it accepts goes to the next upstream port in turn, bytes passed as they are; when
either side closes, so does the other (a connection an upstream drops is dropped for the client).
The client opens one connection per request, so consecutive requests alternate between servers.

    python e2e/transports/roundrobin.py --listen PORT --upstream PORT_A --upstream PORT_B
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
from typing import Iterator


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def serve(listen: int, upstreams: Iterator[int]) -> None:
    async def connection(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        port = next(upstreams)
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            client_writer.close()
            return
        # Each pipe closes the other side's connection when its own ends: a response ended (or cut)
        # by the upstream ends the client's connection, a client gone ends the upstream's.
        await asyncio.gather(pipe(client_reader, upstream_writer), pipe(upstream_reader, client_writer))

    server = await asyncio.start_server(connection, "127.0.0.1", listen)
    print(f"round-robin proxy on 127.0.0.1:{listen}", flush=True)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", type=int, required=True)
    parser.add_argument("--upstream", type=int, action="append", required=True)
    args = parser.parse_args()
    asyncio.run(serve(args.listen, itertools.cycle(args.upstream)))


if __name__ == "__main__":
    main()
