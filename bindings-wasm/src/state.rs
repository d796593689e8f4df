//! Sealed `requestState` (`mrtr::state`) and sealed server rounds
//! (`mrtr::round`): the `KeyRing` class.
//!
//! The module has no random source of its own (no `getrandom` import): every
//! call that seals takes `entropy`, bytes from the caller's CSPRNG (the
//! wrapper passes `crypto.getRandomValues`), and the core draws its nonce from
//! them through [`Entropy`].

use crate::convert::{self, LimitsInput};
use crate::errors::{self, OrThrow, Result};
use mrtr::round::{Round, SealedRounds};
use mrtr::state::{params_digest, Algorithm, Binding, Key, KeyRing as CoreRing};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

/// What a token is bound to, as JSON text
/// `{subject, protocol?, method, target, paramsDigest?, arguments?}`
/// (`paramsDigest`: 32 numbers; `arguments`: JSON text of the salient params).
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct BindingInput {
    subject: String,
    protocol: Option<String>,
    method: String,
    target: String,
    params_digest: Option<Vec<u8>>,
    arguments: Option<String>,
}

/// Settings of sealed rounds, as JSON text `{subject, now, ttl?, protocol?, limits?}`.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct RoundsInput {
    subject: String,
    now: f64,
    ttl: Option<u32>,
    protocol: Option<String>,
    limits: Option<LimitsInput>,
}

fn key(id: u32, algorithm: &str, secret: Option<Vec<u8>>, master: Option<Vec<u8>>) -> Result<Key> {
    let id = u8::try_from(id).map_err(|_| errors::arg("a key id is 0 to 255"))?;
    let alg = Algorithm::from_name(algorithm)
        .ok_or_else(|| errors::arg("a key's algorithm is \"aes-256-gcm\" or \"xchacha20-poly1305\""))?;
    match (secret, master) {
        (Some(secret), None) => {
            let secret: &[u8; 32] =
                secret.as_slice().try_into().map_err(|_| errors::arg("a key's secret is 32 bytes"))?;
            Ok(Key::new(id, alg, secret))
        }
        (None, Some(master)) => Ok(Key::derive(id, alg, &master)),
        _ => Err(errors::arg("a key has either a secret or a master secret")),
    }
}

/// The owned parts of a [`Binding`].
struct Bound {
    subject: String,
    protocol: mrtr::Protocol,
    method: String,
    target: String,
    digest: [u8; 32],
}

impl Bound {
    fn read(text: &str) -> Result<Bound> {
        let input: BindingInput = convert::settings(Some(text.to_owned()))?
            .ok_or_else(|| errors::arg("a binding is {subject, method, target, …}"))?;
        let digest = match (input.params_digest, input.arguments) {
            (Some(d), _) => d.as_slice().try_into().map_err(|_| errors::arg("a paramsDigest is 32 bytes"))?,
            (None, Some(args)) => params_digest(&convert::parse(args.as_bytes(), &mrtr::Limits::DEFAULT)?),
            (None, None) => params_digest(&json!({})),
        };
        Ok(Bound {
            protocol: convert::protocol(input.protocol.as_deref())?,
            subject: input.subject,
            method: input.method,
            target: input.target,
            digest,
        })
    }

    fn binding(&self) -> Binding<'_> {
        Binding {
            subject: &self.subject,
            protocol: self.protocol,
            method: &self.method,
            target: &self.target,
            params_digest: self.digest,
        }
    }
}

/// `state::params_digest`: SHA-256 of the canonical JSON of `salient` (JSON text).
#[wasm_bindgen(js_name = "paramsDigest")]
pub fn digest(salient: &JsValue) -> Result<Vec<u8>> {
    Ok(params_digest(&convert::parse_js(salient, &mrtr::Limits::DEFAULT)?).to_vec())
}

