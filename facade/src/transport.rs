//! The transports over JSON text: the event-stream decoder and encoder, the
//! client machine of one call over HTTP, and the server side (see
//! [`mrtr::http`]). Shapes are [`mrtr::wire`]'s.

use super::{parse, parse_arg, text, usage, usage_owned, Options};
use crate::kinds::*;
use alloc::{format, string::String, vec::Vec};
use mrtr::{
    client::operation,
    http::{self, call, serve, Mode, StreamLimits},
    sse, Limits, Millis, Result,
};
use mrtr_facade_macros::export;
use serde_json::Value;

/// The incremental event-stream (`text/event-stream`) decoder: `feed` bytes in any chunking, `finish`
/// at the end of the stream, and drain `poll_event`: each block as `{event, data, id, retry}` (the
/// fields its lines set), blocks without `data` included. An unreadable block fails `poll_event` with
/// its rule, in its place; the next call goes on after it.
///
/// The incremental event-stream decoder ([`sse::Decoder`]); each block as
/// `{"event", "data", "id", "retry"}` (only the fields it set).
#[export(machine)]
pub struct SseDecoder(sse::Decoder);

impl SseDecoder {
    /// A decoder under the options' limits.
    #[export]
    pub fn new(options: &Options) -> SseDecoder {
        SseDecoder(sse::Decoder::with_limits(&options.limits))
    }

    /// Decodes the next bytes of the stream, split anywhere (any split gives the same blocks). Bytes that
    /// are not UTF-8 are not refused here: the block holding them is reported by `poll_event`.
    #[export]
    pub fn feed(&mut self, chunk: RawBytes) {
        self.0.feed(chunk);
    }

    /// Ends the stream: a block not ended by a blank line is discarded (as a browser discards it). Blocks
    /// decoded already stay to be polled; a later `feed` starts a new stream.
    #[export]
    pub fn finish(&mut self) {
        self.0.finish();
    }

    /// The next decoded block, `{"event", "data", "id", "retry"}` (the fields its lines set), or none when
    /// none is ready. A block the decoder could not read fails this call with its rule, in its place:
    /// `jsonrpc-parse-error` (a line that is not UTF-8), `limit-exceeded` (a block over `maxMessageBytes`);
    /// decoding goes on after it.
    #[must_use]
    #[export(returns = SseEvent)]
    pub fn poll_event(&mut self) -> Option<Result<String>> {
        self.0.poll_event().map(|e| e.map(|e| text(&e)))
    }
}

/// One block, `{"event", "data", "id", "retry"}` (each optional), as event-stream text: what a decoder
/// reads back as the same block. An event that sets no field writes an empty text. An `event` or `id`
/// holding a line end, an `id` holding NUL, an unknown field or one of the wrong type is
/// `usage-invalid-argument`.
///
/// Writes one block (`{"event", "data", "id", "retry"}`, each optional) as
/// event-stream text ([`sse::encode`]).
#[export(shapes(event = SseEvent))]
pub fn sse_encode(event: JsonText) -> Result<String> {
    let v = parse_arg(event, "an event")?;
    let o = v.as_object().ok_or(usage("an event is an object"))?;
    let mut event = sse::Event::default();
    for (k, v) in o {
        let s = || v.as_str().map(String::from).ok_or_else(|| usage_owned(format!("event field {k:?} is a string")));
        match k.as_str() {
            "event" => event.event = Some(s()?),
            "data" => event.data = Some(s()?),
            "id" => event.id = Some(s()?),
            "retry" => event.retry = Some(v.as_u64().ok_or(usage("retry is a non-negative integer"))?),
            _ => return Err(usage_owned(format!("an event has no field {k:?}"))),
        }
    }
    let mut out = String::new();
    sse::encode(&event, &mut out)?;
    Ok(out)
}

/// The configuration of a call as JSON: `{"mode", "url", "headers": {…},
/// "protocol", "limits": {…}, "maxEvents", "maxLinks", "maxLinkBytes",
/// "maxRetryMs", "maxReconnects", "defaultRetryMs", "stallMs"}`; `mode` and `url`
/// required, the rest defaulting as [`call::CallConfig::new`] and
/// [`StreamLimits::DEFAULT`].
pub fn call_config(text: &[u8]) -> Result<call::CallConfig> {
    call_config_of(&parse_arg(text, "a call's configuration")?)
}

