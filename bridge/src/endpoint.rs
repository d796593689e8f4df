//! The client's endpoint: a `2025-11-25` Streamable HTTP server.
//!
//! - `POST` of `initialize`: `server/discover` upstream, a new session
//!   (`Mcp-Session-Id`, random), and the answer ([`initialize_result`]).
//! - `POST` of a request in a session: `ping` answered `{}` here;
//!   `tools/call`, `prompts/get`, `resources/read` (the methods that may ask,
//!   the core's allow-list) answered with an event stream ([`call::start_streamed`]);
//!   every other request relayed upstream and answered with JSON ([`call::plain`]).
//! - `POST` of responses (answers to the bridge's server requests) and
//!   notifications: `202`, each answer routed within its session; a
//!   `notifications/cancelled` ends the call it names (no response follows)
//!   and is passed upstream for the round's request.
//! - `GET` with `Last-Event-ID` resumes a call's stream in its session
//!   (the events after that one, then the rest: [`call`]); without it, the
//!   session's standalone stream, relaying the upstream's list changes
//!   (`subscriptions/listen`: [`crate::listen`]), or `405` when the upstream
//!   has none. `DELETE` ends the session.
//!
//! With several upstreams ([`fleet`]) `initialize` discovers them all, the
//! four lists are merged, and each call goes to the upstream its name or URI
//! belongs to.
//!
//! A client that speaks MRTR itself (its `MCP-Protocol-Version` names an
//! MRTR protocol) needs no bridge: its requests are relayed verbatim to the
//! upstream and the answers back ([`relay`]), checked as the upstream side's
//! conversation.
//!
//! Every other exchange is fed to the client side's checker: the request,
//! the response (its JSON, or its head, each event and its end).

use crate::call::{self, Streamed, Writer};
use crate::fleet;
use crate::sessions::{random_id, Answer, Full as SessionsFull, Resume, Session};
use crate::upstream::Part;
use crate::Shared;
use bytes::Bytes;
use http::{header, HeaderMap, HeaderValue, Method, Request, Response, StatusCode};
use http_body::Frame;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use mrtr::client::{Session as Declared, SessionConfig};
use mrtr::http::serve::{read_request, Incoming as Asks, ServerStream};
use mrtr::http::Mode;
use mrtr::{server, Error, Id, Protocol, RuleId};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::sync::{mpsc, oneshot};

/// The body of every response the bridge sends.
pub(crate) type Out = UnsyncBoxBody<Bytes, Infallible>;

/// The protocol the client speaks.
const CLIENT: Protocol = Protocol::V2025_11_25;

/// The session header.
const SESSION: &str = "mcp-session-id";

/// The most a client may declare at `initialize` (its `capabilities` and
/// `clientInfo`, as JSON text), which its session keeps for its life and
/// writes into every upstream request: real clients declare a few hundred
/// bytes, and sessions are many (`--max-sessions`), so each one's share of
/// memory is bounded by this rather than by the message bound.
pub(crate) const DECLARED_MAX: usize = 64 << 10;

/// Event-stream bytes a call writes, as the response body.
struct Events {
    rx: mpsc::Receiver<Bytes>,
}

impl http_body::Body for Events {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.rx.poll_recv(cx).map(|chunk| chunk.map(|bytes| Ok(Frame::data(bytes))))
    }
}

/// What the bridge answers a client's HTTP request with.
enum Reply {
    /// A JSON body with this status (and a new session's id, for `initialize`).
    Json(StatusCode, Value, Option<String>),
    /// No body.
    Status(StatusCode),
    /// An event stream, its head already checked (boxed: the other replies are small).
    Stream(Box<Response<Out>>),
}

/// A JSON-RPC error for `error` under `id`, with the core's status for it.
fn refusal(id: &Value, error: &Error) -> Reply {
    let (body, status) = server::error_response(id, error);
    Reply::Json(StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST), body, None)
}

/// The same with another status.
fn refusal_as(status: StatusCode, id: &Value, error: &Error) -> Reply {
    Reply::Json(status, server::error_response(id, error).0, None)
}

