"""A two-round tool over HTTP, side by side in one run (not a test): operations/s under uvicorn (1 worker).

One operation is a whole two-round ``tools/call``: the call, answered ``input_required`` (one form elicitation
and a sealed ``requestState``), then the retry carrying the answer and the exact state, answered with the
result. Each server runs in its own process (uvicorn, 1 worker, 127.0.0.1, an ephemeral port):

- ``floor``: a bare Starlette handler answering the same two JSON bodies, prebuilt (the HTTP stack alone);
- ``mrtr``: the await-style tool (``name = await ctx.elicit(...)``) over sealed rounds (XAES-256-GCM, a replay
  guard, anonymous principal) through ``mrtr.run_tool_bytes`` (bytes in, bytes out);
- ``mrtr dict``: the same tool through ``mrtr.run_tool`` (a dict back, written with ``json.dumps``);
- ``mcp``: the official ``mcp`` package's equivalent (``MCPServer``, its resolver ``Resolve(ask_units)``
  returning ``Elicit``, which the SDK turns into ``input_required`` rounds; its ``requestState`` sealed by
  ``RequestStateSecurity(keys=[…])``, AES-256-GCM, no replay guard), stateless Streamable HTTP with JSON
  responses.

The client is a closed loop of ``--concurrency`` keep-alive connections (asyncio streams, stdlib, in this
process: one operation at a time on each), each round running every server for ``--seconds`` in turn
(interleaved, so that a busy machine slows them alike); it prints the best round's operations/s, p50 and p99
of one operation's latency, the server's CPU time per operation, and the ratios.

    python benches/bench_server.py [--seconds N] [--concurrency C] [--rounds R] [--only floor,mrtr,…]
"""

import argparse
import asyncio
import json
import os
import platform
import secrets
import socket
import subprocess
import sys
import time
from datetime import datetime, timezone
from typing import Any, Dict, List, Optional, Tuple

PROTOCOL = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": PROTOCOL,
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}
CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "get_weather", "arguments": {"location": "New York"}, "_meta": META},
}
UNITS = {
    "type": "object",
    "properties": {"units": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
    "required": ["units"],
}
QUESTION = "Which units should the forecast use?"
ANSWER = {"action": "accept", "content": {"units": "celsius"}}
SERVERS = ("floor", "mrtr", "mrtr dict", "mcp")


# --- the servers (each in its own process: `bench_server.py --serve KIND`) -------------------------------


def forecast(location: str, units: str) -> str:
    return f"{location}: {22 if units == 'celsius' else 72} degrees {units}, clear skies."


def floor_app() -> Any:
    """Starlette answering the two bodies mrtr answers, prebuilt: what the HTTP stack costs alone."""
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Route

    state = "v2." + "A" * 300
    asks = {"units": {"method": "elicitation/create", "params": {"mode": "form", "message": QUESTION,
                                                                  "requestedSchema": UNITS}}}
    first = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required",
                                                              "inputRequests": asks, "requestState": state}})
    text = forecast("New York", "celsius")
    last = json.dumps({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": text}],
                                                             "resultType": "complete", "ttlMs": 0}})
    bodies = (first.encode(), last.encode())

    async def mcp(request: Any) -> Response:
        body = await request.body()
        return Response(bodies[b'"requestState"' in body], media_type="application/json")

    return Starlette(routes=[Route("/mcp", mcp, methods=["POST"])])


class Guard:
    """A replay guard for one process (first use wins), forgetting what expired once in a while: a shared
    store's ``SET NX EXAT`` behind a load balancer."""

    def __init__(self) -> None:
        self._used: Dict[str, int] = {}
        self._swept = 0

    def __call__(self, state_id: str, expiry: int) -> bool:
        now = int(time.time())
        if now - self._swept >= 10:
            self._used, self._swept = {k: e for k, e in self._used.items() if e > now}, now
        if state_id in self._used:
            return False
        self._used[state_id] = expiry
        return True


