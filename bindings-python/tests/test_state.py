"""Sealed requestState through Python: rings, bindings, rounds, and one test for each attack the binding
could have carried (security issue #13). Every secret and master is 32 random bytes."""

from __future__ import annotations

import base64
import copy
import secrets
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Set

import pytest
from conftest import ANSWER, ASK, call, in_threads

import mrtr
from mrtr import Rule

SECRET = secrets.token_bytes(32)
MASTER = secrets.token_bytes(32)


def ring(*ids: int, alg: str = "aes-256-gcm", secret: bytes = SECRET, seal_budget: Optional[int] = None) -> mrtr.KeyRing:
    r = mrtr.KeyRing(ids[0], alg, secret=secret)
    for i in ids[1:]:
        r.add(i, alg, secret=secret)
    if seal_budget is not None:
        r.set_seal_budget(seal_budget)
    return r


def binding(subject: Optional[str], method: str, target: str, params: Any, **more: Any) -> Dict[str, Any]:
    """A binding built by hand, in the core's JSON form."""
    who: Dict[str, Any] = {"anonymous": True} if subject is None else {"subject": subject}
    return dict(who, method=method, target=target, params=params, **more)


def memory_guard() -> Callable[[str, int], bool]:
    """A one-process replay guard: first use wins."""
    used: Set[str] = set()

    def first_use(state_id: str, expiry: int) -> bool:
        if state_id in used:
            return False
        used.add(state_id)
        return True

    return first_use


def retry(state: Optional[str], responses: Dict[str, Any], id: Any = 2, **arguments: Any) -> Dict[str, Any]:
    """The client's retry of ``call(**arguments)``, built by hand so that it may answer only some keys."""
    request = call(id, **arguments)
    request["params"]["inputResponses"] = responses
    if state is not None:
        request["params"]["requestState"] = state
    return request


def state_of(response: Dict[str, Any]) -> str:
    token: str = response["result"]["requestState"]
    return token


def decoded(token: str) -> bytes:
    return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))


def raised(f: Callable[[], Any], cls: type = mrtr.MrtrError) -> mrtr.MrtrError:
    with pytest.raises(cls) as e:
        f()
    assert isinstance(e.value, mrtr.MrtrError)
    return e.value


# --- bindings ------------------------------------------------------------------------


def test_the_target_is_chosen_by_method() -> None:
    # A resources/read carrying a name too stays bound to its uri: consent
    # sealed for one URI does not open for another.
    read = {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "file:///a", "name": "x"}}
    assert mrtr.binding_for(read, "alice")["target"] == "file:///a"
    with pytest.raises(mrtr.ProtocolError) as e:
        mrtr.binding_for(dict(read, method="tools/call", params={"name": 7}), "alice")  # no string name
    assert e.value.rule is Rule.JSONRPC_INVALID


def test_anonymous_is_never_the_default() -> None:
    # Attack: a host whose auth context is missing binds "" (or nothing) and gets tokens any caller opens.
    request = call()
    r = ring(1)
    for no_subject in (
        lambda: mrtr.binding_for(request),
        lambda: mrtr.binding_for(request, ""),
        lambda: mrtr.binding_for(request, None),
        lambda: mrtr.binding_for(request, "alice", anonymous=True),  # both is no choice either
        lambda: r.seal(binding("", "tools/call", "get_weather", {}), 1000, 60, b"x"),
        lambda: r.seal({"subject": None, "method": "tools/call", "target": "get_weather", "params": {}}, 1000, 60, b"x"),
        lambda: r.seal('{"method":"tools/call","target":"t","params":{}}', 1000, 60, b"x"),
        lambda: r.seal(binding("alice", "tools/call", "t", {}, anonymous=True), 1000, 60, b"x"),
    ):
        e = raised(no_subject, mrtr.UsageError)
        assert e.rule is Rule.USAGE_INVALID_ARGUMENT
    rounds = mrtr.SealedRounds(ring(1))
    e = raised(lambda: rounds.resume(request, ASK, now=1000), mrtr.UsageError)
    assert "subject" in e.message
    e = raised(lambda: rounds.respond(request, mrtr.Round({}, ["login"], []), ASK, now=1000), mrtr.UsageError)
    assert raised(lambda: rounds.resume(request, ASK, subject="", now=1000), mrtr.UsageError)
    # Anonymous is an explicit choice, and it is nobody: not even a principal named "anonymous".
    anonymous = mrtr.binding_for(request, anonymous=True)
    assert anonymous["anonymous"] is True and "subject" not in anonymous
    token = r.seal(anonymous, 1000, 60, b"public")
    assert r.open(token, anonymous, 1001).payload == b"public"
    assert r.open(token, binding(None, "tools/call", "get_weather", request["params"]), 1001).payload == b"public"
    named = mrtr.binding_for(request, "anonymous")
    assert raised(lambda: r.open(token, named, 1001)).rule is Rule.STATE_WRONG_SUBJECT
    assert raised(lambda: r.open(r.seal(named, 1000, 60, b"x"), anonymous, 1001)).rule is Rule.STATE_WRONG_SUBJECT


