//! `mrtr_wasm`: the WebAssembly backend of the `mrtr` JavaScript API, a line
//! or two per export over [`mrtr::facade`].
//!
//! The same functions, classes and conventions as the napi backend
//! (`bindings-node/src/lib.rs`), so that one JavaScript module
//! (`bindings-node/lib/api.mjs`) drives either:
//! - JSON text in, as a string or UTF-8 bytes (a `Uint8Array`); options as
//!   the JSON text of `{protocol, limits, maxRounds, transport}`; times,
//!   exchange numbers and counts as JS numbers (whole, below 2^53, checked
//!   here); JSON text out (`classify` alone answers a packed string, see
//!   `mrtr::facade::classify_packed`);
//! - randomness for sealing comes from the caller (bytes from
//!   `crypto.getRandomValues`): the module has no random source and imports
//!   nothing from `"env"`; no export takes a nonce, but for the corpus's test
//!   vectors `sealWithNonceForTestVectors`, which exists only with the
//!   cargo feature `test-vectors` (`scripts/build.sh --test-vectors`, into
//!   `pkg-test-vectors/`; never the package's `pkg/`);
//! - a replay guard is a JS function `(stateId, expiry) => boolean`, called
//!   synchronously from the core through a closure that fails closed: when it
//!   throws, the core refuses the state (`state-replayed`) and the guard's
//!   exception is thrown again, as it was, once the core has returned;
//! - every failure is a thrown JS `Error` whose `code` is the rule id and
//!   whose message is the core's. `wasm32-unknown-unknown` cannot unwind, so
//!   a panic is thrown the same way from the panic hook, as `internal-panic`
//!   ([`facade::panic_error`]), and the next call gets a fresh instance. As
//!   in the napi backend, the checks whose refusal carries `data`
//!   (`checkRequest`, `requireCapabilities`, `requireDeclared`) answer
//!   `undefined` when they pass and the refusal as JSON text otherwise
//!   ([`facade::error_json`]), for `lib/api.mjs` to throw with its `data`.

use js_sys::{Function, Object, Reflect, Uint8Array};
use mrtr::facade::{self, Options, Randomness};
use mrtr::state::{KeyRing as Ring, ReplayGuard, StateId};
use mrtr::RuleId;
use wasm_bindgen::prelude::*;

/// An error on its way to JavaScript: the core's, or a replay guard's own
/// exception, thrown again as it was.
pub enum Failure {
    /// A core error.
    Core(mrtr::Error),
    /// What a JavaScript replay guard threw.
    Js(JsValue),
}

impl From<mrtr::Error> for Failure {
    fn from(e: mrtr::Error) -> Failure {
        Failure::Core(e)
    }
}

impl From<Failure> for JsValue {
    fn from(f: Failure) -> JsValue {
        match f {
            Failure::Core(e) => thrown(&e),
            Failure::Js(v) => v,
        }
    }
}

/// The JS `Error` for `e`: the core's message, `code` the rule id.
fn thrown(e: &mrtr::Error) -> JsValue {
    let js = js_sys::Error::new(e.message());
    // Setting a property on a fresh Error object cannot fail.
    let _ = js_sys::Reflect::set(&js, &"code".into(), &e.rule().name().into());
    js.into()
}

/// What every fallible export returns.
pub type Result<T> = std::result::Result<T, Failure>;

/// The bytes of JSON text given as a string or a `Uint8Array`.
fn bytes(text: &JsValue) -> Vec<u8> {
    match text.as_string() {
        Some(s) => s.into_bytes(),
        None => text.dyn_ref::<Uint8Array>().map(Uint8Array::to_vec).unwrap_or_default(),
    }
}

fn optional(text: &JsValue) -> Option<Vec<u8>> {
    (!text.is_undefined() && !text.is_null()).then(|| bytes(text))
}

fn options(text: Option<String>) -> mrtr::Result<Options> {
    text.map_or(Ok(Options::default()), |t| Options::from_json(t.as_bytes()))
}