/// Serves one HTTP request of the client.
pub(crate) async fn handle(
    req: Request<Incoming>,
    shared: Arc<Shared>,
    peer: IpAddr,
) -> Result<Response<Out>, Infallible> {
    let side = &shared.downstream;
    let (parts, body) = req.into_parts();
    if let Err(refusal) = shared.web.check(&parts.method, &parts.headers) {
        return Ok(web_refusal(&shared, &refusal));
    }
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let url = format!("http://{}{path}", shared.listen);
    let bytes = match read_body(&shared, body).await {
        Ok(bytes) => bytes,
        Err(response) => return Ok(response),
    };
    if speaks_mrtr(&parts.headers) {
        return Ok(relay(&shared, &parts, bytes).await);
    }
    let exchange = side.exchange();
    let entry = side.request(&exchange, parts.method.as_str(), &url, &parts.headers, &bytes);
    let reply = match parts.method {
        Method::POST => post(&shared, (&exchange, entry), &parts.headers, &url, &bytes, peer).await,
        Method::DELETE => delete(&shared, &parts.headers),
        Method::GET if parts.headers.contains_key("last-event-id") => resume(&shared, &exchange, &parts.headers),
        Method::GET => standalone(&shared, &exchange, &parts.headers).await,
        _ => Reply::Status(StatusCode::METHOD_NOT_ALLOWED),
    };
    Ok(send(&shared, &exchange, reply))
}

/// Whether the request comes from an MRTR client: its `MCP-Protocol-Version`
/// names a protocol whose input requests travel in results.
fn speaks_mrtr(headers: &HeaderMap) -> bool {
    let version = headers.get("mcp-protocol-version").and_then(|v| v.to_str().ok());
    version.and_then(Protocol::from_name).is_some_and(|p| p.rules().mrtr)
}

