#!/usr/bin/env python3
"""Writes the sealed-state vectors of the corpus (conformance/cases/state/).

An independent implementation of the token format documented in
core/src/state.rs, on Python's `cryptography` (AES-256-GCM, HKDF, HMAC) and
PyNaCl (XChaCha20-Poly1305): the expectations do not come from mrtr itself.

    python3 -m venv /tmp/v && /tmp/v/bin/pip install cryptography pynacl
    /tmp/v/bin/python conformance/tools/state_vectors.py
"""
import base64, hashlib, hmac, json, os, struct, sys
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives import hashes
from nacl.bindings import crypto_aead_xchacha20poly1305_ietf_encrypt

OUT = os.path.join(os.path.dirname(__file__), "..", "cases", "state")
ALGS = {"aes-256-gcm": (1, 12), "xchacha20-poly1305": (2, 24)}
SOURCE = "core/src/state.rs \"Token format\", computed by conformance/tools/state_vectors.py (cryptography + PyNaCl)"


def hkdf(salt, ikm, info):
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=info).derive(ikm)


def subkeys(secret):
    return hkdf(b"mrtr state v1", secret, b"aead"), hkdf(b"mrtr state v1", secret, b"binding tags")


def tag(tag_key, parts):
    msg = b"".join(struct.pack(">Q", len(p)) + p for p in parts)
    return hmac.new(tag_key, msg, hashlib.sha256).digest()[:8]