/// Runs `f` under the JavaScript replay guard `guard`
/// (`(stateId: string, expiry: number) => boolean`), wrapped in a closure
/// that fails closed: when the guard throws, or answers anything but a
/// boolean, the closure answers false (not a first use) and keeps what
/// happened; after the core returns, the guard's own exception is thrown again.
fn guarded<T>(guard: Option<Function>, f: impl FnOnce(Option<&mut dyn ReplayGuard>) -> mrtr::Result<T>) -> Result<T> {
    let Some(js) = guard else { return Ok(f(None)?) };
    let mut thrown = None;
    let mut not_boolean = false;
    let out = {
        let mut closure = |id: &StateId, expiry: u64| match js.call2(
            &JsValue::UNDEFINED,
            &id.to_string().into(),
            &(expiry as f64).into(),
        ) {
            Ok(answer) => answer.as_bool().unwrap_or_else(|| {
                not_boolean = true;
                false
            }),
            Err(e) => {
                thrown = Some(e);
                false
            }
        };
        f(Some(&mut closure))
    };
    if let Some(e) = thrown {
        return Err(Failure::Js(e));
    }
    if not_boolean {
        let message = "the replay guard answers true (a first use) or false, synchronously: not a promise";
        return Err(Failure::Core(mrtr::Error::with(RuleId::UsageInvalidArgument, message.into())));
    }
    Ok(out?)
}

/// Makes every later panic throw an `internal-panic` error to the caller and
/// schedule a fresh instance for the next call (the trapped instance's stack
/// and heap are not trustworthy).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        wasm_bindgen::handler::schedule_reinit();
        wasm_bindgen::throw_val(thrown(&facade::panic_error(info.payload())));
    }));
}

/// The tables (`facade::catalogue`): rules, areas, protocols, kinds, limits, ….
#[wasm_bindgen]
pub fn catalogue() -> String {
    facade::catalogue()
}

/// Classifies one raw message: what it found, packed into one string
/// (`mrtr::facade::classify_packed`).
#[wasm_bindgen]
pub fn classify(text: &JsValue, options: Option<String>) -> Result<String> {
    Ok(facade::classify_packed(&bytes(text), &self::options(options)?)?)
}

/// `facade::check`: the violations of a transcript, as JSON text.
#[wasm_bindgen]
pub fn check(transcript: &JsValue, options: Option<String>) -> Result<String> {
    Ok(facade::check(&bytes(transcript), &self::options(options)?)?)
}

/// `facade::retry`.
#[wasm_bindgen]
pub fn retry(
    request: &JsValue,
    result: &JsValue,
    responses: &JsValue,
    id: &JsValue,
    options: Option<String>,
) -> Result<String> {
    let o = self::options(options)?;
    Ok(facade::retry(&bytes(request), &bytes(result), &bytes(responses), &bytes(id), &o)?)
}

/// `facade::task_update`.
#[wasm_bindgen(js_name = taskUpdate)]
pub fn task_update(
    get: &JsValue,
    got: &JsValue,
    responses: &JsValue,
    id: &JsValue,
    options: Option<String>,
) -> Result<String> {
    let o = self::options(options)?;
    Ok(facade::task_update(&bytes(get), &bytes(got), &bytes(responses), &bytes(id), &o)?)
}

/// `facade::respond` (`undefined`: the field is left out).
#[wasm_bindgen]
pub fn respond(request: &JsValue, asked: &JsValue, state: &JsValue, options: Option<String>) -> Result<String> {
    let (asked, state) = (optional(asked), optional(state));
    Ok(facade::respond(&bytes(request), asked.as_deref(), state.as_deref(), &self::options(options)?)?)
}

/// `facade::resume`.
#[wasm_bindgen]
pub fn resume(request: &JsValue, needs: &JsValue, options: Option<String>) -> Result<String> {
    Ok(facade::resume(&bytes(request), &bytes(needs), &self::options(options)?)?)
}

/// `facade::task_transition`.
#[wasm_bindgen(js_name = taskTransition)]
pub fn task_transition(from: &str, to: &str) -> Result<String> {
    Ok(facade::task_transition(from, to)?.into())
}

/// `facade::binding_for`: the subject is a principal or, explicitly, anonymous.
#[wasm_bindgen(js_name = bindingFor)]
pub fn binding_for(
    request: &JsValue,
    subject: Option<String>,
    anonymous: bool,
    protocol: Option<String>,
) -> Result<String> {
    Ok(facade::binding_for(&bytes(request), subject.as_deref(), anonymous, protocol.as_deref())?)
}

