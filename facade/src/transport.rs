//! The transports over JSON text: the event-stream decoder and encoder, the
//! client machine of one call over HTTP, and the server side (see
//! [`mrtr::http`]). Shapes are [`mrtr::wire`]'s.

use super::{parse, parse_arg, text, usage, usage_owned, Options};
use alloc::{format, string::String, vec::Vec};
use mrtr::{
    client::operation,
    http::{self, call, serve, Mode, StreamLimits},
    sse, Limits, Millis, Result,
};
use serde_json::Value;

/// The incremental event-stream decoder ([`sse::Decoder`]); each block as
/// `{"event", "data", "id", "retry"}` (only the fields it set).
pub struct SseDecoder(sse::Decoder);

impl SseDecoder {
    /// A decoder bounding each block by the options' `maxMessageBytes`.
    pub fn new(o: &Options) -> SseDecoder {
        SseDecoder(sse::Decoder::with_limits(&o.limits))
    }

    /// Decodes the next bytes of the stream.
    pub fn feed(&mut self, chunk: &[u8]) {
        self.0.feed(chunk);
    }

    /// Ends the stream (an unterminated last block is discarded).
    pub fn finish(&mut self) {
        self.0.finish();
    }

    /// The next block as JSON text, or the error that made it unreadable.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Result<String>> {
        self.0.poll_event().map(|e| e.map(|e| text(&e)))
    }
}

/// Writes one block (`{"event", "data", "id", "retry"}`, each optional) as
/// event-stream text ([`sse::encode`]).
pub fn sse_encode(event: &[u8]) -> Result<String> {
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
        /// The status and header fields (`{name: value}`) of the response to `exchange`.
        pub fn handle_head(&mut self, exchange: u64, status: u16, headers: &[u8], now: u64) -> Result<()> {
            self.inner.handle_head(exchange, status, &headers_arg(headers)?, Millis(now))
        }

        /// Bytes of the body of the response to `exchange`.
        pub fn handle_body(&mut self, exchange: u64, chunk: &[u8], now: u64) -> Result<()> {
            self.inner.handle_body(exchange, chunk, Millis(now))
        }

        /// The response to `exchange` ended.
        pub fn handle_end(&mut self, exchange: u64, now: u64) -> Result<()> {
            self.inner.handle_end(exchange, Millis(now))
        }

        /// The time `poll_timeout` named came.
        pub fn handle_timeout(&mut self, now: u64) {
            self.inner.handle_timeout(Millis(now));
        }
    };
}

/// The client machine of one call over HTTP ([`call::Call`]) over JSON text.
/// Drain order after every input: `poll_transmit`, `poll_event`, `poll_timeout`.
pub struct HttpCall {
    inner: call::Call,
    limits: Limits,
}

impl HttpCall {
    /// Starts `request` under the configuration ([`call_config`]).
    pub fn new(config: &[u8], request: &[u8], now: u64) -> Result<HttpCall> {
        let config = call_config(config)?;
        let limits = config.settings.limits;
        let request =
            parse(request, &limits).map_err(|e| usage_owned(format!("the call's request: {}", e.message())))?;
        Ok(HttpCall { inner: call::Call::new(config, &request, Millis(now))?, limits })
    }

    exchange_inputs!();

    /// The host's JSON-RPC response to a reported server request.
    pub fn answer(&mut self, response: &[u8], now: u64) -> Result<()> {
        let response =
            parse(response, &self.limits).map_err(|e| usage_owned(format!("the answer: {}", e.message())))?;
        self.inner.answer(&response, Millis(now))
    }

    /// The next HTTP request to send, as JSON text.
    #[must_use]
    pub fn poll_transmit(&mut self) -> Option<String> {
        self.inner.poll_transmit().map(|r| text(&r))
    }

