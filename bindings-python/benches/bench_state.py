"""Sealed requestState from Python, side by side in one run (not a test):

- ``mrtr``: ``KeyRing.seal`` + ``KeyRing.open`` (token format v2: bound to subject and request, tags
  encrypted, with expiry; nonces from the OS), AES-256-GCM and XChaCha20-Poly1305;
- ``mcp``: the official ``mcp`` package's ``AESGCMRequestStateCodec.seal`` + ``unseal`` (AES-256-GCM on
  ``cryptography``, no binding, no expiry) on the same payload.

    python benches/bench_state.py        # a markdown table with ratios (best of 9, interleaved)
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
REQUEST = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "get_weather", "arguments": {"location": "New York"}},
}


def implementations(payload: bytes) -> Dict[str, Callable[[], bytes]]:
    binding = mrtr.Binding.for_request(REQUEST, subject="alice")
    out: Dict[str, Callable[[], bytes]] = {}
    for alg in (mrtr.Algorithm.AES_256_GCM, mrtr.Algorithm.XCHACHA20_POLY1305):
        ring = mrtr.KeyRing(mrtr.Key(1, alg, SECRET))

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
    aes, xchacha = "mrtr aes-256-gcm", "mrtr xchacha20-poly1305"
    print(f"| payload | {aes} seal+open µs | {xchacha} seal+open µs | mcp seal+unseal µs | mcp / mrtr (AES) |")
    print("|---|---|---|---|---|")
    for size in (512, 16 << 10):
        payload = b"x" * size
        impls = implementations(payload)
        for fn in impls.values():
            assert fn() == payload
        times = best_us(impls)
        mcp = times.get("mcp")
        mcp_text, ratio = (f"{mcp:.1f}", f"{mcp / times[aes]:.1f}×") if mcp else ("n/a", "n/a")
        print(f"| {size} B | {times[aes]:.1f} | {times[xchacha]:.1f} | {mcp_text} | {ratio} |")


if __name__ == "__main__":
    main()
