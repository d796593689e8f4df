//! The `2025-11-25` sessions the reverse bridge opens upstream, and whose
//! each is ([`Owner`]).
//!
//! A `2025-11-25` server ties what it keeps (a login, a logging level,
//! subscriptions, a conversation) to `Mcp-Session-Id`. Two MRTR clients
//! must therefore never share an upstream session unless the operator says
//! the server keeps nothing per session (review N4: two clients declaring
//! the same capabilities and `clientInfo`, both public, shared one, and the
//! second read the first one's secret). So a session belongs to:
//! - the credential a client presents (its `Authorization`, forwarded
//!   upstream, its SHA-256 the key): requests with the same credential are
//!   the same principal, and may share;
//! - else the one request: a session opened for it and ended (`DELETE`)
//!   with it;
//! - or, opted in (`--share-upstream-sessions`), every client with the same
//!   declaration.
//!
//! Within an owner, sessions are still per declaration (client capabilities
//! and clientInfo): a `2026-07-28` client declares its capabilities in every
//! request's `_meta`, while a `2025-11-25` server learns them once, at
//! `initialize`. Kept sessions are bounded: past the bound, one no call uses
//! makes room; if none does, the request is refused (`limit-exceeded`, 503).

use super::pump::{relay, UPSTREAM};
use crate::upstream::{self, Part};
use crate::Shared;
use mrtr::http::Headers;
use mrtr::{Error, RuleId};
use serde_json::{json, Value};
use sha2::Digest;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::OnceCell;

/// `_meta` keys of `2026-07-28` that a `2025-11-25` server never reads.
pub(crate) const META_2026: [&str; 3] = [
    mrtr::protocol::META_PROTOCOL_VERSION,
    mrtr::protocol::META_CLIENT_CAPABILITIES,
    "io.modelcontextprotocol/clientInfo",
];

/// Whose an upstream session is (module docs).
#[derive(Clone, Debug)]
pub(crate) enum Owner {
    /// The client that presents this `Authorization` value (forwarded).
    Credential(String),
    /// The one request: a session opened for it, ended with it.
    Request,
    /// Every client with the same declaration (`--share-upstream-sessions`).
    Shared,
}

impl Owner {
    /// The owner of `headers`' request: its credential when it presents one,
    /// else the request itself, unless the operator shares sessions.
    pub(crate) fn of(headers: &http::HeaderMap, shared_sessions: bool) -> Owner {
        let credential = headers.get(http::header::AUTHORIZATION).and_then(|v| v.to_str().ok());
        match credential {
            Some(value) => Owner::Credential(value.to_string()),
            None if shared_sessions => Owner::Shared,
            None => Owner::Request,
        }
    }

    /// The part of a kept session's key that names its owner: the
    /// credential's SHA-256, never the credential itself.
    fn key_part(&self) -> Value {
        match self {
            Owner::Credential(value) => {
                let digest = sha2::Sha256::digest(value.as_bytes());
                Value::String(digest.iter().map(|b| format!("{b:02x}")).collect())
            }
            Owner::Request | Owner::Shared => Value::Null,
        }
    }
}

/// An initialized upstream session.
pub(crate) struct Upstream {
    /// Its key in [`Upstreams`] (owner and declaration); empty for a session
    /// of one request, which is not kept.
    key: String,
    /// The `Mcp-Session-Id` upstream gave, if any.
    session: Option<String>,
    /// The credential its requests carry upstream, if its owner has one.
    authorization: Option<String>,
    /// Upstream's `initialize` result (capabilities, serverInfo, instructions).
    pub(crate) init: Value,
    /// For a session of one request: what ends it upstream when it is dropped.
    ends_with: Option<Arc<Shared>>,
}

/// Never the credential.
impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream").field("key", &self.key).field("session", &self.session).finish_non_exhaustive()
    }
}

impl Upstream {
    /// The header fields of every request in this session.
    pub(crate) fn headers(&self) -> Headers {
        let mut headers = vec![("mcp-protocol-version".to_string(), UPSTREAM.name().to_string())];
        if let Some(id) = &self.session {
            headers.push(("mcp-session-id".to_string(), id.clone()));
        }
        if let Some(credential) = &self.authorization {
            headers.push(("authorization".to_string(), credential.clone()));
        }
        headers
    }
}

/// A session of one request ends upstream (`DELETE`) when the request's
/// call or relay lets it go, so that the server frees what it kept.
impl Drop for Upstream {
    fn drop(&mut self) {
        let (Some(shared), Some(_)) = (self.ends_with.take(), &self.session) else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let request = mrtr::http::Request {
            exchange: 0,
            method: "DELETE",
            url: shared.upstream_url.clone(),
            headers: self.headers(),
            body: None,
        };
        let (tx, mut rx) = upstream::parts();
        runtime.spawn(async move {
            tokio::spawn(upstream::exchange(shared.clone(), request, tx));
            let _ = tokio::time::timeout(shared.timeout, async { while rx.recv().await.is_some() {} }).await;
        });
    }
}

type Slot = Arc<OnceCell<Arc<Upstream>>>;

/// Every upstream session, by declaration, bounded.
pub(crate) struct Upstreams {
    max: usize,
    by_key: Mutex<HashMap<String, Slot>>,
}

