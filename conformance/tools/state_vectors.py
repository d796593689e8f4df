#!/usr/bin/env python3
"""Writes the sealed-state vectors of the corpus (conformance/cases/state/).

An independent implementation of the token format, version 2, written from
its specification text: the doc comments of core/src/sealed/state/mod.rs ("Token
format (version 2)", "Keys"), core/src/sealed/state/binding.rs ("What is bound") and
core/src/sealed/state/canonical.rs (canonical JSON, exact numbers). It runs on
Python's `cryptography` (AES-256-GCM, HKDF-SHA-256, and the AES block cipher
for XAES-256-GCM's key derivation, written here from C2SP's text and checked
against its published vectors) and PyNaCl (XChaCha20-Poly1305), with
hashlib/hmac for SHA-256 and HMAC-SHA-256: the expectations do not come from
mrtr itself.

Every case states its expected outcome by hand; the generator also opens
every `open` case with its own reader (`open_token`) and stops if the two
disagree, so a case never says what this implementation does not do.

    python3 -m venv /tmp/vec && /tmp/vec/bin/pip install cryptography pynacl
    /tmp/vec/bin/python conformance/tools/state_vectors.py
"""
import base64
import decimal
import hashlib
import hmac
import json
import os
import re
import struct
import sys

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from nacl.bindings import (
    crypto_aead_xchacha20poly1305_ietf_decrypt,
    crypto_aead_xchacha20poly1305_ietf_encrypt,
)
from nacl.exceptions import CryptoError

OUT = os.path.join(os.path.dirname(__file__), "..", "cases", "state")
TOOL = "computed by conformance/tools/state_vectors.py (cryptography + PyNaCl)"
FORMAT = 'core/src/sealed/state/mod.rs "Token format (version 2)"'
KEYS = 'core/src/sealed/state/mod.rs "Keys"'
BOUND = 'core/src/sealed/state/binding.rs "What is bound"'
EXACT = 'core/src/sealed/state/canonical.rs "exact decimal value"'
STRINGS = 'core/src/sealed/state/canonical.rs "keys sorted", "escaped as serde_json writes them"'
REPLAY = 'core/src/sealed/state/mod.rs "open_once" and RULES.md state-replayed'

# --- The format -------------------------------------------------------------

VERSION = 0x20  # high nibble 2: format version 2; low nibble: the algorithm
ALGS = {"aes-256-gcm": (1, 12), "xchacha20-poly1305": (2, 24), "xaes-256-gcm": (3, 24)}  # code, nonce bytes
BY_CODE = {code: (name, n) for name, (code, n) in ALGS.items()}
HEADER, TAGS, AEAD_TAG = 6, 16, 16
SALT = b"mrtr state v2"
RAW, ROUNDS = 0, 1  # the purpose byte: KeyRing.seal, SealedRounds
UNBOUND = ("inputResponses", "requestState", "_meta")
DEFAULT_PROTOCOL = "2026-07-28"
DEFAULT_MAX_TOKEN = 65536


def hkdf(secret, info):
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=SALT, info=info).derive(secret)


def subkeys(key):
    """The AEAD key and the tag key: HKDF-SHA-256, info "aead" / "binding tags" ‖ alg ‖ id."""
    code, _ = ALGS[key["alg"]]
    secret, ctx = bytes.fromhex(key["secret"]), bytes([code, key["id"]])
    return hkdf(secret, b"aead" + ctx), hkdf(secret, b"binding tags" + ctx)


def tag(tag_key, parts):
    """HMAC-SHA-256 over length-prefixed parts (8-byte big-endian length), first 8 bytes."""
    msg = b"".join(struct.pack(">Q", len(p)) + p for p in parts)
    return hmac.new(tag_key, msg, hashlib.sha256).digest()[:8]


# --- Canonical JSON, numbers exact --------------------------------------------


def exact_json(text):
    """Parses JSON text keeping every number exact (int or Decimal)."""
    return json.loads(text, parse_float=decimal.Decimal, parse_int=int)


def canonical_number(n):
    """`[-]DeN` from the number's decimal value (significant digits without
    leading or trailing zeros, then the power of ten), or `0`."""
    if isinstance(n, int):
        negative, digits, exponent = n < 0, str(abs(n)), 0
    else:
        t = n.as_tuple()
        negative, digits, exponent = t.sign == 1, "".join(map(str, t.digits)), t.exponent
    digits = digits.lstrip("0")
    if not digits:
        return "0"
    significant = digits.rstrip("0")
    exponent += len(digits) - len(significant)
    return ("-" if negative else "") + significant + "e" + str(exponent)