fn call_config_of(v: &Value) -> Result<call::CallConfig> {
    let o = v.as_object().ok_or(usage("a call's configuration is an object"))?;
    let str_of = |k: &str| o.get(k).and_then(Value::as_str);
    let mode = Mode::from_name(str_of("mode").ok_or(usage("a call's configuration names its \"mode\""))?)?;
    let mut c = call::CallConfig::new(mode, str_of("url").ok_or(usage("a call's configuration has a \"url\""))?);
    let mut limits = StreamLimits::DEFAULT;
    for (k, v) in o {
        let n = || v.as_u64().ok_or_else(|| usage_owned(format!("{k} is a non-negative integer")));
        match k.as_str() {
            "mode" | "url" => {}
            "headers" => {
                c.headers = headers_from(v).ok_or(usage("headers is an object of strings or [name, value] pairs"))?
            }
            "protocol" => {
                c.settings.protocol = mrtr::Protocol::parse(v.as_str().ok_or(usage("protocol is a string"))?)?
            }
            "limits" => {
                c.settings.limits =
                    serde_json::from_value::<Limits>(v.clone()).map_err(|e| usage_owned(format!("limits: {e}")))?
            }
            "maxEvents" => limits.max_events = usize::try_from(n()?).unwrap_or(usize::MAX),
            "maxLinks" => limits.max_links = usize::try_from(n()?).unwrap_or(usize::MAX),
            "maxLinkBytes" => limits.max_link_bytes = usize::try_from(n()?).unwrap_or(usize::MAX),
            "maxRetryMs" => limits.max_retry_ms = n()?,
            "maxReconnects" => limits.max_reconnects = u32::try_from(n()?).unwrap_or(u32::MAX),
            "defaultRetryMs" => c.default_retry_ms = n()?,
            "stallMs" => c.stall_ms = Some(n()?),
            _ => return Err(usage_owned(format!("a call's configuration has no field {k:?}"))),
        }
    }
    c.limits = limits;
    Ok(c)
}

pub(super) fn headers_arg(text: &[u8]) -> Result<http::Headers> {
    let v = if text.is_empty() { Value::Null } else { parse_arg(text, "header fields")? };
    headers_from(&v).ok_or(usage("header fields are an object of strings or an array of [name, value] pairs"))
}

/// The inputs of an HTTP exchange, alike in both client machines over JSON
/// text (`HttpCall`, `Operation`): header fields arrive as JSON text.
macro_rules! exchange_inputs {
    () => {
        /// The status and header fields of the response to `exchange` (the number of a request from
        /// `poll_transmit`); `headers` a JSON object of names (any case) to strings, or none. A second head for
        /// one exchange is `usage-out-of-turn`, an exchange unknown or ended `usage-unknown-handle`. What the
        /// server did wrong is no failure of this call: it comes out as an event.
        ///
        /// The status and header fields of the response to `exchange` (the number of a request from
        /// `poll_transmit`); `headers` a JSON object of names (any case) to strings, or none. A second head for
        /// one exchange is `usage-out-of-turn`, an exchange unknown or ended `usage-unknown-handle`. What the
        /// server did wrong is no failure of this call: it comes out as an event.
        ///
        /// The status and header fields (`{name: value}`) of the response to `exchange`.
        #[export]
        #[export]
        pub fn handle_head(
            &mut self,
            exchange: Whole,
            status: Status,
            headers: HeaderFields,
            now: Whole,
        ) -> Result<()> {
            self.inner.handle_head(exchange, status, &headers_arg(headers)?, Millis(now))
        }

        /// Bytes of the body of the response to `exchange`, in any chunking (raw bytes: an event stream that is
        /// not UTF-8 is the server's error, reported as an event). A body before its head is
        /// `usage-out-of-turn`.
        ///
        /// Bytes of the body of the response to `exchange`, in any chunking (raw bytes: an event stream that is
        /// not UTF-8 is the server's error, reported as an event). A body before its head is
        /// `usage-out-of-turn`.
        ///
        /// Bytes of the body of the response to `exchange`.
        #[export]
        #[export]
        pub fn handle_body(&mut self, exchange: Whole, chunk: RawBytes, now: Whole) -> Result<()> {
            self.inner.handle_body(exchange, chunk, Millis(now))
        }

        /// The response to `exchange` ended: the server closed it, the connection was cut, or none came.
        ///
        /// The response to `exchange` ended: the server closed it, the connection was cut, or none came.
        ///
        /// The response to `exchange` ended.
        #[export]
        #[export]
        pub fn handle_end(&mut self, exchange: Whole, now: Whole) -> Result<()> {
            self.inner.handle_end(exchange, Millis(now))
        }

        /// The time `poll_timeout` named came (`now` at or after it; earlier does nothing).
        ///
        /// The time `poll_timeout` named came (`now` at or after it; earlier does nothing).
        ///
        /// The time `poll_timeout` named came.
        #[export]
        #[export]
        pub fn handle_timeout(&mut self, now: Whole) {
            self.inner.handle_timeout(Millis(now));
        }
    };
}