def test_a_hand_built_binding_names_its_params() -> None:
    # Attack: a binding without params defaulted to {}: a token sealed for one call opened for any other
    # call of the same tool.
    r = ring(1)
    for no_params in (
        {"subject": "alice", "method": "tools/call", "target": "get_weather"},
        binding("alice", "tools/call", "get_weather", None),
        binding(None, "tools/call", "get_weather", None),
        binding("alice", "tools/call", "get_weather", ["location"]),
        '{"subject":"alice","method":"tools/call","target":"get_weather"}',
    ):
        assert raised(lambda: r.seal(no_params, 1000, 60, b"x"), mrtr.UsageError).rule is Rule.USAGE_INVALID_ARGUMENT  # noqa: B023
    for not_params in (None, ["location"], '"{}"', "null", b"[]"):
        assert raised(lambda: mrtr.params_digest(not_params), mrtr.UsageError).rule is Rule.USAGE_INVALID_ARGUMENT  # noqa: B023
    # Every param is bound (not only arguments), but the retry's carriers and _meta.
    params = call()["params"]
    bound = binding("alice", "tools/call", "get_weather", params)
    for_request = mrtr.binding_for(call(), "alice")
    assert for_request["paramsDigest"] == mrtr.params_digest(params).hex()
    carriers = dict(params, inputResponses=ANSWER, requestState="s", _meta={"other": 1})
    assert mrtr.params_digest(carriers) == mrtr.params_digest(params)
    for changed in (dict(params, task={"ttl": 1}), dict(params, arguments={"location": "Paris"}), {}):
        assert mrtr.params_digest(changed) != mrtr.params_digest(params)
    token = r.seal(bound, 1000, 60, b"x")
    assert r.open(token, for_request, 1001).payload == b"x"  # one binding, by its params or their digest
    moved = binding("alice", "tools/call", "get_weather", dict(params, task={"ttl": 1}))
    assert raised(lambda: r.open(token, moved, 1001)).rule is Rule.STATE_WRONG_REQUEST
    empty = binding("alice", "tools/call", "get_weather", {})
    assert raised(lambda: r.open(token, empty, 1001)).rule is Rule.STATE_WRONG_REQUEST


def test_a_big_python_int_is_refused_and_json_text_keeps_it_exact() -> None:
    # Attack (review L1): 10**20 and 10**20 + 1 rounded to one float, so a token bound to one opened for the
    # other. Python's ints are exact; the converter refuses what no 64-bit JSON number holds.
    r = ring(1)
    for big in (10**20, 10**20 + 1, 2**64, -(2**63) - 1):
        for f in (
            lambda: r.seal(binding("alice", "tools/call", "t", {"n": big}), 1000, 60, b"x"),
            lambda: mrtr.params_digest({"arguments": {"n": big}}),
            lambda: mrtr.binding_for(call(n=big), "alice"),
            lambda: mrtr.classify({"jsonrpc": "2.0", "id": big, "method": "ping"}),
        ):
            e = raised(f, mrtr.UsageError)
            assert e.rule is Rule.USAGE_INVALID_ARGUMENT and "text" in e.message
    for edge in (2**64 - 1, -(2**63)):
        assert len(mrtr.params_digest({"n": edge})) == 32
    # As JSON text the numbers go to the core as written, and bind apart.
    low, high = '{"name":"t","n":100000000000000000000}', b'{"name":"t","n":100000000000000000001}'
    assert mrtr.params_digest(low) != mrtr.params_digest(high)
    assert mrtr.params_digest(low) == mrtr.params_digest('{"n":1e20,"name":"t"}')  # one number, two spellings
    b_low = '{"subject":"alice","method":"tools/call","target":"t","params":%s}' % low
    token = r.seal(b_low, 1000, 60, b"x")
    b_high = binding("alice", "tools/call", "t", None, paramsDigest=mrtr.params_digest(high).hex())
    del b_high["params"]
    assert raised(lambda: r.open(token, b_high, 1001)).rule is Rule.STATE_WRONG_REQUEST
    request = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","n":100000000000000000000}}'
    assert r.open(token, mrtr.binding_for(request, "alice"), 1001).payload == b"x"
    assert mrtr.binding_for(request.replace("000}}", "001}}").encode(), "alice")["paramsDigest"] == b_high["paramsDigest"]


