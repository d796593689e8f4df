//! One bridge, several MRTR upstreams (`--upstream NAME=URL`, two or more):
//! towards the client ONE `2025-11-25` server whose tools, prompts and
//! resources are the union of the upstreams'.
//!
//! - `initialize`: `server/discover` on every upstream at once; the
//!   capabilities are their union, the instructions joined (each prefixed
//!   with its upstream's name), the `serverInfo` the bridge's own. An upstream
//!   that does not discover is left out and said on stderr ([`initialize`]).
//! - `tools/list`, `prompts/list`, `resources/list`,
//!   `resources/templates/list`: every upstream's list, each followed through
//!   at most [`MAX_PAGES`] pages, merged into one page ([`list`]). Tool and
//!   prompt names become `NAME__original` ([`SEPARATOR`]) so that two upstreams
//!   may both have a `search`; URIs stay as they are (they are URIs: rewriting
//!   them would break what the resources' contents link to), and the bridge
//!   remembers which upstream listed each one, and each template's literal
//!   prefix (the `uriTemplate` before its first `{`).
//! - `tools/call`, `prompts/get`: to the upstream the prefix names, with the
//!   original name; `resources/read`: to the first upstream, in the order
//!   given, that owns the URI: it listed it, or the URI starts with one of
//!   its templates' prefixes ([`Fleet::by_uri`] says why the order decides,
//!   not the most specific claim). A name or URI no upstream owns is refused with
//!   `usage-unknown-handle`: it is a handle the bridge gave out (a prefixed
//!   name, a listed URI) and that names nothing here ([`Fleet::route`]).
//! - Every other request goes to the first upstream (the bridge has no way to
//!   merge, say, `completion/complete` answers).

use crate::call;
use crate::sessions::Session;
use crate::Shared;
use http::Uri;
use mrtr::client::Session as Declared;
use mrtr::{server, Error, RuleId};
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};

/// Between an upstream's name and a tool's or prompt's own name.
pub(crate) const SEPARATOR: &str = "__";

/// Pages of one list followed per upstream: a server that never stops
/// paging cannot hold a `tools/list` forever.
pub(crate) const MAX_PAGES: usize = 16;

/// Checks the named upstreams of an aggregating bridge: two or more, each
/// name 1–32 of `A-Za-z0-9_-` and unique, each URL `http(s)://` with a host.
///
/// # Errors
/// What is wrong, for a usage message.
pub fn check_upstreams(upstreams: &[(String, Uri)]) -> Result<(), String> {
    if upstreams.len() < 2 {
        return Err("aggregation takes two or more --upstream NAME=URL (one upstream: --upstream URL)".into());
    }
    for (i, (name, url)) in upstreams.iter().enumerate() {
        let allowed = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
        if name.is_empty() || name.len() > 32 || !name.chars().all(allowed) {
            return Err(format!("an upstream's name is 1-32 of A-Za-z0-9_-, not {name:?}"));
        }
        if upstreams[..i].iter().any(|(other, _)| other == name) {
            return Err(format!("two upstreams are named {name:?}"));
        }
        if !matches!(url.scheme_str(), Some("http" | "https")) || url.authority().is_none() {
            return Err(format!("the upstream {name}'s URL is http(s)://HOST…, not {url}"));
        }
    }
    Ok(())
}

/// One upstream of the fleet.
struct Member {
    name: String,
    url: String,
}

/// Where the resources are, as the upstreams' last lists said.
#[derive(Default, Clone)]
struct Known {
    /// The URIs an upstream listed (`resources/list`).
    uris: Vec<String>,
    /// Its templates' literal prefixes (`resources/templates/list`).
    prefixes: Vec<String>,
}

impl Known {
    /// Whether the upstream claims `uri`: it listed it, or one of its
    /// templates' prefixes starts it.
    fn owns(&self, uri: &str) -> bool {
        self.uris.iter().any(|u| u == uri) || self.prefixes.iter().any(|p| uri.starts_with(p.as_str()))
    }
}

/// The upstreams of an aggregating bridge and what their lists told.
pub(crate) struct Fleet {
    members: Vec<Member>,
    /// By member, replaced by each new listing (so bounded by one listing).
    known: Mutex<Vec<Known>>,
}