/// `facade::params_digest`: of a request's params, as JSON text.
#[wasm_bindgen(js_name = paramsDigest)]
pub fn params_digest(params: &JsValue) -> Result<Vec<u8>> {
    Ok(facade::params_digest(&bytes(params))?.to_vec())
}

/// `facade::inspect`: `{stateId, keyId, algorithm, expiry}` of a token, as JSON text.
#[wasm_bindgen]
pub fn inspect(token: &JsValue) -> Result<String> {
    Ok(facade::inspect(&bytes(token))?)
}

/// `facade::Checker`.
#[wasm_bindgen]
pub struct Checker(facade::Checker);

#[wasm_bindgen]
impl Checker {
    /// A checker with the options.
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<String>) -> Result<Checker> {
        Ok(Checker(facade::Checker::new(&self::options(options)?)))
    }

    /// Checks one entry.
    pub fn handle(&mut self, entry: &JsValue) -> Result<()> {
        Ok(self.0.handle(&bytes(entry))?)
    }

    /// The violations so far, as JSON text.
    pub fn violations(&self) -> String {
        self.0.violations()
    }
}

/// `facade::Client`: the client's retry machine.
#[wasm_bindgen]
pub struct Client(facade::Client);

#[wasm_bindgen]
impl Client {
    /// A machine with the options.
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<String>) -> Result<Client> {
        Ok(Client(facade::Client::new(&self::options(options)?)))
    }

    /// Starts a request: its handle.
    pub fn send(&mut self, request: &JsValue) -> Result<f64> {
        Ok(self.0.send(&bytes(request))? as f64)
    }

    /// Takes a response message.
    #[wasm_bindgen(js_name = handleResponse)]
    pub fn handle_response(&mut self, response: &JsValue) -> Result<()> {
        Ok(self.0.handle_response(&bytes(response))?)
    }

    /// Answers the input requests of `handle`; queues the retry under `id`.
    pub fn answer(&mut self, handle: f64, responses: &JsValue, id: &JsValue) -> Result<()> {
        Ok(self.0.answer(facade::handle(handle)?, &bytes(responses), &bytes(id))?)
    }

    /// Gives up on `handle`.
    pub fn abandon(&mut self, handle: f64) -> Result<()> {
        self.0.abandon(facade::handle(handle)?);
        Ok(())
    }

    /// The next message to send, as JSON text, or `undefined`.
    #[wasm_bindgen(js_name = pollTransmit)]
    pub fn poll_transmit(&mut self) -> Option<String> {
        self.0.poll_transmit()
    }

    /// The next event, as JSON text, or `undefined`.
    #[wasm_bindgen(js_name = pollEvent)]
    pub fn poll_event(&mut self) -> Option<String> {
        self.0.poll_event()
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

/// `facade::SseDecoder`: the incremental event-stream decoder.
#[wasm_bindgen]
pub struct SseDecoder(facade::SseDecoder);

#[wasm_bindgen]
impl SseDecoder {
    /// A decoder under the options' limits.
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<String>) -> Result<SseDecoder> {
        Ok(SseDecoder(facade::SseDecoder::new(&self::options(options)?)))
    }

    /// Decodes the next bytes of the stream.
    pub fn feed(&mut self, chunk: &JsValue) {
        self.0.feed(&bytes(chunk));
    }

    /// Ends the stream.
    pub fn finish(&mut self) {
        self.0.finish();
    }

    /// The next block as JSON text, `undefined`, or the error of an unreadable block.
    #[wasm_bindgen(js_name = pollEvent)]
    pub fn poll_event(&mut self) -> Result<Option<String>> {
        Ok(self.0.poll_event().transpose()?)
    }
}

/// `facade::sse_encode`: one block as event-stream text.
#[wasm_bindgen(js_name = sseEncode)]
pub fn sse_encode(event: &JsValue) -> Result<String> {
    Ok(facade::sse_encode(&bytes(event))?)
}

/// `facade::HttpCall`: the client machine of one call over HTTP.
#[wasm_bindgen]
pub struct HttpCall(facade::HttpCall);