/// An MRTR client's request, relayed verbatim to the upstream (its header
/// fields but those of one connection), the answer streamed back as it
/// comes; both checked as entries of the upstream side
/// ([`crate::upstream::exchange`]). No answer: `502` (or `504`).
async fn relay(shared: &Arc<Shared>, parts: &http::request::Parts, body: Bytes) -> Response<Out> {
    let headers = parts
        .headers
        .iter()
        .filter(|(name, _)| !mrtr_proxy::net::hop_by_hop(name.as_str()) && *name != header::HOST)
        .filter(|(name, _)| *name != header::CONTENT_LENGTH)
        .map(|(name, value)| (name.as_str().to_string(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
        .collect();
    let method = match parts.method {
        Method::GET => "GET",
        Method::DELETE => "DELETE",
        _ => "POST",
    };
    let body = (!body.is_empty()).then(|| String::from_utf8_lossy(&body).into_owned());
    let request = mrtr::http::Request { exchange: 0, method, url: shared.upstream_url.clone(), headers, body };
    let (parts_tx, mut answer) = crate::upstream::parts();
    let exchange = tokio::spawn(crate::upstream::exchange(shared.clone(), request, parts_tx)).abort_handle();
    let Some(Part::Head(_, status, fields)) = answer.recv().await else {
        return plain(StatusCode::BAD_GATEWAY, "mrtr-bridge: the upstream did not answer\n");
    };
    let mut response = Response::new(Relayed { parts: answer, exchange }.boxed_unsync());
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
    for (name, value) in fields.iter().filter(|(n, _)| !mrtr_proxy::net::hop_by_hop(n) && n != "content-length") {
        if let (Ok(n), Ok(v)) = (header::HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(value)) {
            response.headers_mut().append(n, v);
        }
    }
    response
}

/// A relayed response's body: the upstream exchange's body parts, taken
/// from it only as hyper writes them to the client, so that a client that
/// reads nothing leaves the exchange waiting on a full channel and the
/// upstream's socket unread (the proxy's `Forward` does the same with no
/// channel). Dropped (the client gone, or dropped for taking nothing for
/// the timeout: [`crate::write_timeout`]), it aborts the exchange, which
/// closes the upstream's connection even while the upstream is silent.
struct Relayed {
    parts: mpsc::Receiver<Part>,
    exchange: tokio::task::AbortHandle,
}

impl http_body::Body for Relayed {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        loop {
            match std::task::ready!(self.parts.poll_recv(cx)) {
                Some(Part::Body(_, bytes)) => return Poll::Ready(Some(Ok(Frame::data(bytes)))),
                Some(Part::Head(..)) => {} // one exchange, whose head was taken already
                Some(Part::End(_)) | None => return Poll::Ready(None),
            }
        }
    }
}

impl Drop for Relayed {
    fn drop(&mut self) {
        self.exchange.abort();
    }
}

/// The request body, whole, within the time and byte bounds (the proxy's).
async fn read_body(shared: &Shared, body: Incoming) -> Result<Bytes, Response<Out>> {
    let limit = shared.downstream.limits().max_message_bytes;
    let collected = tokio::time::timeout(shared.timeout, Limited::new(body, limit).collect()).await;
    let Ok(collected) = collected else {
        return Err(plain(StatusCode::REQUEST_TIMEOUT, "mrtr-bridge: the request body did not arrive in time\n"));
    };
    match collected {
        Ok(collected) => {
            let bytes = collected.to_bytes();
            match mrtr_proxy::parsed::check_client_body(&bytes, limit) {
                Ok(()) => Ok(bytes),
                Err(e) => {
                    shared.downstream.bad_bytes(mrtr::check::Side::Client, &e);
                    let text = "mrtr-bridge: a request body that would parse past the message bound\n";
                    Err(plain(StatusCode::PAYLOAD_TOO_LARGE, text))
                }
            }
        }
        Err(e) if e.is::<http_body_util::LengthLimitError>() => {
            let why = format!("a request body over the bound of {limit} bytes");
            shared.downstream.bad_bytes(mrtr::check::Side::Client, &Error::with(RuleId::LimitExceeded, why));
            Err(plain(StatusCode::PAYLOAD_TOO_LARGE, "mrtr-bridge: a request body over the message bound\n"))
        }
        Err(_) => Err(plain(StatusCode::BAD_REQUEST, "mrtr-bridge: the request body was cut\n")),
    }
}

/// A request the web's rules refuse before its body is read
/// ([`mrtr_proxy::web`]): reported on the client side, answered with its
/// status and a JSON-RPC error without an id.
pub(crate) fn web_refusal(shared: &Shared, refusal: &mrtr_proxy::web::Refusal) -> Response<Out> {
    shared.downstream.bad_bytes(mrtr::check::Side::Client, &refusal.error);
    let mut response = Response::new(Full::new(refusal.body()).boxed_unsync());
    *response.status_mut() = refusal.status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn plain(status: StatusCode, text: &'static str) -> Response<Out> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed_unsync());
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    response
}

/// The reply as an HTTP response, its entry fed to the client side's checker.
fn send(shared: &Shared, exchange: &str, reply: Reply) -> Response<Out> {
    let side = &shared.downstream;
    match reply {
        Reply::Stream(response) => *response,
        Reply::Status(status) => {
            let mut response = Response::new(Full::new(Bytes::new()).boxed_unsync());
            *response.status_mut() = status;
            if status == StatusCode::METHOD_NOT_ALLOWED {
                response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST, DELETE"));
            }
            side.response(exchange, status.as_u16(), response.headers(), None, true);
            response
        }
        Reply::Json(status, body, session) => {
            let bytes = Bytes::from(body.to_string());
            let mut response = Response::new(Full::new(bytes.clone()).boxed_unsync());
            *response.status_mut() = status;
            let headers = response.headers_mut();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            if let Some(id) = session.and_then(|s| HeaderValue::from_str(&s).ok()) {
                headers.insert(SESSION, id);
            }
            side.response(exchange, status.as_u16(), response.headers(), Some(&bytes), true);
            response
        }
    }
}

/// Header fields as the core reads them: lower-case names, text values.
fn fields(headers: &HeaderMap) -> Vec<(String, String)> {
    headers.iter().map(|(n, v)| (n.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned())).collect()
}

/// A POST: what it asks, read by the core, then served.
/// `exchange`: the POST's exchange and the index of its client side's entry.
async fn post(
    shared: &Arc<Shared>,
    exchange: (&str, usize),
    headers: &HeaderMap,
    url: &str,
    body: &[u8],
    peer: IpAddr,
) -> Reply {
    let limits = shared.downstream.limits();
    match read_request(Mode::Legacy, "POST", url, &fields(headers), body, CLIENT, &limits) {
        Err(e) => refusal(&Value::Null, &e),
        Ok(Asks::Call(request)) => request_of(shared, exchange, headers, request, peer).await,
        Ok(Asks::Messages(messages)) => messages_of(shared, headers, messages, exchange.1).await,
        Ok(_) => refusal(&Value::Null, &Error::with(RuleId::JsonrpcInvalid, "not a 2025-11-25 POST".into())),
    }
}

/// The session a request names: none is 400, an unknown (or ended) one 404.
fn session_of(shared: &Shared, headers: &HeaderMap) -> Result<Arc<Session>, Reply> {
    let Some(id) = headers.get(SESSION).and_then(|v| v.to_str().ok()) else {
        let e = Error::with(RuleId::UsageInvalidArgument, "a request after initialize names its Mcp-Session-Id".into());
        return Err(refusal_as(StatusCode::BAD_REQUEST, &Value::Null, &e));
    };
    shared.sessions.get(id).ok_or_else(|| {
        let e = Error::with(RuleId::UsageUnknownHandle, "no such session (ended, or never begun)".into());
        refusal_as(StatusCode::NOT_FOUND, &Value::Null, &e)
    })
}

/// A JSON-RPC request.
async fn request_of(
    shared: &Arc<Shared>,
    (exchange, entry): (&str, usize),
    headers: &HeaderMap,
    request: Value,
    peer: IpAddr,
) -> Reply {
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let method = request.get("method").and_then(Value::as_str).unwrap_or_default().to_string();
    if method == "initialize" {
        return initialize(shared, &id, &request, peer).await;
    }
    let session = match session_of(shared, headers) {
        Ok(s) => s,
        Err(reply) => return reply,
    };
    if method == "ping" {
        return Reply::Json(StatusCode::OK, json!({"jsonrpc": "2.0", "id": id, "result": {}}), None);
    }
    if shared.fleet.is_some() && fleet::list_key(&method).is_some() {
        let (response, status) = fleet::list(shared, &session, &id, &method).await;
        return Reply::Json(StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY), response, None);
    }
    let (url, params) = match fleet::route(shared, &session, &method, request.get("params").cloned()).await {
        Ok(routed) => routed,
        Err(e) => return refusal(&id, &e),
    };
    let upstream = match session.declared().request(&method, params) {
        Ok(r) => r,
        Err(e) => return refusal(&id, &e),
    };
    if Protocol::default().rules().allow_list.contains(&method.as_str()) {
        return stream(shared, exchange, Streamed { entry, id, session, request: upstream, url });
    }
    let (response, status) = call::plain_to(shared.clone(), url, &id, upstream).await;
    Reply::Json(StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY), response, None)
}

/// A call that may ask: its event stream, the call running behind it.
fn stream(shared: &Arc<Shared>, exchange: &str, call: Streamed) -> Reply {
    let (tx, rx) = mpsc::channel(16);
    let side = shared.downstream.clone();
    let Some(writer) = random_id().and_then(|key| Writer::new(tx, key, side, exchange.to_string())) else {
        let e = Error::with(RuleId::InternalPanic, "no randomness from the OS for the stream's ids".into());
        return refusal(&call.id, &e);
    };
    let response = events_response(shared, exchange, &writer.head(), rx);
    call::start_streamed(shared.clone(), call, writer);
    Reply::Stream(Box::new(response))
}

/// An event-stream response whose body is what arrives on `rx`, its head
/// fed to the client side's checker.
fn events_response(
    shared: &Shared,
    exchange: &str,
    head: &[(String, String)],
    rx: mpsc::Receiver<Bytes>,
) -> Response<Out> {
    let mut response = Response::new(Events { rx }.boxed_unsync());
    for (name, value) in head {
        if let (Ok(n), Ok(v)) = (header::HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(value)) {
            response.headers_mut().insert(n, v);
        }
    }
    shared.downstream.response(exchange, 200, response.headers(), None, false);
    response
}

/// `GET` without `Last-Event-ID`: the session's standalone stream, from the
/// (first) upstream's notification stream ([`crate::listen`]); `405` when
/// the upstream opens none, as `2025-11-25` allows.
async fn standalone(shared: &Arc<Shared>, exchange: &str, headers: &HeaderMap) -> Reply {
    let session = match session_of(shared, headers) {
        Ok(s) => s,
        Err(reply) => return reply,
    };
    let Some(listening) = crate::listen::open(shared, &session, &shared.upstream_url).await else {
        return Reply::Status(StatusCode::METHOD_NOT_ALLOWED);
    };
    let (tx, rx) = mpsc::channel(16);
    let side = shared.downstream.clone();
    let Some(writer) = Writer::new(tx, listening.key.clone(), side, exchange.to_string()) else {
        return Reply::Status(StatusCode::METHOD_NOT_ALLOWED);
    };
    let response = events_response(shared, exchange, &writer.head(), rx);
    tokio::spawn(listening.relay(writer));
    Reply::Stream(Box::new(response))
}

/// `GET` with `Last-Event-ID` `<key>.<n>`: the call writing stream `key` in
/// this session goes on on this response, from the event after `n`. A
/// stream no call of the session writes (ended, or another session's) is 404.
fn resume(shared: &Arc<Shared>, exchange: &str, headers: &HeaderMap) -> Reply {
    let session = match session_of(shared, headers) {
        Ok(s) => s,
        Err(reply) => return reply,
    };
    let last = headers.get("last-event-id").and_then(|v| v.to_str().ok()).unwrap_or_default();
    let after = last.rsplit_once('.').and_then(|(_, n)| n.parse::<u64>().ok());
    let call = mrtr::http::serve::event_key(last).and_then(|key| session.stream(key));
    let (Some(after), Some(call)) = (after, call) else {
        let e =
            Error::with(RuleId::UsageUnknownHandle, format!("no call of this session writes the stream of {last:?}"));
        return refusal_as(StatusCode::NOT_FOUND, &Value::Null, &e);
    };
    let (tx, rx) = mpsc::channel(16);
    let head = ServerStream::new(Mode::Legacy, "resumed", 1).map(|s| s.head(None)).unwrap_or_default();
    let response = events_response(shared, exchange, &head, rx);
    match call.try_send(Resume { after, tx, exchange: exchange.to_string() }) {
        Ok(()) => Reply::Stream(Box::new(response)),
        Err(mpsc::error::TrySendError::Closed(_)) => {
            let e = Error::with(RuleId::UsageUnknownHandle, "the call ended meanwhile".into());
            refusal_as(StatusCode::NOT_FOUND, &Value::Null, &e)
        }
        Err(mpsc::error::TrySendError::Full(_)) => {
            let why = format!("{} resumptions of this stream wait already", crate::call::RESUMES);
            refusal_as(StatusCode::SERVICE_UNAVAILABLE, &Value::Null, &Error::with(RuleId::LimitExceeded, why))
        }
    }
}

/// Notifications and answers (in the POST of the client side's entry
/// `entry`): `202` once every answer reached its call.
async fn messages_of(shared: &Shared, headers: &HeaderMap, messages: Vec<Value>, entry: usize) -> Reply {
    let session = match session_of(shared, headers) {
        Ok(s) => s,
        Err(reply) => return reply,
    };
    for message in messages {
        if message.get("method").and_then(Value::as_str) == Some("notifications/cancelled") {
            let params = &message["params"];
            let reason = params.get("reason").and_then(Value::as_str).map(String::from);
            // A request already finished (or unknown) is nothing to stop: the spec allows the race.
            session.cancel(&Id::text(&params["requestId"]), reason);
            continue;
        }
        if message.get("method").is_some() {
            continue; // another notification: nothing the bridge acts on
        }
        if let Err(reply) = route(&session, message, entry).await {
            return reply;
        }
    }
    Reply::Status(StatusCode::ACCEPTED)
}

/// An answer to the call that asked it, in this session only.
async fn route(session: &Session, response: Value, entry: usize) -> Result<(), Reply> {
    let id = response.get("id").cloned().unwrap_or(Value::Null);
    let asked = Id::text(&id);
    let Some((key, call)) = session.take(&asked) else {
        let e = Error::with(RuleId::UsageUnknownHandle, format!("this session asked nothing under the id {asked:?}"));
        return Err(refusal(&id, &e));
    };
    let (reply, taken) = oneshot::channel();
    if call.send(Answer { key, response, entry, reply }).is_err() {
        return Ok(()); // the call ended meanwhile: nothing waits for it
    }
    match taken.await {
        Ok(Err((body, status))) => {
            Err(Reply::Json(StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST), body, None))
        }
        Ok(Ok(())) | Err(_) => Ok(()),
    }
}

