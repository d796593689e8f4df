//! `mrtr_node`: the native half of the npm package `mrtr`, a line or two per
//! export over [`mrtr::facade`].
//!
//! The same functions, classes and conventions as the wasm backend
//! (`bindings-wasm/src/lib.rs`), so that one JavaScript module
//! (`lib/api.mjs`) drives either:
//! - JSON text in, as a string or UTF-8 bytes (a `Buffer`/`Uint8Array`, read
//!   in place); options as the JSON text of `{protocol, limits, maxRounds}`;
//!   JSON text out (`classify` alone answers a packed string, see `mrtr::facade::classify_packed`);
//! - randomness for sealing comes from the caller (bytes from
//!   `crypto.getRandomValues`), as in a page;
//! - every failure is a JS `Error` whose `code` is the rule id and whose
//!   message is the core's; a panic is caught and thrown the same way, as
//!   `internal-panic` ([`facade::panic_error`]).

use mrtr::facade::{self, Options, Randomness};
use mrtr::state::KeyRing as Ring;
use mrtr::RuleId;
use napi::bindgen_prelude::{Buffer, Either};
use napi_derive::napi;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// JSON text: a string, or UTF-8 bytes.
#[napi]
pub type Text<'a> = Either<String, &'a [u8]>;

fn bytes<'t>(text: &'t Text<'_>) -> &'t [u8] {
    match text {
        Either::A(s) => s.as_bytes(),
        Either::B(b) => b,
    }
}

fn options(text: Option<String>) -> mrtr::Result<Options> {
    text.map_or(Ok(Options::default()), |t| Options::from_json(t.as_bytes()))
}

/// The `code` of a thrown error: the rule id.
pub struct Code(RuleId);

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        self.0.name()
    }
}

/// What every export returns.
pub type Result<T> = std::result::Result<T, napi::Error<Code>>;

/// Runs `f`, a panic becoming `internal-panic`, and a core error the thrown `Error`.
fn run<T>(f: impl FnOnce() -> mrtr::Result<T>) -> Result<T> {
    let out = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| Err(facade::panic_error(&*p)));
    out.map_err(|e| napi::Error::new(Code(e.rule()), e.message()))
}

/// The tables (`facade::catalogue`): rules, areas, protocols, kinds, limits, ….
#[napi]
pub fn catalogue() -> String {
    facade::catalogue()
}

/// Classifies one raw message: what it found, packed into one string (`mrtr::facade::classify_packed`).
#[napi]
pub fn classify(text: Text, options: Option<String>) -> Result<String> {
    run(|| facade::classify_packed(bytes(&text), &self::options(options)?))
}

/// `facade::check`: the violations of a transcript, as JSON text.
#[napi]
pub fn check(transcript: Text, options: Option<String>) -> Result<String> {
    run(|| facade::check(bytes(&transcript), &self::options(options)?))
}

/// `facade::retry`.
#[napi]
pub fn retry(request: Text, result: Text, responses: Text, id: Text, options: Option<String>) -> Result<String> {
    run(|| facade::retry(bytes(&request), bytes(&result), bytes(&responses), bytes(&id), &self::options(options)?))
}

/// `facade::task_update`.
#[napi]
pub fn task_update(get: Text, got: Text, responses: Text, id: Text, options: Option<String>) -> Result<String> {
    run(|| facade::task_update(bytes(&get), bytes(&got), bytes(&responses), bytes(&id), &self::options(options)?))
}

/// `facade::respond` (`undefined`: the field is left out).
#[napi]
pub fn respond(request: Text, asked: Option<Text>, state: Option<Text>, options: Option<String>) -> Result<String> {
    let (asked, state) = (asked.as_ref().map(bytes), state.as_ref().map(bytes));
    run(|| facade::respond(bytes(&request), asked, state, &self::options(options)?))
}

/// `facade::resume`.
#[napi]
pub fn resume(request: Text, needs: Text, options: Option<String>) -> Result<String> {
    run(|| facade::resume(bytes(&request), bytes(&needs), &self::options(options)?))
}

/// `facade::task_transition`.
#[napi]
pub fn task_transition(from: String, to: String) -> Result<&'static str> {
    run(|| facade::task_transition(&from, &to))
}

/// `facade::binding_for`.
#[napi]
pub fn binding_for(request: Text, subject: String, protocol: Option<String>) -> Result<String> {
    run(|| facade::binding_for(bytes(&request), &subject, protocol.as_deref()))
}

/// `facade::params_digest`.
#[napi]
pub fn params_digest(salient: Text) -> Result<Buffer> {
    run(|| facade::params_digest(bytes(&salient)).map(|d| d.to_vec().into()))
}

/// `facade::Checker`.
#[napi]
pub struct Checker(facade::Checker);

#[napi]
impl Checker {
    /// A checker with the options.
    #[napi(constructor)]
    pub fn new(options: Option<String>) -> Result<Checker> {
        run(|| Ok(Checker(facade::Checker::new(&self::options(options)?))))
    }

    /// Checks one entry.
    #[napi]
    pub fn handle(&mut self, entry: Text) -> Result<()> {
        run(|| self.0.handle(bytes(&entry)))
    }