def mrtr_app(as_dict: bool) -> Any:
    """The await-style tool, as the README writes one, over sealed rounds (XAES-256-GCM, a replay guard)."""
    import mrtr
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Route

    ring = mrtr.KeyRing(1, mrtr.Algorithm.XAES_256_GCM, secret=secrets.token_bytes(32))
    ring.set_context("bench")
    rounds = mrtr.SealedRounds(ring, ttl=300)
    guard = Guard()

    async def get_weather(args: Dict[str, Any], ctx: mrtr.Context) -> Dict[str, Any]:
        answer = await ctx.elicit(QUESTION, UNITS)
        if answer.get("action") != "accept":
            return {"content": [{"type": "text", "text": "No forecast: no units."}], "isError": True}
        text = forecast(args.get("location", "?"), answer["content"]["units"])
        return {"content": [{"type": "text", "text": text}], "isError": False}

    async def endpoint(request: Any) -> Response:
        body = await request.body()
        try:
            if as_dict:
                out = await mrtr.run_tool(get_weather, body, rounds, anonymous=True, now=int(time.time()),
                                          guard=guard)
                return Response(json.dumps(out), media_type="application/json")
            return Response(
                await mrtr.run_tool_bytes(get_weather, body, rounds, anonymous=True, now=int(time.time()),
                                          guard=guard),
                media_type="application/json",
            )
        except mrtr.MrtrError as e:
            response, status = mrtr.error_response(None, e)
            return Response(json.dumps(response), status_code=status, media_type="application/json")

    return Starlette(routes=[Route("/mcp", endpoint, methods=["POST"])])


def mcp_app() -> Any:
    """The official SDK's two-round tool: a resolver asks, the SDK answers input_required and seals the state.
    Imported here, in its own server's process only: the other servers carry none of its modules (a larger
    heap makes every garbage collection of theirs slower)."""
    from typing import Annotated

    from mcp.server.mcpserver import Elicit, MCPServer, Resolve
    from mcp.server.request_state import RequestStateSecurity
    from pydantic import BaseModel

    class Units(BaseModel):
        units: str

    def ask_units() -> Elicit[Units]:
        return Elicit(QUESTION, Units)

    server = MCPServer("bench", request_state_security=RequestStateSecurity(keys=[secrets.token_bytes(32)]))

    # This module has no `from __future__ import annotations`: the SDK reads these annotations as objects.
    @server.tool()
    async def get_weather(location: str, units: Annotated[Units, Resolve(ask_units)]) -> str:
        return forecast(location, units.units)

    return server.streamable_http_app(stateless_http=True, json_response=True)


def has_mcp() -> bool:
    from importlib.util import find_spec

    try:
        return find_spec("mcp.server.mcpserver") is not None
    except ImportError:
        return False


def serve(kind: str) -> None:
    import logging

    import uvicorn

    logging.getLogger("mcp").setLevel(logging.WARNING)
    app = {"floor": floor_app, "mrtr": lambda: mrtr_app(False), "mrtr dict": lambda: mrtr_app(True),
           "mcp": mcp_app}[kind]()
    # IPPROTO_TCP named: asyncio sets TCP_NODELAY only on sockets whose proto says TCP (a socket() with proto 0,
    # and every connection it accepts, would wait for delayed ACKs: ~40 ms a response).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", workers=1)
    uvicorn.Server(config).run(sockets=[sock])


# --- the client ---------------------------------------------------------------------------------------


def request_bytes(port: int, body: bytes) -> bytes:
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {PROTOCOL}\r\n"
        f"Mcp-Method: tools/call\r\nMcp-Name: get_weather\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


async def exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, data: bytes) -> Dict[str, Any]:
    writer.write(data)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = None
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    if status != 200 or length is None:
        raise RuntimeError(f"unexpected answer: {head!r}")
    return json.loads(await reader.readexactly(length))  # type: ignore[no-any-return]