impl Fleet {
    /// The fleet of `upstreams` (checked by [`check_upstreams`]).
    pub(crate) fn new(upstreams: &[(String, Uri)]) -> Result<Fleet, String> {
        check_upstreams(upstreams)?;
        let members = upstreams.iter().map(|(name, url)| Member { name: name.clone(), url: url.to_string() }).collect();
        Ok(Fleet { members, known: Mutex::new(vec![Known::default(); upstreams.len()]) })
    }

    /// The first upstream's URL: where requests go that nothing routes.
    pub(crate) fn first_url(&self) -> &str {
        &self.members[0].url
    }

    fn known(&self) -> std::sync::MutexGuard<'_, Vec<Known>> {
        self.known.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Where a client's request goes: the upstream's URL and the params to
    /// send it (a tool's or prompt's own name restored).
    ///
    /// # Errors
    /// `usage-unknown-handle` for a name or URI no upstream owns.
    pub(crate) fn route(&self, method: &str, params: Option<Value>) -> Result<(String, Option<Value>), Error> {
        match method {
            "tools/call" | "prompts/get" => self.by_name(params),
            "resources/read" => {
                let uri = params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str).unwrap_or_default();
                let member = self.by_uri(uri).ok_or_else(|| unknown(format!("no upstream listed the URI {uri:?}")))?;
                Ok((self.members[member].url.clone(), params))
            }
            _ => Ok((self.members[0].url.clone(), params)),
        }
    }

    /// `NAME__original`: the upstream NAME (the longest name that fits) and
    /// the params with `original`.
    fn by_name(&self, params: Option<Value>) -> Result<(String, Option<Value>), Error> {
        let mut params = params.unwrap_or_else(|| json!({}));
        let name = params.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
        let owner = self
            .members
            .iter()
            .filter_map(|m| name.strip_prefix(&m.name)?.strip_prefix(SEPARATOR).map(|rest| (m, rest)))
            .filter(|(_, rest)| !rest.is_empty())
            .max_by_key(|(m, _)| m.name.len());
        let Some((member, original)) = owner else {
            return Err(unknown(format!("{name:?} is not NAME{SEPARATOR}name of an upstream this bridge serves")));
        };
        params["name"] = original.into();
        Ok((member.url.clone(), Some(params)))
    }

    /// The upstream that owns `uri`: the first, in the order the upstreams
    /// were given, that listed it or has a template whose prefix starts it.
    ///
    /// Why the order, and not the most specific claim (a listed URI, then
    /// the longest prefix, as before): resource URIs are not namespaced as
    /// tool names are, so any upstream can claim any URI, by listing it or
    /// by a template with a longer prefix. The most specific claim would let
    /// a later upstream (a third-party server mixed in) take over the reads
    /// of another's resources, and see their URIs and the client's `_meta`.
    /// The order of `--upstream` is the one thing the operator decides and
    /// no upstream can change: the most trusted goes first, and a later one
    /// gets only the URIs no earlier one claims. Refusing overlaps instead
    /// would give an upstream the power to switch another's resources off
    /// by claiming one of them, and would refuse harmless fleets whose
    /// templates merely share a scheme.
    fn by_uri(&self, uri: &str) -> Option<usize> {
        self.known().iter().position(|k| k.owns(uri))
    }

    /// A member's page items as the client sees them (names prefixed), and
    /// what they say about where resources are, remembered.
    fn adopt(&self, member: usize, key: &str, items: Vec<Value>) -> Vec<Value> {
        let text = |item: &Value, field: &str| item.get(field).and_then(Value::as_str).map(String::from);
        match key {
            "resources" => self.known()[member].uris = items.iter().filter_map(|i| text(i, "uri")).collect(),
            "resourceTemplates" => {
                let prefix = |t: String| t.split('{').next().unwrap_or_default().to_string();
                self.known()[member].prefixes =
                    items.iter().filter_map(|i| text(i, "uriTemplate")).map(prefix).collect();
            }
            _ => {
                let name = &self.members[member].name;
                return items.into_iter().map(|item| prefixed(item, name)).collect();
            }
        }
        items
    }
}

