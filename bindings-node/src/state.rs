//! Sealed `requestState` (`mrtr::state`) and sealed server rounds
//! (`mrtr::round`): the `KeyRing` class.

use crate::convert::{self, LimitsInput, Text};
use crate::errors::{self, guard, OrThrow, Result};
use mrtr::round::{Round, SealedRounds};
use mrtr::state::{params_digest, Algorithm, Binding, Key, KeyRing as CoreRing};
use napi::bindgen_prelude::Buffer;
use napi::bindgen_prelude::Either;
use napi_derive::napi;
use serde_json::{json, Value};

/// A key: its id (0–255), algorithm (`aes-256-gcm` or `xchacha20-poly1305`),
/// and either 32 `secret` bytes or a `master` secret to derive it from.
#[napi(object)]
pub struct KeyInput {
    /// The key id written in tokens.
    pub id: u32,
    /// `aes-256-gcm` or `xchacha20-poly1305`.
    pub algorithm: String,
    /// 32 secret bytes (`Key::new`).
    pub secret: Option<Buffer>,
    /// A master secret (`Key::derive`).
    pub master: Option<Buffer>,
}

/// What a token is bound to.
#[napi(object)]
pub struct BindingInput {
    /// The authenticated principal ("" when anonymous).
    pub subject: String,
    /// The protocol (default `2026-07-28`).
    pub protocol: Option<String>,
    /// The request's method.
    pub method: String,
    /// The tool or prompt name, or the resource URI.
    pub target: String,
    /// SHA-256 of the salient params (32 bytes); else computed from `arguments`.
    pub params_digest: Option<Buffer>,
    /// The salient params as JSON text (absent: `{}`).
    pub arguments: Option<String>,
}

/// Settings of sealed rounds (`mrtr::round::SealedRounds`).
#[napi(object)]
pub struct RoundsInput {
    /// The authenticated principal ("" when anonymous).
    pub subject: String,
    /// Seconds since the Unix epoch, from the caller's clock.
    pub now: f64,
    /// How long a round may take, in seconds (default 300).
    pub ttl: Option<u32>,
    /// The protocol of the conversation.
    pub protocol: Option<String>,
    /// Bounds on what is read.
    pub limits: Option<LimitsInput>,
}

fn key(input: KeyInput) -> Result<Key> {
    let id = u8::try_from(input.id).map_err(|_| errors::arg("a key id is 0 to 255"))?;
    let alg = Algorithm::from_name(&input.algorithm)
        .ok_or_else(|| errors::arg("a key's algorithm is \"aes-256-gcm\" or \"xchacha20-poly1305\""))?;
    match (input.secret, input.master) {
        (Some(secret), None) => {
            let secret: &[u8; 32] =
                secret.as_ref().try_into().map_err(|_| errors::arg("a key's secret is 32 bytes"))?;
            Ok(Key::new(id, alg, secret))
        }
        (None, Some(master)) => Ok(Key::derive(id, alg, &master)),
        _ => Err(errors::arg("a key has either a secret or a master secret")),
    }
}

