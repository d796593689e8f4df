//! The binding tags a token carries, computed once per request.
//!
//! A server that resumes a request opens its state and seals the next one
//! under the same binding, nearly always under the same key, so the two tags
//! (two HMAC-SHA-256 runs, about a sixth of a seal + open of 512 bytes each
//! time) come out the same both times. A [`Bound`] remembers them per key; a
//! rounds `Call` holds the same memo (and implements [`Binds`] where it is defined).

use super::{Algorithm, Binding, Key, TAGS};
use core::{cell::RefCell, fmt};

/// What a [`KeyRing`](super::KeyRing) binds a token to: a [`Binding`], whose
/// tags are computed at each seal and open, or a [`Bound`] (or a rounds
/// `Call`), which computes them once per key.
///
/// Sealed: implemented only inside this crate.
pub trait Binds: sealed::Tags {}

pub(super) mod sealed {
    /// The binding tags under `key`: the trait's method stays inside the
    /// crate, so the tags never reach a caller.
    pub trait Tags {
        fn tags(&self, key: &super::Key) -> [u8; super::TAGS];
    }
}

impl sealed::Tags for Binding<'_> {
    fn tags(&self, key: &Key) -> [u8; TAGS] {
        key.binding_tags(self)
    }
}

impl Binds for Binding<'_> {}

/// A request's [`Binding`] that remembers its tags per key: open the request's
/// state and seal the next one through the same `Bound`, and the tags are
/// computed once.
#[derive(Clone, Debug)]
pub struct Bound<'a> {
    binding: Binding<'a>,
    memo: TagMemo<'a>,
}

impl<'a> Bound<'a> {
    /// The binding, its tags not yet computed.
    pub fn new(binding: Binding<'a>) -> Bound<'a> {
        Bound { binding, memo: TagMemo::default() }
    }

    /// What it binds.
    pub fn binding(&self) -> &Binding<'a> {
        &self.binding
    }
}

impl sealed::Tags for Bound<'_> {
    fn tags(&self, key: &Key) -> [u8; TAGS] {
        self.memo.tags(key, &self.binding)
    }
}

impl Binds for Bound<'_> {}

/// The last tags computed, with the key and the binding they belong to.
///
/// Looked up by the binding's value too, not only the key: a holder whose
/// binding can change between uses (a rounds `Call`'s is a public field)
/// never gets another binding's tags. A key replaced by one of the same id
/// and algorithm but other material would get the old tags, which its tokens
/// then refuse (`state-wrong-subject`): a memo can only fail closed.
#[derive(Clone, Default)]
pub(crate) struct TagMemo<'a>(RefCell<Option<Memo<'a>>>);

#[derive(Clone)]
struct Memo<'a> {
    key: (u8, Algorithm),
    binding: Binding<'a>,
    tags: [u8; TAGS],
}

impl<'a> TagMemo<'a> {
    /// The tags of `binding` under `key`, computed unless remembered.
    pub(crate) fn tags(&self, key: &Key, binding: &Binding<'a>) -> [u8; TAGS] {
        let id = (key.id(), key.algorithm());
        if let Some(memo) = self.0.borrow().as_ref().filter(|m| m.key == id && m.binding == *binding) {
            return memo.tags;
        }
        let tags = key.binding_tags(binding);
        *self.0.borrow_mut() = Some(Memo { key: id, binding: binding.clone(), tags });
        tags
    }
}

impl fmt::Debug for TagMemo<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The tags stay out of logs, as the key material does.
        f.write_str("TagMemo(..)")
    }
}
