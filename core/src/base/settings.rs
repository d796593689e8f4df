//! What every machine and check of a deployment is set by alike: the
//! protocol, the limits on what is read, and the round bound.
//!
//! These three used to be repeated, field by field, in each configuration
//! (the client's, the checker's, a call's, an operation's, a replay's), each
//! with its own literal default `10` for the round bound. They are one type
//! now, with its defaults named once; a configuration that has settings of
//! its own (a call's URL, a check's transport) holds a [`Settings`] beside
//! them. It is `#[non_exhaustive]`, so a setting added later breaks no
//! caller: build one from [`Settings::DEFAULT`] with the `with_*` methods.

use crate::base::{limits::Limits, protocol::Protocol};

/// Retries allowed per request before `retry-rounds-exceeded`, by default:
/// as many as the official SDKs allow.
pub const DEFAULT_MAX_ROUNDS: u32 = 10;

/// The protocol, the limits and the round bound: what every configuration
/// of a deployment shares, its defaults named once ([`Settings::DEFAULT`]).
/// `#[non_exhaustive]`: build one from the defaults with the `with_*` methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Settings {
    /// The protocol spoken (negotiated, for a client).
    pub protocol: Protocol,
    /// Bounds on each message read.
    pub limits: Limits,
    /// Retries allowed per request before `retry-rounds-exceeded`.
    pub max_rounds: u32,
}

impl Settings {
    /// The defaults: `2026-07-28`, [`Limits::DEFAULT`], [`DEFAULT_MAX_ROUNDS`].
    pub const DEFAULT: Settings =
        Settings { protocol: Protocol::V2026_07_28, limits: Limits::DEFAULT, max_rounds: DEFAULT_MAX_ROUNDS };

    /// These settings under `protocol`.
    #[must_use]
    pub const fn with_protocol(self, protocol: Protocol) -> Settings {
        Settings { protocol, ..self }
    }

    /// These settings with `limits`.
    #[must_use]
    pub const fn with_limits(self, limits: Limits) -> Settings {
        Settings { limits, ..self }
    }

    /// These settings allowing `max_rounds` retries per request.
    #[must_use]
    pub const fn with_max_rounds(self, max_rounds: u32) -> Settings {
        Settings { max_rounds, ..self }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_change_one_field_and_keep_the_named_defaults() {
        let s = Settings::DEFAULT.with_protocol(Protocol::V2025_11_25);
        assert_eq!((s.protocol, s.limits, s.max_rounds), (Protocol::V2025_11_25, Limits::DEFAULT, DEFAULT_MAX_ROUNDS));
        let tight = Limits { max_depth: 4, ..Limits::DEFAULT };
        let s = s.with_limits(tight).with_max_rounds(3);
        assert_eq!((s.protocol, s.limits.max_depth, s.max_rounds), (Protocol::V2025_11_25, 4, 3));
        assert_eq!(Settings::default(), Settings::DEFAULT);
        assert_eq!(Settings::DEFAULT.protocol, Protocol::default(), "the default protocol is the protocol's default");
    }
}
