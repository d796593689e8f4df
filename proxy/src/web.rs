//! The web's rules on every listener of `mrtr proxy` and `mrtr bridge`
//! (and their live pages): which `Host` and `Origin` a request may name,
//! and which `Content-Type` a POST may carry.
//!
//! Why: a gateway on `127.0.0.1` is reachable from any web page the user
//! opens. Through DNS rebinding a page at `http://rebind.attacker.example`
//! resolves its own name to `127.0.0.1` and becomes same-origin with the
//! gateway: its requests carry `Host: rebind.attacker.example` and
//! `Origin: http://rebind.attacker.example`, and the browser lets it read
//! the answers. Without rebinding, a page can still send a "simple" POST
//! (`text/plain`, no CORS preflight) that opens sessions and calls tools,
//! unread but acted on. `2025-11-25`'s Streamable HTTP transport says
//! servers MUST validate `Origin`; the proxy rewrites `Host` towards its
//! upstream, so an upstream's own check cannot see the browser's: the
//! gateway must do it.
//!
//! The rules ([`WebRules`]):
//! - **`Host`**: on a listener bound to a loopback address, only loopback
//!   names (`localhost`, `*.localhost`, `127.0.0.0/8`, `[::1]`); on one bound
//!   to another specific address, that address; on an unspecified one
//!   (`0.0.0.0`, `[::]`), any, unless `--allow-host` names some (such a
//!   listener is reachable directly: rebinding gains an attacker nothing
//!   there that the `Origin` rule does not already refuse). `--allow-host`
//!   adds names (`*`: any). A request without `Host` (HTTP/1.0) is not a
//!   browser's and passes.
//! - **`Origin`**: absent passes (not a browser, or a same-origin `GET`);
//!   present, it must be a loopback origin on a loopback listener, an origin
//!   whose host the listener was bound to or allowed by `--allow-host`, or
//!   one of `--allow-origin` (`*`: any). `null` (a sandboxed frame, a file)
//!   passes only when listed.
//! - **`Content-Type`** of a POST: `application/json` (parameters allowed),
//!   else 415: a cross-site `text/plain` POST never reaches a session.
//!
//! A refusal ([`Refusal`]) carries its rule (`http-origin-refused`, 403;
//! `http-content-type-unsupported`, 415) and a JSON-RPC error without an id
//! as its body, as `2025-11-25` allows.

use bytes::Bytes;
use http::{header, HeaderMap, Method, StatusCode};
use mrtr::{Error, RuleId};
use std::net::{IpAddr, SocketAddr};

/// Which `Host` and `Origin` values a listener answers (module docs).
#[derive(Clone, Debug)]
pub struct WebRules {
    /// The address the listener is bound to.
    listen: IpAddr,
    /// `--allow-origin` values, normalised (`scheme://host[:port]`, lower case), or `*`.
    origins: Vec<String>,
    /// `--allow-host` values, lower case (`host` or `host:port`), or `*`.
    hosts: Vec<String>,
}

/// Why a request was refused before anything read its body.
#[derive(Clone, Debug)]
pub struct Refusal {
    /// 403 or 415.
    pub status: StatusCode,
    /// The rule and what was wrong.
    pub error: Error,
}

impl Refusal {
    /// The body: a JSON-RPC error with no id, `data.rule` naming the rule.
    pub fn body(&self) -> Bytes {
        Bytes::from(mrtr::server::error_response(&serde_json::Value::Null, &self.error).0.to_string())
    }
}

impl WebRules {
    /// The rules of a listener bound to `listen`, widened by `allow_origins`
    /// and `allow_hosts` (each `*` for any).
    pub fn new(listen: SocketAddr, allow_origins: &[String], allow_hosts: &[String]) -> WebRules {
        let origins = allow_origins.iter().map(|o| normal_origin(o)).collect();
        let hosts = allow_hosts.iter().map(|h| h.trim().to_ascii_lowercase()).collect();
        WebRules { listen: listen.ip(), origins, hosts }
    }

    /// Checks a request's `Host`, `Origin` and, for a POST, `Content-Type`.
    pub fn check(&self, method: &Method, headers: &HeaderMap) -> Result<(), Refusal> {
        self.check_host(headers)?;
        self.check_origin(headers)?;
        if method == Method::POST {
            check_content_type(headers)?;
        }
        Ok(())
    }

    /// `Host` names a host this listener answers for.
    pub fn check_host(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let Some(value) = headers.get(header::HOST) else { return Ok(()) };
        let host = value.to_str().unwrap_or_default().trim().to_ascii_lowercase();
        if self.host_allowed(&host) {
            return Ok(());
        }
        Err(forbidden(format!(
            "Host {host:?} is not a name this listener answers for (DNS rebinding?); --allow-host adds one"
        )))
    }