# --- KeyRing ---------------------------------------------------------------------------


def test_seal_and_open_bound_to_principal_and_request() -> None:
    r = ring(1)
    binding = mrtr.binding_for(call(), "alice")
    assert (binding["subject"], binding["method"], binding["target"]) == ("alice", "tools/call", "get_weather")
    assert len(bytes.fromhex(binding["paramsDigest"])) == 32
    token = r.seal(binding, 1000, 60, b"hello")
    opened = r.open(token, binding, 1059)
    assert opened == mrtr.Opened(b"hello", mrtr.inspect(token).state_id, 1060)
    with pytest.raises(mrtr.StateError) as e:
        r.open(token, binding, 1060)
    assert e.value.rule is Rule.STATE_EXPIRED and e.value.code == -32602
    other = mrtr.binding_for(call(), "mallory")
    with pytest.raises(mrtr.StateError, match="another principal"):
        r.open(token, other, 1001)
    moved = mrtr.binding_for(call(location="Paris"), "alice")
    assert raised(lambda: r.open(token, moved, 1001)).rule is Rule.STATE_WRONG_REQUEST
    tampered = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
    assert raised(lambda: r.open(tampered, binding, 1001)).rule in (Rule.STATE_TAMPERED, Rule.STATE_MALFORMED)
    assert SECRET.hex() not in repr(r) and repr(SECRET) not in repr(r) and "KeyRing" in repr(r)
    # A token as it came off the wire (bytes) opens too; bytes that are not base64url, UTF-8 or not, are the
    # core's state-malformed; a token of another type is the caller's misuse.
    assert r.open(token.encode(), binding, 1001).payload == b"hello"
    for junk in (b"\xff\xfe", "not base64!"):
        assert raised(lambda: r.open(junk, binding, 1001), mrtr.StateError).rule is Rule.STATE_MALFORMED
    with pytest.raises(mrtr.UsageError):
        r.open(42, binding, 1001)  # type: ignore[arg-type]
    assert binding != other and binding["protocol"] == mrtr.DEFAULT_PROTOCOL


def test_inspect_reads_the_public_part_without_a_key() -> None:
    r = ring(7, alg="xchacha20-poly1305")
    binding = mrtr.binding_for(call(), "alice")
    token = r.seal(binding, 1000, 60, b"x")
    info = mrtr.inspect(token)
    assert info == mrtr.TokenInfo(info.state_id, 7, mrtr.Algorithm.XCHACHA20_POLY1305, 1060)
    assert info.algorithm is mrtr.Algorithm.XCHACHA20_POLY1305 and len(info.state_id) == 48
    assert info.state_id == info.state_id.lower() and mrtr.inspect(token.encode()) == info
    version_1 = base64.urlsafe_b64encode(b"\x11" + decoded(token)[1:]).rstrip(b"=")
    for bad in ("!!", version_1):
        assert raised(lambda: mrtr.inspect(bad), mrtr.StateError).rule is Rule.STATE_MALFORMED


def test_seal_takes_no_nonce() -> None:
    # Attack: a public nonce argument invites a counter or a constant, and a reused AES-GCM nonce gives away
    # the plaintexts and the power to forge. Seal draws every nonce from the OS.
    r = ring(1)
    binding = mrtr.binding_for(call(), "alice")
    with pytest.raises(TypeError):
        r.seal(binding, 1000, 60, b"x", bytes(12))  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        r.seal(binding, 1000, 60, b"x", nonce=bytes(12))  # type: ignore[call-arg]
    assert not hasattr(r, "seal_with_nonce")
    public = [name for name in dir(mrtr.KeyRing) if "nonce" in name]
    assert public == ["_seal_with_nonce_for_test_vectors"], public  # this build has the test-vectors feature
    ids = {mrtr.inspect(r.seal(binding, 1000, 60, b"x")).state_id for _ in range(64)}
    assert len(ids) == 64