/// `item` with its `name` as `NAME__name`.
fn prefixed(mut item: Value, upstream: &str) -> Value {
    if let Some(own) = item.get("name").and_then(Value::as_str) {
        item["name"] = format!("{upstream}{SEPARATOR}{own}").into();
    }
    item
}

fn unknown(why: String) -> Error {
    Error::with(RuleId::UsageUnknownHandle, why)
}

/// [`Fleet::route`], for the fleet `shared` has; a `resources/read` of a
/// URI no list told of yet has the resource lists fetched first (a client
/// may read a URI it knows without listing).
pub(crate) async fn route(
    shared: &Arc<Shared>,
    session: &Arc<Session>,
    method: &str,
    params: Option<Value>,
) -> Result<(String, Option<Value>), Error> {
    let Some(fleet) = shared.fleet.as_ref() else { return Ok((shared.upstream_url.clone(), params)) };
    let first = fleet.route(method, params.clone());
    if first.is_ok() || method != "resources/read" {
        return first;
    }
    list(shared, session, &Value::Null, "resources/list").await;
    list(shared, session, &Value::Null, "resources/templates/list").await;
    fleet.route(method, params)
}

/// The field of a list method's result that holds its items, for the four
/// lists the bridge merges.
pub(crate) fn list_key(method: &str) -> Option<&'static str> {
    match method {
        "tools/list" => Some("tools"),
        "prompts/list" => Some("prompts"),
        "resources/list" => Some("resources"),
        "resources/templates/list" => Some("resourceTemplates"),
        _ => None,
    }
}

/// A merged list, all in one page (the client's cursor ignored): every
/// upstream's, in the order given; one that fails is left out and said on
/// stderr. Returns the response and its HTTP status; a merge over the
/// message bound is `limit-exceeded`.
pub(crate) async fn list(shared: &Arc<Shared>, session: &Arc<Session>, id: &Value, method: &str) -> (Value, u16) {
    let (Some(fleet), Some(key)) = (shared.fleet.as_ref(), list_key(method)) else {
        return server::error_response(id, &unknown(format!("{method} is not a list the bridge merges")));
    };
    let tasks: Vec<_> = fleet
        .members
        .iter()
        .map(|m| tokio::spawn(pages(shared.clone(), session.clone(), m.url.clone(), method.to_string(), key)))
        .collect();
    let mut merged = Vec::new();
    for (member, task) in tasks.into_iter().enumerate() {
        match task.await {
            Ok(Ok(items)) => merged.extend(fleet.adopt(member, key, items)),
            Ok(Err(why)) => eprintln!("mrtr-bridge: upstream {}: {method} left out: {why}", fleet.members[member].name),
            Err(e) => eprintln!("mrtr-bridge: upstream {}: {method} left out: {e}", fleet.members[member].name),
        }
    }
    let response = json!({"jsonrpc": "2.0", "id": id, "result": {key: merged}});
    let bound = shared.downstream.limits().max_message_bytes;
    if response.to_string().len() > bound {
        let why = format!("the merged {method} is over the message bound of {bound} bytes");
        return server::error_response(id, &Error::with(RuleId::LimitExceeded, why));
    }
    (response, 200)
}

/// One upstream's list, page after page (at most [`MAX_PAGES`]).
async fn pages(
    shared: Arc<Shared>,
    session: Arc<Session>,
    url: String,
    method: String,
    key: &'static str,
) -> Result<Vec<Value>, String> {
    let mut items = Vec::new();
    let mut cursor: Option<Value> = None;
    for _ in 0..MAX_PAGES {
        let params = cursor.take().map(|c| json!({"cursor": c}));
        let request = session.declared().request(&method, params).map_err(|e| e.to_string())?;
        let (response, _) = call::plain_to(shared.clone(), url.clone(), &Value::Null, request).await;
        let result = response.get("result").ok_or_else(|| response.to_string())?;
        let page = result.get(key).and_then(Value::as_array).ok_or_else(|| format!("no {key} array in {result}"))?;
        items.extend(page.iter().cloned());
        match result.get("nextCursor").filter(|c| c.is_string()) {
            Some(next) => cursor = Some(next.clone()),
            None => return Ok(items),
        }
    }
    eprintln!("mrtr-bridge: {url}: {method} has more than {MAX_PAGES} pages; the rest left out");
    Ok(items)
}