def canonical(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def binding_tags(tag_key, b):
    digest = hashlib.sha256(canonical(b.get("arguments", {}))).digest()
    subject = tag(tag_key, [b"subject", b["subject"].encode()])
    request = tag(tag_key, [b"request", b["protocol"].encode(), b["method"].encode(), b["target"].encode(), digest])
    return subject, request


def b64(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def seal(key, binding, now, ttl, payload, nonce):
    code, nlen = ALGS[key["alg"]]
    assert len(nonce) == nlen
    aead_key, tag_key = subkeys(bytes.fromhex(key["secret"]))
    subject, request = binding_tags(tag_key, binding)
    header = bytes([0x10 | code, key["id"]]) + struct.pack(">I", now + ttl) + subject + request
    if code == 1:
        sealed = AESGCM(aead_key).encrypt(nonce, payload, header)
    else:
        sealed = crypto_aead_xchacha20poly1305_ietf_encrypt(payload, header, nonce, aead_key)
    return header + nonce + sealed


K1 = {"id": 1, "alg": "aes-256-gcm", "secret": "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"}
K2 = {"id": 2, "alg": "xchacha20-poly1305", "secret": "ff" * 32}
ALICE = {"subject": "alice", "protocol": "2026-07-28", "method": "tools/call", "target": "get_weather",
         "arguments": {"location": "New York", "units": "F"}}
PAYLOAD = json.dumps({"v": 1, "answers": {"github_login": {"action": "accept", "content": {"name": "octocat"}}}, "data": None},
                     separators=(",", ":"))
N12, N24 = bytes(range(12)), bytes(range(24))


def case(name, rules, description, input_, expect):
    return name, {"id": f"state/{name}", "rules": rules, "description": f"{description} ({SOURCE})",
                  "op": "state", "input": input_, "expect": expect}


def cases():
    t1 = seal(K1, ALICE, 1000, 300, PAYLOAD.encode(), N12)
    t2 = seal(K2, ALICE, 1000, 300, PAYLOAD.encode(), N24)
    ring1 = {"keys": [K1], "current": 1}
    both = {"keys": [K1, K2], "current": 2}
    opening = lambda token, now=1100, binding=ALICE, ring=ring1, **kw: dict(ring, binding=binding, open={"token": token, "now": now}, **kw)
    flip = lambda raw, i: raw[:i] + bytes([raw[i] ^ 1]) + raw[i + 1:]
    yield case("seal-aes-256-gcm", [], "Sealing with AES-256-GCM and a fixed nonce gives exactly this token",
               dict(ring1, binding=ALICE, seal={"now": 1000, "ttl": 300, "payload": PAYLOAD, "nonce": N12.hex()}), {"token": b64(t1)})
    yield case("seal-xchacha20-poly1305", [], "Sealing with XChaCha20-Poly1305 and a fixed nonce gives exactly this token",
               dict(both, binding=ALICE, seal={"now": 1000, "ttl": 300, "payload": PAYLOAD, "nonce": N24.hex()}), {"token": b64(t2)})
    yield case("seal-empty-payload", [], "An empty payload seals to header, nonce and tag only (50 bytes before base64)",
               dict(ring1, binding=ALICE, seal={"now": 0, "ttl": 1, "payload": "", "nonce": N12.hex()}), {"token": b64(seal(K1, ALICE, 0, 1, b"", N12))})
    yield case("open-aes-256-gcm", ["state-expired", "state-tampered", "state-malformed", "state-wrong-subject", "state-wrong-request"], "A fresh token opens for its principal and request: the near miss of every refusal",
               opening(b64(t1)), {"payload": PAYLOAD})
    yield case("open-xchacha20-poly1305", ["state-unknown-key"], "A ring holding both keys opens a token of its non-current key: rotation keeps rounds in flight",
               opening(b64(t2), ring=both), {"payload": PAYLOAD})
    yield case("open-old-key-after-rotation", ["state-unknown-key"], "Tokens sealed under the previous key still open after the current key changed",
               opening(b64(t1), ring=both), {"payload": PAYLOAD})
    yield case("unknown-key", ["state-unknown-key"], "A token sealed under key 2 is refused by a ring holding only key 1",
               opening(b64(t2)), {"error": "state-unknown-key"})
    yield case("expired-at-the-bound", ["state-expired"], "A token expires exactly at issued-at + ttl (RULES.md state-expired)",
               opening(b64(t1), now=1300), {"error": "state-expired"})
    yield case("one-second-before-expiry", ["state-expired"], "One second before issued-at + ttl the token still opens",
               opening(b64(t1), now=1299), {"payload": PAYLOAD})
    yield case("wrong-subject", ["state-wrong-subject"], "A token sealed for alice is refused for mallory (001 \"Server Behavior\": bind to the user)",
               opening(b64(t1), binding=dict(ALICE, subject="mallory")), {"error": "state-wrong-subject"})
    yield case("wrong-tool", ["state-wrong-request"], "A token sealed for get_weather is refused for another tool",
               opening(b64(t1), binding=dict(ALICE, target="get_forecast")), {"error": "state-wrong-request"})
    yield case("wrong-arguments", ["state-wrong-request"], "A token sealed for {location: New York} is refused for {location: Paris}",
               opening(b64(t1), binding=dict(ALICE, arguments={"location": "Paris", "units": "F"})), {"error": "state-wrong-request"})
    yield case("wrong-protocol", ["state-wrong-request"], "A token sealed under 2026-07-28 is refused under sep-2322",
               opening(b64(t1), binding=dict(ALICE, protocol="sep-2322")), {"error": "state-wrong-request"})
    yield case("argument-order-is-not-a-change", ["state-wrong-request"], "The same arguments in another key order are the same request (canonical JSON digest)",
               opening(b64(t1), binding=dict(ALICE, arguments={"units": "F", "location": "New York"})), {"payload": PAYLOAD})
    yield case("flipped-ciphertext-bit", ["state-tampered"], "One flipped bit of the ciphertext fails the AEAD tag",
               opening(b64(flip(t1, 40))), {"error": "state-tampered"})
    yield case("flipped-expiry-bit", ["state-tampered", "state-expired"], "A flipped bit of the authenticated expiry is tampering, not expiry",
               opening(b64(flip(t1, 5))), {"error": "state-tampered"})
    yield case("flipped-subject-tag-bit", ["state-tampered", "state-wrong-subject"], "A flipped bit of the authenticated subject tag is tampering",
               opening(b64(flip(t1, 7))), {"error": "state-tampered"})
    yield case("truncated", ["state-malformed", "state-tampered"], "A token cut short of header, nonce and tag is malformed",
               opening(b64(t1[:40])), {"error": "state-malformed"})
    yield case("truncated-tag", ["state-tampered"], "A token missing its last byte fails the AEAD",
               opening(b64(t1[:-1])), {"error": "state-tampered"})
    yield case("extended", ["state-tampered"], "A byte appended to a token fails the AEAD",
               opening(b64(t1 + b"\x00")), {"error": "state-tampered"})
    yield case("not-base64url", ["state-malformed"], "Standard base64 with padding is not the token alphabet",
               opening(base64.b64encode(t1).decode()), {"error": "state-malformed"})
    yield case("garbage", ["state-malformed"], "Text that is not base64url is malformed", opening("not a token!"), {"error": "state-malformed"})
    yield case("unknown-version", ["state-malformed"], "A format version other than 1 is malformed",
               opening(b64(bytes([0x21]) + t1[1:])), {"error": "state-malformed"})
    yield case("too-large", ["state-too-large"], "A token over the configured bound is refused before any decoding",
               opening(b64(t1), maxTokenBytes=64), {"error": "state-too-large"})
    yield case("at-the-size-bound", ["state-too-large"], "A token exactly at the configured bound is read",
               opening(b64(t1), maxTokenBytes=len(b64(t1))), {"payload": PAYLOAD})


def main():
    os.makedirs(OUT, exist_ok=True)
    n = 0
    for name, c in cases():
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            json.dump(c, f, indent=2, ensure_ascii=False)
            f.write("\n")
        n += 1
    print(f"{n} state vectors written to {os.path.normpath(OUT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
