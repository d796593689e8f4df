//! The client's retry machine and the incremental conversation checker, as objects.

use crate::error::{guard, lock, wire, Result};
use crate::exports::ClientEvent;
use crate::ops::{check_options, options, Side, Violation};
use mrtr::facade;
use std::sync::{Arc, Mutex};

/// The client's retry machine (sans-IO). Inputs: [`send`](Client::send),
/// [`handle_response`](Client::handle_response), [`answer`](Client::answer);
/// after each, drain [`poll_transmit`](Client::poll_transmit) (messages to
/// send, in order), then [`poll_event`](Client::poll_event). It enforces every
/// client retry rule: new ids, unchanged params, complete and valid answers,
/// the exact `requestState`, and the round bound.
#[derive(uniffi::Object)]
pub struct Client {
    inner: Mutex<facade::Client>,
}

#[uniffi::export]
impl Client {
    /// A machine for `protocol` allowing `max_rounds` retries per request (the SDKs use 10).
    #[uniffi::constructor]
    pub fn new(protocol: String, max_rounds: u32) -> Result<Arc<Client>> {
        guard(|| {
            Ok(Arc::new(Client { inner: Mutex::new(facade::Client::new(&options(&protocol, Some(max_rounds))?)) }))
        })
    }

    /// Starts `request_json` (a fresh request: no `inputResponses` or
    /// `requestState`, an id not in flight); returns its handle.
    pub fn send(&self, request_json: String) -> Result<u64> {
        guard(|| Ok(lock(&self.inner)?.send(request_json.as_bytes())?))
    }

    /// Takes a response message from the server (raw JSON text, classified as received).
    pub fn handle_response(&self, response_json: String) -> Result<()> {
        guard(|| Ok(lock(&self.inner)?.handle_response(response_json.as_bytes())?))
    }

    /// Answers the input requests of `handle` with `input_responses_json` (an
    /// `inputResponses` object; none: no answers, the retry of a load-shedding
    /// `input_required`) and queues the retry under the new id `id_json`.
    pub fn answer(&self, handle: u64, input_responses_json: Option<String>, id_json: String) -> Result<()> {
        let responses = input_responses_json.as_deref().map(str::as_bytes);
        guard(|| Ok(lock(&self.inner)?.answer(handle, responses, id_json.as_bytes())?))
    }

    /// Gives up on `handle`.
    pub fn abandon(&self, handle: u64) -> Result<()> {
        guard(|| lock(&self.inner).map(|mut c| c.abandon(handle)))
    }

    /// The next message to send (JSON), if any.
    pub fn poll_transmit(&self) -> Result<Option<String>> {
        guard(|| Ok(lock(&self.inner)?.poll_transmit()))
    }

    /// The next event for the host, if any.
    pub fn poll_event(&self) -> Result<Option<ClientEvent>> {
        guard(|| lock(&self.inner)?.poll_event().map(|e| wire(&e)).transpose())
    }
}

/// The conversation checker, fed one entry at a time: a message, or a
/// recorded HTTP exchange's part.
#[derive(uniffi::Object)]
pub struct Checker {
    inner: Mutex<facade::Checker>,
}

#[uniffi::export]
impl Checker {
    /// A checker for `protocol` allowing `max_rounds` retries per request
    /// (default 10), under the multi-turn `transport` (`sep-1858`,
    /// `sep-1335`; absent: plain Streamable HTTP).
    #[uniffi::constructor(default(transport = None))]
    pub fn new(protocol: String, max_rounds: u32, transport: Option<String>) -> Result<Arc<Checker>> {
        guard(|| {
            let o = check_options(&protocol, max_rounds, transport)?;
            Ok(Arc::new(Checker { inner: Mutex::new(facade::Checker::new(&o)) }))
        })
    }

    /// Feeds the next message of the conversation: who sent it, the message
    /// (JSON text), and for server messages the stream (`"post:<id>"`, `"get"`).
    /// Text that is not one JSON value is refused and not counted.
    pub fn handle(&self, from: Side, message_json: String, stream: Option<String>) -> Result<()> {
        guard(|| Ok(lock(&self.inner)?.handle_message(from, message_json.as_bytes(), stream.as_deref())?))
    }

    /// Feeds the next entry as `check` reads one (JSON text): a message entry
    /// `{"from", "message", "stream"}` or an HTTP entry `{"from", "at",
    /// "http": {…}}`. An entry of neither shape is refused and not counted.
    pub fn handle_entry(&self, entry_json: String) -> Result<()> {
        guard(|| Ok(lock(&self.inner)?.handle(entry_json.as_bytes())?))
    }

    /// The violations so far, in conversation order.
    pub fn violations(&self) -> Result<Vec<Violation>> {
        guard(|| wire(&lock(&self.inner)?.violations()))
    }
}