/// What a client declares in a request's `_meta`: capabilities and clientInfo.
pub(crate) fn declared(request: &Value) -> (Value, Option<Value>) {
    let meta = &request["params"]["_meta"];
    let caps = meta.get(mrtr::protocol::META_CLIENT_CAPABILITIES).filter(|c| c.is_object()).cloned();
    let named = |i: &&Value| ["name", "version"].iter().all(|k| i.get(k).is_some_and(Value::is_string));
    let info = meta.get("io.modelcontextprotocol/clientInfo").filter(named).cloned();
    (caps.unwrap_or_else(|| json!({})), info)
}

impl Upstreams {
    /// At most `max` sessions at once.
    pub(crate) fn new(max: usize) -> Upstreams {
        Upstreams { max, by_key: Mutex::new(HashMap::new()) }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Slot>> {
        self.by_key.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sessions open (or opening) now.
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// The session `owner` has for what `request` declares, initialized on
    /// first use; for [`Owner::Request`], a new one, ended when dropped.
    pub(crate) async fn get(
        &self,
        shared: &Arc<Shared>,
        request: &Value,
        owner: &Owner,
    ) -> Result<Arc<Upstream>, Error> {
        let (caps, info) = declared(request);
        let authorization = match owner {
            Owner::Credential(value) => Some(value.clone()),
            Owner::Request | Owner::Shared => None,
        };
        if let Owner::Request = owner {
            let mut upstream = initialize(shared.clone(), String::new(), caps, info, None).await?;
            upstream.ends_with = Some(shared.clone());
            return Ok(Arc::new(upstream));
        }
        let key = json!([owner.key_part(), caps, info]).to_string();
        let slot = self.slot(&key)?;
        let made = slot
            .get_or_try_init(|| async {
                initialize(shared.clone(), key.clone(), caps, info, authorization).await.map(Arc::new)
            })
            .await;
        if made.is_err() {
            self.lock().remove(&key); // the next request tries again
        }
        made.cloned()
    }

    /// Lets `upstream` go (upstream forgot it: `404`): the next request
    /// with its declaration opens a new session. A newer session opened
    /// meanwhile is kept.
    pub(crate) fn forget(&self, upstream: &Arc<Upstream>) {
        let mut by_key = self.lock();
        let same = by_key.get(&upstream.key).and_then(|slot| slot.get()).is_some_and(|u| Arc::ptr_eq(u, upstream));
        if same {
            by_key.remove(&upstream.key);
        }
    }

    /// The slot for `key`: the one there, or a new one within the bound.
    fn slot(&self, key: &str) -> Result<Slot, Error> {
        let mut by_key = self.lock();
        if let Some(slot) = by_key.get(key) {
            return Ok(slot.clone());
        }
        if by_key.len() >= self.max {
            let idle = by_key.iter().find(|(_, s)| Arc::strong_count(s) == 1).map(|(k, _)| k.clone());
            let Some(idle) = idle else {
                let why = "the bridge holds as many upstream sessions as it may, each in use";
                return Err(Error::with(RuleId::LimitExceeded, why.into()));
            };
            by_key.remove(&idle);
        }
        let slot = Slot::default();
        by_key.insert(key.to_string(), slot.clone());
        Ok(slot)
    }
}

/// `initialize` upstream for `caps` and `info` (with the owner's credential,
/// if any), then `notifications/initialized`.
async fn initialize(
    shared: Arc<Shared>,
    key: String,
    caps: Value,
    info: Option<Value>,
    authorization: Option<String>,
) -> Result<Upstream, Error> {
    let info = info.unwrap_or_else(|| json!({"name": "mrtr-bridge", "version": env!("CARGO_PKG_VERSION")}));
    let id = crate::sessions::random_id().unwrap_or_else(|| "initialize".into());
    let params = json!({"protocolVersion": UPSTREAM.name(), "capabilities": caps, "clientInfo": info});
    let request = json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": params});
    let credential = authorization.iter().map(|c| ("authorization".to_string(), c.clone())).collect();
    let (response, pump) = relay(shared.clone(), request, credential).await.map_err(|f| f.error)?;
    let Some(init) = response.get("result").filter(|r| r.is_object()).cloned() else {
        let why = format!("upstream refused initialize: {}", response.get("error").unwrap_or(&Value::Null));
        return Err(Error::with(RuleId::HttpStatusUnexpected, why));
    };
    let session = pump.first_head.as_deref().and_then(|h| mrtr::http::header(h, "mcp-session-id")).map(String::from);
    let upstream = Upstream { key, session, authorization, init, ends_with: None };
    notify(&shared, &upstream, &json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    Ok(upstream)
}

/// POSTs a notification in `upstream`'s session and waits (within the
/// timeout) for its answer, so that the server has it before the next request.
async fn notify(shared: &Arc<Shared>, upstream: &Upstream, message: &Value) {
    let mut headers = upstream.headers();
    headers.push(("content-type".into(), "application/json".into()));
    headers.push(("accept".into(), "application/json, text/event-stream".into()));
    let request = mrtr::http::Request {
        exchange: 0,
        method: "POST",
        url: shared.upstream_url.clone(),
        headers,
        body: Some(message.to_string()),
    };
    let (tx, mut rx) = upstream::parts();
    tokio::spawn(upstream::exchange(shared.clone(), request, tx));
    let ended = async {
        while let Some(part) = rx.recv().await {
            if let Part::End(_) = part {
                return;
            }
        }
    };
    let _ = tokio::time::timeout(shared.timeout, ended).await;
}