#[wasm_bindgen]
impl HttpCall {
    /// Starts `request` under the configuration (JSON text).
    #[wasm_bindgen(constructor)]
    pub fn new(config: &JsValue, request: &JsValue, now: f64) -> Result<HttpCall> {
        Ok(HttpCall(facade::HttpCall::new(&bytes(config), &bytes(request), whole(now, "now")?)?))
    }

    /// The status and header fields (JSON text) of the response to `exchange`.
    #[wasm_bindgen(js_name = handleHead)]
    pub fn handle_head(&mut self, exchange: f64, status: f64, headers: &JsValue, now: f64) -> Result<()> {
        let (x, s, t) = (whole(exchange, "an exchange")?, self::status(status)?, whole(now, "now")?);
        Ok(self.0.handle_head(x, s, &optional(headers).unwrap_or_default(), t)?)
    }

    /// Bytes of the body of the response to `exchange`.
    #[wasm_bindgen(js_name = handleBody)]
    pub fn handle_body(&mut self, exchange: f64, chunk: &JsValue, now: f64) -> Result<()> {
        Ok(self.0.handle_body(whole(exchange, "an exchange")?, &bytes(chunk), whole(now, "now")?)?)
    }

    /// The response to `exchange` ended.
    #[wasm_bindgen(js_name = handleEnd)]
    pub fn handle_end(&mut self, exchange: f64, now: f64) -> Result<()> {
        Ok(self.0.handle_end(whole(exchange, "an exchange")?, whole(now, "now")?)?)
    }

    /// The time `pollTimeout` named came.
    #[wasm_bindgen(js_name = handleTimeout)]
    pub fn handle_timeout(&mut self, now: f64) -> Result<()> {
        self.0.handle_timeout(whole(now, "now")?);
        Ok(())
    }

    /// The host's JSON-RPC response to a reported server request.
    pub fn answer(&mut self, response: &JsValue, now: f64) -> Result<()> {
        Ok(self.0.answer(&bytes(response), whole(now, "now")?)?)
    }

    /// The next HTTP request to send, as JSON text, or `undefined`.
    #[wasm_bindgen(js_name = pollTransmit)]
    pub fn poll_transmit(&mut self) -> Option<String> {
        self.0.poll_transmit()
    }

    /// The next event, as JSON text, or `undefined`.
    #[wasm_bindgen(js_name = pollEvent)]
    pub fn poll_event(&mut self) -> Option<String> {
        self.0.poll_event()
    }

    /// When to call `handleTimeout` (ms), or `undefined`.
    #[wasm_bindgen(js_name = pollTimeout)]
    pub fn poll_timeout(&self) -> Option<f64> {
        self.0.poll_timeout().map(|t| t as f64)
    }

    /// Whether the call is over.
    #[wasm_bindgen(js_name = isDone)]
    pub fn is_done(&self) -> bool {
        self.0.is_done()
    }
}

/// `facade::ServerStream`: a server's response stream.
#[wasm_bindgen]
pub struct ServerStream(facade::ServerStream);

#[wasm_bindgen]
impl ServerStream {
    /// A stream of `mode` for the continuation `key`, numbering events from `first`.
    #[wasm_bindgen(constructor)]
    pub fn new(mode: &str, key: &str, first: f64) -> Result<ServerStream> {
        Ok(ServerStream(facade::ServerStream::new(mode, key, whole(first, "first")?)?))
    }

    /// The response head's fields as JSON text.
    pub fn head(&self, stream_url: Option<String>) -> String {
        self.0.head(stream_url.as_deref())
    }

    /// Writes a JSON-RPC message as an event; its id.
    pub fn message(&mut self, message: &JsValue) -> Result<String> {
        Ok(self.0.message(&bytes(message))?)
    }

    /// Writes a `retry` block; its id.
    pub fn retry(&mut self, ms: f64) -> Result<String> {
        Ok(self.0.retry(whole(ms, "retry")?)?)
    }

    /// Writes the mode's asking sequence for `requests` (a JSON array); the last id.
    pub fn ask(&mut self, requests: &JsValue, retry_ms: f64) -> Result<String> {
        Ok(self.0.ask(&bytes(requests), whole(retry_ms, "retryMs")?)?)
    }