/// The client machine of one JSON-RPC call over HTTP (sans-IO), in any transport mode (`2026-07-28`,
/// `2025-11-25`, `sep-1858`, `sep-1335`). Inputs: the response head, body bytes and end of each
/// exchange, timeouts, and the host's answers to server requests, each with the time (ms). After each,
/// drain `poll_transmit` (HTTP requests to send), then `poll_event` (`serverRequest`, `message`,
/// `violation`, and last `response` or `failed`), then read `poll_timeout`.
///
/// The client machine of one call over HTTP ([`call::Call`]) over JSON text.
/// Drain order after every input: `poll_transmit`, `poll_event`, `poll_timeout`.
#[export(machine)]
pub struct HttpCall {
    inner: call::Call,
    limits: Limits,
}

impl HttpCall {
    /// Starts the call of `request` (a JSON-RPC request with an id) at `now` (the host's clock,
    /// milliseconds) under `config`: `{"mode": "2026-07-28" | "2025-11-25" | "sep-1858" | "sep-1335",
    /// "url", "headers": {<name>: <value>}, "protocol", "limits", "maxEvents", "maxLinks", "maxLinkBytes",
    /// "maxRetryMs", "maxReconnects", "defaultRetryMs", "stallMs"}` (`mode` and `url` required). A bad
    /// configuration, or a request that is no JSON-RPC request, is `usage-invalid-argument`. After creating
    /// it and after every input, drain `poll_transmit`, then `poll_event`, then read `poll_timeout`.
    ///
    /// Starts `request` under the configuration ([`call_config`]).
    #[export(shapes(config = CallConfig))]
    pub fn new(config: JsonText, request: JsonText, now: Whole) -> Result<HttpCall> {
        let config = call_config(config)?;
        let limits = config.settings.limits;
        let request =
            parse(request, &limits).map_err(|e| usage_owned(format!("the call's request: {}", e.message())))?;
        Ok(HttpCall { inner: call::Call::new(config, &request, Millis(now))?, limits })
    }

    exchange_inputs!();

    /// The host's JSON-RPC response to a server request the call reported (a `serverRequest` event). An
    /// answer to no reported request is `usage-out-of-turn`; one that is no JSON-RPC response
    /// `usage-invalid-argument`.
    #[export]
    pub fn answer(&mut self, response: JsonText, now: Whole) -> Result<()> {
        let response =
            parse(response, &self.limits).map_err(|e| usage_owned(format!("the answer: {}", e.message())))?;
        self.inner.answer(&response, Millis(now))
    }

    /// The next HTTP request to send, `{"exchange": <n>, "method": "POST" | "GET", "url", "headers":
    /// {<lower-case name>: <value>}, "body": <JSON, when there is one>}`, or none. Quote `exchange` with
    /// every part of its response.
    #[must_use]
    #[export(returns = HttpRequest)]
    pub fn poll_transmit(&mut self) -> Option<JsonString> {
        self.inner.poll_transmit().map(|r| text(&r))
    }

    /// The next event, or none: `{"type": "serverRequest", "message"}` (answer it with `answer`), `{"type":
    /// "message", "message"}` (a notification or another response, to pass on), `{"type": "violation",
    /// "rule", "message"}` (the server broke a rule; the call goes on), and last either `{"type":
    /// "response", "message"}` (the call's JSON-RPC response) or `{"type": "failed", "rule", "message"}`.
    #[must_use]
    #[export(returns = HttpCallEvent)]
    pub fn poll_event(&mut self) -> Option<JsonString> {
        self.inner.poll_event().map(|e| text(&e))
    }

    /// When to call `handle_timeout` (the host's milliseconds), or none.
    #[must_use]
    #[export]
    pub fn poll_timeout(&self) -> OptMillis {
        self.inner.poll_timeout().map(|at| at.0)
    }

    /// Whether the call is over: its `response` or `failed` event was queued.
    #[export]
    pub fn is_done(&self) -> bool {
        self.inner.is_done()
    }

    /// The open exchanges given up as stalled (`stallMs`), as a JSON array of their numbers: each went
    /// again or its stream was resumed. The host may cut them (then `handle_end` each) rather than wait for
    /// a hung server.
    ///
    /// The open exchanges given up as stalled, as a JSON array
    /// ([`call::Call::abandoned`]).
    #[export(returns = Exchanges)]
    pub fn abandoned(&self) -> JsonString {
        text(&self.inner.abandoned())
    }
}