    /// The next event, as JSON text.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<String> {
        self.inner.poll_event().map(|e| text(&e))
    }

    /// When to call `handle_timeout`, if anything waits.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<u64> {
        self.inner.poll_timeout().map(|at| at.0)
    }

    /// Whether the call is over.
    pub fn is_done(&self) -> bool {
        self.inner.is_done()
    }

    /// The open exchanges given up as stalled, as a JSON array
    /// ([`call::Call::abandoned`]).
    pub fn abandoned(&self) -> String {
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

/// One client operation over HTTP ([`operation::Operation`]) over JSON text.
/// Drain order after every input: `poll_transmit`, `poll_event`, `poll_timeout`.
pub struct Operation {
    inner: operation::Operation,
    limits: Limits,
}

impl Operation {
    /// Starts `request` under the configuration: a call's ([`call_config`])
    /// plus `"maxRounds"`, `"maxResends"`, `"backoffMs"`, `"backoffMaxMs"`,
    /// `"taskPollMs"`, `"versions"` (the protocol versions the client
    /// speaks, preferred first), the hedge (`"hedgeAfterMs"`,
    /// `"maxHedges"`, default 1) and `"idempotent"`: [`operation::Config`].
    pub fn new(config: &[u8], request: &[u8], now: u64) -> Result<Operation> {
        let config = operation_config(config)?;
        let limits = config.call.settings.limits;
        let request =
            parse(request, &limits).map_err(|e| usage_owned(format!("the operation's request: {}", e.message())))?;
        Ok(Operation { inner: operation::Operation::new(config, request, Millis(now))?, limits })
    }

    exchange_inputs!();

    /// Answers the question `key` with `result` (JSON text).
    pub fn answer(&mut self, key: &str, result: &[u8], now: u64) -> Result<()> {
        let result = parse(result, &self.limits).map_err(|e| usage_owned(format!("the answer: {}", e.message())))?;
        self.inner.answer(key, result, Millis(now))
    }

    /// The next HTTP request to send, as JSON text.
    #[must_use]
    pub fn poll_transmit(&mut self) -> Option<String> {
        self.inner.poll_transmit().map(|r| text(&r))
    }

    /// The next event, as JSON text.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<String> {
        self.inner.poll_event().map(|e| text(&e))
    }

    /// When to call `handle_timeout`, if anything waits.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<u64> {
        self.inner.poll_timeout().map(|at| at.0)
    }

    /// Whether the final event was taken and no exchange is open.
    pub fn is_drained(&self) -> bool {
        self.inner.is_drained()
    }

    /// The open exchanges whose answer no longer matters, as a JSON array
    /// ([`operation::Operation::abandoned`]).
    pub fn abandoned(&self) -> String {
        text(&self.inner.abandoned())
    }

    /// What the operation knows, as JSON text, to go on from after a restart
    /// ([`operation::Operation::snapshot`]).
    pub fn snapshot(&self, now: u64) -> Result<String> {
        Ok(text(&self.inner.snapshot(Millis(now))?))
    }

    /// The operation of `snapshot` (JSON text) under the configuration, as
    /// [`Operation::new`] reads it, at `now` ([`operation::Operation::restore`]).
    pub fn restore(config: &[u8], snapshot: &[u8], now: u64) -> Result<Operation> {
        let config = operation_config(config)?;
        let limits = config.call.settings.limits;
        let snapshot = parse(snapshot, &limits).map_err(|e| usage_owned(format!("the snapshot: {}", e.message())))?;
        Ok(Operation { inner: operation::Operation::restore(config, &snapshot, Millis(now))?, limits })
    }
}

/// A server's response stream ([`serve::ServerStream`]) over JSON text.
pub struct ServerStream(serve::ServerStream);

impl ServerStream {
    /// A stream of `mode` for the continuation `key`, numbering events from `first`.
    pub fn new(mode: &str, key: &str, first: u64) -> Result<ServerStream> {
        Ok(ServerStream(serve::ServerStream::new(Mode::from_name(mode)?, key, first)?))
    }

    /// The response head's fields as JSON (`{name: value}`), with the
    /// `rel="stream"` Link under SEP-1335.
    pub fn head(&self, stream_url: Option<&str>) -> String {
        let headers = self.0.head(stream_url);
        let o: serde_json::Map<String, Value> = headers.into_iter().map(|(n, v)| (n, Value::String(v))).collect();
        text(&o)
    }

    /// Writes a JSON-RPC message as an event; its id.
    pub fn message(&mut self, message: &[u8]) -> Result<String> {
        let m = parse(message, &Limits::DEFAULT)?;
        self.0.message(&m)
    }

    /// Writes a `retry` block; its id.
    pub fn retry(&mut self, ms: u64) -> Result<String> {
        self.0.retry(ms)
    }

    /// Writes the mode's asking sequence for `requests` (a JSON array); the last id.
    pub fn ask(&mut self, requests: &[u8], retry_ms: u64) -> Result<String> {
        let v = parse(requests, &Limits::DEFAULT)?;
        let requests: Vec<Value> = match v {
            Value::Array(items) => items,
            _ => return Err(usage("the requests are a JSON array")),
        };
        self.0.ask(&requests, retry_ms)
    }

    /// The text written so far.
    pub fn take(&mut self) -> String {
        self.0.take()
    }
}

/// Reads an incoming HTTP request ([`serve::read_request`]) as JSON text.
pub fn read_http_request(
    mode: &str,
    method: &str,
    url: &str,
    headers: &[u8],
    body: &[u8],
    o: &Options,
) -> Result<String> {
    let incoming =
        serve::read_request(Mode::from_name(mode)?, method, url, &headers_arg(headers)?, body, o.protocol, &o.limits)?;
    Ok(text(&incoming))
}

/// The `rel="stream"` URL of a continuation ([`serve::stream_url`]).
pub fn stream_url(endpoint: &str, key: &str) -> Result<String> {
    serve::stream_url(endpoint, key)
}

/// (`2026-07-28`) The header fields that mirror `request`'s body
/// ([`http::mirror_headers`]): `{"mcp-protocol-version", "mcp-method",
/// "mcp-name"}`, each where the body has its value, encoded per SEP-2243
/// where it is not plain visible ASCII.
pub fn mirrored_fields(request: &[u8]) -> Result<String> {
    let v = parse(request, &Limits::DEFAULT)?;
    let fields: serde_json::Map<String, Value> =
        http::mirror_headers(&v).into_iter().map(|(n, value)| (n, Value::String(value))).collect();
    Ok(text(&fields))
}

/// The -32602 answer to a server request outside any call
/// ([`call::unassociated_reply`]), or `None`.
pub fn unassociated_reply(request: &[u8]) -> Result<Option<String>> {
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