/// The `initialize` result of an aggregating bridge: `server/discover` on
/// every upstream at once, merged (see the [module](self)). When none
/// discovers, the capabilities of an MRTR server, as with one upstream.
pub(crate) async fn initialize(shared: &Arc<Shared>, fleet: &Fleet, declared: &mut Declared) -> Result<Value, Error> {
    let mut tasks = Vec::new();
    for member in &fleet.members {
        let request = declared.request("server/discover", None)?;
        let (shared, url) = (shared.clone(), member.url.clone());
        tasks.push(tokio::spawn(async move { call::plain_to(shared, url, &Value::Null, request).await.0 }));
    }
    let (mut capabilities, mut instructions, mut found) = (Map::new(), Vec::new(), false);
    for (member, task) in fleet.members.iter().zip(tasks) {
        let discovered = task.await.unwrap_or(Value::Null);
        let Some(result) = discovered.get("result").filter(|r| r.is_object()) else {
            eprintln!("mrtr-bridge: upstream {}: server/discover failed, left out: {discovered}", member.name);
            continue;
        };
        found = true;
        if let Some(theirs) = result.get("capabilities").and_then(Value::as_object) {
            union(&mut capabilities, theirs);
        }
        if let Some(text) = result.get("instructions").and_then(Value::as_str) {
            instructions.push(format!("{}: {text}", member.name));
        }
    }
    let capabilities =
        if found { Value::Object(capabilities) } else { json!({"tools": {}, "prompts": {}, "resources": {}}) };
    let info = json!({"name": "mrtr-bridge", "version": env!("CARGO_PKG_VERSION")});
    let mut result = json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "serverInfo": info});
    if !instructions.is_empty() {
        result["instructions"] = instructions.join("\n\n").into();
    }
    Ok(result)
}