def test_the_binding_tags_are_not_in_clear() -> None:
    # Attack: tags in clear linked every token of one principal (and one request), and let anyone test a
    # guess of another's arguments offline. Two tokens of one principal and request share nothing after the
    # 6-byte header beyond chance.
    for alg in ("aes-256-gcm", "xchacha20-poly1305"):
        r = ring(1, alg=alg)
        binding = mrtr.binding_for(call(), "alice")
        a, b = decoded(r.seal(binding, 1000, 60, b"same payload!")), decoded(r.seal(binding, 1000, 60, b"same payload!"))
        assert a[:6] == b[:6] and len(a) == len(b)
        same = sum(x == y for x, y in zip(a[6:], b[6:]))
        assert same < 8, (alg, same, len(a) - 6)  # chance: about (len - 6) / 256
    # So with sealed rounds: two first rounds of one principal.
    rounds = mrtr.SealedRounds(ring(1))
    tokens = [
        decoded(state_of(rounds.respond(call(), mrtr.Round({}, ["login"], []), ASK, subject="alice", now=1000)))
        for _ in range(2)
    ]
    assert sum(x == y for x, y in zip(tokens[0][6:], tokens[1][6:])) < 8


def test_a_replayed_state_is_refused_under_a_guard() -> None:
    # Attack: without single use, a state opens as often as it is presented until it expires.
    r = ring(1)
    binding = mrtr.binding_for(call(), "alice")
    token = r.seal(binding, 1000, 60, b"pay once")
    seen: List[Any] = []
    guard = memory_guard()

    def recording(state_id: str, expiry: int) -> bool:
        seen.append((state_id, expiry))
        return guard(state_id, expiry)

    # The guard is asked last: a refusal for another reason does not use the state up.
    mallory = mrtr.binding_for(call(), "mallory")
    assert raised(lambda: r.open(token, mallory, 1001, guard=recording)).rule is Rule.STATE_WRONG_SUBJECT
    assert seen == []
    opened = r.open(token, binding, 1001, guard=recording)
    assert opened.payload == b"pay once" and seen == [(opened.state_id, opened.expiry)]
    e = raised(lambda: r.open(token, binding, 1002, guard=recording), mrtr.StateError)
    assert e.rule is Rule.STATE_REPLAYED and e.code == -32602
    assert r.open(token, binding, 1002).payload == b"pay once"  # without a guard: no single use


class StoreDown(Exception):
    pass


def test_a_guard_that_fails_refuses_the_state_and_its_exception_is_re_raised() -> None:
    r = ring(1)
    binding = mrtr.binding_for(call(), "alice")
    token = r.seal(binding, 1000, 60, b"x")

    def down(state_id: str, expiry: int) -> bool:
        raise StoreDown(state_id)

    with pytest.raises(StoreDown) as e:
        r.open(token, binding, 1001, guard=down)
    assert e.value.args == (mrtr.inspect(token).state_id,)
    # A guard that answers anything but a bool fails closed too (an async guard's coroutine, redis' None).
    for answer in (None, 1, "yes", object()):
        f = raised(lambda: r.open(token, binding, 1001, guard=lambda i, x: answer), mrtr.UsageError)  # noqa: B023
        assert "True" in f.message
    assert raised(lambda: r.open(token, binding, 1001, guard=42), mrtr.UsageError)  # type: ignore[arg-type]
    rounds = mrtr.SealedRounds(r)
    answer = rounds.respond(call(), mrtr.Round({}, ["login"], []), ASK, subject="alice", now=1000)
    with pytest.raises(StoreDown):
        rounds.resume(retry(state_of(answer), ANSWER), ASK, subject="alice", now=1001, guard=down)


def test_context_labels_separate_deployments() -> None:
    # Attack: staging and production (or two tenants) derive from one master: a token of one opened in the other.
    staging, production, unlabelled = (mrtr.KeyRing(1, mrtr.Algorithm.XCHACHA20_POLY1305, master=MASTER) for _ in range(3))
    staging.set_context("staging")
    production.set_context(b"production")
    binding = mrtr.binding_for(call(), "alice")
    token = staging.seal(binding, 1000, 60, b"x")
    assert staging.open(token, binding, 1001).payload == b"x"
    for other in (production, unlabelled):
        assert raised(lambda: other.open(token, binding, 1001)).rule is Rule.STATE_TAMPERED  # noqa: B023
    assert raised(lambda: unlabelled.set_context("x" * 65), mrtr.UsageError).rule is Rule.USAGE_INVALID_ARGUMENT
    assert raised(lambda: unlabelled.set_context(7), mrtr.UsageError)  # type: ignore[arg-type]
    # Sealed rounds seal under the label too, and under another purpose than KeyRing.seal.
    answer = mrtr.SealedRounds(staging).respond(call(), mrtr.Round({}, ["login"], []), ASK, subject="alice", now=1000)
    e = raised(lambda: mrtr.SealedRounds(production).resume(retry(state_of(answer), ANSWER), ASK, subject="alice", now=1001))
    assert e.rule is Rule.STATE_TAMPERED
    assert raised(lambda: staging.open(state_of(answer), binding, 1001)).rule is Rule.STATE_TAMPERED