/// `DELETE`: the session ends.
fn delete(shared: &Shared, headers: &HeaderMap) -> Reply {
    let id = headers.get(SESSION).and_then(|v| v.to_str().ok());
    match id {
        None => Reply::Status(StatusCode::BAD_REQUEST),
        Some(id) if shared.sessions.close(id) => Reply::Status(StatusCode::OK),
        Some(_) => Reply::Status(StatusCode::NOT_FOUND),
    }
}

/// `initialize`: what the client declares becomes its session; the answer
/// is the upstream's `server/discover`, told in `2025-11-25`'s words.
async fn initialize(shared: &Arc<Shared>, id: &Value, request: &Value, peer: IpAddr) -> Reply {
    let params = request.get("params").cloned().unwrap_or(Value::Null);
    let declared_bytes =
        ["capabilities", "clientInfo"].iter().filter_map(|k| params.get(k)).map(|v| v.to_string().len());
    if declared_bytes.sum::<usize>() > DECLARED_MAX {
        let why = format!("capabilities and clientInfo of more than {DECLARED_MAX} bytes: a session keeps them");
        return refusal(id, &Error::with(RuleId::LimitExceeded, why));
    }
    let named = |info: &Value| ["name", "version"].iter().all(|k| info.get(k).is_some_and(Value::is_string));
    let config = SessionConfig {
        capabilities: params.get("capabilities").cloned().unwrap_or_else(|| json!({})),
        client_info: params.get("clientInfo").filter(|i| named(i)).cloned(),
        ..SessionConfig::default()
    };
    let mut declared = match Declared::new(config) {
        Ok(d) => d,
        Err(e) => return refusal(id, &e),
    };
    let discovered = match &shared.fleet {
        Some(fleet) => fleet::initialize(shared, fleet, &mut declared).await,
        None => match declared.request("server/discover", None) {
            Ok(discover) => Ok(initialize_result(&call::plain(shared.clone(), id, discover).await.0)),
            Err(e) => Err(e),
        },
    };
    let result = match discovered {
        Ok(result) => result,
        Err(e) => return refusal(id, &e),
    };
    match shared.sessions.open(Session::new(declared, peer)) {
        Ok(session) => {
            Reply::Json(StatusCode::OK, json!({"jsonrpc": "2.0", "id": id, "result": result}), Some(session))
        }
        Err(SessionsFull::Busy) => {
            let why = "the bridge holds as many sessions as it may, each with a call under way";
            refusal_as(StatusCode::SERVICE_UNAVAILABLE, id, &Error::with(RuleId::LimitExceeded, why.into()))
        }
        Err(SessionsFull::NoRandomness) => {
            let e = Error::with(RuleId::InternalPanic, "no randomness from the OS for the session's id".into());
            refusal(id, &e)
        }
    }
}