    /// The text written since the last `take`.
    pub fn take(&mut self) -> String {
        self.0.take()
    }
}

/// `facade::read_http_request`: what an incoming HTTP request asks, as JSON text.
#[wasm_bindgen(js_name = readHttpRequest)]
pub fn read_http_request(
    mode: &str,
    method: &str,
    url: &str,
    headers: &JsValue,
    body: &JsValue,
    options: Option<String>,
) -> Result<String> {
    let (headers, body, o) = (optional(headers).unwrap_or_default(), bytes(body), self::options(options)?);
    Ok(facade::read_http_request(mode, method, url, &headers, &body, &o)?)
}

/// `facade::stream_url`: the `rel="stream"` URL of a continuation.
#[wasm_bindgen(js_name = streamUrl)]
pub fn stream_url(endpoint: &str, key: &str) -> Result<String> {
    Ok(facade::stream_url(endpoint, key)?)
}

/// `facade::mirrored_fields`: the header fields that mirror a request's body, as JSON text.
#[wasm_bindgen(js_name = mirroredFields)]
pub fn mirrored_fields(request: &JsValue) -> Result<String> {
    Ok(facade::mirrored_fields(&bytes(request))?)
}

/// `facade::unassociated_reply`: the answer to a server request outside any call, as JSON text, or `undefined`.
#[wasm_bindgen(js_name = unassociatedReply)]
pub fn unassociated_reply(request: &JsValue) -> Result<Option<String>> {
    Ok(facade::unassociated_reply(&bytes(request))?)
}

/// `state::KeyRing` with the facade's sealed-state functions.
#[wasm_bindgen]
pub struct KeyRing(Ring);

#[wasm_bindgen]
impl KeyRing {
    /// A ring holding the key (`facade::key`), which seals.
    #[wasm_bindgen(constructor)]
    pub fn new(id: f64, algorithm: &str, secret: Option<Vec<u8>>, master: Option<Vec<u8>>) -> Result<KeyRing> {
        Ok(KeyRing(Ring::new(facade::key(id as i64, algorithm, secret.as_deref(), master.as_deref())?)))
    }

    /// Adds a key that opens tokens.
    pub fn add(&mut self, id: f64, algorithm: &str, secret: Option<Vec<u8>>, master: Option<Vec<u8>>) -> Result<()> {
        self.0.add(facade::key(id as i64, algorithm, secret.as_deref(), master.as_deref())?);
        Ok(())
    }

    /// Makes the key with `id` the sealing key; false if the ring lacks it.
    #[wasm_bindgen(js_name = setCurrent)]
    pub fn set_current(&mut self, id: f64) -> bool {
        u8::try_from(id as i64).is_ok_and(|id| self.0.set_current(id))
    }

    /// Drops the key with `id` (not the current one); false if it could not.
    pub fn remove(&mut self, id: f64) -> bool {
        u8::try_from(id as i64).is_ok_and(|id| self.0.remove(id))
    }

    /// The bound on a token's length.
    #[wasm_bindgen(js_name = setMaxTokenBytes)]
    pub fn set_max_token_bytes(&mut self, max: f64) {
        self.0.set_max_token_bytes(max as usize);
    }

    /// The deployment label of every token (`KeyRing::set_context`, at most 64 bytes).
    #[wasm_bindgen(js_name = setContext)]
    pub fn set_context(&mut self, label: &JsValue) -> Result<()> {
        Ok(self.0.set_context(&bytes(label))?)
    }

    /// How many seals each key may make in this process (`KeyRing::set_seal_budget`).
    #[wasm_bindgen(js_name = setSealBudget)]
    pub fn set_seal_budget(&mut self, seals: f64) {
        self.0.set_seal_budget(seals as u64);
    }

    /// How many seals the key `id` has made in this process; `undefined` if the ring lacks it.
    pub fn seals(&self, id: f64) -> Option<f64> {
        u8::try_from(id as i64).ok().and_then(|id| self.0.seals(id)).map(|n| n as f64)
    }

    /// `facade::seal`, with a nonce drawn from `random` (the caller's CSPRNG).
    pub fn seal(&self, binding: &JsValue, now: f64, ttl: f64, payload: &JsValue, random: &[u8]) -> Result<String> {
        let (binding, payload) = (bytes(binding), bytes(payload));
        let random = Randomness::Bytes(random);
        Ok(facade::seal(&self.0, &binding, now as u64, ttl as u32, &payload, random)?)
    }