/// The fields of an operation's configuration that are not a call's.
const OPERATION_FIELDS: [&str; 9] = [
    "maxRounds",
    "maxResends",
    "backoffMs",
    "backoffMaxMs",
    "taskPollMs",
    "versions",
    "hedgeAfterMs",
    "maxHedges",
    "idempotent",
];

/// The configuration of an operation as JSON: a call's ([`call_config`])
/// plus [`OPERATION_FIELDS`], each defaulting as [`operation::Config::new`].
fn operation_config(text: &[u8]) -> Result<operation::Config> {
    let mut v = parse_arg(text, "an operation's configuration")?;
    let o = v.as_object_mut().ok_or(usage("an operation's configuration is an object"))?;
    let own: Vec<(&str, Value)> =
        OPERATION_FIELDS.iter().filter_map(|name| Some((*name, o.shift_remove(*name)?))).collect();
    let call = call_config_of(&v)?;
    let mut c = operation::Config::new(call.mode, call.url.clone());
    c.call = call;
    let mut hedges = None;
    for (name, value) in own {
        let n = || value.as_u64().ok_or_else(|| usage_owned(format!("{name} is a non-negative integer")));
        match name {
            "maxRounds" => c.call.settings.max_rounds = u32::try_from(n()?).unwrap_or(u32::MAX),
            "maxResends" => c.max_resends = u32::try_from(n()?).unwrap_or(u32::MAX),
            "backoffMs" => c.backoff_ms = n()?,
            "backoffMaxMs" => c.backoff_max_ms = n()?,
            "taskPollMs" => c.task_poll_ms = n()?,
            "hedgeAfterMs" => c.hedge.get_or_insert(operation::Hedge { after_ms: 0, max: 1 }).after_ms = n()?,
            "maxHedges" => hedges = Some(u32::try_from(n()?).unwrap_or(u32::MAX)),
            "idempotent" => c.idempotent = value.as_bool().ok_or(usage("idempotent is true or false"))?,
            _ => {
                let strings =
                    value.as_array().and_then(|items| items.iter().map(|v| v.as_str().map(String::from)).collect());
                c.versions = strings.ok_or(usage("versions is an array of strings"))?;
            }
        }
    }
    match (&mut c.hedge, hedges) {
        (Some(hedge), Some(max)) => hedge.max = max,
        (None, Some(_)) => return Err(usage("maxHedges goes with hedgeAfterMs")),
        _ => {}
    }
    Ok(c)
}

/// One client operation over HTTP in any transport mode (sans-IO): the rounds of `2026-07-28` (each
/// retry under a new id, with the answers and the exact `requestState`) or the server requests on a
/// call's stream (`2025-11-25`, `sep-1858`, `sep-1335`), every question answered the same way,
/// `answer(key, result)`. Drain after every input: `poll_transmit`, then `poll_event` (`inputRequired`,
/// `message`, `violation`, and last `done` or `failed`; an answer given there is an input: drain
/// again), then read `poll_timeout`; drop it once `is_drained`.
///
/// One client operation over HTTP ([`operation::Operation`]) over JSON text.
/// Drain order after every input: `poll_transmit`, `poll_event`, `poll_timeout`.
#[export(machine, left_out = crate::exports::WASM_SIZE)]
pub struct Operation {
    inner: operation::Operation,
    limits: Limits,
}

impl Operation {
    /// Starts the operation of `request` (a JSON-RPC request with an id) at `now` (the host's clock,
    /// milliseconds) under `config`: a call's configuration (as `HttpCall`'s) plus `"maxRounds"` (default
    /// 10), `"maxResends"` (default 2), `"backoffMs"`, `"backoffMaxMs"`, `"taskPollMs"` (default 1000),
    /// `"versions"`, `"hedgeAfterMs"` with `"maxHedges"` (default 1) for hedged rounds, and `"idempotent"`
    /// (default false: a first request is hedged, or sent again once a server may have taken it, only when
    /// the host says it is harmless twice). The drain order, after creating it and after every input
    /// (`handle_*`, `answer`): `poll_transmit` until none (send each), then `poll_event` until none (an
    /// answer given there is an input: drain the transmits again), then read `poll_timeout`. Drop it once
    /// `is_drained`.
    ///
    /// Starts `request` under the configuration: a call's ([`call_config`])
    /// plus `"maxRounds"`, `"maxResends"`, `"backoffMs"`, `"backoffMaxMs"`,
    /// `"taskPollMs"`, `"versions"` (the protocol versions the client
    /// speaks, preferred first), the hedge (`"hedgeAfterMs"`,
    /// `"maxHedges"`, default 1) and `"idempotent"`: [`operation::Config`].
    #[export(shapes(config = OperationConfig))]
    pub fn new(config: JsonText, request: JsonText, now: Whole) -> Result<Operation> {
        let config = operation_config(config)?;
        let limits = config.call.settings.limits;
        let request =
            parse(request, &limits).map_err(|e| usage_owned(format!("the operation's request: {}", e.message())))?;
        Ok(Operation { inner: operation::Operation::new(config, request, Millis(now))?, limits })
    }

