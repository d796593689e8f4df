"""Sealed requestState from Python, side by side in one run (not a test):

- ``mrtr``: ``KeyRing.seal`` + ``KeyRing.open`` (AES-256-GCM, bound to subject
  and request, with expiry);
- ``mcp``: the official ``mcp`` package's ``AESGCMRequestStateCodec.seal`` +
  ``unseal`` (AES-256-GCM on ``cryptography``) on the same payload.

    python benches/bench_state.py        # a markdown table with ratios
"""

from __future__ import annotations

import timeit
from typing import Callable, Dict

import mrtr

try:
    from mcp.server.request_state import AESGCMRequestStateCodec
except ImportError:  # pragma: no cover - the mcp column needs the package
    AESGCMRequestStateCodec = None

SECRET = bytes(range(32))
REQUEST = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_weather", "arguments": {"location": "New York"}}}


def implementations(payload: bytes) -> Dict[str, Callable[[], bytes]]:
    ring = mrtr.KeyRing(mrtr.Key(1, "aes-256-gcm", SECRET))
    binding = mrtr.Binding.for_request(REQUEST, subject="alice")

    def with_mrtr() -> bytes:
        return ring.open(ring.seal(binding, 1000, 60, payload), binding, 1001)

    out = {"mrtr": with_mrtr}
    if AESGCMRequestStateCodec is not None:
        codec = AESGCMRequestStateCodec([SECRET])
        out["mcp"] = lambda: codec.unseal(codec.seal(payload))
    return out


def best_us(fn: Callable[[], bytes], rounds: int = 7) -> float:
    number = 2000
    return min(timeit.repeat(fn, number=number, repeat=rounds)) / number * 1e6


def main() -> None:
    print("| payload | mrtr seal+open µs | mcp seal+unseal µs | mcp / mrtr |")
    print("|---|---|---|---|")
    for size in (512, 16 << 10):
        payload = b"x" * size
        impls = implementations(payload)
        for fn in impls.values():
            assert fn() == payload
        times = {name: best_us(fn) for name, fn in impls.items()}
        mcp = times.get("mcp")
        ratio = f"{mcp / times['mrtr']:.1f}×" if mcp else "n/a"
        print(f"| {size} B | {times['mrtr']:.1f} | {mcp:.1f} | {ratio} |" if mcp else f"| {size} B | {times['mrtr']:.1f} | n/a | n/a |")


if __name__ == "__main__":
    main()
