"""The conformance corpus under pytest: the runner's lines for every case, judged by the one judge
(``mrtr-conformance judge``, as ``scripts/conformance python`` does)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import conformance_runner as runner

ROOT = Path(__file__).resolve().parents[2]
CASES = runner.load()


def judge(lines: str) -> subprocess.CompletedProcess[str]:
    """``mrtr-conformance judge`` on ``lines`` (built first: a no-op when fresh)."""
    manifest = str(ROOT / "Cargo.toml")
    subprocess.run(["cargo", "build", "-q", "--manifest-path", manifest, "-p", "mrtr-conformance"], check=True)
    binary = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target") / "debug" / "mrtr-conformance"
    env = dict(os.environ, MRTR_CONFORMANCE_DIR=str(runner.corpus_dir()))
    return subprocess.run([binary, "judge", "--name", "python"], input=lines, text=True, capture_output=True, env=env)


def test_every_case_gives_one_line_and_the_judge_passes_them_all() -> None:
    assert CASES, f"no case in {runner.corpus_dir()}"
    lines = list(runner.lines(CASES))
    assert [json.loads(line)["id"] for line in lines] == [c["id"] for c in CASES]
    verdict = judge("\n".join(lines) + "\n")
    assert verdict.returncode == 0, verdict.stdout + verdict.stderr
    assert f"{len(CASES)} passed, 0 failed" in verdict.stdout + verdict.stderr


def test_a_case_the_runner_cannot_run_is_a_crash_the_judge_fails() -> None:
    assert runner.produce({"id": "x/y", "op": "frobnicate", "input": {}}) == {
        "id": "x/y",
        "crash": "unknown op 'frobnicate'",
    }
    case = CASES[0]
    crashed = json.dumps({"id": case["id"], "crash": "TypeError: x"})
    rest = [line for line in runner.lines(CASES[1:])]
    verdict = judge("\n".join([crashed, *rest]) + "\n")
    assert verdict.returncode != 0 and case["id"] in verdict.stdout + verdict.stderr


def test_an_error_is_its_rule_id() -> None:
    line = runner.produce({"id": "a/b", "op": "classify", "input": {"text": "{"}})
    assert line == {"id": "a/b", "outcome": {"error": "jsonrpc-parse-error"}}
