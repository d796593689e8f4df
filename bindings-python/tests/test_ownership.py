"""GC and ownership: objects dropped mid-round, objects outliving their
creators, reference cycles, and eight threads at once."""

from __future__ import annotations

import gc
import json
import os
import threading
import weakref
from typing import Any, Dict, List

import pytest
from conftest import ANSWER, ASK, call, in_threads

import mrtr
from mrtr import Kind, Rule


def test_clients_dropped_mid_round_free_everything() -> None:
    refs = []
    for i in range(200):
        client = mrtr.Client()
        request = call(id=i)
        h = client.send(request)
        client.handle_response(mrtr.respond(request, ASK, f"s{i}"))
        if i % 2:
            client.drain_events()  # half are dropped with the event still queued
        refs.append(weakref.ref(client))
        del client, h
        assert refs[-1]() is None  # freed by reference counting, at once
    gc.collect()
    assert all(r() is None for r in refs)


def test_events_and_handles_outlive_their_client() -> None:
    client = mrtr.Client()
    request = call()
    handle = client.send(request)
    client.handle_response(mrtr.respond(request, ASK, "s1"))
    event = client.poll_event()
    del client
    gc.collect()
    assert event is not None and event["type"] == "inputRequired"
    assert event["handle"] == handle and event["inputRequests"] == ASK
    # The event's dict is the caller's own: mutating it changes nothing in Rust.
    event["inputRequests"]["extra"] = 1
    assert "extra" in event["inputRequests"]


def test_returned_dicts_are_fresh_copies() -> None:
    request = call()
    answer = mrtr.respond(request, ASK, "s1")
    answer["result"]["inputRequests"]["login"]["params"]["message"] = "changed"
    assert ASK["login"]["params"]["message"] == "GitHub user?"
    again = mrtr.respond(request, ASK, "s1")
    assert again["result"]["inputRequests"] == ASK


def test_inputs_may_be_mutated_or_dropped_after_a_call() -> None:
    request = call()
    client = mrtr.Client()
    h = client.send(request)
    request["params"]["arguments"]["location"] = "changed"
    del request
    gc.collect()
    sent = client.poll_transmit()
    assert sent is not None and sent["params"]["arguments"]["location"] == "NYC"
    assert h == 0


def test_cycles_through_native_objects_are_collected() -> None:
    holder: Dict[str, Any] = {"client": mrtr.Client()}
    holder["self"] = holder
    ref = weakref.ref(holder["client"])
    del holder
    gc.collect()
    assert ref() is None


def test_a_key_ring_outlives_the_secret_that_made_it() -> None:
    secret = bytearray(range(32))
    ring = mrtr.KeyRing(1, "aes-256-gcm", secret=secret)
    binding = {"subject": "alice", "method": "tools/call", "target": "get_weather", "params": {"name": "get_weather"}}
    secret[:] = bytes(32)  # the ring holds its own copy
    del secret
    gc.collect()
    token = ring.seal(binding, 1000, 60, b"payload")
    assert ring.open(token, binding, 1001).payload == b"payload"
    rounds = mrtr.SealedRounds(ring, ttl=60)
    del ring
    gc.collect()
    round_ = rounds.resume(call(), ASK, subject="alice", now=1000)
    assert round_.missing == ["login"]


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_no_memory_grows_over_many_rounds_and_errors() -> None:
    def rounds(n: int) -> None:
        for i in range(n):
            client = mrtr.Client()
            request = call(id=i)
            h = client.send(request)
            client.handle_response(json.dumps(mrtr.respond(request, ASK, "s")).encode())
            client.answer(h, ANSWER, "r")
            client.drain_transmits()
            client.drain_events()
            try:
                mrtr.retry(request, b"{", {}, 2)
            except mrtr.MrtrError:
                pass

    rounds(2_000)  # warm up allocator pools and caches
    gc.collect()
    before = rss_bytes()
    rounds(10_000)
    gc.collect()
    grown = rss_bytes() - before
    assert grown < 8 << 20, f"RSS grew by {grown} bytes over 10 000 rounds"


def test_eight_threads_share_the_module_and_their_own_clients() -> None:
    big = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "resultType": "input_required",
                "inputRequests": {f"k{i}": {"method": "roots/list"} for i in range(500)},
                "requestState": "x" * 30_000,
            },
        }
    ).encode()
    assert len(big) > 16 << 10  # classified with the GIL released
    def work(n: int) -> None:
        for i in range(60):
            assert mrtr.classify(big).kind is Kind.INPUT_REQUIRED
            request = call(id=f"{n}-{i}")
            client = mrtr.Client()
            h = client.send(request)
            answer = mrtr.respond(request, ASK, f"s{n}")
            client.handle_response(json.dumps(answer))
            [event] = [e for e in client.drain_events() if e["type"] == "inputRequired"]
            client.answer(h, ANSWER, f"{n}-{i}-retry")
            client.drain_transmits()
            assert event["round"] == 0
            try:
                mrtr.classify(b"{")
            except mrtr.ProtocolError as e:
                assert e.rule is Rule.JSONRPC_PARSE_ERROR
            assert mrtr.check([{"from": "client", "message": request}]) == []

    in_threads(work)


def test_one_client_shared_by_threads_serialises_or_refuses_cleanly() -> None:
    client = mrtr.Client()
    errors: List[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(100):
                client.send(call(id=f"{n}-{i}"))
                client.poll_transmit()
        except RuntimeError:
            pass  # "Already borrowed": pyo3's guard against concurrent &mut, never UB
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