def canonical(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (int, decimal.Decimal)):
        return canonical_number(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ",".join(canonical(x) for x in v) + "]"
    if isinstance(v, dict):
        # Python orders str by code point, which is the UTF-8 byte order.
        return "{" + ",".join(canonical(k) + ":" + canonical(v[k]) for k in sorted(v)) + "}"
    raise TypeError(type(v))


def params_digest(params):
    """SHA-256 of the canonical params without the three unbound ones (null reads as {})."""
    if params is None:
        text = "{}"
    elif isinstance(params, dict):
        text = canonical({k: x for k, x in params.items() if k not in UNBOUND})
    else:
        text = canonical(params)
    return hashlib.sha256(text.encode()).digest()


# --- Bindings -----------------------------------------------------------------


def binding_text(input_):
    """The binding as JSON text: `bindingText` verbatim, or the `binding` object."""
    return input_["bindingText"] if "bindingText" in input_ else json.dumps(input_["binding"], ensure_ascii=False)


class BindingRefused(Exception):
    pass


def read_binding(text):
    """(subject tag parts, request tag parts without the key) of a binding's JSON text."""
    b = exact_json(text)
    principal, anonymous = b.get("subject"), b.get("anonymous", False) is True
    if (principal is None) == (not anonymous) or principal == "":
        raise BindingRefused("a binding names a non-empty subject or anonymous: true, not both")
    if ("params" in b) == ("paramsDigest" in b):
        raise BindingRefused("a binding has exactly one of params and paramsDigest")
    if "paramsDigest" in b and not re.fullmatch(r"[0-9a-fA-F]{64}", b["paramsDigest"]):
        raise BindingRefused("paramsDigest is 64 hex digits")
    digest = bytes.fromhex(b["paramsDigest"]) if "paramsDigest" in b else params_digest(b["params"])
    subject = [b"anonymous", b""] if anonymous else [b"subject", principal.encode()]
    request = [b"request", b.get("protocol", DEFAULT_PROTOCOL).encode(), b["method"].encode(),
               b["target"].encode(), digest]
    return subject, request


def binding_tags(tag_key, text):
    subject, request = read_binding(text)
    return tag(tag_key, subject), tag(tag_key, request)


# --- Seal and open --------------------------------------------------------------


def b64(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64(text):
    """Strict base64url without padding; None when the text is not that."""
    if not re.fullmatch(r"[A-Za-z0-9_-]*", text) or len(text) % 4 == 1:
        return None
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    return raw if b64(raw) == text else None  # unused trailing bits must be zero


def xaes_key(key, n):
    """XAES-256-GCM's key for the nonce `n` (C2SP XAES-256-GCM): with L = AES-256_K(0^128)
    and K1 = L doubled in GF(2^128) (CMAC's first subkey), K_x = AES-256_K(M1 ^ K1) ‖
    AES-256_K(M2 ^ K1), where M_i = 0x00 ‖ i ‖ "X" ‖ 0x00 ‖ n[:12]."""
    block = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    l = int.from_bytes(block.update(bytes(16)), "big") << 1
    k1 = ((l ^ 0x87 if l >> 128 else l) & (2**128 - 1)).to_bytes(16, "big")
    m = [bytes([0, i, ord("X"), 0]) + n[:12] for i in (1, 2)]
    return b"".join(block.update(bytes(a ^ b for a, b in zip(mi, k1))) for mi in m)


def aead_seal(alg, key, nonce, plaintext, aad):
    if alg == "aes-256-gcm":
        return AESGCM(key).encrypt(nonce, plaintext, aad)
    if alg == "xaes-256-gcm":
        return AESGCM(xaes_key(key, nonce)).encrypt(nonce[12:], plaintext, aad)
    return crypto_aead_xchacha20poly1305_ietf_encrypt(plaintext, aad, nonce, key)


def aead_open(alg, key, nonce, sealed, aad):
    try:
        if alg == "aes-256-gcm":
            return AESGCM(key).decrypt(nonce, sealed, aad)
        if alg == "xaes-256-gcm":
            return AESGCM(xaes_key(key, nonce)).decrypt(nonce[12:], sealed, aad)
        return crypto_aead_xchacha20poly1305_ietf_decrypt(sealed, aad, nonce, key)
    except (InvalidTag, CryptoError):
        return None


# C2SP XAES-256-GCM's published vectors (ciphertext ‖ tag): the derivation above is the spec's.
for _key, _aad, _sealed in ((b"\x01" * 32, b"", "ce546ef63c9cc60765923609b33a9a1974e96e52daf2fcf7075e2271"),
                            (b"\x03" * 32, b"c2sp.org/XAES-256-GCM",
                             "986ec1832593df5443a179437fd083bf3fdb41abd740a21f71eb769d")):
    assert aead_seal("xaes-256-gcm", _key, b"ABCDEFGHIJKLMNOPQRSTUVWX", b"XAES-256-GCM", _aad).hex() == _sealed


def seal(key, binding, now, ttl, payload, nonce, context=b"", purpose=RAW):
    """header ‖ nonce ‖ AEAD(subject tag ‖ request tag ‖ payload), AAD header ‖ purpose ‖ context."""
    code, nlen = ALGS[key["alg"]]
    assert len(nonce) == nlen and now + ttl < 2**32
    aead_key, tag_key = subkeys(key)
    subject, request = binding_tags(tag_key, binding)
    header = bytes([VERSION | code, key["id"]]) + struct.pack(">I", now + ttl)
    sealed = aead_seal(key["alg"], aead_key, nonce, subject + request + payload, header + bytes([purpose]) + context)
    return header + nonce + sealed


def open_token(input_):
    """This implementation's outcome of an `open` case, as the corpus writes it."""
    o = input_["open"]
    token, now = o["token"], o["now"]
    try:
        subject, request = read_binding(binding_text(input_))
    except BindingRefused:
        return {"error": "usage-invalid-argument"}
    if len(token.encode()) > input_.get("maxTokenBytes", DEFAULT_MAX_TOKEN):
        return {"error": "state-too-large"}
    raw = unb64(token)
    if raw is None or len(raw) < HEADER or raw[0] & 0xF0 != VERSION or raw[0] & 0x0F not in BY_CODE:
        return {"error": "state-malformed"}
    alg, nlen = BY_CODE[raw[0] & 0x0F]
    if len(raw) < HEADER + nlen + TAGS + AEAD_TAG:
        return {"error": "state-malformed"}
    keys = {k["id"]: k for k in input_["keys"]}
    key = keys.get(raw[1])
    if key is None:
        return {"error": "state-unknown-key"}
    if key["alg"] != alg:
        return {"error": "state-tampered"}
    aead_key, tag_key = subkeys(key)
    header, nonce = raw[:HEADER], raw[HEADER:HEADER + nlen]
    context = input_.get("context", "").encode()
    plain = aead_open(alg, aead_key, nonce, raw[HEADER + nlen:], header + bytes([RAW]) + context)
    if plain is None:
        return {"error": "state-tampered"}
    expiry = struct.unpack(">I", header[2:6])[0]
    if now >= expiry:
        return {"error": "state-expired"}
    if not hmac.compare_digest(plain[:8], tag(tag_key, subject)):
        return {"error": "state-wrong-subject"}
    if not hmac.compare_digest(plain[8:16], tag(tag_key, request)):
        return {"error": "state-wrong-request"}
    if nonce.hex() in o.get("used", []):
        return {"error": "state-replayed"}
    return {"payload": plain[TAGS:].decode(), "stateId": nonce.hex(), "expiry": expiry}


# --- Version 1 (mrtr 0.1), only to show it is refused ----------------------------


def seal_v1(key, binding, now, ttl, payload, nonce):
    """The version 1 format (git history of this file): tags in clear in the
    header, salt "mrtr state v1", the digest of `arguments` only."""
    code, _ = ALGS[key["alg"]]

    def kdf(info):
        return HKDF(algorithm=hashes.SHA256(), length=32, salt=b"mrtr state v1", info=info).derive(
            bytes.fromhex(key["secret"]))

    aead_key, tag_key = kdf(b"aead"), kdf(b"binding tags")
    args = json.dumps(binding.get("arguments", {}), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(args.encode()).digest()
    subject = tag(tag_key, [b"subject", binding["subject"].encode()])
    request = tag(tag_key, [b"request", binding["protocol"].encode(), binding["method"].encode(),
                            binding["target"].encode(), digest])
    header = bytes([0x10 | code, key["id"]]) + struct.pack(">I", now + ttl) + subject + request
    return header + nonce + aead_seal(key["alg"], aead_key, nonce, payload, header)


# --- The cases ------------------------------------------------------------------

K1 = {"id": 1, "alg": "aes-256-gcm", "secret": "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"}
K2 = {"id": 2, "alg": "xchacha20-poly1305", "secret": "ff" * 32}
K3 = {"id": 3, "alg": "xaes-256-gcm", "secret": "5a" * 32}
RING1 = {"keys": [K1], "current": 1}
BOTH = {"keys": [K1, K2], "current": 2}
XAES = {"keys": [K1, K3], "current": 3}
WEATHER = {"name": "get_weather", "arguments": {"location": "New York", "units": "F"}}
ALICE = {"subject": "alice", "protocol": "2026-07-28", "method": "tools/call", "target": "get_weather",
         "params": WEATHER}
PAYLOAD = json.dumps({"v": 1, "answers": {"github_login": {"action": "accept", "content": {"name": "octocat"}}},
                      "data": None}, separators=(",", ":"))
N12, N24 = bytes(range(12)), bytes(range(24))
NOW, TTL = 1000, 300


def nonce(label, n=12):
    """A distinct fixed nonce per token: no two vectors share one under a key."""
    return hashlib.sha256(label.encode()).digest()[:n]


def with_params(binding, **changes):
    params = dict(binding["params"], **changes)
    return dict(binding, params=params)


def text(binding):
    return json.dumps(binding, ensure_ascii=False)


def case(name, rules, description, source, input_, expect):
    if "open" in input_:
        actual = open_token(input_)
        assert actual == expect, f"{name}: this implementation gives {actual}, the case says {expect}"
    return name, {"id": f"state/{name}", "rules": rules, "description": f"{description} ({source}, {TOOL})",
                  "op": "state", "input": input_, "expect": expect}


def opened(token_raw, payload=PAYLOAD, expiry=NOW + TTL):
    nlen = ALGS[BY_CODE[token_raw[0] & 0x0F][0]][1]
    return {"payload": payload, "stateId": token_raw[HEADER:HEADER + nlen].hex(), "expiry": expiry}


def refused(rule):
    return {"error": rule}


def opening(token, now=1100, binding=ALICE, ring=RING1, used=None, **kw):
    o = {"token": token, "now": now}
    if used is not None:
        o["used"] = used
    input_ = dict(ring, **kw)
    if isinstance(binding, str):
        input_["bindingText"] = binding
    else:
        input_["binding"] = binding
    input_["open"] = o
    return input_


def sealing(binding, now, ttl, payload, nonce_, ring=RING1, **kw):
    input_ = dict(ring, **kw)
    if isinstance(binding, str):
        input_["bindingText"] = binding
    else:
        input_["binding"] = binding
    input_["seal"] = {"now": now, "ttl": ttl, "payload": payload, "nonce": nonce_.hex()}
    return input_


def flip(raw, i):
    return raw[:i] + bytes([raw[i] ^ 1]) + raw[i + 1:]


def cases():
    t1 = seal(K1, text(ALICE), NOW, TTL, PAYLOAD.encode(), N12)
    t2 = seal(K2, text(ALICE), NOW, TTL, PAYLOAD.encode(), N24)
    t3 = seal(K3, text(ALICE), NOW, TTL, PAYLOAD.encode(), N24)
    T1, T2, T3 = b64(t1), b64(t2), b64(t3)

    # Sealing: exact tokens.
    yield case("seal-aes-256-gcm", [], "Sealing with AES-256-GCM and a fixed nonce gives exactly this token", FORMAT,
               sealing(ALICE, NOW, TTL, PAYLOAD, N12), {"token": T1})
    yield case("seal-xchacha20-poly1305", [], "Sealing with XChaCha20-Poly1305 and a fixed nonce gives exactly this token",
               FORMAT, sealing(ALICE, NOW, TTL, PAYLOAD, N24, ring=BOTH), {"token": T2})
    yield case("seal-xaes-256-gcm", [],
               "Sealing with XAES-256-GCM (C2SP: a key per message from the nonce's first 12 bytes, AES-256-GCM "
               "under it with the last 12) and a fixed nonce gives exactly this token",
               FORMAT, sealing(ALICE, NOW, TTL, PAYLOAD, N24, ring=XAES), {"token": T3})
    yield case("seal-empty-payload", [],
               "An empty payload seals to header, nonce, the two encrypted tags and the AEAD tag: 50 bytes before base64",
               FORMAT, sealing(ALICE, 0, 1, "", N12),
               {"token": b64(seal(K1, text(ALICE), 0, 1, b"", N12))})
    assert len(seal(K1, text(ALICE), 0, 1, b"", N12)) == 50

    # Opening: the near misses of every refusal, rotation, expiry.
    yield case("open-aes-256-gcm",
               ["state-expired", "state-tampered", "state-malformed", "state-wrong-subject", "state-wrong-request"],
               "A fresh token opens for its principal and request, giving its payload, its state id (the nonce in hex) "
               "and its expiry (now + ttl at sealing): the near miss of every refusal", FORMAT,
               opening(T1), opened(t1))
    assert opened(t1)["stateId"] == N12.hex() and opened(t1)["expiry"] == NOW + TTL
    yield case("open-xchacha20-poly1305", ["state-unknown-key"],
               "A ring holding both keys opens a token of its current XChaCha20-Poly1305 key; its state id is the "
               "24-byte nonce in hex", FORMAT, opening(T2, ring=BOTH), opened(t2))
    yield case("open-xaes-256-gcm", ["state-unknown-key", "state-tampered"],
               "A ring holding an AES-256-GCM and an XAES-256-GCM key opens a token of its current XAES-256-GCM "
               "key; its state id is the 24-byte nonce in hex", FORMAT, opening(T3, ring=XAES), opened(t3))
    yield case("xaes-256-gcm-last-nonce-byte", ["state-tampered"],
               "XAES-256-GCM uses all 24 nonce bytes: the last one changed (the half AES-256-GCM runs under) fails "
               "the integrity check", FORMAT, opening(b64(flip(t3, HEADER + 23)), ring=XAES),
               refused("state-tampered"))
    yield case("xaes-256-gcm-first-nonce-byte", ["state-tampered"],
               "XAES-256-GCM uses all 24 nonce bytes: the first one changed (the half its key is derived from) fails "
               "the integrity check", FORMAT, opening(b64(flip(t3, HEADER)), ring=XAES), refused("state-tampered"))
    yield case("open-old-key-after-rotation", ["state-unknown-key"],
               "Tokens sealed under the previous key still open after the current key changed", KEYS,
               opening(T1, ring=BOTH), opened(t1))
    yield case("unknown-key", ["state-unknown-key"], "A token sealed under key 2 is refused by a ring holding only key 1",
               KEYS, opening(T2), refused("state-unknown-key"))
    yield case("expired-at-the-bound", ["state-expired"],
               "A token expires exactly at issued-at + ttl (RULES.md state-expired)", FORMAT,
               opening(T1, now=NOW + TTL), refused("state-expired"))
    yield case("one-second-before-expiry", ["state-expired"], "One second before issued-at + ttl the token still opens",
               FORMAT, opening(T1, now=NOW + TTL - 1), opened(t1))
    big_now, big_ttl = 2**32 - 1 - 60, 60
    yield case("seal-expiry-at-the-format-bound", [],
               "An expiry of 2^32 - 1 seconds, the largest the 4-byte field holds, seals", FORMAT,
               sealing(ALICE, big_now, big_ttl, "x", nonce("last second")),
               {"token": b64(seal(K1, text(ALICE), big_now, big_ttl, b"x", nonce("last second")))})
    yield case("seal-expiry-past-the-format-bound", ["usage-invalid-argument"],
               "An expiry past 2^32 - 1 seconds (after 2106) does not fit the token and is refused, never wrapped",
               FORMAT, sealing(ALICE, big_now, big_ttl + 1, "x", nonce("past the last second")),
               refused("usage-invalid-argument"))

    # The subject.
    yield case("wrong-subject", ["state-wrong-subject"],
               "A token sealed for alice is refused for mallory (001 \"Server Behavior\": bind to the user)", BOUND,
               opening(T1, binding=dict(ALICE, subject="mallory")), refused("state-wrong-subject"))
    anon = {k: v for k, v in ALICE.items() if k != "subject"}
    anon = dict(anon, anonymous=True)
    ta = seal(K1, text(anon), NOW, TTL, b"public cursor", nonce("anonymous"))
    yield case("seal-anonymous", [], "Sealing for the explicit anonymous subject gives exactly this token", FORMAT,
               sealing(anon, NOW, TTL, "public cursor", nonce("anonymous")), {"token": b64(ta)})
    yield case("open-anonymous", ["state-wrong-subject"], "A token sealed for anonymous opens for anonymous", BOUND,
               opening(b64(ta), binding=anon), opened(ta, "public cursor"))
    yield case("anonymous-is-not-a-principal-named-anonymous", ["state-wrong-subject"],
               "A token sealed for anonymous is refused for the principal named \"anonymous\"", BOUND,
               opening(b64(ta), binding=dict(ALICE, subject="anonymous")), refused("state-wrong-subject"))
    tpa = seal(K1, text(dict(ALICE, subject="anonymous")), NOW, TTL, PAYLOAD.encode(), nonce("principal anonymous"))
    yield case("a-principal-named-anonymous-is-not-anonymous", ["state-wrong-subject"],
               "A token sealed for the principal named \"anonymous\" is refused for the anonymous subject", BOUND,
               opening(b64(tpa), binding=anon), refused("state-wrong-subject"))
    yield case("alice-is-not-anonymous", ["state-wrong-subject"],
               "A token sealed for alice is refused for the anonymous subject", BOUND,
               opening(T1, binding=anon), refused("state-wrong-subject"))

    # The request: protocol, method, target, every param but three.
    yield case("wrong-tool", ["state-wrong-request"], "A token sealed for get_weather is refused for another target",
               BOUND, opening(T1, binding=dict(ALICE, target="get_forecast")), refused("state-wrong-request"))
    yield case("wrong-method", ["state-wrong-request"],
               "A token sealed for tools/call is refused for prompts/get of the same name and params", BOUND,
               opening(T1, binding=dict(ALICE, method="prompts/get")), refused("state-wrong-request"))
    yield case("wrong-protocol", ["state-wrong-request"], "A token sealed under 2026-07-28 is refused under sep-2322",
               BOUND, opening(T1, binding=dict(ALICE, protocol="sep-2322")), refused("state-wrong-request"))
    yield case("wrong-arguments", ["state-wrong-request"],
               "A token sealed for {location: New York} is refused for {location: Paris}", BOUND,
               opening(T1, binding=with_params(ALICE, arguments={"location": "Paris", "units": "F"})),
               refused("state-wrong-request"))
    reordered = dict(ALICE, params={"arguments": {"units": "F", "location": "New York"}, "name": "get_weather"})
    yield case("argument-order-is-not-a-change", ["state-wrong-request"],
               "The same params in another key order are the same request (canonical JSON digest, keys sorted)", BOUND,
               opening(T1, binding=reordered), opened(t1))
    yield case("wrong-name-param", ["state-wrong-request"],
               "Params whose name differs from the sealed one are another request, even under the same target: "
               "every param is bound, not only arguments", BOUND,
               opening(T1, binding=with_params(ALICE, name="get_forecast")), refused("state-wrong-request"))
    yield case("added-param", ["state-wrong-request"],
               "A param the sealed request did not carry (a task request) makes another request", BOUND,
               opening(T1, binding=with_params(ALICE, task={"ttl": 60000})), refused("state-wrong-request"))
    task = with_params(ALICE, task={"ttl": 60000})
    tt = seal(K1, text(task), NOW, TTL, PAYLOAD.encode(), nonce("task"))
    yield case("wrong-task-param", ["state-wrong-request"],
               "A token sealed for task {ttl: 60000} is refused for task {ttl: 86400000}: a param other than "
               "arguments changed", BOUND,
               opening(b64(tt), binding=with_params(ALICE, task={"ttl": 86400000})), refused("state-wrong-request"))
    yield case("same-task-param", ["state-wrong-request"], "The same task param opens", BOUND,
               opening(b64(tt), binding=task), opened(tt))
    nested = with_params(ALICE, arguments={"location": "New York", "units": "F", "_meta": {"v": 1}})
    tn = seal(K1, text(nested), NOW, TTL, PAYLOAD.encode(), nonce("nested _meta"))
    yield case("nested-meta-is-bound", ["state-wrong-request"],
               "Only the top-level _meta is left out: a _meta inside arguments is bound like any argument", BOUND,
               opening(b64(tn), binding=with_params(ALICE, arguments={"location": "New York", "units": "F",
                                                                       "_meta": {"v": 2}})),
               refused("state-wrong-request"))
    retry = with_params(ALICE, _meta={"progressToken": "p-1"},
                        inputResponses={"github_login": {"action": "accept", "content": {"name": "octocat"}}},
                        requestState="round-1")
    tu = seal(K1, text(retry), NOW, TTL, PAYLOAD.encode(), nonce("unbound params"))
    yield case("meta-is-not-bound", ["state-wrong-request"],
               "A token opens when only params._meta changed (the retry's metadata)", BOUND,
               opening(b64(tu), binding=with_params(retry, _meta={"progressToken": "p-2", "trace": "x"})), opened(tu))
    yield case("input-responses-are-not-bound", ["state-wrong-request"],
               "A token opens when only params.inputResponses changed (the next round's answers)", BOUND,
               opening(b64(tu), binding=with_params(retry, inputResponses={"confirm": {"action": "decline"}})),
               opened(tu))
    yield case("request-state-is-not-bound", ["state-wrong-request"],
               "A token opens when only params.requestState changed (it carries the token itself)", BOUND,
               opening(b64(tu), binding=with_params(retry, requestState="round-2")), opened(tu))
    yield case("unbound-params-absent", ["state-wrong-request"],
               "A token sealed for a retry carrying _meta, inputResponses and requestState opens for the same "
               "request without them", BOUND, opening(b64(tu), binding=ALICE), opened(tu))
    digest = params_digest(WEATHER).hex()
    by_digest = {k: v for k, v in ALICE.items() if k != "params"}
    by_digest["paramsDigest"] = digest
    yield case("open-with-params-digest", ["state-wrong-request"],
               "A binding may give the SHA-256 of the canonical params (64 hex digits) instead of the params", BOUND,
               opening(T1, binding=by_digest), opened(t1))
    yield case("wrong-params-digest", ["state-wrong-request"],
               "A params digest other than the sealed one is another request", BOUND,
               opening(T1, binding=dict(by_digest, paramsDigest=hashlib.sha256(b"{}").hexdigest())),
               refused("state-wrong-request"))
    # Bindings the op refuses: the subject is explicit, the params are given.
    no_subject = {k: v for k, v in ALICE.items() if k != "subject"}
    yield case("binding-without-subject", ["usage-invalid-argument"],
               "A binding names a subject or anonymous: true; neither is refused (a missing auth context never "
               "binds as anonymous by accident)", BOUND, opening(T1, binding=no_subject),
               refused("usage-invalid-argument"))
    yield case("binding-with-subject-and-anonymous", ["usage-invalid-argument"],
               "A binding naming both a subject and anonymous: true is refused", BOUND,
               opening(T1, binding=dict(ALICE, anonymous=True)), refused("usage-invalid-argument"))
    yield case("binding-with-empty-subject", ["usage-invalid-argument"], "An empty principal is refused", BOUND,
               opening(T1, binding=dict(ALICE, subject="")), refused("usage-invalid-argument"))
    yield case("binding-without-params", ["usage-invalid-argument"],
               "A binding gives its params or their digest: no default {}", BOUND,
               opening(T1, binding={k: v for k, v in ALICE.items() if k != "params"}),
               refused("usage-invalid-argument"))
    yield case("binding-with-params-and-digest", ["usage-invalid-argument"],
               "A binding gives exactly one of params and paramsDigest", BOUND,
               opening(T1, binding=dict(ALICE, paramsDigest=digest)), refused("usage-invalid-argument"))

    # Numbers: bound by their exact decimal value (bindingText keeps the digits).
    def numbers(n="1", z="0", big="100000000000000000000", tenth="0.1"):
        return ('{"subject": "alice", "protocol": "2026-07-28", "method": "tools/call", "target": "get_weather", '
                '"params": {"name": "get_weather", "arguments": {"n": %s, "z": %s, "big": %s, "tenth": %s}}}'
                % (n, z, big, tenth))

    tx = seal(K1, numbers(), NOW, TTL, PAYLOAD.encode(), nonce("numbers"))
    Tx = b64(tx)
    yield case("seal-exact-numbers", [],
               "Sealing a binding given as JSON text digests every number by its exact value: exactly this token",
               EXACT, sealing(numbers(), NOW, TTL, PAYLOAD, nonce("numbers")), {"token": Tx})
    for name, spelling, what in [
        ("number-1-0-binds-as-1", {"n": "1.0"}, "1.0 is the number 1"),
        ("number-1e0-binds-as-1", {"n": "1e0"}, "1e0 is the number 1"),
        ("number-10e-1-binds-as-1", {"n": "10E-1"}, "10E-1 is the number 1"),
        ("negative-zero-binds-as-zero", {"z": "-0.0"}, "-0.0 is the number 0"),
        ("number-1e20-binds-as-its-digits", {"big": "1e20"}, "1e20 is 100000000000000000000"),
        ("number-1e-1-binds-as-0-1", {"tenth": "1e-1"}, "1e-1 is 0.1"),
    ]:
        yield case(name, ["state-wrong-request"], f"A token sealed with one spelling opens for another: {what}", EXACT,
                   opening(Tx, binding=numbers(**spelling)), opened(tx))
    yield case("number-beyond-f64-is-another-request", ["state-wrong-request"],
               "100000000000000000001 is not 100000000000000000000, though both read as the same f64 (security "
               "review L1)", EXACT, opening(Tx, binding=numbers(big="100000000000000000001")),
               refused("state-wrong-request"))
    yield case("decimal-beyond-f64-is-another-request", ["state-wrong-request"],
               "0.10000000000000001 is not 0.1, though both read as the same f64", EXACT,
               opening(Tx, binding=numbers(tenth="0.10000000000000001")), refused("state-wrong-request"))

    # Strings and keys: one escaping per string, keys in code-point (UTF-8 byte) order.
    texts = {"subject": "Zoë", "protocol": "2026-07-28", "method": "tools/call", "target": "get_weather",
             "params": {"name": "get_weather",
                        "arguments": {"q": "Zürich \"Q\"\n\t\x01\x1f\x7f/\\ 😀 \u2028", "z": 1, "é": 2,
                                      "\uff61": 3, "😀": 4}}}
    ts = seal(K1, text(texts), NOW, TTL, PAYLOAD.encode(), nonce("strings"))
    yield case("seal-strings-and-key-order", [],
               "Sealing for a non-ASCII principal and params with escapes, control characters and keys outside the "
               "BMP gives exactly this token: keys sort by code point (U+FF61 before U+1F600, unlike UTF-16)",
               STRINGS, sealing(texts, NOW, TTL, PAYLOAD, nonce("strings")), {"token": b64(ts)})
    respelled = dict(texts, params={"arguments": dict(reversed(list(texts["params"]["arguments"].items()))),
                                    "name": "get_weather"})
    yield case("string-spelling-is-not-a-change", ["state-wrong-request"],
               "The same strings written with \\u escapes, in another key order, are the same request", STRINGS,
               opening(b64(ts), binding=json.dumps(respelled, ensure_ascii=True, indent=1)), opened(ts))

    # The deployment label.
    tc = seal(K1, text(ALICE), NOW, TTL, PAYLOAD.encode(), nonce("prod"), context=b"prod")
    yield case("seal-with-context", [], "Sealing under the deployment label \"prod\" gives exactly this token", FORMAT,
               sealing(ALICE, NOW, TTL, PAYLOAD, nonce("prod"), context="prod"), {"token": b64(tc)})
    yield case("open-same-context", ["state-tampered"], "A token sealed under \"prod\" opens under \"prod\"", FORMAT,
               opening(b64(tc), context="prod"), opened(tc))
    yield case("other-context", ["state-tampered"],
               "A token sealed under \"prod\" fails the AEAD under \"staging\": the label is associated data", FORMAT,
               opening(b64(tc), context="staging"), refused("state-tampered"))
    yield case("context-missing", ["state-tampered"], "A token sealed under \"prod\" fails under no label", FORMAT,
               opening(b64(tc)), refused("state-tampered"))
    yield case("context-added", ["state-tampered"], "A token sealed under no label fails under \"prod\"", FORMAT,
               opening(T1, context="prod"), refused("state-tampered"))
    tr = seal(K1, text(ALICE), NOW, TTL, PAYLOAD.encode(), nonce("rounds"), purpose=ROUNDS)
    yield case("rounds-token-is-not-a-raw-token", ["state-tampered"],
               "A token sealed with purpose 1 (SealedRounds) fails the AEAD where a raw seal (purpose 0) is opened",
               FORMAT, opening(b64(tr)), refused("state-tampered"))

    # Single use.
    yield case("replayed", ["state-replayed"],
               "A replay guard that has seen the token's state id refuses it: single use", REPLAY,
               opening(T1, used=[N12.hex()]), refused("state-replayed"))
    yield case("replayed-xchacha20-poly1305", ["state-replayed"],
               "A replay guard that has seen the 24-byte state id refuses the token", REPLAY,
               opening(T2, ring=BOTH, used=[N24.hex()]), refused("state-replayed"))
    yield case("first-use", ["state-replayed"],
               "A replay guard holding other state ids lets the token open (first use)", REPLAY,
               opening(T1, used=[nonce("another state").hex(), N24.hex()]), opened(t1))
    yield case("first-use-empty-guard", ["state-replayed"], "An empty replay guard lets the token open", REPLAY,
               opening(T1, used=[]), opened(t1))
    yield case("replay-guard-after-the-binding", ["state-wrong-subject", "state-replayed"],
               "The guard is asked only after the token opened for its binding: another principal's use is "
               "state-wrong-subject and burns nothing", REPLAY,
               opening(T1, binding=dict(ALICE, subject="mallory"), used=[N12.hex()]), refused("state-wrong-subject"))
    yield case("replay-guard-after-the-expiry", ["state-expired", "state-replayed"],
               "An expired token is state-expired, whatever the guard holds", REPLAY,
               opening(T1, now=NOW + TTL, used=[N12.hex()]), refused("state-expired"))

    # Tampering and malformed tokens.
    yield case("flipped-ciphertext-bit", ["state-tampered"], "One flipped bit of the encrypted payload fails the AEAD",
               FORMAT, opening(b64(flip(t1, 40))), refused("state-tampered"))
    yield case("flipped-expiry-bit", ["state-tampered", "state-expired"],
               "A flipped bit of the authenticated expiry is tampering, not expiry", FORMAT,
               opening(b64(flip(t1, 5))), refused("state-tampered"))
    yield case("flipped-nonce-bit", ["state-tampered"], "A flipped bit of the nonce fails the AEAD", FORMAT,
               opening(b64(flip(t1, HEADER))), refused("state-tampered"))
    yield case("flipped-subject-tag-bit", ["state-tampered", "state-wrong-subject"],
               "A flipped bit of the encrypted subject tag fails the AEAD: tampering, not another subject", FORMAT,
               opening(b64(flip(t1, HEADER + 12))), refused("state-tampered"))
    yield case("flipped-request-tag-bit", ["state-tampered", "state-wrong-request"],
               "A flipped bit of the encrypted request tag fails the AEAD: tampering, not another request", FORMAT,
               opening(b64(flip(t1, HEADER + 12 + 8))), refused("state-tampered"))
    yield case("key-of-another-algorithm", ["state-tampered", "state-unknown-key"],
               "A token naming AES-256-GCM and key 2, an XChaCha20-Poly1305 key the ring holds, fails", FORMAT,
               opening(b64(t1[:1] + bytes([2]) + t1[2:]), ring=BOTH), refused("state-tampered"))
    yield case("truncated", ["state-malformed", "state-tampered"],
               "A token cut short of header, nonce, tags and AEAD tag is malformed", FORMAT,
               opening(b64(t1[:40])), refused("state-malformed"))
    yield case("one-byte-short-of-the-overhead", ["state-malformed", "state-tampered"],
               "49 bytes are one short of the 50 an AES-256-GCM token holds at least: malformed", FORMAT,
               opening(b64(t1[:49])), refused("state-malformed"))
    yield case("cut-to-the-overhead", ["state-malformed", "state-tampered"],
               "A token cut to exactly the 50-byte overhead is read, and fails the AEAD", FORMAT,
               opening(b64(t1[:50])), refused("state-tampered"))
    yield case("truncated-tag", ["state-tampered"], "A token missing its last byte fails the AEAD", FORMAT,
               opening(b64(t1[:-1])), refused("state-tampered"))
    yield case("extended", ["state-tampered"], "A byte appended to a token fails the AEAD", FORMAT,
               opening(b64(t1 + b"\x00")), refused("state-tampered"))
    yield case("not-base64url", ["state-malformed"], "Standard base64 with padding is not the token alphabet", FORMAT,
               opening(base64.b64encode(t1).decode()), refused("state-malformed"))
    yield case("garbage", ["state-malformed"], "Text that is not base64url is malformed", FORMAT,
               opening("not a token!"), refused("state-malformed"))
    yield case("empty-token", ["state-malformed"], "The empty string is no token", FORMAT,
               opening(""), refused("state-malformed"))
    yield case("unknown-version", ["state-malformed"], "A format version other than 2 (here 3) is malformed", FORMAT,
               opening(b64(bytes([0x31]) + t1[1:])), refused("state-malformed"))
    yield case("unknown-algorithm", ["state-malformed"], "Version 2 with algorithm code 4 (none yet) is malformed", FORMAT,
               opening(b64(bytes([0x24]) + t1[1:])), refused("state-malformed"))
    v1_binding = {"subject": "alice", "protocol": "2026-07-28", "method": "tools/call", "target": "get_weather",
                  "arguments": WEATHER["arguments"]}
    v1 = seal_v1(K1, v1_binding, NOW, TTL, PAYLOAD.encode(), nonce("version 1"))
    yield case("version-1-token", ["state-malformed", "state-tampered"],
               "A valid version 1 token (mrtr 0.1: tags in clear) is refused as malformed: the client starts its "
               "call again", FORMAT, opening(b64(v1)), refused("state-malformed"))
    yield case("too-large", ["state-too-large"], "A token over the configured bound is refused before any decoding",
               FORMAT, opening(T1, maxTokenBytes=64), refused("state-too-large"))
    yield case("at-the-size-bound", ["state-too-large"], "A token exactly at the configured bound is read", FORMAT,
               opening(T1, maxTokenBytes=len(T1)), opened(t1))


def main():
    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        if old.endswith(".json"):
            os.remove(os.path.join(OUT, old))
    names = set()
    for name, c in cases():
        assert name not in names, name
        names.add(name)
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            json.dump(c, f, indent=2, ensure_ascii=False)
            f.write("\n")
    print(f"{len(names)} state vectors written to {os.path.normpath(OUT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
