//! `Link` header fields (RFC 8288 §3), the `rel="stream"` URL of SEP-1335,
//! and the same-origin test it needs (RFC 6454 §4).
//!
//! Written here: the crates that parse `Link` (`parse_link_header`,
//! `http-link`, `hyperx`) need `std` (and some a regex engine), and none bounds
//! the number of links it reads. URI references are `fluent-uri`'s (RFC 3986
//! resolution and normalisation, `no_std` with `alloc`): a URL here is always
//! in its normal form (scheme and host lower-case, a scheme's default port
//! left out, dot segments removed), so two URLs are the same when their texts are.

use super::{over, StreamLimits};
use crate::base::error::{err, Error};
use alloc::{string::String, vec::Vec};
use fluent_uri::{Uri, UriRef};

/// One link-value: its target as written and its parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// The URI-Reference between `<` and `>`, unresolved.
    pub target: String,
    /// The parameters, names lower-case, values unquoted; the first of a name
    /// counts (RFC 8288 §3.3 for `rel`).
    pub params: Vec<(String, String)>,
}

impl Link {
    /// The first parameter of that (lower-case) name.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// Whether its `rel` names `relation` (a space-separated list, compared
    /// ASCII case-insensitively).
    pub fn has_rel(&self, relation: &str) -> bool {
        self.param("rel").is_some_and(|rel| rel.split_ascii_whitespace().any(|r| r.eq_ignore_ascii_case(relation)))
    }
}

/// Parses the values of every `Link` field of a response, in order. A
/// link-value that does not parse is skipped to the next comma (RFC 8288 asks
/// a reader to ignore what it cannot read); more than `limits.max_links`
/// link-values, or fields longer than `limits.max_link_bytes` in all, are
/// `limit-exceeded`.
pub fn parse<'a>(fields: impl IntoIterator<Item = &'a str>, limits: &StreamLimits) -> Result<Vec<Link>, Error> {
    let mut links = Vec::new();
    let mut bytes = 0;
    for field in fields {
        bytes += field.len();
        if bytes > limits.max_link_bytes {
            return Err(over("the Link fields' bytes", limits.max_link_bytes));
        }
        let mut rest = field;
        while !rest.trim_start_matches([' ', '\t', ',']).is_empty() {
            let (link, after) = link_value(rest.trim_start_matches([' ', '\t', ',']));
            rest = after;
            if let Some(link) = link {
                if links.len() == limits.max_links {
                    return Err(over("the links of a response", limits.max_links));
                }
                links.push(link);
            }
        }
    }
    Ok(links)
}

/// One link-value from the start of `s`, and what follows it (from its comma).
/// `None` when it does not parse; the rest then starts after the next comma
/// outside `<…>` and quotes.
fn link_value(s: &str) -> (Option<Link>, &str) {
    let Some(body) = s.strip_prefix('<') else { return (None, skip(s)) };
    let Some(end) = body.find('>') else { return (None, "") };
    let target = String::from(&body[..end]);
    let mut rest = &body[end + 1..];
    let mut params: Vec<(String, String)> = Vec::new();
    loop {
        rest = rest.trim_start_matches([' ', '\t']);
        match rest.as_bytes().first() {
            None => break,
            Some(b',') => break,
            Some(b';') => rest = rest[1..].trim_start_matches([' ', '\t']),
            Some(_) => return (None, skip(rest)),
        }
        let name_end = rest.find(|c: char| !is_token_char(c)).unwrap_or(rest.len());
        if name_end == 0 {
            // `;` with no parameter after it: RFC 8288 allows the empty list element.
            continue;
        }
        let name = rest[..name_end].to_ascii_lowercase();
        rest = rest[name_end..].trim_start_matches([' ', '\t']);
        let value = match rest.strip_prefix('=') {
            None => String::new(),
            Some(v) => {
                let v = v.trim_start_matches([' ', '\t']);
                let read = if v.starts_with('"') { quoted(v) } else { Some(token(v)) };
                let Some((value, after)) = read else { return (None, "") };
                rest = after;
                value
            }
        };
        if !params.iter().any(|(n, _)| *n == name) {
            params.push((name, value));
        }
    }
    (Some(Link { target, params }), rest)
}

/// The rest of `s` from the next comma outside quotes (or nothing).
fn skip(s: &str) -> &str {
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => return &s[i..],
            _ => {}
        }
    }
    ""
}

/// RFC 9110 `tchar`.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

fn token(s: &str) -> (String, &str) {
    let end = s.find(|c: char| !is_token_char(c)).unwrap_or(s.len());
    (String::from(&s[..end]), &s[end..])
}

/// A quoted-string (RFC 9110 §5.6.4) at the start of `s`: its value and the rest.
fn quoted(s: &str) -> Option<(String, &str)> {
    let mut value = String::new();
    let mut chars = s.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((value, &s[i + 1..])),
            '\\' => value.push(chars.next()?.1),
            c => value.push(c),
        }
    }
    None
}

