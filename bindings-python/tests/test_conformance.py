"""The conformance corpus under pytest: one test per case (see conformance_runner.py)."""

from __future__ import annotations

import pytest

import conformance_runner as runner

CASES = runner.load()


def test_the_corpus_is_not_empty() -> None:
    assert CASES, f"no case in {runner.corpus_dir()}"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: runner.Case) -> None:
    why = runner.run(case)
    assert why is None, why


def test_a_case_of_an_unknown_op_fails() -> None:
    case = runner.Case("x/y", "frobnicate", {}, {}, runner.corpus_dir())
    assert runner.run(case) is not None


def test_comparison_keeps_json_types_apart() -> None:
    assert runner.json_eq({"a": [1, 2.0]}, {"a": [1.0, 2]})
    assert not runner.json_eq(True, 1) and not runner.json_eq(0, False) and not runner.json_eq(None, {})
    assert runner.set_eq([1, 2, 2], [2, 1, 2]) and not runner.set_eq([1, 2], [2, 2])