def test_a_seal_budget_is_enforced_per_key() -> None:
    # Attack: AES-GCM's random nonces are safe for 2^32 seals per key; past that a collision is likely.
    # A secret of its own: the count belongs to the key material, and other tests seal with SECRET.
    r = ring(1, 2, secret=secrets.token_bytes(32), seal_budget=2)
    binding = mrtr.binding_for(call(), "alice")
    assert r.seals(1) == 0 and r.seals(9) is None and r.seals(256) is None
    assert raised(lambda: r.seals(-1), mrtr.UsageError).rule is Rule.USAGE_INVALID_ARGUMENT
    r.seal(binding, 1000, 60, b"a")
    r.seal(binding, 1000, 60, b"b")
    e = raised(lambda: r.seal(binding, 1000, 60, b"c"), mrtr.UsageError)
    assert e.rule is Rule.USAGE_SEAL_BUDGET_SPENT and r.seals(1) == 2
    rounds = mrtr.SealedRounds(r)
    spent = raised(lambda: rounds.respond(call(), mrtr.Round({}, ["login"], []), ASK, subject="alice", now=1000))
    assert spent.rule is Rule.USAGE_SEAL_BUDGET_SPENT
    assert r.set_current(2)  # rotate: the next key has its own budget
    assert r.open(r.seal(binding, 1000, 60, b"d"), binding, 1001).payload == b"d" and r.seals(2) == 1
    r.set_seal_budget(1)
    assert raised(lambda: r.seal(binding, 1000, 60, b"e")).rule is Rule.USAGE_SEAL_BUDGET_SPENT


def test_the_seal_budget_is_spent_across_rings_built_from_one_key() -> None:
    # Security review I4: every ring built a fresh core key, so each ring of one key had the whole budget,
    # and a host that rebuilt its ring (a secrets reload, a ring per request) restarted the count.
    secret = secrets.token_bytes(32)
    binding = mrtr.binding_for(call(), "alice")
    first, second, third = (ring(1, secret=secret, seal_budget=2) for _ in range(3))
    first.seal(binding, 1000, 60, b"a")
    second.seal(binding, 1000, 60, b"b")
    e = raised(lambda: third.seal(binding, 1000, 60, b"c"), mrtr.UsageError)
    assert e.rule is Rule.USAGE_SEAL_BUDGET_SPENT
    assert (first.seals(1), second.seals(1), third.seals(1)) == (2, 2, 2)
    del first, second, third
    # A ring built again from the same bytes, after the others are gone, has nothing left either.
    again = ring(1, secret=secret, seal_budget=2)
    assert again.seals(1) == 2
    assert raised(lambda: again.seal(binding, 1000, 60, b"d")).rule is Rule.USAGE_SEAL_BUDGET_SPENT
    # Another id or algorithm of the same secret is another key, with a count of its own.
    assert ring(2, secret=secret).seals(2) == 0 and ring(1, alg="xchacha20-poly1305", secret=secret).seals(1) == 0


def test_rotation_keeps_rounds_in_flight() -> None:
    r = ring(1, 2, alg="xchacha20-poly1305")
    binding = {"anonymous": True, "method": "tools/call", "target": "t", "params": {"name": "t"}}
    old = r.seal(binding, 0, 100, b"x")
    assert r.set_current(2) and not r.set_current(9) and not r.set_current(256)
    assert r.open(old, binding, 1).payload == b"x"
    assert not r.remove(2)  # never the current one
    assert r.remove(1) and not r.remove(1)
    assert raised(lambda: r.open(old, binding, 1)).rule is Rule.STATE_UNKNOWN_KEY
    # A key derived from a master (HKDF-SHA-256 of the master and the id) is another key than the secret's.
    r.add(3, mrtr.Algorithm.AES_256_GCM, master=MASTER)
    assert r.set_current(3) and r.seals(3) == 0
    derived = r.seal(binding, 0, 100, b"y")
    assert mrtr.inspect(derived).key_id == 3 and r.open(derived, binding, 1).payload == b"y"
    again = mrtr.KeyRing(3, mrtr.Algorithm.AES_256_GCM, master=MASTER)
    assert again.open(derived, binding, 1).payload == b"y"
    other = mrtr.KeyRing(3, mrtr.Algorithm.AES_256_GCM, secret=MASTER)
    assert raised(lambda: other.open(derived, binding, 1)).rule is Rule.STATE_TAMPERED