    /// The violations so far, as JSON text.
    #[napi]
    pub fn violations(&self) -> Result<String> {
        run(|| Ok(self.0.violations()))
    }
}

/// `facade::Client`: the client's retry machine.
#[napi]
pub struct Client(facade::Client);

#[napi]
impl Client {
    /// A machine with the options.
    #[napi(constructor)]
    pub fn new(options: Option<String>) -> Result<Client> {
        run(|| Ok(Client(facade::Client::new(&self::options(options)?))))
    }

    /// Starts a request: its handle.
    #[napi]
    pub fn send(&mut self, request: Text) -> Result<f64> {
        run(|| self.0.send(bytes(&request)).map(|h| h as f64))
    }

    /// Takes a response message.
    #[napi]
    pub fn handle_response(&mut self, response: Text) -> Result<()> {
        run(|| self.0.handle_response(bytes(&response)))
    }

    /// Answers the input requests of `handle`; queues the retry under `id`.
    #[napi]
    pub fn answer(&mut self, handle: f64, responses: Text, id: Text) -> Result<()> {
        run(|| self.0.answer(facade::handle(handle)?, bytes(&responses), bytes(&id)))
    }

    /// Gives up on `handle`.
    #[napi]
    pub fn abandon(&mut self, handle: f64) -> Result<()> {
        run(|| {
            self.0.abandon(facade::handle(handle)?);
            Ok(())
        })
    }

    /// The next message to send, as JSON text, or `null`.
    #[napi]
    pub fn poll_transmit(&mut self) -> Result<Option<String>> {
        run(|| Ok(self.0.poll_transmit()))
    }

    /// The next event, as JSON text, or `null`.
    #[napi]
    pub fn poll_event(&mut self) -> Result<Option<String>> {
        run(|| Ok(self.0.poll_event()))
    }
}

/// `state::KeyRing` with the facade's sealed-state functions.
#[napi]
pub struct KeyRing(Ring);

#[napi]
impl KeyRing {
    /// A ring holding the key (`facade::key`), which seals.
    #[napi(constructor)]
    pub fn new(id: f64, algorithm: String, secret: Option<&[u8]>, master: Option<&[u8]>) -> Result<KeyRing> {
        run(|| Ok(KeyRing(Ring::new(facade::key(id as i64, &algorithm, secret, master)?))))
    }

    /// Adds a key that opens tokens.
    #[napi]
    pub fn add(&mut self, id: f64, algorithm: String, secret: Option<&[u8]>, master: Option<&[u8]>) -> Result<()> {
        run(|| {
            self.0.add(facade::key(id as i64, &algorithm, secret, master)?);
            Ok(())
        })
    }

    /// Makes the key with `id` the sealing key; false if the ring lacks it.
    #[napi]
    pub fn set_current(&mut self, id: f64) -> Result<bool> {
        run(|| Ok(u8::try_from(id as i64).is_ok_and(|id| self.0.set_current(id))))
    }

    /// Drops the key with `id` (not the current one); false if it could not.
    #[napi]
    pub fn remove(&mut self, id: f64) -> Result<bool> {
        run(|| Ok(u8::try_from(id as i64).is_ok_and(|id| self.0.remove(id))))
    }

    /// The bound on a token's length.
    #[napi]
    pub fn set_max_token_bytes(&mut self, max: f64) -> Result<()> {
        run(|| {
            self.0.set_max_token_bytes(max as usize);
            Ok(())
        })
    }

    /// `facade::seal`.
    #[napi]
    pub fn seal(
        &self,
        binding: Text,
        now: f64,
        ttl: f64,
        payload: Text,
        nonce: Option<&[u8]>,
        random: &[u8],
    ) -> Result<String> {
        let (binding, payload) = (bytes(&binding), bytes(&payload));
        run(|| facade::seal(&self.0, binding, now as u64, ttl as u32, payload, nonce, Randomness::Bytes(random)))
    }

    /// `facade::open`: the payload.
    #[napi]
    pub fn open(&self, token: Text, binding: Text, now: f64) -> Result<Buffer> {
        run(|| facade::open(&self.0, bytes(&token), bytes(&binding), now as u64).map(Buffer::from))
    }

    /// `facade::resume_round`.
    #[napi]
    pub fn resume_round(&self, request: Text, needs: Text, options: String) -> Result<String> {
        run(|| facade::resume_round(&self.0, bytes(&request), bytes(&needs), options.as_bytes()))
    }

    /// `facade::respond_round`.
    #[napi]
    pub fn respond_round(
        &self,
        request: Text,
        round: Text,
        needs: Text,
        data: Option<Text>,
        options: String,
        random: &[u8],
    ) -> Result<String> {
        let (request, round, needs) = (bytes(&request), bytes(&round), bytes(&needs));
        let data = data.as_ref().map(bytes);
        run(|| {
            facade::respond_round(&self.0, request, round, needs, data, options.as_bytes(), Randomness::Bytes(random))
        })
    }
}

/// Panics on purpose: the tests show a panic reaching JavaScript as a
/// `PanicError`, never an abort. Not part of the API.
#[napi(js_name = "__panicForTests")]
pub fn panic_for_tests() -> Result<()> {
    run(|| panic!("a panic raised on purpose by __panicForTests"))
}