fn seconds(n: f64) -> Result<u64> {
    if n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 {
        Ok(n as u64)
    } else {
        Err(errors::arg("a time is a non-negative integer number of seconds"))
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
    fn read(input: BindingInput) -> Result<Bound> {
        let digest = match (input.params_digest, input.arguments) {
            (Some(d), _) => d.as_ref().try_into().map_err(|_| errors::arg("a paramsDigest is 32 bytes"))?,
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

/// `state::params_digest`: SHA-256 of the canonical JSON of `salient`.
#[napi(js_name = "paramsDigest")]
pub fn digest(salient: Either<String, &[u8]>) -> Result<Buffer> {
    guard(|| Ok(params_digest(&convert::parse(convert::bytes(&salient), &mrtr::Limits::DEFAULT)?).to_vec().into()))
}

/// `Binding::for_request`: the binding of `request` for `subject`, as JSON
/// text `{subject, protocol, method, target, paramsDigest}` (digest in hex).
#[napi(js_name = "bindingFor")]
pub fn binding_for(request: Either<String, &[u8]>, subject: String, protocol: Option<String>) -> Result<String> {
    guard(|| {
        let protocol = convert::protocol(protocol.as_deref())?;
        let request = convert::parse(convert::bytes(&request), &mrtr::Limits::DEFAULT)?;
        let b = Binding::for_request(&request, &subject, protocol);
        let hex: String = b.params_digest.iter().map(|byte| format!("{byte:02x}")).collect();
        Ok(convert::text(&json!({
            "subject": b.subject, "protocol": b.protocol.name(), "method": b.method, "target": b.target, "paramsDigest": hex,
        })))
    })
}

/// The operating system's random numbers, for `SealedRounds::respond`.
struct OsRng;

impl rand_core::TryRng for OsRng {
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
        // A machine without an OS random source cannot seal: the panic is
        // caught by `guard` and thrown as MRTR_PANIC.
        getrandom::fill(dest).unwrap_or_else(|e| panic!("the operating system gave no random numbers: {e}"));
        Ok(())
    }
}

impl rand_core::TryCryptoRng for OsRng {}

/// Keys by id: seals with the current one, opens with any (`state::KeyRing`).
#[napi(js_name = "NativeKeyRing")]
pub struct KeyRing {
    inner: CoreRing,
}

#[napi]
impl KeyRing {
    /// A ring holding `current`, which seals.
    #[napi(constructor)]
    pub fn new(current: KeyInput) -> Result<KeyRing> {
        guard(|| Ok(KeyRing { inner: CoreRing::new(key(current)?) }))
    }

    /// Adds a key that opens tokens (replacing one with the same id).
    #[napi]
    pub fn add(&mut self, key: KeyInput) -> Result<()> {
        guard(|| {
            self.inner.add(self::key(key)?);
            Ok(())
        })
    }

    /// Makes the key with `id` the sealing key; false if the ring lacks it.
    #[napi]
    pub fn set_current(&mut self, id: u32) -> Result<bool> {
        guard(|| Ok(u8::try_from(id).is_ok_and(|id| self.inner.set_current(id))))
    }

    /// Drops the key with `id` (not the current one); false if it could not.
    #[napi]
    pub fn remove(&mut self, id: u32) -> Result<bool> {
        guard(|| Ok(u8::try_from(id).is_ok_and(|id| self.inner.remove(id))))
    }

    /// The bound on a token's length, checked before any decoding.
    #[napi]
    pub fn set_max_token_bytes(&mut self, max: u32) -> Result<()> {
        guard(|| {
            self.inner.set_max_token_bytes(max as usize);
            Ok(())
        })
    }

    /// Seals `payload` bound to `binding`, expiring `ttl` seconds after `now`,
    /// with the OS's random nonce (or `nonce`, for test vectors only).
    #[napi]
    pub fn seal(
        &self,
        binding: BindingInput,
        now: f64,
        ttl: u32,
        payload: Either<String, &[u8]>,
        nonce: Option<Buffer>,
    ) -> Result<String> {
        guard(|| {
            let (bound, now, payload) = (Bound::read(binding)?, seconds(now)?, convert::bytes(&payload));
            match nonce {
                Some(n) => self.inner.seal_with_nonce(&bound.binding(), now, ttl, payload, &n),
                None => self.inner.seal_os(&bound.binding(), now, ttl, payload),
            }
            .or_throw()
        })
    }

    /// Opens `token` for `binding` at `now`: the payload, or a `state-*` error.
    #[napi]
    pub fn open(&self, token: String, binding: BindingInput, now: f64) -> Result<Buffer> {
        guard(|| {
            let bound = Bound::read(binding)?;
            Ok(self.inner.open(&token, &bound.binding(), seconds(now)?).or_throw()?.into())
        })
    }

    /// `SealedRounds::resume`: JSON text `{answers, missing, ignored, data}`.
    #[napi]
    pub fn resume_round(
        &self,
        request: Either<String, &[u8]>,
        needs: Either<String, &[u8]>,
        options: RoundsInput,
    ) -> Result<String> {
        guard(|| {
            let (subject, rounds) = self.rounds_parts(&options)?;
            let rounds = SealedRounds { subject: &subject, ..rounds };
            let parse = |t: &Text<'_>| convert::parse(convert::bytes(t), &rounds.limits);
            let round = rounds.resume(&parse(&request)?, &parse(&needs)?).or_throw()?;
            Ok(convert::text(&json!({
                "answers": round.answers, "missing": round.missing, "ignored": round.ignored, "data": round.data,
            })))
        })
    }

    /// `SealedRounds::respond`: the `input_required` response asking what
    /// `round` misses and sealing what it has (and `data`), as JSON text.
    #[napi]
    pub fn respond_round(
        &self,
        request: Either<String, &[u8]>,
        round: Either<String, &[u8]>,
        needs: Either<String, &[u8]>,
        data: Option<Either<String, &[u8]>>,
        options: RoundsInput,
    ) -> Result<String> {
        guard(|| {
            let (subject, rounds) = self.rounds_parts(&options)?;
            let rounds = SealedRounds { subject: &subject, ..rounds };
            let parse = |t: &Text<'_>| convert::parse(convert::bytes(t), &rounds.limits);
            let round = round_of(parse(&round)?)?;
            let data = convert::parse_opt(data.as_ref(), &rounds.limits)?.filter(|d| !d.is_null());
            let response = rounds.respond(&parse(&request)?, &round, &parse(&needs)?, data, &mut OsRng).or_throw()?;
            Ok(convert::text(&response))
        })
    }
}

impl KeyRing {
    fn rounds_parts(&self, o: &RoundsInput) -> Result<(String, SealedRounds<'_>)> {
        let rounds = SealedRounds {
            ring: &self.inner,
            subject: "",
            now: seconds(o.now)?,
            ttl: o.ttl.unwrap_or(300),
            protocol: convert::protocol(o.protocol.as_deref())?,
            limits: convert::limits(o.limits),
        };
        Ok((o.subject.clone(), rounds))
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