    /// `facade::open`, single-use under `guard` when there is one:
    /// `{payload, stateId, expiry}`.
    pub fn open(&self, token: &JsValue, binding: &JsValue, now: f64, guard: Option<Function>) -> Result<Object> {
        let (token, binding) = (bytes(token), bytes(binding));
        let opened = guarded(guard, |g| facade::open(&self.0, &token, &binding, now as u64, g))?;
        let out = Object::new();
        // Setting a property on a fresh plain object cannot fail.
        let _ = Reflect::set(&out, &"payload".into(), &Uint8Array::from(opened.payload.as_slice()));
        let _ = Reflect::set(&out, &"stateId".into(), &opened.id.to_string().into());
        let _ = Reflect::set(&out, &"expiry".into(), &(opened.expiry as f64).into());
        Ok(out)
    }

    /// `facade::resume_round`.
    #[wasm_bindgen(js_name = resumeRound)]
    pub fn resume_round(
        &self,
        request: &JsValue,
        needs: &JsValue,
        settings: &str,
        call: &str,
        guard: Option<Function>,
    ) -> Result<String> {
        let (request, needs) = (bytes(request), bytes(needs));
        guarded(guard, |g| facade::resume_round(&self.0, &request, &needs, settings.as_bytes(), call.as_bytes(), g))
    }

    /// `facade::respond_round`.
    #[wasm_bindgen(js_name = respondRound)]
    #[allow(clippy::too_many_arguments)]
    pub fn respond_round(
        &self,
        request: &JsValue,
        round: &JsValue,
        needs: &JsValue,
        data: &JsValue,
        settings: &str,
        call: &str,
        random: &[u8],
    ) -> Result<String> {
        let (request, round, needs) = (bytes(request), bytes(round), bytes(needs));
        let data = optional(data);
        let (settings, call, random) = (settings.as_bytes(), call.as_bytes(), Randomness::Bytes(random));
        Ok(facade::respond_round(&self.0, &request, &round, &needs, data.as_deref(), settings, call, random)?)
    }

    /// `facade::ToolReplay::start`: the replay of an await-style tool on `request`.
    #[wasm_bindgen(js_name = startToolReplay)]
    pub fn start_tool_replay(
        &self,
        request: &JsValue,
        settings: &str,
        call: &str,
        guard: Option<Function>,
    ) -> Result<ToolReplay> {
        let request = bytes(request);
        let start = |g: Option<&mut dyn ReplayGuard>| {
            facade::ToolReplay::start(&self.0, &request, settings.as_bytes(), call.as_bytes(), g)
        };
        Ok(ToolReplay(guarded(guard, start)?))
    }
}

/// `facade::ToolReplay`: one replay of an await-style tool on one request.
#[wasm_bindgen]
pub struct ToolReplay(facade::ToolReplay);

#[wasm_bindgen]
impl ToolReplay {
    /// Asks the next question (JSON text), under `key` when given: its
    /// answer as JSON text, or `undefined` when the tool stops here.
    pub fn ask(&mut self, question: &JsValue, key: Option<String>) -> Result<Option<String>> {
        let question = bytes(question);
        Ok(match &key {
            Some(key) => self.0.ask_as(key, &question)?,
            None => self.0.ask(&question)?,
        })
    }

    /// How many rounds came before this request.
    pub fn round(&self) -> u32 {
        self.0.round()
    }

    /// The tool's data of the last round, as JSON text, or `undefined`.
    pub fn data(&self) -> Option<String> {
        self.0.data()
    }

    /// `{stateId, expiry}` of the state the request carried, as JSON text, or `undefined`.
    pub fn state(&self) -> Option<String> {
        self.0.state()
    }

    /// The `input_required` response asking what is missing, sealed with `ring`.
    #[wasm_bindgen(js_name = inputRequired)]
    pub fn input_required(&self, ring: &KeyRing, data: &JsValue, random: &[u8]) -> Result<String> {
        let data = optional(data);
        Ok(self.0.input_required(&ring.0, data.as_deref(), Randomness::Bytes(random))?)
    }