/// Adds `theirs` to `ours`: a capability (or a flag within one) present in
/// either is present; where both have a value that is not an object, ours
/// (the earlier upstream's) stays.
fn union(ours: &mut Map<String, Value>, theirs: &Map<String, Value>) {
    for (key, value) in theirs {
        match (ours.get_mut(key), value) {
            (None, _) => {
                ours.insert(key.clone(), value.clone());
            }
            (Some(Value::Object(mine)), Value::Object(other)) => union(mine, other),
            (Some(_), _) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fleet(names: &[&str]) -> Fleet {
        let upstreams: Vec<(String, Uri)> = names
            .iter()
            .enumerate()
            .map(|(i, n)| ((*n).to_string(), format!("http://127.0.0.1:{}/mcp", 9000 + i).parse().unwrap()))
            .collect();
        Fleet::new(&upstreams).unwrap()
    }

    /// Names are checked: two or more, the allowed characters, unique.
    #[test]
    fn names_are_checked() {
        let url: Uri = "http://h/mcp".parse().unwrap();
        let list = |names: &[&str]| names.iter().map(|n| ((*n).to_string(), url.clone())).collect::<Vec<_>>();
        assert!(check_upstreams(&list(&["a", "b-2_X"])).is_ok());
        assert!(check_upstreams(&list(&["a"])).is_err());
        assert!(check_upstreams(&list(&["a", "a"])).unwrap_err().contains("two upstreams"));
        assert!(check_upstreams(&list(&["a", "b.c"])).is_err());
        assert!(check_upstreams(&list(&["a", ""])).is_err());
        assert!(check_upstreams(&list(&["a", &"x".repeat(33)])).is_err());
    }

    /// A prefixed name goes to its upstream with its own name; the longest
    /// fitting name wins (`a_b__t` is `a_b`'s `t`, not `a`'s); an unknown or
    /// missing prefix is refused with `usage-unknown-handle`.
    #[test]
    fn names_route_by_prefix() {
        let fleet = fleet(&["a", "a_b"]);
        let (url, params) = fleet.route("tools/call", Some(json!({"name": "a__get_weather"}))).unwrap();
        assert_eq!((url.as_str(), &params.unwrap()["name"]), ("http://127.0.0.1:9000/mcp", &json!("get_weather")));
        let (url, params) = fleet.route("prompts/get", Some(json!({"name": "a_b__t"}))).unwrap();
        assert_eq!((url.as_str(), &params.unwrap()["name"]), ("http://127.0.0.1:9001/mcp", &json!("t")));
        for name in ["c__x", "get_weather", "a__", ""] {
            let e = fleet.route("tools/call", Some(json!({"name": name}))).unwrap_err();
            assert_eq!(e.rule(), RuleId::UsageUnknownHandle, "{name}");
        }
        assert_eq!(fleet.route("completion/complete", None).unwrap().0, "http://127.0.0.1:9000/mcp");
    }

    /// A URI goes to the first upstream that owns it, by listing or by
    /// template prefix; a URI only a later upstream owns goes there; one
    /// none owns is refused.
    #[test]
    fn uris_route_to_the_first_upstream_that_owns_them() {
        let fleet = fleet(&["a", "b"]);
        let uri = |u: &str| fleet.route("resources/read", Some(json!({"uri": u}))).map(|(url, _)| url);
        assert_eq!(uri("notes://x").unwrap_err().rule(), RuleId::UsageUnknownHandle);
        fleet.adopt(0, "resourceTemplates", vec![json!({"uriTemplate": "notes://{day}"})]);
        fleet.adopt(1, "resourceTemplates", vec![json!({"uriTemplate": "notes://{day}"})]);
        fleet.adopt(1, "resources", vec![json!({"uri": "file:///b.txt"})]);
        assert_eq!(uri("notes://today").unwrap(), "http://127.0.0.1:9000/mcp", "both own it: the first");
        assert_eq!(uri("file:///b.txt").unwrap(), "http://127.0.0.1:9001/mcp", "only the second owns it");
        assert_eq!(uri("mail://x").unwrap_err().rule(), RuleId::UsageUnknownHandle);
        let tools = fleet.adopt(1, "tools", vec![json!({"name": "t"})]);
        assert_eq!(tools[0]["name"], "b__t");
    }

    /// Review 2026-12-07 L10: `evil`, given after `notes`, lists one of
    /// `notes`'s URIs and has a template with a longer prefix of them; reads
    /// of `notes`'s URIs still go to `notes`. Given first, `evil` would win:
    /// the operator's order decides, not the upstreams.
    #[test]
    fn a_later_upstream_cannot_take_over_an_earlier_ones_uris() {
        let claims = |fleet: &Fleet, notes: usize, evil: usize| {
            fleet.adopt(notes, "resourceTemplates", vec![json!({"uriTemplate": "notes://{day}"})]);
            fleet.adopt(evil, "resources", vec![json!({"uri": "notes://2026-12-07"})]);
            fleet.adopt(evil, "resourceTemplates", vec![json!({"uriTemplate": "notes://2{rest}"})]);
        };
        let read = |fleet: &Fleet, u: &str| fleet.route("resources/read", Some(json!({"uri": u}))).unwrap().0;
        let (notes_first, evil_first) = (fleet(&["notes", "evil"]), fleet(&["evil", "notes"]));
        claims(&notes_first, 0, 1);
        for u in ["notes://2026-12-07", "notes://2027-01-01", "notes://today"] {
            assert_eq!(read(&notes_first, u), "http://127.0.0.1:9000/mcp", "{u}: notes's, given first");
        }
        claims(&evil_first, 1, 0);
        assert_eq!(read(&evil_first, "notes://2026-12-07"), "http://127.0.0.1:9000/mcp", "evil, given first");
        assert_eq!(read(&evil_first, "notes://today"), "http://127.0.0.1:9001/mcp", "only notes owns it");
    }

    /// A capability any upstream has is in the union, flags within too.
    #[test]
    fn capabilities_are_united() {
        let mut ours = json!({"tools": {"listChanged": true}}).as_object().unwrap().clone();
        let theirs = json!({"tools": {"x": 1}, "prompts": {}}).as_object().unwrap().clone();
        union(&mut ours, &theirs);
        assert_eq!(Value::Object(ours), json!({"tools": {"listChanged": true, "x": 1}, "prompts": {}}));
    }
}