@pytest.mark.parametrize("master", [b"", b"correct horse battery staple", bytes(31)])
def test_a_master_shorter_than_a_key_is_refused(master: bytes) -> None:
    # HKDF does not stretch a password: a short master makes every key guessable.
    with pytest.raises(mrtr.UsageError) as e:
        mrtr.KeyRing(1, mrtr.Algorithm.AES_256_GCM, master=master)
    assert e.value.rule is Rule.USAGE_INVALID_ARGUMENT
    with pytest.raises(mrtr.UsageError):
        ring(1).add(2, mrtr.Algorithm.AES_256_GCM, master=master)


def test_a_key_has_exactly_one_of_a_secret_and_a_master() -> None:
    for material in ({}, {"secret": SECRET, "master": MASTER}):
        with pytest.raises(mrtr.UsageError) as e:
            mrtr.KeyRing(1, mrtr.Algorithm.AES_256_GCM, **material)
        assert e.value.rule is Rule.USAGE_INVALID_ARGUMENT
    with pytest.raises(mrtr.UsageError):
        mrtr.KeyRing(1, mrtr.Algorithm.AES_256_GCM, secret="a str is no secret")  # type: ignore[arg-type]


def test_the_test_vector_seal_is_deterministic_in_this_build() -> None:
    r = ring(1)
    binding = mrtr.binding_for(call(), "alice")
    seal = r._seal_with_nonce_for_test_vectors  # type: ignore[attr-defined]
    token = seal(binding, 1000, 60, b"x", bytes(12))
    assert token == seal(binding, 1000, 60, b"x", bytes(12)) and mrtr.inspect(token).state_id == "00" * 12
    assert raised(lambda: seal(binding, 1000, 60, b"x", bytes(24))).rule is Rule.STATE_MALFORMED


def test_a_guard_that_changes_its_ring_is_refused_and_one_that_seals_with_it_is_not() -> None:
    # A guard runs while its call holds the ring: a change of that ring from inside it (a rotation, a new
    # budget) would wait for itself. It is usage-out-of-turn, and the guard's exception reaches the host.
    r = ring(1)
    binding = mrtr.binding_for(call(), "alice")
    token = r.seal(binding, 1000, 60, b"x")

    def rotating(state_id: str, expiry: int) -> bool:
        r.add(2, "aes-256-gcm", secret=SECRET)
        return True

    e = raised(lambda: r.open(token, binding, 1001, guard=rotating), mrtr.UsageError)
    assert e.rule is Rule.USAGE_OUT_OF_TURN and r.seals(2) is None
    sealed: List[str] = []

    def sealing(state_id: str, expiry: int) -> bool:
        sealed.append(r.seal(binding, 1000, 60, b"y"))
        return True

    assert r.open(token, binding, 1001, guard=sealing).payload == b"x"
    assert r.open(sealed[0], binding, 1001).payload == b"y"
    r.add(2, "aes-256-gcm", secret=SECRET)  # after the call, the ring changes again
    assert r.seals(2) == 0


def test_a_rotation_while_a_guard_runs_on_another_thread_waits_for_it() -> None:
    # The guard's call holds the ring; a thread that rotates it meanwhile waits with the GIL released, so
    # the guard (Python, needing the GIL) finishes, and then the rotation does.
    r = ring(1)
    binding = mrtr.binding_for(call(), "alice")
    token = r.seal(binding, 1000, 60, b"x")
    entered, opened = threading.Event(), []

    def slow(state_id: str, expiry: int) -> bool:
        entered.set()
        time.sleep(0.2)  # other threads run meanwhile: the main one rotates the ring
        return True

    t = threading.Thread(target=lambda: opened.append(r.open(token, binding, 1001, guard=slow).payload))
    t.start()
    assert entered.wait(10)
    r.add(2, "aes-256-gcm", secret=SECRET)
    t.join(10)
    assert not t.is_alive() and opened == [b"x"] and r.seals(2) == 0


def test_threads_seal_and_open_while_the_ring_rotates() -> None:
    r = ring(1, 2, secret=secrets.token_bytes(32))
    binding = mrtr.binding_for(call(), "alice")

    def work(n: int) -> None:
        for i in range(200):
            if n == 0:
                assert r.set_current(1 + i % 2)
            else:
                payload = b"%d/%d" % (n, i)
                assert r.open(r.seal(binding, 1000, 60, payload), binding, 1001).payload == payload

    in_threads(work)
    assert (r.seals(1) or 0) + (r.seals(2) or 0) == 7 * 200


# --- SealedRounds --------------------------------------------------------------------------

UNITS = {"method": "roots/list"}