    /// The final response with `result` (JSON text).
    pub fn complete(&self, result: &JsValue) -> Result<String> {
        Ok(self.0.complete(&bytes(result))?)
    }
}

/// `facade::question_elicit`.
#[wasm_bindgen(js_name = questionElicit)]
pub fn question_elicit(message: &str, requested_schema: &JsValue) -> Result<String> {
    Ok(facade::question_elicit(message, &bytes(requested_schema))?)
}

/// `facade::question_sample`.
#[wasm_bindgen(js_name = questionSample)]
pub fn question_sample(params: &JsValue) -> Result<String> {
    Ok(facade::question_sample(&bytes(params))?)
}

/// `facade::question_roots`.
#[wasm_bindgen(js_name = questionRoots)]
pub fn question_roots() -> String {
    facade::question_roots()
}

/// `facade::error_response`: `{response, status}` as JSON text; `data` the
/// members of the error's `data` (JSON text of an object), or undefined.
#[wasm_bindgen(js_name = errorResponse)]
pub fn error_response(id: &JsValue, rule: &str, message: &str, data: &JsValue) -> Result<String> {
    Ok(facade::error_response(&bytes(id), rule, message, optional(data).as_deref())?)
}

/// Runs `f`, a check whose refusal may carry `data` (as the napi backend,
/// whose thrown errors cannot): `undefined` when it passes, else the core's
/// error as JSON text (`facade::error_json`), which `lib/api.mjs` throws with its data.
fn refusal(f: impl FnOnce() -> mrtr::Result<()>) -> Option<String> {
    f().err().map(|e| facade::error_json(&e))
}

/// `facade::check_request` (`headers` absent: not over HTTP): `undefined`, or the refusal as JSON text.
#[wasm_bindgen(js_name = checkRequest)]
pub fn check_request(
    request: &JsValue,
    headers: &JsValue,
    supported: &JsValue,
    options: Option<String>,
) -> Option<String> {
    let headers = optional(headers);
    refusal(|| facade::check_request(&bytes(request), headers.as_deref(), &bytes(supported), &self::options(options)?))
}

/// `facade::missing_capabilities`: a `ClientCapabilities` object as JSON text, or `undefined`.
#[wasm_bindgen(js_name = missingCapabilities)]
pub fn missing_capabilities(request: &JsValue, questions: &JsValue, options: Option<String>) -> Result<Option<String>> {
    Ok(facade::missing_capabilities(&bytes(request), &bytes(questions), &self::options(options)?)?)
}

/// `facade::require_capabilities`: `undefined`, or the refusal as JSON text.
#[wasm_bindgen(js_name = requireCapabilities)]
pub fn require_capabilities(request: &JsValue, questions: &JsValue, options: Option<String>) -> Option<String> {
    refusal(|| facade::require_capabilities(&bytes(request), &bytes(questions), &self::options(options)?))
}

/// `facade::require_declared`: `undefined`, or the refusal as JSON text.
#[wasm_bindgen(js_name = requireDeclared)]
pub fn require_declared(request: &JsValue, required: &JsValue, options: Option<String>) -> Option<String> {
    refusal(|| facade::require_declared(&bytes(request), &bytes(required), &self::options(options)?))
}

/// `facade::complete`: the final response to `request` with `result`.
#[wasm_bindgen]
pub fn complete(request: &JsValue, result: &JsValue, options: Option<String>) -> Result<String> {
    Ok(facade::complete(&bytes(request), &bytes(result), &self::options(options)?)?)
}

/// `facade::task_created`.
#[wasm_bindgen(js_name = taskCreated)]
pub fn task_created(request: &JsValue, record: &JsValue, options: Option<String>) -> Result<String> {
    Ok(facade::task_created(&bytes(request), &bytes(record), &self::options(options)?)?)
}

/// `facade::task_get_response`.
#[wasm_bindgen(js_name = taskGetResponse)]
pub fn task_get_response(request: &JsValue, record: &JsValue, options: Option<String>) -> Result<String> {
    Ok(facade::task_get_response(&bytes(request), &bytes(record), &self::options(options)?)?)
}

