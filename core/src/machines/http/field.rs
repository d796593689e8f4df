//! Header field values that carry body text: `Mcp-Name` mirrors a tool or
//! prompt name or a resource URI, which a server chose (SEP-2243, as
//! `2026-07-28`'s Streamable HTTP adopted it).
//!
//! Why encode: such a name may hold anything. Sent raw, a CR LF in it is a
//! header injection for a host that writes its own HTTP/1.1 (a C host over
//! [`super::call::Call`]), and a non-ASCII one makes `fetch` or `http.client`
//! throw. So a value that is not plain visible ASCII goes out as
//! `=?base64?<base64 of its UTF-8>?=`, and a server decodes that form before
//! it compares header and body. A plain value that merely looks like the
//! encoded form is encoded too, so that decoding gives it back.

use crate::base::error::{err, Result};
use alloc::{borrow::Cow, format, string::String};
use base64::{
    alphabet,
    engine::{general_purpose::STANDARD, DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig},
    Engine,
};

const PREFIX: &str = "=?base64?";
const SUFFIX: &str = "?=";

/// Reads padded or unpadded base64: what other SDKs send varies.
const LENIENT: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// `value` as a header field value: itself when plain, else encoded.
pub fn encode(value: &str) -> Cow<'_, str> {
    if is_plain(value) {
        Cow::Borrowed(value)
    } else {
        Cow::Owned(format!("{PREFIX}{}{SUFFIX}", STANDARD.encode(value.as_bytes())))
    }
}

/// The text a header field value `field` carries: decoded when it has the
/// encoded form (the marker in any case), else itself. An encoded form that
/// is not base64 of UTF-8 text is `request-header-mismatch`.
pub fn decode(field: &str) -> Result<Cow<'_, str>> {
    let Some(inner) = encoded_inner(field) else { return Ok(Cow::Borrowed(field)) };
    let bytes = LENIENT.decode(inner).map_err(|_| err!(RequestHeaderMismatch, "{field:?} is not base64 text"))?;
    String::from_utf8(bytes).map(Cow::Owned).map_err(|_| err!(RequestHeaderMismatch, "{field:?} is not UTF-8 text"))
}

/// Visible ASCII and inner spaces only, and not shaped like the encoded form.
fn is_plain(value: &str) -> bool {
    let visible = value.bytes().all(|b| (b' '..=b'~').contains(&b));
    visible && !value.starts_with(' ') && !value.ends_with(' ') && encoded_inner(value).is_none()
}

/// The base64 text of an encoded value.
fn encoded_inner(field: &str) -> Option<&str> {
    let marker = field.get(..PREFIX.len())?;
    let rest = field.get(PREFIX.len()..)?.strip_suffix(SUFFIX)?;
    marker.eq_ignore_ascii_case(PREFIX).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rules::RuleId;

    #[test]
    fn plain_names_go_as_they_are_and_anything_else_is_encoded() {
        for plain in ["get_weather", "notes://a b", "", "a=?b"] {
            assert_eq!(encode(plain), plain);
        }
        assert_eq!(encode("café"), "=?base64?Y2Fmw6k=?=");
        for risky in ["lookup\r\nX-Injected: 1", "notes://a b\tc", " lead", "trail ", "=?base64?dGVzdA==?=", "\u{7f}"] {
            let sent = encode(risky);
            assert!(sent.starts_with(PREFIX) && sent.bytes().all(|b| (b' '..=b'~').contains(&b)), "{sent:?}");
            assert_eq!(decode(&sent).unwrap(), risky);
        }
    }

    #[test]
    fn a_server_decodes_the_encoded_form_and_refuses_a_broken_one() {
        assert_eq!(decode("=?BASE64?Y2Fmw6k?=").unwrap(), "café");
        assert_eq!(decode("get_weather").unwrap(), "get_weather");
        for broken in ["=?base64?not base64!?=", "=?base64?/w==?="] {
            assert_eq!(decode(broken).unwrap_err().rule(), RuleId::RequestHeaderMismatch, "{broken}");
        }
    }
}