def test_sealed_rounds_collect_answers_across_rounds() -> None:
    rounds = mrtr.SealedRounds(ring(1))
    needs = dict(ASK, units=UNITS)
    first = rounds.resume(call(), needs, subject="alice", now=1000)
    assert first == mrtr.Round({}, ["login", "units"], [], None, 0, None, None) and not first.complete
    answer = rounds.respond(call(), first, needs, data={"step": 1}, subject="alice", now=1000)
    assert answer["result"]["resultType"] == "input_required"
    state = state_of(answer)
    partial = mrtr.retry(call(), answer, dict(ANSWER, units={"roots": []}), 2)
    second = rounds.resume(partial, needs, subject="alice", now=1001)
    assert second.complete and set(second.answers) == {"login", "units"} and second.data == {"step": 1}
    info = mrtr.inspect(state)
    assert (second.round, second.state_id, second.expiry) == (1, info.state_id, 1300)
    assert "Round(" in repr(second)
    forged = copy.deepcopy(partial)
    forged["params"]["requestState"] = state[:-4] + "AAAA"
    with pytest.raises(mrtr.StateError):
        rounds.resume(forged, needs, subject="alice", now=1001)
    assert raised(lambda: rounds.resume(partial, needs, subject="mallory", now=1001)).rule is Rule.STATE_WRONG_SUBJECT
    # A Round is a plain value in the core's wire shape: the server may build one itself.
    again = rounds.respond(call(), mrtr.Round({}, ["login"], []), needs, subject="alice", now=1000)
    assert again["result"]["inputRequests"].keys() == {"login"}
    with pytest.raises(mrtr.UsageError):
        rounds.respond(call(), 42, needs, subject="alice", now=1000)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        rounds.resume(call(), needs, subject="alice")  # type: ignore[call-arg]  # no clock, no default


def test_data_is_any_json_value_and_a_str_is_a_string() -> None:
    rounds, first = mrtr.SealedRounds(ring(1)), mrtr.Round({}, ["login"], [])
    for data in ("note", '{"not": "json text"}', 7, ["a", 1], {"k": "v"}):
        asks = rounds.respond(call(), first, ASK, data=data, subject="alice", now=1000)
        assert rounds.resume(retry(state_of(asks), {}), ASK, subject="alice", now=1001).data == data
    for bad in ({"k": {1, 2}}, {1: "an int key"}, float("nan")):
        assert raised(lambda: rounds.respond(call(), first, ASK, data=bad, subject="alice", now=1000))  # noqa: B023


def test_settings_are_checked_once_and_the_clock_is_per_call() -> None:
    # Attack: settings that held `now` made a long-lived instance seal and open at its creation time, so its
    # tokens never expired. The clock comes with every call.
    with pytest.raises(TypeError):
        mrtr.SealedRounds(ring(1), "alice", 1000, 60)  # type: ignore[misc]
    # The core reads the settings at each call: a bad one refuses every call.
    for bad in (dict(ttl=-1), dict(ttl="300"), dict(pin_answers="yes"), dict(ttl=2**40)):
        wrong = mrtr.SealedRounds(ring(1), **bad)  # type: ignore[arg-type]
        assert raised(lambda: wrong.resume(call(), ASK, subject="alice", now=1000), mrtr.UsageError)  # noqa: B023
        round_ = mrtr.Round({}, ["login"], [])
        assert raised(lambda: wrong.respond(call(), round_, ASK, subject="alice", now=1000), mrtr.UsageError)  # noqa: B023
    unknown = mrtr.SealedRounds(ring(1), protocol="1999-01-01")
    assert raised(lambda: unknown.resume(call(), ASK, subject="alice", now=1000)).rule is Rule.JSONRPC_INVALID
    rounds = mrtr.SealedRounds(ring(1), ttl=60, limits=mrtr.Limits(max_depth=64))
    answer = rounds.respond(call(), mrtr.Round({}, ["login"], []), ASK, subject="alice", now=1000)
    back = retry(state_of(answer), ANSWER)
    assert rounds.resume(back, ASK, subject="alice", now=1059).complete
    e = raised(lambda: rounds.resume(back, ASK, subject="alice", now=1060), mrtr.StateError)
    assert e.rule is Rule.STATE_EXPIRED
    # The default lifetime is the core's, 300 s.
    default = mrtr.SealedRounds(ring(1)).respond(call(), mrtr.Round({}, ["login"], []), ASK, subject="a", now=10)
    assert mrtr.inspect(state_of(default)).expiry == 310