/// `facade::ToolBridge`: one `2025-11-25` call of an await-style tool.
#[wasm_bindgen]
pub struct ToolBridge(facade::ToolBridge);

#[wasm_bindgen]
impl ToolBridge {
    /// A bridge for `request`, its event ids under `key`; options (JSON text)
    /// `{maxRounds, roundTimeoutMs, limits}`.
    #[wasm_bindgen(constructor)]
    pub fn new(request: &JsValue, key: &str, options: Option<String>) -> Result<ToolBridge> {
        let options = options.unwrap_or_default();
        Ok(ToolBridge(facade::ToolBridge::new(&bytes(request), key, options.as_bytes())?))
    }

    /// A replay of the tool from the answers collected so far.
    pub fn replay(&self) -> ToolReplay {
        ToolReplay(self.0.replay())
    }

    /// Sends what `replay` misses as server requests on the stream.
    pub fn ask(&mut self, replay: &ToolReplay, now: f64) -> Result<()> {
        Ok(self.0.ask(&replay.0, whole(now, "now")?)?)
    }

    /// The tool completed with `result` (JSON text).
    pub fn complete(&mut self, result: &JsValue) -> Result<()> {
        Ok(self.0.complete(&bytes(result))?)
    }

    /// The tool's run was refused: `rule`, `message`, `data` (JSON text of an object).
    pub fn refuse(&mut self, rule: &str, message: &str, data: &JsValue) -> Result<()> {
        Ok(self.0.refuse(rule, message, optional(data).as_deref())?)
    }

    /// A response the client POSTed; `true` when the round is complete.
    #[wasm_bindgen(js_name = handleAnswer)]
    pub fn handle_answer(&mut self, response: &JsValue, now: f64) -> Result<bool> {
        Ok(self.0.handle_answer(&bytes(response), whole(now, "now")?)?)
    }

    /// The round's deadline may have passed.
    #[wasm_bindgen(js_name = handleTimeout)]
    pub fn handle_timeout(&mut self, now: f64) -> Result<()> {
        self.0.handle_timeout(whole(now, "now")?);
        Ok(())
    }

    /// The next text to write on the stream, or `undefined`.
    #[wasm_bindgen(js_name = pollWrite)]
    pub fn poll_write(&mut self) -> Option<String> {
        self.0.poll_write()
    }

    /// When (ms) to call `handleTimeout`, or `undefined`.
    #[wasm_bindgen(js_name = pollTimeout)]
    pub fn poll_timeout(&self) -> Option<f64> {
        self.0.poll_timeout().map(|t| t as f64)
    }

    /// Whether the final response was written.
    #[wasm_bindgen(js_name = isDone)]
    pub fn is_done(&self) -> bool {
        self.0.is_done()
    }

    /// The ids of the server requests waiting for an answer.
    pub fn pending(&self) -> Vec<String> {
        self.0.pending()
    }
}

/// `facade::seal_with_nonce`: sealing with a caller's nonce, for the corpus's
/// test vectors. Only in builds with the cargo feature `test-vectors`
/// (`scripts/build.sh --test-vectors`, into `pkg-test-vectors/`), never in the
/// package's `pkg/`.
#[cfg(feature = "test-vectors")]
#[wasm_bindgen(js_name = sealWithNonceForTestVectors)]
pub fn seal_with_nonce_for_test_vectors(
    ring: &KeyRing,
    binding: &JsValue,
    now: f64,
    ttl: f64,
    payload: &JsValue,
    nonce: &[u8],
) -> Result<String> {
    let (binding, payload) = (bytes(binding), bytes(payload));
    Ok(facade::seal_with_nonce(&ring.0, &binding, now as u64, ttl as u32, &payload, nonce)?)
}

/// Panics on purpose: the tests show a panic reaching JavaScript as a
/// `PanicError`, never a dead module. Not part of the API.
#[wasm_bindgen(js_name = __panicForTests)]
pub fn panic_for_tests() {
    panic!("a panic raised on purpose by __panicForTests");
}

/// Aborts on purpose: a trap that bypasses the panic hook (as running out of
/// memory would), so that the tests show the API recovering from any trap.
/// Not part of the API.
#[wasm_bindgen(js_name = __abortForTests)]
pub fn abort_for_tests() {
    std::process::abort();
}
