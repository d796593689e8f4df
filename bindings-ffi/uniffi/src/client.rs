//! The client's retry machine and the incremental conversation checker, as objects.

use crate::error::{guard, lock, Result};
use crate::ints::unsigned;
use crate::ops::{check_options, options, Side};
use mrtr_facade as facade;
use std::sync::{Arc, Mutex};

/// The client's retry machine (sans-IO). Inputs: [`send`](Client::send),
/// [`handle_response`](Client::handle_response), [`answer`](Client::answer);
/// after each, drain [`poll_transmit`](Client::poll_transmit) (messages to
/// send, in order), then [`poll_event`](Client::poll_event). It enforces every
/// client retry rule: new ids, unchanged params, complete and valid answers,
/// the exact `requestState`, and the round bound.
#[derive(uniffi::Object)]
pub struct Client {
    pub(crate) inner: Mutex<facade::Client>,
}

#[uniffi::export]
impl Client {
    /// A machine for `protocol` allowing `max_rounds` retries per request (the SDKs use 10).
    #[uniffi::constructor]
    pub fn new(protocol: String, max_rounds: i32) -> Result<Arc<Client>> {
        guard(|| {
            let o = options(&protocol, Some(unsigned(max_rounds, "max_rounds")?))?;
            Ok(Arc::new(Client { inner: Mutex::new(facade::Client::new(&o)) }))
        })
    }
}

/// The conversation checker, fed one entry at a time: a message, or a
/// recorded HTTP exchange's part.
#[derive(uniffi::Object)]
pub struct Checker {
    pub(crate) inner: Mutex<facade::Checker>,
}

#[uniffi::export]
impl Checker {
    /// A checker for `protocol` allowing `max_rounds` retries per request
    /// (default 10), under the multi-turn `transport` (`sep-1858`,
    /// `sep-1335`; absent: plain Streamable HTTP).
    #[uniffi::constructor(default(transport = None))]
    pub fn new(protocol: String, max_rounds: i32, transport: Option<String>) -> Result<Arc<Checker>> {
        guard(|| {
            let o = check_options(&protocol, unsigned(max_rounds, "max_rounds")?, transport)?;
            Ok(Arc::new(Checker { inner: Mutex::new(facade::Checker::new(&o)) }))
        })
    }

    /// Feeds the next message of the conversation: who sent it, the message
    /// (JSON text), and for server messages the stream (`"post:<id>"`, `"get"`).
    /// Text that is not one JSON value is refused and not counted.
    pub fn handle(&self, from: Side, message_json: String, stream: Option<String>) -> Result<()> {
        guard(|| Ok(lock(&self.inner)?.handle_message(from, message_json.as_bytes(), stream.as_deref())?))
    }
}
