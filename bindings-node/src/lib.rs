//! `mrtr_node`: the native half of the npm package `mrtr`, a line or two per
//! export over [`mrtr::facade`].
//!
//! The same functions, classes and conventions as the wasm backend
//! (`bindings-wasm/src/lib.rs`), so that one JavaScript module
//! (`lib/api.mjs`) drives either:
//! - JSON text in, as a string or UTF-8 bytes (a `Buffer`/`Uint8Array`, read
//!   in place); options as the JSON text of `{protocol, limits, maxRounds,
//!   transport}`; times, exchange numbers and counts as JS numbers (whole,
//!   below 2^53, checked here); JSON text out (`classify` alone answers a
//!   packed string, see `mrtr::facade::classify_packed`);
//! - randomness for sealing comes from the caller (bytes from
//!   `crypto.getRandomValues`), as in a page; no export takes a nonce, but
//!   for the corpus's test vectors `sealWithNonceForTestVectors`, which
//!   exists only with the cargo feature `test-vectors` (test builds:
//!   `tools/build.sh --test-vectors`; never the packaged addon);
//! - a replay guard is a JS function `(stateId, expiry) => boolean`, called
//!   synchronously from the core through a closure that fails closed: when it
//!   throws, the core refuses the state (`state-replayed`) and the guard's
//!   exception is thrown again once the core has returned;
//! - every failure is a JS `Error` whose `code` is the rule id and whose
//!   message is the core's; a panic is caught and thrown the same way, as
//!   `internal-panic` ([`facade::panic_error`]); but the checks whose refusal
//!   carries `data`, which such an `Error` cannot (`checkRequest`,
//!   `requireCapabilities`, `requireDeclared`), answer `null` when they pass
//!   and the refusal as JSON text otherwise ([`facade::error_json`]), for
//!   `lib/api.mjs` to throw with its `data`.

use mrtr::facade::{self, Options, Randomness};
use mrtr::state::{KeyRing as Ring, ReplayGuard, StateId};
use mrtr::RuleId;
use napi::bindgen_prelude::{Buffer, Either, FnArgs, Function, Unknown};
use napi::{Env, Status};
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

/// The `code` of a thrown error: the rule id; or none, when the error is a
/// JavaScript exception already thrown (a replay guard's).
pub enum Code {
    /// A core error: its rule id.
    Rule(RuleId),
    /// An exception is pending: napi-rs leaves it as it is.
    Pending,
}

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        match self {
            Code::Rule(rule) => rule.name(),
            Code::Pending => Status::PendingException.as_ref(),
        }
    }
}

/// What every export returns.
pub type Result<T> = std::result::Result<T, napi::Error<Code>>;

/// Runs `f`, a panic becoming `internal-panic`, and a core error the thrown `Error`.
fn run<T>(f: impl FnOnce() -> mrtr::Result<T>) -> Result<T> {
    let out = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| Err(facade::panic_error(&*p)));
    out.map_err(|e| napi::Error::new(Code::Rule(e.rule()), e.message()))
}

/// A replay guard from JavaScript: `(stateId: string, expiry: number) => boolean`.
#[napi]
pub type JsGuard<'f> = Function<'f, FnArgs<(String, f64)>, Either<bool, Unknown<'f>>>;

