"""Sealed requestState from Python, side by side in one run (not a test):

- ``mrtr``: ``KeyRing.seal`` + ``KeyRing.open`` (token format v2: bound to subject and request, tags
  encrypted, with expiry; nonces from the OS), with each algorithm: XAES-256-GCM (the fleet default, 192-bit
  random nonces: much faster than XChaCha20-Poly1305 on a machine with AES instructions), AES-256-GCM and
  XChaCha20-Poly1305;
- ``mcp``: the official ``mcp`` package's ``AESGCMRequestStateCodec.seal`` + ``unseal`` (AES-256-GCM on
  ``cryptography``, no binding, no expiry) on the same payload.

    python benches/bench_state.py        # a markdown table with ratios (best of 9, interleaved)

The ratios are the ``mcp`` codec's time over mrtr's: how many times faster mrtr is.
"""

from __future__ import annotations

import secrets
import timeit
from typing import Callable, Dict

import mrtr

try:
    from mcp.server.request_state import AESGCMRequestStateCodec
except ImportError:  # pragma: no cover - the mcp column needs the package
    AESGCMRequestStateCodec = None  # type: ignore[misc,assignment]

SECRET = secrets.token_bytes(32)
#: The fleet default first.
ALGORITHMS = (mrtr.Algorithm.XAES_256_GCM, mrtr.Algorithm.AES_256_GCM, mrtr.Algorithm.XCHACHA20_POLY1305)
REQUEST = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "get_weather", "arguments": {"location": "New York"}},
}


def implementations(payload: bytes) -> Dict[str, Callable[[], bytes]]:
    binding = mrtr.binding_for(REQUEST, "alice")
    out: Dict[str, Callable[[], bytes]] = {}
    for alg in ALGORITHMS:
        ring = mrtr.KeyRing(1, alg, secret=SECRET)

        def with_mrtr(ring: mrtr.KeyRing = ring) -> bytes:
            return ring.open(ring.seal(binding, 1000, 60, payload), binding, 1001).payload

        out[f"mrtr {alg.value}"] = with_mrtr
    if AESGCMRequestStateCodec is not None:
        codec = AESGCMRequestStateCodec([SECRET])
        out["mcp"] = lambda: codec.unseal(codec.seal(payload))
    return out


def best_us(impls: Dict[str, Callable[[], bytes]], rounds: int = 9, number: int = 2000) -> Dict[str, float]:
    """The best of ``rounds`` for each, interleaved (every implementation once per round), so that a busy
    machine slows them alike."""
    best = {name: float("inf") for name in impls}
    for _ in range(rounds):
        for name, fn in impls.items():
            best[name] = min(best[name], timeit.timeit(fn, number=number) / number * 1e6)
    return best


def main() -> None:
    import os
    import platform
    from datetime import datetime, timezone

    names = [f"mrtr {alg.value}" for alg in ALGORITHMS]
    print(f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, CPython {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; seal + open, best of 9 (interleaved)\n")
    print("| payload | " + " | ".join(f"{n} µs" for n in names) + " | mcp seal+unseal µs | "
          + " | ".join(f"mcp / {n.split()[1]}" for n in names) + " |")
    print("|---" * (2 + 2 * len(names)) + "|")
    for size in (512, 16 << 10):
        payload = b"x" * size
        impls = implementations(payload)
        for fn in impls.values():
            assert fn() == payload
        times = best_us(impls)
        mcp = times.get("mcp")
        ratios = [f"{mcp / times[n]:.1f}×" if mcp else "n/a" for n in names]
        mcp_text = f"{mcp:.1f}" if mcp else "n/a"
        print(f"| {size} B | " + " | ".join(f"{times[n]:.1f}" for n in names) + f" | {mcp_text} | "
              + " | ".join(ratios) + " |")


if __name__ == "__main__":
    main()