def test_round_1_state_replayed_after_round_2_is_refused_under_a_guard() -> None:
    # Attack: round 1's state presented again after round 2 rolled the conversation back (its answers, its
    # data, its round number); a final round replayed ran its action twice.
    rounds, guard = mrtr.SealedRounds(ring(1)), memory_guard()
    needs = dict(ASK, units=UNITS)

    def resume(request: Dict[str, Any]) -> mrtr.Round:
        return rounds.resume(request, needs, subject="alice", now=1010, guard=guard)

    zero = resume(call())
    one_asks = rounds.respond(call(), zero, needs, data={"attempts": 1}, subject="alice", now=1000)
    retry_1 = retry(state_of(one_asks), ANSWER)  # the client answers only the login
    one = resume(retry_1)
    assert (one.round, one.missing, one.data) == (1, ["units"], {"attempts": 1})
    two_asks = rounds.respond(call(), one, needs, data={"attempts": 2}, subject="alice", now=1010)
    retry_2 = retry(state_of(two_asks), {"units": {"roots": []}}, id=3)
    two = resume(retry_2)
    assert (two.round, two.complete, two.data) == (2, True, {"attempts": 2})
    for replay in (retry_1, retry_2):
        e = raised(lambda: resume(replay), mrtr.StateError)  # noqa: B023
        assert e.rule is Rule.STATE_REPLAYED
    # Without a guard the rollback goes through: hosts with side effects pass one.
    assert rounds.resume(retry_1, needs, subject="alice", now=1010).data == {"attempts": 1}


def asked_then_carried(rounds: mrtr.SealedRounds, needs: Dict[str, Any], login: Dict[str, Any]) -> Dict[str, Any]:
    """Round 1 asks login and units; the client answers login only; round 2 carries login and asks units.
    The client's retry of round 2 answering units (and, if given, a new login)."""
    zero = rounds.resume(call(), needs, subject="alice", now=1000)
    asks = rounds.respond(call(), zero, needs, subject="alice", now=1000)
    one = rounds.resume(retry(state_of(asks), ANSWER), needs, subject="alice", now=1001)
    assert one.missing == ["units"] and one.answers == ANSWER
    asks_units = rounds.respond(call(), one, needs, subject="alice", now=1001)
    assert asks_units["result"]["inputRequests"].keys() == {"units"}
    return retry(state_of(asks_units), dict(login, units={"roots": []}), id=3)


def with_login(schema: Dict[str, Any], message: str = "GitHub user?") -> Dict[str, Any]:
    login = {"method": "elicitation/create", "params": {"message": message, "requestedSchema": schema}}
    return {"login": login, "units": UNITS}


NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def test_a_carried_answer_is_re_validated() -> None:
    # Attack: an answer collected under one question carried into a newer server's need it no longer fits.
    rounds = mrtr.SealedRounds(ring(1), pin_answers=False)
    back = asked_then_carried(rounds, with_login(NAME), {})
    still = rounds.resume(back, with_login(NAME), subject="alice", now=1002)
    assert still.complete and still.answers["login"] == ANSWER["login"]
    number = {"type": "object", "properties": {"name": {"type": "integer"}}, "required": ["name"]}
    upgraded = rounds.resume(back, with_login(number), subject="alice", now=1002)
    assert upgraded.missing == ["login"] and "login" not in upgraded.answers


def test_an_answer_is_pinned_to_its_question() -> None:
    # Attack: "delete 3 files?" answered yes counted for "delete 300 files?"; a client answered a question
    # never asked, or changed an earlier answer.
    rounds = mrtr.SealedRounds(ring(1))
    back = asked_then_carried(rounds, with_login(NAME), {})
    same = rounds.resume(back, with_login(NAME), subject="alice", now=1002)
    assert same.complete and same.answers["login"] == ANSWER["login"]
    reworded = with_login(NAME, message="GitHub user, with admin rights?")
    asked_again = rounds.resume(back, reworded, subject="alice", now=1002)
    assert asked_again.missing == ["login"]
    unpinned = mrtr.SealedRounds(ring(1), pin_answers=False)
    carried = unpinned.resume(asked_then_carried(unpinned, with_login(NAME), {}), reworded, subject="alice", now=1002)
    assert carried.complete  # what pinning is for
    # Round 2 asked only units: a fresh login in its retry does not replace the carried one.
    mallory = {"login": {"action": "accept", "content": {"name": "mallory"}}}
    changed = rounds.resume(asked_then_carried(rounds, with_login(NAME), mallory), with_login(NAME), subject="alice", now=1002)
    assert changed.answers["login"] == ANSWER["login"]


def test_unsealed_state_round_trips_and_refuses_garbage() -> None:
    token = mrtr.unsealed_encode(b"cursor=7")
    assert mrtr.unsealed_decode(token) == b"cursor=7"
    with pytest.raises(mrtr.StateError) as e:
        mrtr.unsealed_decode("!!!")
    assert e.value.rule is Rule.STATE_MALFORMED