    /// `Origin`, when present, is one this listener serves.
    pub fn check_origin(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let Some(value) = headers.get(header::ORIGIN) else { return Ok(()) };
        let origin = normal_origin(value.to_str().unwrap_or_default());
        if self.origins.iter().any(|o| o == "*" || *o == origin) {
            return Ok(());
        }
        let host = origin_host(&origin);
        let own = host.is_some_and(|h| (self.listen.is_loopback() && is_loopback_name(h)) || self.names(h));
        if own {
            return Ok(());
        }
        Err(forbidden(format!("Origin {origin:?} is not allowed here; --allow-origin adds one")))
    }

    /// Whether `host` (a `Host` value: a name, an address, a port) is one
    /// this listener answers for.
    fn host_allowed(&self, host: &str) -> bool {
        if self.hosts.iter().any(|h| h == "*" || h == host) {
            return true;
        }
        let name = strip_port(host);
        if self.hosts.iter().any(|h| h == name) {
            return true;
        }
        if self.listen.is_loopback() {
            return is_loopback_name(name);
        }
        if self.listen.is_unspecified() {
            return self.hosts.is_empty();
        }
        self.names(name)
    }

    /// Whether `name` (a host without port) is the address this listener is
    /// bound to, or a name `--allow-host` gave.
    fn names(&self, name: &str) -> bool {
        let bound = !self.listen.is_unspecified() && parse_ip(name).is_some_and(|ip| ip == self.listen);
        bound || self.hosts.iter().any(|h| strip_port(h) == name)
    }
}

/// A POST carries `application/json`.
pub fn check_content_type(headers: &HeaderMap) -> Result<(), Refusal> {
    let value = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let media = value.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    if media == "application/json" {
        return Ok(());
    }
    let shown = if value.is_empty() { "none".to_string() } else { format!("{value:?}") };
    let why = format!("a POST carries Content-Type application/json, not {shown}");
    Err(Refusal {
        status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
        error: Error::with(RuleId::HttpContentTypeUnsupported, why),
    })
}

fn forbidden(why: String) -> Refusal {
    Refusal { status: StatusCode::FORBIDDEN, error: Error::with(RuleId::HttpOriginRefused, why) }
}

/// An origin as browsers serialise it, lower case, without a trailing `/`
/// and without the scheme's default port.
fn normal_origin(origin: &str) -> String {
    let origin = origin.trim().trim_end_matches('/').to_ascii_lowercase();
    for (scheme, port) in [("http://", ":80"), ("https://", ":443")] {
        if let Some(rest) = origin.strip_prefix(scheme) {
            return format!("{scheme}{}", rest.strip_suffix(port).unwrap_or(rest));
        }
    }
    origin
}

/// The host of a normalised `http(s)` origin, without its port; `None` for
/// any other scheme and for `null`.
fn origin_host(origin: &str) -> Option<&str> {
    let rest = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://"))?;
    (!rest.is_empty() && !rest.contains(['/', '@'])).then(|| strip_port(rest))
}