/// The `initialize` result from upstream's `server/discover` answer: its
/// capabilities and instructions; its `serverInfo` when it names one (the
/// `2026-07-28` `DiscoverResult` has none, some servers add it), else the
/// bridge's own. An upstream that does not discover gets the capabilities
/// of an MRTR server (tools, prompts, resources).
pub(crate) fn initialize_result(discovered: &Value) -> Value {
    let found = discovered.get("result").filter(|r| r.is_object());
    if found.is_none() {
        eprintln!("mrtr-bridge: upstream server/discover failed: {discovered}");
    }
    let field = |k: &str| found.and_then(|r| r.get(k)).cloned();
    let capabilities = field("capabilities")
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({"tools": {}, "prompts": {}, "resources": {}}));
    let named = |i: &Value| ["name", "version"].iter().all(|k| i.get(k).is_some_and(Value::is_string));
    let info = field("serverInfo")
        .filter(named)
        .unwrap_or_else(|| json!({"name": "mrtr-bridge", "version": env!("CARGO_PKG_VERSION")}));
    let mut result = json!({"protocolVersion": CLIENT.name(), "capabilities": capabilities, "serverInfo": info});
    if let Some(instructions) = field("instructions").filter(Value::is_string) {
        result["instructions"] = instructions;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// initialize tells the client 2025-11-25 and what upstream discovered;
    /// an upstream that cannot discover still gets a usable answer.
    #[test]
    fn initialize_answers_from_discover() {
        let found = json!({"jsonrpc": "2.0", "id": 1, "result": {"supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {"listChanged": true}}, "instructions": "be kind",
            "serverInfo": {"name": "up", "version": "9"}, "resultType": "complete", "ttlMs": 0, "cacheScope": "public"}});
        let result = initialize_result(&found);
        assert_eq!(result["protocolVersion"], "2025-11-25");
        assert_eq!(result["capabilities"], json!({"tools": {"listChanged": true}}));
        assert_eq!(result["serverInfo"]["name"], "up");
        assert_eq!(result["instructions"], "be kind");
        let refused =
            initialize_result(&json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}}));
        assert_eq!(refused["serverInfo"]["name"], "mrtr-bridge");
        assert!(refused["capabilities"]["tools"].is_object());
    }
}