    exchange_inputs!();

    /// Answers the question `key` of an `inputRequired` event with `result` (an elicitation's `{"action",
    /// …}`, a sampling result, a roots list). An answer that does not fit its question fails with its rule
    /// and the question stays open; a key nothing asked is `usage-unknown-handle`, one answered already
    /// `usage-out-of-turn`.
    #[export]
    pub fn answer(&mut self, key: &str, result: JsonText, now: Whole) -> Result<()> {
        let result = parse(result, &self.limits).map_err(|e| usage_owned(format!("the answer: {}", e.message())))?;
        self.inner.answer(key, result, Millis(now))
    }

    /// The next HTTP request to send, `{"exchange": <n>, "method": "POST" | "GET", "url", "headers":
    /// {<lower-case name>: <value>}, "body": <JSON, when there is one>}`, or none. Quote `exchange` with
    /// every part of its response.
    #[must_use]
    #[export(returns = HttpRequest)]
    pub fn poll_transmit(&mut self) -> Option<JsonString> {
        self.inner.poll_transmit().map(|r| text(&r))
    }

    /// The next event, or none: `{"type": "inputRequired", "round", "requests": {<key>: {"method",
    /// "params"}}}` (answer each key with `answer`), `{"type": "message", "message"}`, `{"type":
    /// "violation", "rule", "message"}`, and last either `{"type": "done", "response"}` (the final JSON-RPC
    /// response) or `{"type": "failed", "rule", "message"}`.
    #[must_use]
    #[export(returns = OperationEvent)]
    pub fn poll_event(&mut self) -> Option<JsonString> {
        self.inner.poll_event().map(|e| text(&e))
    }

    /// When to call `handle_timeout` (the host's milliseconds), or none.
    #[must_use]
    #[export]
    pub fn poll_timeout(&self) -> OptMillis {
        self.inner.poll_timeout().map(|at| at.0)
    }

    /// Whether the final event was taken and no exchange is open: the operation may be dropped.
    #[export]
    pub fn is_drained(&self) -> bool {
        self.inner.is_drained()
    }

    /// The open exchanges whose answer no longer matters, as a JSON array of their numbers: an earlier
    /// round's, such as a hedged round's losing copies. The host may cut them (then `handle_end` each)
    /// rather than wait for a slow server.
    ///
    /// The open exchanges whose answer no longer matters, as a JSON array
    /// ([`operation::Operation::abandoned`]).
    #[export(returns = Exchanges)]
    pub fn abandoned(&self) -> JsonString {
        text(&self.inner.abandoned())
    }

    /// What the operation knows, as JSON, to go on from after the host restarts (in another process or
    /// language) with `restore`: the current round's request, the ids, rounds and versions so far, an open
    /// round's questions and answers, the task it follows; not the configuration (the host gives it again,
    /// credentials included) nor the open exchanges (the round they carried goes again). An operation that
    /// is over, or a stream mode's call that answered a server request, is `usage-out-of-turn`.
    ///
    /// What the operation knows, as JSON text, to go on from after a restart
    /// ([`operation::Operation::snapshot`]).
    #[export]
    pub fn snapshot(&self, now: Whole) -> Result<JsonString> {
        Ok(text(&self.inner.snapshot(Millis(now))?))
    }

    /// The operation of `snapshot` under `config` (as the constructor reads it) at `now`: the round in
    /// flight goes again under a new id, an open round asks its unanswered questions again (one
    /// `inputRequired` event), a followed task is polled after the wait that was left. A snapshot of
    /// another format or transport mode is `usage-invalid-argument`.
    ///
    /// The operation of `snapshot` (JSON text) under the configuration, as
    /// [`Operation::new`] reads it, at `now` ([`operation::Operation::restore`]).
    #[export(shapes(config = OperationConfig))]
    pub fn restore(config: JsonText, snapshot: JsonText, now: Whole) -> Result<Operation> {
        let config = operation_config(config)?;
        let limits = config.call.settings.limits;
        let snapshot = parse(snapshot, &limits).map_err(|e| usage_owned(format!("the snapshot: {}", e.message())))?;
        Ok(Operation { inner: operation::Operation::restore(config, &snapshot, Millis(now))?, limits })
    }
}