async def operation(port: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
    call: Dict[str, Any] = dict(CALL, id=2 * n)
    asked = await exchange(reader, writer, request_bytes(port, json.dumps(call).encode()))
    result = asked["result"]
    assert result["resultType"] == "input_required", asked
    key = next(iter(result["inputRequests"]))
    params = dict(call["params"], inputResponses={key: ANSWER}, requestState=result["requestState"])
    retry = dict(call, id=2 * n + 1, params=params)
    done = await exchange(reader, writer, request_bytes(port, json.dumps(retry).encode()))
    assert done["result"]["content"][0]["text"].startswith("New York: 22 degrees celsius"), done


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def load(port: int, pid: int, seconds: float, concurrency: int) -> Dict[str, float]:
    """A closed loop of `concurrency` connections for `seconds` (after a short warm-up)."""
    latencies: List[float] = []
    stop = [False, False]  # warm-up over, end

    async def worker(w: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        n = w * 10_000_000
        while not stop[1]:
            start = time.perf_counter()
            await operation(port, reader, writer, n)
            n += 1
            if stop[0]:
                latencies.append(time.perf_counter() - start)
        writer.close()

    tasks = [asyncio.create_task(worker(w)) for w in range(concurrency)]
    await asyncio.sleep(min(1.0, seconds / 4))
    stop[0], cpu0, t0, c0 = True, cpu_seconds(pid), time.perf_counter(), time.process_time()
    await asyncio.sleep(seconds)
    stop[1], cpu1, t1, c1 = True, cpu_seconds(pid), time.perf_counter(), time.process_time()
    done = len(latencies)
    await asyncio.gather(*tasks)
    latencies = sorted(latencies[:done])
    return {
        "ops": done / (t1 - t0),
        "p50": latencies[len(latencies) // 2] * 1e3,
        "p99": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1e3,
        "cpu_us": (cpu1 - cpu0) / max(done, 1) * 1e6,
        "client_cpu": (c1 - c0) / (t1 - t0),
    }


def start(kind: str) -> Tuple[subprocess.Popen, int]:  # type: ignore[type-arg]
    proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve", kind], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode()
    if not line.startswith("PORT "):
        proc.kill()
        raise RuntimeError(f"the {kind} server did not start")
    port = int(line.split()[1])
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise
            time.sleep(0.05)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    load1 = os.getloadavg()[0]
    return (f"{cpu}, {os.cpu_count()} CPUs, load average {load1:.1f}, CPython {platform.python_version()}, "
            f"{platform.system()} {platform.release()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="measured seconds per server per round")
    parser.add_argument("--concurrency", type=int, default=8, help="operations in flight (connections)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the best is shown")
    parser.add_argument("--only", default=",".join(SERVERS), help="comma-separated, of " + ", ".join(SERVERS))
    parser.add_argument("--serve", choices=SERVERS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args.serve)
    kinds = [k.strip() for k in args.only.split(",") if k.strip()]
    if "mcp" in kinds and not has_mcp():
        print("the mcp package (with MCPServer and Resolve) is missing: no mcp column", file=sys.stderr)
        kinds = [k for k in kinds if k != "mcp"]
    servers = {}
    try:
        for kind in kinds:
            servers[kind] = start(kind)
        best: Dict[str, Dict[str, float]] = {}
        every: Dict[str, List[float]] = {k: [] for k in kinds}
        for _ in range(args.rounds):
            for kind in kinds:
                proc, port = servers[kind]
                got = asyncio.run(load(port, proc.pid, args.seconds, args.concurrency))
                every[kind].append(got["ops"])
                if kind not in best or got["ops"] > best[kind]["ops"]:
                    best[kind] = got
    finally:
        for proc, _ in servers.values():
            proc.terminate()
        for proc, _ in servers.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    import mrtr

    print(f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {machine()}; mrtr {mrtr.__version__}"
          + (f", mcp {__import__('importlib.metadata').metadata.version('mcp')}" if "mcp" in kinds else ""))
    print(f"uvicorn 1 worker per server, {args.concurrency} connections closed-loop, {args.rounds} interleaved "
          f"rounds of {args.seconds:g} s, best round shown (all rounds in the last column)\n")
    print("| server | operations/s | p50 ms | p99 ms | server CPU µs/op | client CPU | vs mcp | vs floor "
          "| rounds ops/s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for kind in kinds:
        b = best[kind]
        vs_mcp = f"{b['ops'] / best['mcp']['ops']:.2f}×" if "mcp" in best else "n/a"
        vs_floor = f"{b['ops'] / best['floor']['ops']:.2f}×" if "floor" in best else "n/a"
        rounds = ", ".join(f"{x:.0f}" for x in every[kind])
        print(f"| {kind} | {b['ops']:.0f} | {b['p50']:.2f} | {b['p99']:.2f} | {b['cpu_us']:.0f} | "
              f"{b['client_cpu'] * 100:.0f} % | {vs_mcp} | {vs_floor} | {rounds} |")
    if "floor" in best:
        for kind in kinds:
            if kind != "floor":
                extra = best[kind]["cpu_us"] - best["floor"]["cpu_us"]
                print(f"\n{kind}: {extra:.0f} µs of server CPU per operation above the floor", end="")
        print()


if __name__ == "__main__":
    main()
