"""Completed operations over time, per mode, with the faults marked: the picture of a cluster run.

    python deploy/cluster/plot.py RESULTS.json OUT.png

RESULTS.json is the driver's output (`ops`: each operation's mode, finish time in ms and whether it
completed) with the faults scripts/cluster injected (`faults`: `{at, what}`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict, List

import matplotlib

matplotlib.use("Agg")  # no display: a file
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {"mrtr": "-", "tasks": "-", "sep-1858": "-", "sep-1335": "-", "legacy": ":"}
LABEL = {"legacy": "legacy (2025-11-25, bridge)", "mrtr": "mrtr (2026-07-28)"}


def completions(ops: List[Dict[str, Any]], mode: str) -> List[float]:
    return sorted(o["finished"] / 1000 for o in ops if o["mode"] == mode and o["ok"])


def main() -> None:
    results = json.loads(Path(sys.argv[1]).read_text())
    ops, faults = results["ops"], results.get("faults", [])
    figure, axes = plt.subplots(figsize=(9, 4.8), dpi=110)
    modes = list(dict.fromkeys(o["mode"] for o in ops))
    for mode in modes:
        times = completions(ops, mode)
        started = sum(1 for o in ops if o["mode"] == mode)
        axes.step([0.0] + times, range(len(times) + 1), where="post", linestyle=STYLE.get(mode, "-"),
                  label=f"{LABEL.get(mode, mode)}: {len(times)} of {started}")
    for i, fault in enumerate(faults):
        at = fault["at"] / 1000
        axes.axvline(at, color="grey", linestyle="--", linewidth=0.8)
        # Labels at staggered heights: faults come close together.
        axes.annotate(fault["what"], (at, 0.98 - 0.3 * (i % 3)), xycoords=("data", "axes fraction"), rotation=90,
                      fontsize=7, va="top", ha="right", color="dimgrey", xytext=(-2, 0), textcoords="offset points")
    axes.set_xlabel("seconds since the first request")
    axes.set_ylabel("operations completed")
    axes.set_title("Multi-round calls behind round-robin nginx, with faults")
    axes.legend(loc="lower right", fontsize=8)
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(sys.argv[2])


if __name__ == "__main__":
    main()