/// A server's response stream in a transport mode, for the continuation `key` (the host's name of the
/// call's state), its event ids `<key>.<n>` numbered from `first`. Write with `message`, `retry` and
/// `ask`; `take` the text to send.
#[export(machine)]
pub struct ServerStream(serve::ServerStream);

impl ServerStream {
    /// A response stream of `mode` for the continuation `key` (the host's name for the call's state in its
    /// own store: event ids are `<key>.<n>`, a stream URL carries `?stream=<key>`), numbering events from
    /// `first`. An empty key, or one with a line end or NUL, is `usage-invalid-argument`.
    ///
    /// A stream of `mode` for the continuation `key`, numbering events from `first`.
    #[export(shapes(mode = TransportMode))]
    pub fn new(mode: &str, key: &str, first: Whole) -> Result<ServerStream> {
        Ok(ServerStream(serve::ServerStream::new(Mode::from_name(mode)?, key, first)?))
    }

    /// The header fields of the response head (status 200), a JSON object: `content-type:
    /// text/event-stream`, `cache-control`, and under `sep-1335` the `link: <stream_url>; rel="stream"`
    /// (none: no link).
    ///
    /// The response head's fields as JSON (`{name: value}`), with the
    /// `rel="stream"` Link under SEP-1335.
    #[export(returns = HeaderFields)]
    pub fn head(&self, stream_url: Option<&str>) -> JsonString {
        let headers = self.0.head(stream_url);
        let o: serde_json::Map<String, Value> = headers.into_iter().map(|(n, v)| (n, Value::String(v))).collect();
        text(&o)
    }

    /// Writes the JSON-RPC `message` as an event; its event id.
    ///
    /// Writes a JSON-RPC message as an event; its id.
    #[export]
    pub fn message(&mut self, message: JsonText) -> Result<String> {
        let m = parse(message, &Limits::DEFAULT)?;
        self.0.message(&m)
    }

    /// Writes a `retry: <retry_ms>` block; its event id.
    #[export]
    pub fn retry(&mut self, retry_ms: Whole) -> Result<String> {
        self.0.retry(retry_ms)
    }

    /// Writes the mode's sequence asking for `requests` (a JSON array of JSON-RPC requests: elicitation,
    /// sampling, roots): under `sep-1858` `buffer_input`, the requests, `input_required`; under `sep-1335`
    /// the requests and `retry: <retry_ms>`; under `2025-11-25` the requests (a `2026-07-28` server asks
    /// inside results: `usage-invalid-argument`). After a `sep-1858` or `sep-1335` ask the host ends the
    /// response; under `sep-1858` anything written after it is `usage-out-of-turn`. The last event id
    /// written.
    #[export(shapes(requests = Messages))]
    pub fn ask(&mut self, requests: JsonText, retry_ms: Whole) -> Result<String> {
        let v = parse(requests, &Limits::DEFAULT)?;
        let requests: Vec<Value> = match v {
            Value::Array(items) => items,
            _ => return Err(usage("the requests are a JSON array")),
        };
        self.0.ask(&requests, retry_ms)
    }

    /// The event-stream text written since the last `take` (to write to the response body), and empties it.
    ///
    /// The text written so far.
    #[export]
    pub fn take(&mut self) -> String {
        self.0.take()
    }
}

/// What an incoming HTTP request to an MCP endpoint (or a stream URL) asks under `mode`, from its
/// `method`, `url`, `headers` (a JSON object of names to strings, or none) and `body` (raw bytes, empty
/// for none): `{"type": "call", "message"}` (a new call), `{"type": "messages", "messages": […]}`
/// (answer `202`), `{"type": "answers", "key", "responses": […]}` (buffered answers of the continuation
/// `key`), `{"type": "resume", "key", "lastEventId"}` (a GET resuming a stream). A body that is no
/// JSON-RPC fails with its rule (`jsonrpc-parse-error`, `jsonrpc-invalid`, `limit-exceeded`): answer it
/// with HTTP 400.
///
/// Reads an incoming HTTP request ([`serve::read_request`]) as JSON text.
#[export(shapes(mode = TransportMode), returns = Incoming)]
pub fn read_http_request(
    mode: &str,
    method: &str,
    url: &str,
    headers: HeaderFields,
    body: RawBytes,
    options: &Options,
) -> Result<JsonString> {
    let incoming = serve::read_request(
        Mode::from_name(mode)?,
        method,
        url,
        &headers_arg(headers)?,
        body,
        options.protocol,
        &options.limits,
    )?;
    Ok(text(&incoming))
}