/// `text` as an absolute URL with a host, in the normal form this module
/// compares: scheme and host lower-case (RFC 3986 §6.2.2.1), a port equal to
/// the scheme's default left out (§6.2.3); the rest as written (a resolved
/// reference has its dot segments removed already), and no userinfo: a
/// `user:pw@` a server put in a `rel="stream"` link is never sent on (a
/// client's HTTP stack would use it as credentials, or refuse the URL).
/// `None` if it is not one.
pub fn normal(text: &str) -> Option<String> {
    let uri = Uri::parse(text).ok()?;
    let authority = uri.authority().filter(|a| !a.host().is_empty())?;
    let scheme = uri.scheme();
    let mut out = scheme.as_str().to_ascii_lowercase();
    out.push_str("://");
    out.push_str(&authority.host().to_ascii_lowercase());
    let port = authority.port_to_u16().ok()?;
    if let Some(port) = port.filter(|p| Some(*p) != scheme.default_port()) {
        out.push(':');
        out.push_str(&alloc::format!("{port}"));
    }
    out.push_str(uri.path().as_str());
    if let Some(query) = uri.query() {
        out.push('?');
        out.push_str(query.as_str());
    }
    Some(out)
}

/// The `rel="stream"` URL of a response, resolved against `base` (the URL of
/// the request it answers) and normalised: the first link whose `rel` names
/// `stream`. `Ok(None)` when there is none; a target that does not resolve to
/// a URL with a host is skipped.
pub fn stream_url<'a>(
    fields: impl IntoIterator<Item = &'a str>,
    base: &str,
    limits: &StreamLimits,
) -> Result<Option<String>, Error> {
    let base = Uri::parse(base).map_err(|e| err!(UsageInvalidArgument, "the request URL {base:?} is no URL: {e}"))?;
    let links = parse(fields, limits)?;
    let resolve = |l: &Link| {
        let target = UriRef::parse(l.target.as_str()).ok()?.resolve_against(&base).ok()?;
        normal(target.as_str())
    };
    Ok(links.iter().filter(|l| l.has_rel("stream")).find_map(resolve))
}

/// Whether two URLs have the same origin (RFC 6454 §4 and §5): the same
/// scheme, the same host (ASCII case-insensitive), and the same port, a
/// missing one being the scheme's default. URLs that do not parse, or have
/// no host, have no origin in common with anything.
pub fn same_origin(a: &str, b: &str) -> bool {
    let origin = |text: &str| {
        let uri = Uri::parse(normal(text)?).ok()?;
        let authority = uri.authority()?;
        let port = authority.port_to_u16().ok()?.or_else(|| uri.scheme().default_port());
        Some((String::from(uri.scheme().as_str()), String::from(authority.host()), port))
    };
    matches!((origin(a), origin(b)), (Some(x), Some(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links(field: &str) -> Vec<Link> {
        parse([field], &StreamLimits::DEFAULT).unwrap()
    }

    #[test]
    fn several_links_and_rel_lists() {
        let l = links(r#"<https://a.example/x>; rel="next stream", </s?id=1>;rel=stream;title="a, b" , <y>; rel=prev"#);
        assert_eq!(l.len(), 3);
        assert!(l[0].has_rel("stream") && l[0].has_rel("NEXT"));
        assert_eq!((l[1].target.as_str(), l[1].param("title")), ("/s?id=1", Some("a, b")));
        assert!(!l[2].has_rel("stream"));
    }

    #[test]
    fn a_broken_value_is_skipped_to_the_next_comma() {
        let l = links(r#"nonsense; rel="stream, x", <ok>; rel=stream"#);
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].target, "ok");
    }

    #[test]
    fn the_first_rel_counts() {
        assert!(!links("<a>; rel=next; rel=stream")[0].has_rel("stream"));
    }

    #[test]
    fn resolved_against_the_request_and_compared_by_origin() {
        let url = |fields: &[&str]| stream_url(fields.iter().copied(), "http://H.example/mcp", &StreamLimits::DEFAULT);
        let u = url(&[r#"<streams/./x/../7>; rel="stream""#]).unwrap().unwrap();
        assert_eq!(u, "http://h.example/streams/7");
        assert!(same_origin(&u, "http://h.example:80/mcp"));
        for other in ["https://h.example/s", "http://h.example:8080/s", "http://i.example/s", "not a url", "file:///x"]
        {
            assert!(!same_origin(other, "http://h.example:80/mcp"), "{other}");
        }
        assert!(same_origin("https://h.example:443/s", "https://H.EXAMPLE/"));
        assert_eq!(normal("HTTPS://H.example:443/b?q").as_deref(), Some("https://h.example/b?q"));
        assert_eq!(normal("http://h.example:8080").as_deref(), Some("http://h.example:8080"));
        // Security review I6: a link's userinfo is not followed.
        assert_eq!(normal("http://user:pw@h.example/s").as_deref(), Some("http://h.example/s"));
        let fields = ["<http://user:pw@h.example/s>; rel=\"stream\""];
        let followed = stream_url(fields, "http://h.example/mcp", &StreamLimits::DEFAULT).unwrap();
        assert_eq!(followed.as_deref(), Some("http://h.example/s"));
        assert_eq!(url(&["<a>; rel=next"]).unwrap(), None);
    }

    #[test]
    fn a_thousand_links_are_refused() {
        let field = alloc::vec!["<a>; rel=x"; 1000].join(", ");
        let limits = StreamLimits { max_link_bytes: 1 << 20, ..StreamLimits::DEFAULT };
        assert_eq!(parse([field.as_str()], &limits).unwrap_err().rule(), crate::base::rules::RuleId::LimitExceeded);
        assert_eq!(
            parse([field.as_str()], &StreamLimits::DEFAULT).unwrap_err().rule(),
            crate::base::rules::RuleId::LimitExceeded
        );
    }
}