/// `Binding::for_request`: the binding of `request` for `subject`, as JSON
/// text `{subject, protocol, method, target, paramsDigest}` (digest in hex).
#[wasm_bindgen(js_name = "bindingFor")]
pub fn binding_for(request: &JsValue, subject: &str, protocol: Option<String>) -> Result<String> {
    let protocol = convert::protocol(protocol.as_deref())?;
    let request = convert::parse_js(request, &mrtr::Limits::DEFAULT)?;
    let b = Binding::for_request(&request, subject, protocol);
    let hex: String = b.params_digest.iter().map(|byte| format!("{byte:02x}")).collect();
    Ok(convert::text(&json!({
        "subject": b.subject, "protocol": b.protocol.name(), "method": b.method, "target": b.target, "paramsDigest": hex,
    })))
}

/// Random bytes handed in by the caller, as the core's `CryptoRng`. Drawing
/// more than was given is a bug of the binding (the wrapper passes more than
/// any nonce needs), so it panics, which surfaces as `MRTR_PANIC`.
struct Entropy<'a>(&'a [u8]);

impl rand_core::TryRng for Entropy<'_> {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> std::result::Result<u32, Self::Error> {
        let mut b = [0; 4];
        self.try_fill_bytes(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }
    fn try_next_u64(&mut self) -> std::result::Result<u64, Self::Error> {
        let mut b = [0; 8];
        self.try_fill_bytes(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> std::result::Result<(), Self::Error> {
        assert!(dest.len() <= self.0.len(), "the caller gave {} random bytes, {} needed", self.0.len(), dest.len());
        let (now, rest) = self.0.split_at(dest.len());
        dest.copy_from_slice(now);
        self.0 = rest;
        Ok(())
    }
}

impl rand_core::TryCryptoRng for Entropy<'_> {}

/// Keys by id: seals with the current one, opens with any (`state::KeyRing`).
#[wasm_bindgen(js_name = "NativeKeyRing")]
pub struct KeyRing {
    inner: CoreRing,
}

#[wasm_bindgen(js_class = "NativeKeyRing")]
impl KeyRing {
    /// A ring holding the key `id`/`algorithm` with 32 `secret` bytes or a
    /// `master` secret to derive it from; it seals.
    #[wasm_bindgen(constructor)]
    pub fn new(id: u32, algorithm: &str, secret: Option<Vec<u8>>, master: Option<Vec<u8>>) -> Result<KeyRing> {
        Ok(KeyRing { inner: CoreRing::new(key(id, algorithm, secret, master)?) })
    }

    /// Adds a key that opens tokens (replacing one with the same id).
    pub fn add(&mut self, id: u32, algorithm: &str, secret: Option<Vec<u8>>, master: Option<Vec<u8>>) -> Result<()> {
        self.inner.add(key(id, algorithm, secret, master)?);
        Ok(())
    }

    /// Makes the key with `id` the sealing key; false if the ring lacks it.
    #[wasm_bindgen(js_name = "setCurrent")]
    pub fn set_current(&mut self, id: u32) -> bool {
        u8::try_from(id).is_ok_and(|id| self.inner.set_current(id))
    }

    /// Drops the key with `id` (not the current one); false if it could not.
    pub fn remove(&mut self, id: u32) -> bool {
        u8::try_from(id).is_ok_and(|id| self.inner.remove(id))
    }

    /// The bound on a token's length, checked before any decoding.
    #[wasm_bindgen(js_name = "setMaxTokenBytes")]
    pub fn set_max_token_bytes(&mut self, max: u32) {
        self.inner.set_max_token_bytes(max as usize);
    }

    /// Seals `payload` (a string or bytes) bound to `binding` (JSON text),
    /// expiring `ttl` seconds after `now`, with a nonce drawn from `entropy`
    /// (or exactly `nonce`, for test vectors only).
    pub fn seal(
        &self,
        binding: &str,
        now: f64,
        ttl: u32,
        payload: &JsValue,
        nonce: Option<Vec<u8>>,
        entropy: Option<Vec<u8>>,
    ) -> Result<String> {
        let (bound, now, payload) = (Bound::read(binding)?, convert::whole(now, "now")?, convert::bytes(payload)?);
        match (nonce, entropy) {
            (Some(n), _) => self.inner.seal_with_nonce(&bound.binding(), now, ttl, &payload, &n),
            (None, Some(e)) => self.inner.seal(&bound.binding(), now, ttl, &payload, &mut Entropy(&e)),
            (None, None) => return Err(errors::arg("sealing needs random bytes (entropy) or a nonce")),
        }
        .or_throw()
    }

    /// Opens `token` for `binding` (JSON text) at `now`: the payload bytes, or
    /// a `state-*` error.
    pub fn open(&self, token: &str, binding: &str, now: f64) -> Result<Vec<u8>> {
        let bound = Bound::read(binding)?;
        self.inner.open(token, &bound.binding(), convert::whole(now, "now")?).or_throw()
    }

    /// `SealedRounds::resume`: JSON text `{answers, missing, ignored, data}`.
    #[wasm_bindgen(js_name = "resumeRound")]
    pub fn resume_round(&self, request: &JsValue, needs: &JsValue, options: &str) -> Result<String> {
        let (subject, rounds) = self.rounds_parts(options)?;
        let rounds = SealedRounds { subject: &subject, ..rounds };
        let parse = |t: &JsValue| convert::parse_js(t, &rounds.limits);
        let round = rounds.resume(&parse(request)?, &parse(needs)?).or_throw()?;
        Ok(convert::text(&json!({
            "answers": round.answers, "missing": round.missing, "ignored": round.ignored, "data": round.data,
        })))
    }

    /// `SealedRounds::respond`: the `input_required` response asking what
    /// `round` misses and sealing what it has (and `data`), as JSON text; the
    /// nonce is drawn from `entropy`.
    #[wasm_bindgen(js_name = "respondRound")]
    pub fn respond_round(
        &self,
        request: &JsValue,
        round: &JsValue,
        needs: &JsValue,
        data: &JsValue,
        options: &str,
        entropy: Vec<u8>,
    ) -> Result<String> {
        let (subject, rounds) = self.rounds_parts(options)?;
        let rounds = SealedRounds { subject: &subject, ..rounds };
        let parse = |t: &JsValue| convert::parse_js(t, &rounds.limits);
        let round = round_of(parse(round)?)?;
        let data = convert::parse_opt(data, &rounds.limits)?;
        let response =
            rounds.respond(&parse(request)?, &round, &parse(needs)?, data, &mut Entropy(&entropy)).or_throw()?;
        Ok(convert::text(&response))
    }
}

impl KeyRing {
    fn rounds_parts(&self, options: &str) -> Result<(String, SealedRounds<'_>)> {
        let o: RoundsInput = convert::settings(Some(options.to_owned()))?
            .ok_or_else(|| errors::arg("round options are {subject, now, …}"))?;
        let rounds = SealedRounds {
            ring: &self.inner,
            subject: "",
            now: convert::whole(o.now, "now")?,
            ttl: o.ttl.unwrap_or(300),
            protocol: convert::protocol(o.protocol.as_deref())?,
            limits: convert::limits(o.limits),
        };
        Ok((o.subject, rounds))
    }
}

/// A `Round` back from its JSON form.
fn round_of(v: Value) -> Result<Round> {
    let strings = |k: &str| -> Result<Vec<String>> {
        match v.get(k) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(a)) => a
                .iter()
                .map(|s| s.as_str().map(String::from).ok_or_else(|| errors::arg(format!("round.{k} holds strings"))))
                .collect(),
            Some(_) => Err(errors::arg(format!("round.{k} is an array of strings"))),
        }
    };
    let answers = match v.get("answers") {
        None | Some(Value::Null) => Default::default(),
        Some(Value::Object(a)) => a.clone(),
        Some(_) => return Err(errors::arg("round.answers is an object")),
    };
    let data = v.get("data").filter(|d| !d.is_null()).cloned();
    Ok(Round { answers, missing: strings("missing")?, ignored: strings("ignored")?, data })
}