/// The `rel="stream"` URL of the continuation `key` at `endpoint` (SEP-1335).
#[export]
pub fn stream_url(endpoint: &str, key: &str) -> Result<String> {
    serve::stream_url(endpoint, key)
}

/// (2026-07-28) The header fields that mirror `request`'s body, for a client that POSTs it itself:
/// `mcp-protocol-version`, `mcp-method`, `mcp-name`, each where the body has its value (`mcp-name`:
/// `params.name`, `params.uri` or `params.taskId`, by method), a value that is not plain visible ASCII
/// written `=?base64?…?=` (SEP-2243).
///
/// (`2026-07-28`) The header fields that mirror `request`'s body
/// ([`http::mirror_headers`]): `{"mcp-protocol-version", "mcp-method",
/// "mcp-name"}`, each where the body has its value, encoded per SEP-2243
/// where it is not plain visible ASCII.
#[export(returns = HeaderFields)]
pub fn mirrored_fields(request: JsonText) -> Result<JsonString> {
    let v = parse(request, &Limits::DEFAULT)?;
    let fields: serde_json::Map<String, Value> =
        http::mirror_headers(&v).into_iter().map(|(n, value)| (n, Value::String(value))).collect();
    Ok(text(&fields))
}

/// A client's answer to a server request that arrived outside any request of its own in flight
/// (SEP-2260; e.g. on the standalone GET stream): the JSON-RPC error response (-32602) to send back for
/// `elicitation/create`, `sampling/createMessage` and `roots/list`, or none for any other message
/// (`ping` is exempt).
///
/// The -32602 answer to a server request outside any call
/// ([`call::unassociated_reply`]), or `None`.
#[export]
pub fn unassociated_reply(request: JsonText) -> Result<Option<JsonString>> {
    let v = parse(request, &Limits::DEFAULT)?;
    Ok(call::unassociated_reply(&v).map(|r| text(&r)))
}

