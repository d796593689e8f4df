//! The one time type of the core's API: an instant of the host's clock, in
//! milliseconds.
//!
//! The core reads no clock (it is sans-IO, and runs where there is none):
//! every input that depends on time takes the host's `now`. Those used to be
//! bare `u64`s in two units, milliseconds in the machines and seconds since
//! the Unix epoch in the sealed state, so a host could pass one where the
//! other was meant and nothing would say so. Now every `now` is a [`Millis`],
//! and the sealed state takes its whole seconds inside ([`Millis::as_secs`]);
//! a token's expiry stays seconds on the wire.
//!
//! Durations stay plain `u64` milliseconds with a `_ms` name: a
//! [`Millis`] is an instant, and an instant plus a duration is an instant
//! ([`Millis::saturating_add`]), an instant minus an instant a duration
//! ([`Millis::since`]).

/// An instant of the host's clock, in milliseconds (since the Unix epoch for
/// the sealed state, which turns it into whole seconds; since any origin the
/// host keeps fixed for the machines, which only compare and add). A type,
/// not a bare `u64`, so that no `now` can be given in seconds where
/// milliseconds are meant: the sealed state takes its whole seconds itself
/// ([`Millis::as_secs`]).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(transparent))]
pub struct Millis(pub u64);

impl Millis {
    /// The instant `secs` whole seconds after the origin (the latest instant
    /// a `u64` of milliseconds holds, past that).
    pub const fn from_secs(secs: u64) -> Millis {
        Millis(secs.saturating_mul(1000))
    }

    /// The whole seconds since the origin, rounded down: what a sealed
    /// state's expiry is compared with.
    pub const fn as_secs(self) -> u64 {
        self.0 / 1000
    }

    /// The instant `ms` milliseconds later (the latest instant, past that): a
    /// deadline that overflows never comes, rather than coming at once.
    #[must_use]
    pub const fn saturating_add(self, ms: u64) -> Millis {
        Millis(self.0.saturating_add(ms))
    }

    /// The milliseconds from `earlier` to this instant (0 when `earlier` is
    /// later: a host's clock that stepped back is no negative wait).
    pub const fn since(self, earlier: Millis) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}

#[cfg(test)]
mod tests {
    use super::Millis;

    #[test]
    fn adding_saturates_at_the_last_instant() {
        assert_eq!(Millis(5).saturating_add(7), Millis(12));
        assert_eq!(Millis(u64::MAX - 1).saturating_add(5), Millis(u64::MAX));
        assert!(Millis(u64::MAX).saturating_add(1) >= Millis(u64::MAX));
    }

    #[test]
    fn since_is_never_negative() {
        assert_eq!(Millis(1_500).since(Millis(1_000)), 500);
        assert_eq!(Millis(1_000).since(Millis(1_500)), 0);
        assert_eq!(Millis(u64::MAX).since(Millis::default()), u64::MAX);
    }

    #[test]
    fn seconds_round_down_and_saturate() {
        assert_eq!(Millis(1_999).as_secs(), 1);
        assert_eq!(Millis(999).as_secs(), 0);
        assert_eq!(Millis(2_000).as_secs(), 2);
        assert_eq!(Millis::from_secs(1_700_000_000), Millis(1_700_000_000_000));
        assert_eq!(Millis::from_secs(u64::MAX), Millis(u64::MAX));
        assert_eq!(Millis::from_secs(42).as_secs(), 42);
    }
}
