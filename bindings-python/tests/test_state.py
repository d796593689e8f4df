"""Sealed requestState through Python: keys, rings, bindings, rounds."""

from __future__ import annotations

import pytest
from conftest import ANSWER, ASK, call

import mrtr
from mrtr import Rule

SECRET = bytes(range(32))


def ring(*ids: int, alg: str = "aes-256-gcm") -> mrtr.KeyRing:
    keys = [mrtr.Key(i, alg, SECRET) for i in ids]
    return mrtr.KeyRing(keys[0], *keys[1:])


def test_the_target_is_chosen_by_method() -> None:
    # A resources/read carrying a name too stays bound to its uri: consent
    # sealed for one URI does not open for another.
    read = {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "file:///a", "name": "x"}}
    assert mrtr.Binding.for_request(read, "alice").target == "file:///a"
    with pytest.raises(mrtr.ProtocolError) as e:
        mrtr.Binding.for_request(dict(read, method="tools/call", params={"name": 7}), "alice")  # no string name
    assert e.value.rule is Rule.JSONRPC_INVALID


def test_seal_and_open_bound_to_principal_and_request() -> None:
    r = ring(1)
    binding = mrtr.Binding.for_request(call(), "alice")
    assert (binding.subject, binding.method, binding.target) == ("alice", "tools/call", "get_weather")
    assert len(binding.params_digest) == 32
    assert binding.params_digest == mrtr.params_digest({"location": "NYC"})
    token = r.seal(binding, 1000, 60, b"hello")
    assert r.seal(binding, 1000, 60, b"hello") != token  # fresh nonce each time
    assert r.open(token, binding, 1059) == b"hello"
    with pytest.raises(mrtr.StateError) as e:
        r.open(token, binding, 1060)
    assert e.value.rule is Rule.STATE_EXPIRED and e.value.code == -32602
    other = mrtr.Binding.for_request(call(), "mallory")
    with pytest.raises(mrtr.StateError, match="another principal"):
        r.open(token, other, 1001)
    moved = mrtr.Binding("alice", "tools/call", "get_weather", {"location": "Paris"})
    with pytest.raises(mrtr.StateError) as e2:
        r.open(token, moved, 1001)
    assert e2.value.rule is Rule.STATE_WRONG_REQUEST
    tampered = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
    with pytest.raises(mrtr.StateError) as e3:
        r.open(tampered, binding, 1001)
    assert e3.value.rule in (Rule.STATE_TAMPERED, Rule.STATE_MALFORMED)
    assert "secret" in repr(mrtr.Key(1, "aes-256-gcm", SECRET)) and SECRET.hex() not in repr(r)
    # A token as it came off the wire (bytes) opens too; bytes that are not base64url, UTF-8 or not, are the
    # core's state-malformed; a token of another type is the caller's misuse.
    assert r.open(token.encode(), binding, 1001) == b"hello"
    for junk in (b"\xff\xfe", "not base64!"):
        with pytest.raises(mrtr.StateError) as e4:
            r.open(junk, binding, 1001)
        assert e4.value.rule is Rule.STATE_MALFORMED
    with pytest.raises(mrtr.UsageError):
        r.open(42, binding, 1001)  # type: ignore[arg-type]
    assert binding == mrtr.Binding("alice", "tools/call", "get_weather", {"location": "NYC"})
    assert binding != other and binding.protocol == mrtr.DEFAULT_PROTOCOL


def test_rotation_keeps_rounds_in_flight() -> None:
    r = ring(1, 2, alg="xchacha20-poly1305")
    binding = mrtr.Binding("", "tools/call", "t")
    old = r.seal(binding, 0, 100, b"x")
    assert r.set_current(2) and not r.set_current(9)
    assert r.open(old, binding, 1) == b"x"
    assert r.remove(1)
    with pytest.raises(mrtr.StateError) as e:
        r.open(old, binding, 1)
    assert e.value.rule is Rule.STATE_UNKNOWN_KEY
    derived = mrtr.Key.derive(3, mrtr.Algorithm.AES_256_GCM, bytes(range(32)))
    assert (derived.id, derived.algorithm) == (3, "aes-256-gcm")


@pytest.mark.parametrize("master", [b"", b"correct horse battery staple", bytes(31)])
def test_a_master_shorter_than_a_key_is_refused(master: bytes) -> None:
    # HKDF does not stretch a password: a short master makes every key guessable.
    with pytest.raises(mrtr.UsageError) as e:
        mrtr.Key.derive(1, mrtr.Algorithm.AES_256_GCM, master)
    assert e.value.rule is Rule.USAGE_INVALID_ARGUMENT


def test_sealed_rounds_collect_answers_across_rounds() -> None:
    r = ring(1)
    rounds = mrtr.SealedRounds(r, "alice", 1000, 300)
    needs = dict(ASK, units={"method": "roots/list"})
    first = rounds.resume(call(), needs)
    assert first.missing == ["login", "units"] and not first.complete
    answer = rounds.respond(call(), first, needs, data={"step": 1})
    assert answer["result"]["resultType"] == "input_required"
    state = answer["result"]["requestState"]
    partial = mrtr.retry(call(), answer, dict(ANSWER, units={"roots": []}), 2)
    second = rounds.resume(partial, needs)
    assert second.complete and set(second.answers) == {"login", "units"} and second.data == {"step": 1}
    assert "Round(" in repr(second)
    forged = mrtr.retry(call(), answer, dict(ANSWER, units={"roots": []}), 2)
    forged["params"]["requestState"] = state[:-4] + "AAAA"
    with pytest.raises(mrtr.StateError):
        rounds.resume(forged, needs)
    # A Round is a plain value in the core's wire shape: the server may build one itself.
    again = rounds.respond(call(), mrtr.Round({}, ["login"], [], None), needs)
    assert again["result"]["inputRequests"].keys() == {"login"}
    with pytest.raises(mrtr.UsageError):
        rounds.respond(call(), {"answers": {}}, needs)  # type: ignore[arg-type]


def test_unsealed_state_round_trips_and_refuses_garbage() -> None:
    token = mrtr.unsealed_encode(b"cursor=7")
    assert mrtr.unsealed_decode(token) == b"cursor=7"
    with pytest.raises(mrtr.StateError) as e:
        mrtr.unsealed_decode("!!!")
    assert e.value.rule is Rule.STATE_MALFORMED