/// Header fields given as an object of names to strings, or as an array of
/// `[name, value]` pairs (for a field sent several times, such as `Link`);
/// names lower-cased.
fn headers_from(v: &serde_json::Value) -> Option<mrtr::http::Headers> {
    use alloc::string::String;
    use serde_json::Value;
    match v {
        Value::Null => Some(alloc::vec::Vec::new()),
        Value::Object(o) => o.iter().map(|(n, v)| Some((n.to_ascii_lowercase(), String::from(v.as_str()?)))).collect(),
        Value::Array(pairs) => pairs
            .iter()
            .map(|pair| match pair.as_array().map(alloc::vec::Vec::as_slice) {
                Some([Value::String(n), Value::String(v)]) => Some((n.to_ascii_lowercase(), v.clone())),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use serde_json::json;

    /// The operation over JSON text: its configuration's own fields, its
    /// transmits and events in the wire's shapes, and an answer by key.
    #[test]
    fn an_operation_over_json_text() {
        let request = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "t",
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}}});
        let config = br#"{"mode": "2026-07-28", "url": "http://h/mcp", "maxRounds": 3, "maxResends": 0}"#;
        let mut op = Operation::new(config, request.to_string().as_bytes(), 0).unwrap();
        let post: Value = serde_json::from_str(&op.poll_transmit().unwrap()).unwrap();
        assert_eq!((&post["exchange"], &post["body"]["id"]), (&json!(1), &json!(4)));
        let asked = json!({"jsonrpc": "2.0", "id": 4, "result": {"resultType": "input_required", "requestState": "s",
            "inputRequests": {"ok": {"method": "elicitation/create", "params": {"mode": "form", "message": "OK?",
                "requestedSchema": {"type": "object", "properties": {}}}}}}});
        op.handle_head(1, 200, br#"{"content-type": "application/json"}"#, 1).unwrap();
        op.handle_body(1, asked.to_string().as_bytes(), 1).unwrap();
        op.handle_end(1, 1).unwrap();
        let event: Value = serde_json::from_str(&op.poll_event().unwrap()).unwrap();
        assert_eq!((&event["type"], &event["round"]), (&json!("inputRequired"), &json!(1)));
        assert_eq!(event["requests"]["ok"]["method"], "elicitation/create");
        op.answer("ok", br#"{"action": "accept", "content": {}}"#, 2).unwrap();
        let retry: Value = serde_json::from_str(&op.poll_transmit().unwrap()).unwrap();
        assert_eq!((&retry["body"]["id"], &retry["body"]["params"]["requestState"]), (&json!("4.1"), &json!("s")));
        assert!(!op.is_drained());

        let refused = |config: &[u8]| Operation::new(config, request.to_string().as_bytes(), 0).err().unwrap().rule();
        assert_eq!(
            refused(br#"{"mode": "2026-07-28", "url": "http://h/mcp", "maxRounds": "3"}"#),
            mrtr::RuleId::UsageInvalidArgument
        );
        assert_eq!(
            refused(br#"{"mode": "2026-07-28", "url": "http://h/mcp", "rounds": 3}"#),
            mrtr::RuleId::UsageInvalidArgument
        );
        let negative = br#"{"mode": "2026-07-28", "url": "http://h/mcp", "taskPollMs": -1}"#;
        assert_eq!(refused(negative), mrtr::RuleId::UsageInvalidArgument);
        let numbers = br#"{"mode": "2026-07-28", "url": "http://h/mcp", "versions": [2026]}"#;
        assert_eq!(refused(numbers), mrtr::RuleId::UsageInvalidArgument);
        let listed = br#"{"mode": "2026-07-28", "url": "http://h/mcp", "versions": ["2026-07-28"]}"#;
        assert!(Operation::new(listed, request.to_string().as_bytes(), 0).is_ok());
        let lone = br#"{"mode": "2026-07-28", "url": "http://h/mcp", "maxHedges": 2}"#;
        assert_eq!(refused(lone), mrtr::RuleId::UsageInvalidArgument);

        // Hedged: a first request only where the host says it is harmless twice.
        let unsafe_first = br#"{"mode": "2026-07-28", "url": "http://h/mcp", "hedgeAfterMs": 40, "maxHedges": 2}"#;
        let mut op = Operation::new(unsafe_first, request.to_string().as_bytes(), 0).unwrap();
        let _ = op.poll_transmit();
        assert_eq!(op.poll_timeout(), None, "a first request carries nothing a copy is told apart by");
        let refusing = br#"{"mode": "2026-07-28", "url": "http://h/mcp", "idempotent": 1}"#;
        assert_eq!(refused(refusing), mrtr::RuleId::UsageInvalidArgument);
        // The round goes again once nothing answered it for hedgeAfterMs.
        let hedged =
            br#"{"mode": "2026-07-28", "url": "http://h/mcp", "hedgeAfterMs": 40, "maxHedges": 2, "idempotent": true}"#;
        let mut op = Operation::new(hedged, request.to_string().as_bytes(), 0).unwrap();
        let _ = op.poll_transmit();
        assert_eq!(op.poll_timeout(), Some(40));
        op.handle_timeout(40);
        let copy: Value = serde_json::from_str(&op.poll_transmit().unwrap()).unwrap();
        assert_eq!((&copy["exchange"], &copy["body"]["id"]), (&json!(2), &json!("4.1")));
        assert_eq!(op.poll_timeout(), Some(80), "a second copy is allowed");
    }

    #[test]
    fn the_mirrored_fields_of_a_request() {
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"notes://x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        let fields: Value = serde_json::from_str(&mirrored_fields(call).unwrap()).unwrap();
        assert_eq!(
            fields,
            serde_json::json!({"mcp-protocol-version": "2026-07-28", "mcp-method": "resources/read", "mcp-name": "notes://x"})
        );
        let list: Value =
            serde_json::from_str(&mirrored_fields(br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#).unwrap())
                .unwrap();
        assert_eq!(list, serde_json::json!({"mcp-method": "tools/list"}));
        assert!(mirrored_fields(b"{").is_err());
    }

    #[test]
    fn header_fields_read_as_an_object_or_as_pairs() {
        let pairs = super::headers_from(&json!([["Link", "<a>; rel=x"], ["link", "<b>; rel=stream"]])).unwrap();
        assert_eq!(pairs.len(), 2);
        assert_eq!(pairs[0].0, "link");
        assert_eq!(super::headers_from(&json!({"Content-Type": "text/event-stream"})).unwrap()[0].0, "content-type");
        assert_eq!(super::headers_from(&json!([["a"]])), None);
        assert_eq!(super::headers_from(&json!({"a": 1})), None);
    }
}