/// Runs `f` under the JavaScript `guard`, wrapped in a closure that fails
/// closed: when the guard throws, or answers anything but a boolean, the
/// closure answers false (not a first use) and keeps what happened; after the
/// core returns, the guard's own exception is thrown again as it was.
fn guarded<T>(
    env: &Env,
    guard: Option<JsGuard<'_>>,
    f: impl FnOnce(Option<&mut dyn ReplayGuard>) -> mrtr::Result<T>,
) -> Result<T> {
    let Some(js) = guard else { return run(|| f(None)) };
    let mut thrown = None;
    let mut not_boolean = false;
    let out = {
        let mut closure = |id: &StateId, expiry: u64| match js.call((id.to_string(), expiry as f64).into()) {
            Ok(Either::A(first_use)) => first_use,
            Ok(Either::B(_)) => {
                not_boolean = true;
                false
            }
            Err(e) => {
                thrown = Some(e);
                false
            }
        };
        run(|| f(Some(&mut closure)))
    };
    if let Some(e) = thrown {
        // napi-rs caught the guard's exception and holds a reference to it:
        // throw that very value again, and tell napi-rs one is pending. (A
        // thrown primitive cannot be referenced before Node-API 10: napi-rs
        // then holds an Error in its place; lib/api.mjs throws the guard's
        // own value again itself either way.)
        return match env.throw(e) {
            Ok(()) => Err(napi::Error::new(Code::Pending, "")),
            Err(e) => Err(napi::Error::new(Code::Rule(RuleId::InternalPanic), e.reason)),
        };
    }
    if not_boolean {
        let message = "the replay guard answers true (a first use) or false, synchronously: not a promise";
        return Err(napi::Error::new(Code::Rule(RuleId::UsageInvalidArgument), message));
    }
    out
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

/// `facade::binding_for`: the subject is a principal or, explicitly, anonymous.
#[napi]
pub fn binding_for(
    request: Text,
    subject: Option<String>,
    anonymous: bool,
    protocol: Option<String>,
) -> Result<String> {
    run(|| facade::binding_for(bytes(&request), subject.as_deref(), anonymous, protocol.as_deref()))
}

/// `facade::params_digest`: of a request's params, as JSON text.
#[napi]
pub fn params_digest(params: Text) -> Result<Buffer> {
    run(|| facade::params_digest(bytes(&params)).map(|d| d.to_vec().into()))
}

/// `facade::inspect`: `{stateId, keyId, algorithm, expiry}` of a token, as JSON text.
#[napi]
pub fn inspect(token: Text) -> Result<String> {
    run(|| facade::inspect(bytes(&token)))
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

/// A time, an exchange number or a count from JavaScript: a non-negative
/// integer below 2^53, or `usage-invalid-argument`.
fn whole(n: f64, what: &str) -> mrtr::Result<u64> {
    if (0.0..=9_007_199_254_740_991.0).contains(&n) && n.fract() == 0.0 {
        Ok(n as u64)
    } else {
        Err(mrtr::Error::with(RuleId::UsageInvalidArgument, format!("{what} is a non-negative integer")))
    }
}

/// An HTTP status from JavaScript.
fn status(n: f64) -> mrtr::Result<u16> {
    u16::try_from(whole(n, "a status")?)
        .map_err(|_| mrtr::Error::with(RuleId::UsageInvalidArgument, "a status is below 65536".into()))
}

/// Header fields as JSON text (`{name: value}`), absent: none.
fn fields<'t>(headers: &'t Option<Text<'_>>) -> &'t [u8] {
    headers.as_ref().map_or(&[], bytes)
}

/// `facade::SseDecoder`: the incremental event-stream decoder.
#[napi]
pub struct SseDecoder(facade::SseDecoder);

#[napi]
impl SseDecoder {
    /// A decoder under the options' limits.
    #[napi(constructor)]
    pub fn new(options: Option<String>) -> Result<SseDecoder> {
        run(|| Ok(SseDecoder(facade::SseDecoder::new(&self::options(options)?))))
    }

    /// Decodes the next bytes of the stream.
    #[napi]
    pub fn feed(&mut self, chunk: Text) -> Result<()> {
        run(|| {
            self.0.feed(bytes(&chunk));
            Ok(())
        })
    }

    /// Ends the stream.
    #[napi]
    pub fn finish(&mut self) -> Result<()> {
        run(|| {
            self.0.finish();
            Ok(())
        })
    }

    /// The next block as JSON text, `null`, or the error of an unreadable block.
    #[napi]
    pub fn poll_event(&mut self) -> Result<Option<String>> {
        run(|| self.0.poll_event().transpose())
    }
}

/// `facade::sse_encode`: one block as event-stream text.
#[napi]
pub fn sse_encode(event: Text) -> Result<String> {
    run(|| facade::sse_encode(bytes(&event)))
}

/// `facade::HttpCall`: the client machine of one call over HTTP.
#[napi]
pub struct HttpCall(facade::HttpCall);

#[napi]
impl HttpCall {
    /// Starts `request` under the configuration (JSON text).
    #[napi(constructor)]
    pub fn new(config: Text, request: Text, now: f64) -> Result<HttpCall> {
        run(|| Ok(HttpCall(facade::HttpCall::new(bytes(&config), bytes(&request), whole(now, "now")?)?)))
    }

    /// The status and header fields (JSON text) of the response to `exchange`.
    #[napi]
    pub fn handle_head(&mut self, exchange: f64, status: f64, headers: Option<Text>, now: f64) -> Result<()> {
        run(|| {
            let (x, s, t) = (whole(exchange, "an exchange")?, self::status(status)?, whole(now, "now")?);
            self.0.handle_head(x, s, fields(&headers), t)
        })
    }

    /// Bytes of the body of the response to `exchange`.
    #[napi]
    pub fn handle_body(&mut self, exchange: f64, chunk: Text, now: f64) -> Result<()> {
        run(|| self.0.handle_body(whole(exchange, "an exchange")?, bytes(&chunk), whole(now, "now")?))
    }

    /// The response to `exchange` ended.
    #[napi]
    pub fn handle_end(&mut self, exchange: f64, now: f64) -> Result<()> {
        run(|| self.0.handle_end(whole(exchange, "an exchange")?, whole(now, "now")?))
    }

    /// The time `pollTimeout` named came.
    #[napi]
    pub fn handle_timeout(&mut self, now: f64) -> Result<()> {
        run(|| {
            self.0.handle_timeout(whole(now, "now")?);
            Ok(())
        })
    }

    /// The host's JSON-RPC response to a reported server request.
    #[napi]
    pub fn answer(&mut self, response: Text, now: f64) -> Result<()> {
        run(|| self.0.answer(bytes(&response), whole(now, "now")?))
    }

    /// The next HTTP request to send, as JSON text, or `null`.
    #[napi]
    pub fn poll_transmit(&mut self) -> Result<Option<String>> {
        run(|| Ok(self.0.poll_transmit()))
    }

    /// The next event, as JSON text, or `null`.
    #[napi]
    pub fn poll_event(&mut self) -> Result<Option<String>> {
        run(|| Ok(self.0.poll_event()))
    }

    /// When to call `handleTimeout` (ms), or `null`.
    #[napi]
    pub fn poll_timeout(&self) -> Result<Option<f64>> {
        run(|| Ok(self.0.poll_timeout().map(|t| t as f64)))
    }

    /// Whether the call is over.
    #[napi]
    pub fn is_done(&self) -> Result<bool> {
        run(|| Ok(self.0.is_done()))
    }
}

/// `facade::Operation`: one client operation over HTTP, in any transport mode.
#[napi]
pub struct Operation(facade::Operation);

#[napi]
impl Operation {
    /// Starts `request` under the configuration (JSON text).
    #[napi(constructor)]
    pub fn new(config: Text, request: Text, now: f64) -> Result<Operation> {
        run(|| Ok(Operation(facade::Operation::new(bytes(&config), bytes(&request), whole(now, "now")?)?)))
    }

    /// The status and header fields (JSON text) of the response to `exchange`.
    #[napi]
    pub fn handle_head(&mut self, exchange: f64, status: f64, headers: Option<Text>, now: f64) -> Result<()> {
        run(|| {
            let (x, s, t) = (whole(exchange, "an exchange")?, self::status(status)?, whole(now, "now")?);
            self.0.handle_head(x, s, fields(&headers), t)
        })
    }

    /// Bytes of the body of the response to `exchange`.
    #[napi]
    pub fn handle_body(&mut self, exchange: f64, chunk: Text, now: f64) -> Result<()> {
        run(|| self.0.handle_body(whole(exchange, "an exchange")?, bytes(&chunk), whole(now, "now")?))
    }

    /// The response to `exchange` ended.
    #[napi]
    pub fn handle_end(&mut self, exchange: f64, now: f64) -> Result<()> {
        run(|| self.0.handle_end(whole(exchange, "an exchange")?, whole(now, "now")?))
    }

    /// The time `pollTimeout` named came.
    #[napi]
    pub fn handle_timeout(&mut self, now: f64) -> Result<()> {
        run(|| {
            self.0.handle_timeout(whole(now, "now")?);
            Ok(())
        })
    }

    /// Answers the question `key` with `result` (JSON text).
    #[napi]
    pub fn answer(&mut self, key: String, result: Text, now: f64) -> Result<()> {
        run(|| self.0.answer(&key, bytes(&result), whole(now, "now")?))
    }

    /// The next HTTP request to send, as JSON text, or `null`.
    #[napi]
    pub fn poll_transmit(&mut self) -> Result<Option<String>> {
        run(|| Ok(self.0.poll_transmit()))
    }

    /// The next event, as JSON text, or `null`.
    #[napi]
    pub fn poll_event(&mut self) -> Result<Option<String>> {
        run(|| Ok(self.0.poll_event()))
    }

    /// When to call `handleTimeout` (ms), or `null`.
    #[napi]
    pub fn poll_timeout(&self) -> Result<Option<f64>> {
        run(|| Ok(self.0.poll_timeout().map(|t| t as f64)))
    }

    /// Whether the final event was taken and no exchange is open.
    #[napi]
    pub fn is_drained(&self) -> Result<bool> {
        run(|| Ok(self.0.is_drained()))
    }
}

/// `facade::ServerStream`: a server's response stream.
#[napi]
pub struct ServerStream(facade::ServerStream);

#[napi]
impl ServerStream {
    /// A stream of `mode` for the continuation `key`, numbering events from `first`.
    #[napi(constructor)]
    pub fn new(mode: String, key: String, first: f64) -> Result<ServerStream> {
        run(|| Ok(ServerStream(facade::ServerStream::new(&mode, &key, whole(first, "first")?)?)))
    }

    /// The response head's fields as JSON text.
    #[napi]
    pub fn head(&self, stream_url: Option<String>) -> Result<String> {
        run(|| Ok(self.0.head(stream_url.as_deref())))
    }

    /// Writes a JSON-RPC message as an event; its id.
    #[napi]
    pub fn message(&mut self, message: Text) -> Result<String> {
        run(|| self.0.message(bytes(&message)))
    }

    /// Writes a `retry` block; its id.
    #[napi]
    pub fn retry(&mut self, ms: f64) -> Result<String> {
        run(|| self.0.retry(whole(ms, "retry")?))
    }

    /// Writes the mode's asking sequence for `requests` (a JSON array); the last id.
    #[napi]
    pub fn ask(&mut self, requests: Text, retry_ms: f64) -> Result<String> {
        run(|| self.0.ask(bytes(&requests), whole(retry_ms, "retryMs")?))
    }

    /// The text written since the last `take`.
    #[napi]
    pub fn take(&mut self) -> Result<String> {
        run(|| Ok(self.0.take()))
    }
}

/// `facade::read_http_request`: what an incoming HTTP request asks, as JSON text.
#[napi]
pub fn read_http_request(
    mode: String,
    method: String,
    url: String,
    headers: Option<Text>,
    body: Text,
    options: Option<String>,
) -> Result<String> {
    run(|| facade::read_http_request(&mode, &method, &url, fields(&headers), bytes(&body), &self::options(options)?))
}

/// `facade::stream_url`: the `rel="stream"` URL of a continuation.
#[napi]
pub fn stream_url(endpoint: String, key: String) -> Result<String> {
    run(|| facade::stream_url(&endpoint, &key))
}

/// `facade::mirrored_fields`: the header fields that mirror a request's body, as JSON text.
#[napi]
pub fn mirrored_fields(request: Text) -> Result<String> {
    run(|| facade::mirrored_fields(bytes(&request)))
}

/// `facade::unassociated_reply`: the answer to a server request outside any call, as JSON text, or `null`.
#[napi]
pub fn unassociated_reply(request: Text) -> Result<Option<String>> {
    run(|| facade::unassociated_reply(bytes(&request)))
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

    /// The deployment label of every token (`KeyRing::set_context`, at most 64 bytes).
    #[napi]
    pub fn set_context(&mut self, label: Text) -> Result<()> {
        run(|| self.0.set_context(bytes(&label)))
    }

    /// How many seals each key may make in this process (`KeyRing::set_seal_budget`).
    #[napi]
    pub fn set_seal_budget(&mut self, seals: f64) -> Result<()> {
        run(|| {
            self.0.set_seal_budget(seals as u64);
            Ok(())
        })
    }

    /// How many seals the key `id` has made in this process; `null` if the ring lacks it.
    #[napi]
    pub fn seals(&self, id: f64) -> Result<Option<f64>> {
        run(|| Ok(u8::try_from(id as i64).ok().and_then(|id| self.0.seals(id)).map(|n| n as f64)))
    }

    /// `facade::seal`, with a nonce drawn from `random` (the caller's CSPRNG).
    #[napi]
    pub fn seal(&self, binding: Text, now: f64, ttl: f64, payload: Text, random: &[u8]) -> Result<String> {
        let (binding, payload) = (bytes(&binding), bytes(&payload));
        run(|| facade::seal(&self.0, binding, now as u64, ttl as u32, payload, Randomness::Bytes(random)))
    }

    /// `facade::open`, single-use under `guard` when there is one.
    #[napi]
    pub fn open(&self, env: Env, token: Text, binding: Text, now: f64, guard: Option<JsGuard>) -> Result<Opened> {
        let (token, binding) = (bytes(&token), bytes(&binding));
        let opened = guarded(&env, guard, |g| facade::open(&self.0, token, binding, now as u64, g))?;
        Ok(Opened { payload: opened.payload.into(), state_id: opened.id.to_string(), expiry: opened.expiry as f64 })
    }

    /// `facade::resume_round`.
    #[napi]
    pub fn resume_round(
        &self,
        env: Env,
        request: Text,
        needs: Text,
        settings: String,
        call: String,
        guard: Option<JsGuard>,
    ) -> Result<String> {
        let (request, needs) = (bytes(&request), bytes(&needs));
        guarded(&env, guard, |g| facade::resume_round(&self.0, request, needs, settings.as_bytes(), call.as_bytes(), g))
    }

    /// `facade::respond_round`.
    #[napi]
    #[allow(clippy::too_many_arguments)]
    pub fn respond_round(
        &self,
        request: Text,
        round: Text,
        needs: Text,
        data: Option<Text>,
        settings: String,
        call: String,
        random: &[u8],
    ) -> Result<String> {
        let (request, round, needs) = (bytes(&request), bytes(&round), bytes(&needs));
        let data = data.as_ref().map(bytes);
        let (settings, call) = (settings.as_bytes(), call.as_bytes());
        run(|| facade::respond_round(&self.0, request, round, needs, data, settings, call, Randomness::Bytes(random)))
    }

    /// `facade::ToolReplay::start`: the replay of an await-style tool on `request`.
    #[napi]
    pub fn start_tool_replay(
        &self,
        env: Env,
        request: Text,
        settings: String,
        call: String,
        guard: Option<JsGuard>,
    ) -> Result<ToolReplay> {
        let request = bytes(&request);
        let replay = guarded(&env, guard, |g| {
            facade::ToolReplay::start(&self.0, request, settings.as_bytes(), call.as_bytes(), g)
        })?;
        Ok(ToolReplay(replay))
    }
}

/// `facade::ToolReplay`: one replay of an await-style tool on one request.
#[napi]
pub struct ToolReplay(facade::ToolReplay);

#[napi]
impl ToolReplay {
    /// Asks the next question (JSON text), under `key` when given: its
    /// answer as JSON text, or `null` when the tool stops here.
    #[napi]
    pub fn ask(&mut self, question: Text, key: Option<String>) -> Result<Option<String>> {
        let question = bytes(&question);
        run(|| match &key {
            Some(key) => self.0.ask_as(key, question),
            None => self.0.ask(question),
        })
    }

    /// How many rounds came before this request.
    #[napi]
    pub fn round(&self) -> Result<u32> {
        run(|| Ok(self.0.round()))
    }

    /// The tool's data of the last round, as JSON text, or `null`.
    #[napi]
    pub fn data(&self) -> Result<Option<String>> {
        run(|| Ok(self.0.data()))
    }

    /// `{stateId, expiry}` of the state the request carried, as JSON text, or `null`.
    #[napi]
    pub fn state(&self) -> Result<Option<String>> {
        run(|| Ok(self.0.state()))
    }

    /// The `input_required` response asking what is missing, sealed with `ring`.
    #[napi]
    pub fn input_required(&self, ring: &KeyRing, data: Option<Text>, random: &[u8]) -> Result<String> {
        let data = data.as_ref().map(bytes);
        run(|| self.0.input_required(&ring.0, data, Randomness::Bytes(random)))
    }

    /// The final response with `result` (JSON text).
    #[napi]
    pub fn complete(&self, result: Text) -> Result<String> {
        run(|| self.0.complete(bytes(&result)))
    }
}

/// `facade::question_elicit`.
#[napi]
pub fn question_elicit(message: String, requested_schema: Text) -> Result<String> {
    run(|| facade::question_elicit(&message, bytes(&requested_schema)))
}

/// `facade::question_sample`.
#[napi]
pub fn question_sample(params: Text) -> Result<String> {
    run(|| facade::question_sample(bytes(&params)))
}

/// `facade::question_roots`.
#[napi]
pub fn question_roots() -> String {
    facade::question_roots()
}

/// `facade::error_response`: `{response, status}` as JSON text; `data` the
/// members of the error's `data` (JSON text of an object).
#[napi]
pub fn error_response(id: Text, rule: String, message: String, data: Option<Text>) -> Result<String> {
    run(|| facade::error_response(bytes(&id), &rule, &message, data.as_ref().map(bytes)))
}

/// Runs `f`, a check whose refusal may carry `data` (which a thrown napi
/// error cannot): `null` when it passes, else the core's error as JSON text
/// (`facade::error_json`), which `lib/api.mjs` throws with its data.
fn refusal(f: impl FnOnce() -> mrtr::Result<()>) -> Result<Option<String>> {
    run(|| Ok(f().err().map(|e| facade::error_json(&e))))
}

/// `facade::check_request` (`headers` absent: not over HTTP): `null`, or the refusal as JSON text.
#[napi]
pub fn check_request(
    request: Text,
    headers: Option<Text>,
    supported: Text,
    options: Option<String>,
) -> Result<Option<String>> {
    let headers = headers.as_ref().map(bytes);
    refusal(|| facade::check_request(bytes(&request), headers, bytes(&supported), &self::options(options)?))
}

/// `facade::missing_capabilities`: a `ClientCapabilities` object as JSON text, or `null`.
#[napi]
pub fn missing_capabilities(request: Text, questions: Text, options: Option<String>) -> Result<Option<String>> {
    run(|| facade::missing_capabilities(bytes(&request), bytes(&questions), &self::options(options)?))
}

/// `facade::require_capabilities`: `null`, or the refusal as JSON text.
#[napi]
pub fn require_capabilities(request: Text, questions: Text, options: Option<String>) -> Result<Option<String>> {
    refusal(|| facade::require_capabilities(bytes(&request), bytes(&questions), &self::options(options)?))
}

/// `facade::require_declared`: `null`, or the refusal as JSON text.
#[napi]
pub fn require_declared(request: Text, required: Text, options: Option<String>) -> Result<Option<String>> {
    refusal(|| facade::require_declared(bytes(&request), bytes(&required), &self::options(options)?))
}

/// `facade::complete`: the final response to `request` with `result`.
#[napi]
pub fn complete(request: Text, result: Text, options: Option<String>) -> Result<String> {
    run(|| facade::complete(bytes(&request), bytes(&result), &self::options(options)?))
}

/// `facade::task_created`.
#[napi]
pub fn task_created(request: Text, record: Text, options: Option<String>) -> Result<String> {
    run(|| facade::task_created(bytes(&request), bytes(&record), &self::options(options)?))
}

/// `facade::task_get_response`.
#[napi]
pub fn task_get_response(request: Text, record: Text, options: Option<String>) -> Result<String> {
    run(|| facade::task_get_response(bytes(&request), bytes(&record), &self::options(options)?))
}

/// `facade::ToolBridge`: one `2025-11-25` call of an await-style tool.
#[napi]
pub struct ToolBridge(facade::ToolBridge);

#[napi]
impl ToolBridge {
    /// A bridge for `request`, its event ids under `key`; options (JSON text)
    /// `{maxRounds, roundTimeoutMs, limits}`.
    #[napi(constructor)]
    pub fn new(request: Text, key: String, options: Option<String>) -> Result<ToolBridge> {
        let options = options.unwrap_or_default();
        run(|| Ok(ToolBridge(facade::ToolBridge::new(bytes(&request), &key, options.as_bytes())?)))
    }

    /// A replay of the tool from the answers collected so far.
    #[napi]
    pub fn replay(&self) -> Result<ToolReplay> {
        run(|| Ok(ToolReplay(self.0.replay())))
    }

    /// Sends what `replay` misses as server requests on the stream.
    #[napi]
    pub fn ask(&mut self, replay: &ToolReplay, now: f64) -> Result<()> {
        run(|| self.0.ask(&replay.0, whole(now, "now")?))
    }

    /// The tool completed with `result` (JSON text).
    #[napi]
    pub fn complete(&mut self, result: Text) -> Result<()> {
        run(|| self.0.complete(bytes(&result)))
    }

    /// The tool's run was refused: `rule`, `message`, `data` (JSON text of an object).
    #[napi]
    pub fn refuse(&mut self, rule: String, message: String, data: Option<Text>) -> Result<()> {
        run(|| self.0.refuse(&rule, &message, data.as_ref().map(bytes)))
    }

    /// A response the client POSTed; `true` when the round is complete.
    #[napi]
    pub fn handle_answer(&mut self, response: Text, now: f64) -> Result<bool> {
        run(|| self.0.handle_answer(bytes(&response), whole(now, "now")?))
    }

    /// The round's deadline may have passed.
    #[napi]
    pub fn handle_timeout(&mut self, now: f64) -> Result<()> {
        run(|| {
            self.0.handle_timeout(whole(now, "now")?);
            Ok(())
        })
    }

    /// The next text to write on the stream, or `null`.
    #[napi]
    pub fn poll_write(&mut self) -> Result<Option<String>> {
        run(|| Ok(self.0.poll_write()))
    }

    /// When (ms) to call `handleTimeout`, or `null`.
    #[napi]
    pub fn poll_timeout(&self) -> Result<Option<f64>> {
        run(|| Ok(self.0.poll_timeout().map(|t| t as f64)))
    }

    /// Whether the final response was written.
    #[napi]
    pub fn is_done(&self) -> Result<bool> {
        run(|| Ok(self.0.is_done()))
    }

    /// The ids of the server requests waiting for an answer.
    #[napi]
    pub fn pending(&self) -> Result<Vec<String>> {
        run(|| Ok(self.0.pending()))
    }
}

/// `facade::seal_with_nonce`: sealing with a caller's nonce, for the corpus's
/// test vectors. Only in builds with the cargo feature `test-vectors` (the
/// tests', `tools/build.sh --test-vectors`), never in the packaged addon. A
/// free function left out of the generated types, so that `native.d.ts` and
/// `native.cjs` are the same in both builds (the loader hands out every
/// export of the addon all the same).
#[cfg(feature = "test-vectors")]
#[napi(skip_typescript)]
pub fn seal_with_nonce_for_test_vectors(
    ring: &KeyRing,
    binding: Text,
    now: f64,
    ttl: f64,
    payload: Text,
    nonce: &[u8],
) -> Result<String> {
    let (binding, payload) = (bytes(&binding), bytes(&payload));
    run(|| facade::seal_with_nonce(&ring.0, binding, now as u64, ttl as u32, payload, nonce))
}

/// A token that opened: its payload, its state id (hex) and its expiry (seconds).
#[napi(object)]
pub struct Opened {
    /// The sealed bytes.
    pub payload: Buffer,
    /// The state's id, lower-case hex: the key of a single-use store.
    pub state_id: String,
    /// When it expires, seconds since the Unix epoch.
    pub expiry: f64,
}

/// Panics on purpose: the tests show a panic reaching JavaScript as a
/// `PanicError`, never an abort. Not part of the API.
#[napi(js_name = "__panicForTests")]
pub fn panic_for_tests() -> Result<()> {
    run(|| panic!("a panic raised on purpose by __panicForTests"))
}
