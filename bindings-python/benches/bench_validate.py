"""Parse + validate the three benchmark messages, side by side in one run:

- ``mrtr``: ``mrtr.classify(raw bytes)`` (validates every rule one message
  shows; returns a small lazy view, builds no Python dict);
- ``mcp``: the official ``mcp`` package's own parse path for the ``2026-07-28``
  wire: ``jsonrpc_message_adapter.validate_json`` then
  ``methods.parse_client_request`` (the retry) or
  ``methods.parse_server_result`` (the results);
- ``json.loads``: bare parsing, no validation.

Not a test. Two ways to run it (after a release build: ``maturin develop --release``):

    python benches/bench_validate.py                 # a markdown table with ratios
    pytest benches/bench_validate.py --benchmark-only --benchmark-group-by=param:message
"""

from __future__ import annotations

import json
import sys
import timeit
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from messages import MESSAGES  # noqa: E402

import mrtr  # noqa: E402

V = "2026-07-28"

try:
    from mcp_types import jsonrpc_message_adapter, methods
except ImportError:  # pragma: no cover - the mcp column needs the package
    jsonrpc_message_adapter = methods = None


def mrtr_classify(raw: bytes) -> Any:
    return mrtr.classify(raw).kind


def mrtr_classify_str(text: str) -> Any:
    return mrtr.classify(text).kind


def mcp_parse(raw: bytes) -> Any:
    message = jsonrpc_message_adapter.validate_json(raw, by_name=False)
    if hasattr(message, "method"):
        return methods.parse_client_request(message.method, V, message.params)
    return methods.parse_server_result("tools/call", V, message.result)


def json_loads(raw: bytes) -> Any:
    return json.loads(raw)


IMPLS: Dict[str, Tuple[Callable[[Any], Any], bool]] = {
    "json.loads": (json_loads, False),
    "mcp": (mcp_parse, False),
    "mrtr": (mrtr_classify, False),
    "mrtr (str)": (mrtr_classify_str, True),
}


def check_outcomes() -> None:
    """Outside the timings: every path accepts every message."""
    for name, raw in MESSAGES.items():
        for impl, (f, as_str) in IMPLS.items():
            if impl == "mcp" and methods is None:
                continue
            f(raw.decode() if as_str else raw)


# --- pytest-benchmark ------------------------------------------------------------------

try:
    import pytest

    @pytest.mark.parametrize("message", list(MESSAGES))
    @pytest.mark.parametrize("impl", list(IMPLS))
    def test_validate(benchmark: Any, message: str, impl: str) -> None:
        f, as_str = IMPLS[impl]
        # The comparison is the point of this bench: without mcp it cannot run.
        assert not (impl == "mcp" and methods is None), "install mcp (scripts/setup/20-python.sh)"
        raw = MESSAGES[message]
        arg = raw.decode() if as_str else raw
        benchmark.group = message
        benchmark(f, arg)

except ImportError:  # pragma: no cover
    pass


# --- a table --------------------------------------------------------------------------


def best_us(calls: Dict[str, Callable[[], Any]], rounds: int = 15) -> Dict[str, float]:
    """Best time per call of each of ``calls``, in µs. The candidates take turns
    (one batch each per round), so that load from other processes falls on all
    of them alike; the minimum over the rounds filters it out."""
    timers = {name: timeit.Timer(f) for name, f in calls.items()}
    numbers = {name: max(t.autorange()[0] // 4, 3) for name, t in timers.items()}
    best = {name: float("inf") for name in calls}
    for _ in range(rounds):
        for name, t in timers.items():
            best[name] = min(best[name], t.timeit(numbers[name]) / numbers[name] * 1e6)
    return best


def table() -> List[str]:
    check_outcomes()
    rows = [
        "| message | bytes | json.loads | mcp parse path | mrtr.classify (bytes) | mrtr.classify (str) "
        "| mrtr vs mcp | mrtr / json.loads |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, raw in MESSAGES.items():
        calls: Dict[str, Callable[[], Any]] = {}
        for impl, (f, as_str) in IMPLS.items():
            if impl == "mcp" and methods is None:
                continue
            arg = raw.decode() if as_str else raw
            calls[impl] = lambda f=f, arg=arg: f(arg)  # type: ignore[misc]
        t = dict.fromkeys(IMPLS, float("nan"))
        t.update(best_us(calls))
        rows.append(
            f"| {name} | {len(raw)} | {t['json.loads']:.1f} µs | {t['mcp']:.0f} µs | {t['mrtr']:.1f} µs "
            f"| {t['mrtr (str)']:.1f} µs | {t['mcp'] / t['mrtr']:.0f}× faster | {t['mrtr'] / t['json.loads']:.2f}× |"
        )
    return rows


if __name__ == "__main__":
    print("\n".join(table()))