/// `host:port`, `[v6]:port`, `[v6]` or `host` without its port.
fn strip_port(host: &str) -> &str {
    if host.starts_with('[') {
        return host.find(']').map_or(host, |end| &host[..=end]);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

/// An address written as a host: `127.0.0.1`, `[::1]`.
fn parse_ip(name: &str) -> Option<IpAddr> {
    name.strip_prefix('[').and_then(|n| n.strip_suffix(']')).unwrap_or(name).parse().ok()
}

/// `localhost`, a name under `.localhost` (RFC 6761: always loopback), or a
/// loopback address.
fn is_loopback_name(name: &str) -> bool {
    name == "localhost" || name.ends_with(".localhost") || parse_ip(name).is_some_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    fn rules(listen: &str, origins: &[&str], hosts: &[&str]) -> WebRules {
        let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        WebRules::new(listen.parse().unwrap(), &owned(origins), &owned(hosts))
    }

    fn refused(rules: &WebRules, pairs: &[(&'static str, &'static str)]) -> Option<RuleId> {
        rules.check(&Method::POST, &headers(pairs)).err().map(|r| r.error.rule())
    }

    const JSON: (&str, &str) = ("content-type", "application/json");

    /// The DNS-rebinding request of the review (N3): a foreign Host and
    /// Origin on a loopback listener is refused; the honest local client,
    /// with or without an Origin of its own machine, passes.
    #[test]
    fn a_loopback_listener_answers_only_loopback_names() {
        let local = rules("127.0.0.1:9000", &[], &[]);
        let rebound =
            [("host", "rebind.attacker.example:9000"), ("origin", "http://rebind.attacker.example:9000"), JSON];
        assert_eq!(refused(&local, &rebound), Some(RuleId::HttpOriginRefused));
        assert_eq!(refused(&local, &[("host", "rebind.attacker.example"), JSON]), Some(RuleId::HttpOriginRefused));
        let foreign_origin = [("host", "127.0.0.1:9000"), ("origin", "https://attacker.example"), JSON];
        assert_eq!(refused(&local, &foreign_origin), Some(RuleId::HttpOriginRefused));
        for host in ["127.0.0.1:9000", "localhost:9000", "LOCALHOST", "[::1]:9000", "app.localhost", "127.0.0.2"] {
            let mut map = headers(&[JSON]);
            map.insert("host", HeaderValue::from_str(host).unwrap());
            assert!(local.check(&Method::POST, &map).is_ok(), "{host}");
        }
        let own_page = [("host", "127.0.0.1:9000"), ("origin", "http://localhost:3000"), JSON];
        assert_eq!(refused(&local, &own_page), None);
        assert_eq!(refused(&local, &[JSON]), None, "no Host, no Origin: not a browser");
    }

    /// A cross-site simple POST (text/plain, or no type at all) is 415.
    #[test]
    fn a_post_carries_json() {
        let local = rules("127.0.0.1:9000", &[], &[]);
        let plain = [("host", "127.0.0.1:9000"), ("content-type", "text/plain;charset=UTF-8")];
        assert_eq!(refused(&local, &plain), Some(RuleId::HttpContentTypeUnsupported));
        assert_eq!(refused(&local, &[("host", "127.0.0.1:9000")]), Some(RuleId::HttpContentTypeUnsupported));
        let with_charset = [("host", "127.0.0.1:9000"), ("content-type", "Application/JSON; charset=utf-8")];
        assert_eq!(refused(&local, &with_charset), None);
        assert!(local.check(&Method::GET, &headers(&[("host", "127.0.0.1:9000")])).is_ok(), "a GET has no body");
        let refusal = local.check(&Method::POST, &headers(&plain)).unwrap_err();
        assert_eq!(refusal.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        let body: serde_json::Value = serde_json::from_slice(&refusal.body()).unwrap();
        assert_eq!(body["id"], serde_json::Value::Null);
        assert_eq!(body["error"]["data"]["rule"], "http-content-type-unsupported");
    }

    /// `--allow-origin` and `--allow-host` widen; `*` allows any; the
    /// default port of a scheme and a trailing slash do not matter.
    #[test]
    fn allow_lists_widen() {
        let widened = rules("127.0.0.1:9000", &["https://app.example.com/"], &["mcp.example.com"]);
        let app = [("host", "mcp.example.com:9000"), ("origin", "https://APP.example.com:443"), JSON];
        assert_eq!(refused(&widened, &app), None);
        let other = [("host", "mcp.example.com"), ("origin", "https://other.example.com"), JSON];
        assert_eq!(refused(&widened, &other), Some(RuleId::HttpOriginRefused));
        let same_site = [("host", "mcp.example.com"), ("origin", "https://mcp.example.com"), JSON];
        assert_eq!(refused(&widened, &same_site), None, "an origin on an allowed host is the gateway's own");
        let any = rules("127.0.0.1:9000", &["*"], &["*"]);
        assert_eq!(refused(&any, &[("host", "x.example"), ("origin", "null"), JSON]), None);
        let null = [("host", "127.0.0.1"), ("origin", "null"), JSON];
        assert_eq!(refused(&rules("127.0.0.1:9000", &[], &[]), &null), Some(RuleId::HttpOriginRefused));
        assert_eq!(refused(&rules("127.0.0.1:9000", &["null"], &[]), &null), None);
    }

    /// On an unspecified address any Host passes (the listener is reachable
    /// directly) but a browser's Origin must still be allowed; on a specific
    /// address, that address names it.
    #[test]
    fn other_listeners() {
        let wide = rules("0.0.0.0:9000", &[], &[]);
        assert_eq!(refused(&wide, &[("host", "gateway.internal:9000"), JSON]), None);
        let rebound = [("host", "rebind.attacker.example"), ("origin", "http://rebind.attacker.example"), JSON];
        assert_eq!(refused(&wide, &rebound), Some(RuleId::HttpOriginRefused));
        let named = rules("0.0.0.0:9000", &[], &["gateway.internal"]);
        assert_eq!(refused(&named, &[("host", "other.internal"), JSON]), Some(RuleId::HttpOriginRefused));
        let lan = rules("10.0.0.5:9000", &[], &[]);
        assert_eq!(refused(&lan, &[("host", "10.0.0.5:9000"), ("origin", "http://10.0.0.5:9000"), JSON]), None);
        assert_eq!(refused(&lan, &[("host", "rebind.attacker.example"), JSON]), Some(RuleId::HttpOriginRefused));
    }
}
