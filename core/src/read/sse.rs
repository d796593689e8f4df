//! An incremental decoder of the event-stream format (`text/event-stream`,
//! "server-sent events"): bytes in, events out, sans-IO.
//!
//! It follows the parsing rules of the WHATWG HTML Living Standard, §9.2.6
//! "Interpreting an event stream" (<https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation>),
//! with one deliberate difference: a block is reported with the fields its
//! lines set, and blocks without `data` are reported too (a browser dispatches
//! nothing for them), since SEP-1858's `buffer_input` and `input_required`
//! events carry no data line.
//!
//! No crate is used: those on crates.io (`sse-stream`, `eventsource-stream`,
//! `sse-codec`) are built on `futures`/`http-body` streams or async codecs rather
//! than sans-IO over `no_std` + `alloc`, and follow the browser's dispatch,
//! which drops data-less blocks and so loses the events this decoder exists to report.
//!
//! The contract (the corpus format of the `sse` op):
//! - A blank line ends a block; a block that set no field (comments only) is
//!   not reported; a block still open when the stream ends is discarded.
//! - CR, LF and CRLF each end a line, also when the CR and the LF arrive in
//!   different chunks; one byte order mark at the very start is skipped.
//! - One space after the colon is removed; a field with no colon has the empty
//!   value; several `data` lines are joined with LF; `retry` counts only when
//!   it is ASCII digits (a value past `u64::MAX` reads as `u64::MAX`, so that
//!   a client's bound on waits, not the decoder, refuses it with a rule id);
//!   an `id` containing NULL is ignored;
//!   unknown fields are ignored.
//! - A line that is not UTF-8 makes its block an error
//!   ([`RuleId::JsonrpcParseError`](crate::RuleId::JsonrpcParseError)): the
//!   bytes are not decoded lossily, since a replaced character would silently
//!   change the JSON-RPC message carried in `data`.
//! - A block of more than [`Limits::max_message_bytes`] (line bytes, without
//!   line ends) is an error ([`RuleId::LimitExceeded`](crate::RuleId::LimitExceeded)),
//!   reported as soon as the bound is passed (so a line that never ends is
//!   reported without waiting for it), and skipped to its end without being
//!   buffered, so memory stays bounded.
//!
//! Decoding goes on with the next block after an error.
//!
//! [`encode`] writes a block back, so that what it writes decodes to the same
//! [`Event`] (a property test holds them together).

use crate::{base::error::err, base::error::Error, base::limits::Limits};
use alloc::{collections::VecDeque, string::String, vec::Vec};
use core::fmt::Write;

/// The UTF-8 byte order mark, skipped once at the very start of a stream.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One block of the stream: the fields its lines set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Event {
    /// The last `event` field.
    pub event: Option<String>,
    /// The `data` fields, joined with LF.
    pub data: Option<String>,
    /// The last `id` field without NULL.
    pub id: Option<String>,
    /// The last `retry` field made of ASCII digits (saturating at `u64::MAX`).
    pub retry: Option<u64>,
}

impl Event {
    fn is_empty(&self) -> bool {
        self.event.is_none() && self.data.is_none() && self.id.is_none() && self.retry.is_none()
    }
}

/// The incremental decoder: [`feed`](Decoder::feed) bytes in any chunking,
/// [`finish`](Decoder::finish) at the end of the stream, and take the events
/// with [`poll_event`](Decoder::poll_event).
#[derive(Debug)]
pub struct Decoder {
    /// The largest block, in line bytes.
    max_block_bytes: usize,
    /// The current line, not yet ended.
    line: Vec<u8>,
    /// The current line has bytes that were not kept (its block is an error).
    line_skipped: bool,
    /// The previous chunk ended with CR: an LF starting the next one ends no line.
    pending_cr: bool,
    /// No line has ended yet (the byte order mark may still come).
    first_line: bool,
    /// The fields of the open block.
    block: Event,
    /// Line bytes of the open block so far.
    block_bytes: usize,
    /// Why the open block is an error, if it is one.
    block_error: Option<Error>,
    /// That error was reported already (a bound is reported when passed).
    block_reported: bool,
    /// Blocks decoded and not yet polled.
    ready: VecDeque<Result<Event, Error>>,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder::with_limits(&Limits::DEFAULT)
    }
}

impl Decoder {
    /// A decoder bounding blocks by the default [`Limits`].
    pub fn new() -> Decoder {
        Decoder::default()
    }

    /// A decoder bounding each block by `limits.max_message_bytes` (a block
    /// carries one message).
    pub fn with_limits(limits: &Limits) -> Decoder {
        Decoder {
            max_block_bytes: limits.max_message_bytes,
            line: Vec::new(),
            line_skipped: false,
            pending_cr: false,
            first_line: true,
            block: Event::default(),
            block_bytes: 0,
            block_error: None,
            block_reported: false,
            ready: VecDeque::new(),
        }
    }

    /// Decodes the next bytes of the stream. Any split of a stream into
    /// chunks gives the same events.
    pub fn feed(&mut self, chunk: &[u8]) {
        let mut rest = chunk;
        if rest.is_empty() {
            return;
        }
        if core::mem::take(&mut self.pending_cr) && rest[0] == b'\n' {
            rest = &rest[1..];
        }
        while let Some(i) = memchr::memchr2(b'\r', b'\n', rest) {
            self.push(&rest[..i]);
            self.end_line();
            if rest[i] == b'\r' {
                match rest.get(i + 1) {
                    Some(b'\n') => rest = &rest[i + 2..],
                    Some(_) => rest = &rest[i + 1..],
                    None => {
                        // The LF of a CRLF may start the next chunk.
                        self.pending_cr = true;
                        return;
                    }
                }
            } else {
                rest = &rest[i + 1..];
            }
        }
        self.push(rest);
    }

    /// Ends the stream: a block not ended by a blank line is discarded (as a
    /// browser discards it), and the next [`feed`](Decoder::feed) starts a new
    /// stream. Events already decoded stay to be polled.
    pub fn finish(&mut self) {
        let ready = core::mem::take(&mut self.ready);
        *self = Decoder {
            ready,
            ..Decoder::with_limits(&Limits { max_message_bytes: self.max_block_bytes, ..Limits::DEFAULT })
        };
    }

    /// The next decoded block: an event, or the error that made its block unreadable.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Result<Event, Error>> {
        self.ready.pop_front()
    }

    /// Appends bytes to the current line, unless its block is already an
    /// error or would grow past the bound (then nothing more of it is kept).
    fn push(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if self.block_error.is_some() {
            self.line_skipped = true;
            return;
        }
        if self.block_bytes + self.line.len() + bytes.len() > self.max_block_bytes {
            let e = err!(LimitExceeded, "an event-stream block is larger than {} bytes", self.max_block_bytes);
            self.ready.push_back(Err(e.clone()));
            self.block_reported = true;
            self.fail(e);
            self.line_skipped = true;
            return;
        }
        self.line.extend_from_slice(bytes);
    }

    /// Makes the open block an error and drops what it holds.
    fn fail(&mut self, error: Error) {
        self.block_error = Some(error);
        self.block = Event::default();
        self.line = Vec::new();
    }

    fn end_line(&mut self) {
        if core::mem::take(&mut self.first_line) && self.line.starts_with(BOM) {
            self.line.drain(..BOM.len());
        }
        let skipped = core::mem::take(&mut self.line_skipped);
        if self.line.is_empty() && !skipped {
            self.end_block();
        } else if self.block_error.is_none() {
            self.block_bytes += self.line.len();
            let line = core::mem::take(&mut self.line);
            match core::str::from_utf8(&line) {
                Ok(text) => self.field(text),
                Err(e) => {
                    self.fail(err!(JsonrpcParseError, "an event-stream line is not UTF-8 (byte {})", e.valid_up_to()))
                }
            }
            // Keep the allocation for the next line.
            self.line = line;
        }
        self.line.clear();
    }

    fn end_block(&mut self) {
        let block = core::mem::take(&mut self.block);
        self.block_bytes = 0;
        if let Some(e) = self.block_error.take() {
            if !core::mem::take(&mut self.block_reported) {
                self.ready.push_back(Err(e));
            }
        } else if !block.is_empty() {
            self.ready.push_back(Ok(block));
        }
    }

    /// One non-blank line of the open block.
    fn field(&mut self, line: &str) {
        let (name, value) = match line.split_once(':') {
            Some((name, value)) => (name, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match name {
            // A comment.
            "" => {}
            "event" => self.block.event = Some(value.into()),
            "data" => match &mut self.block.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.block.data = Some(value.into()),
            },
            "id" if !value.contains('\0') => self.block.id = Some(value.into()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                // Past u64::MAX it saturates: still a wait no client takes.
                self.block.retry = Some(value.parse().unwrap_or(u64::MAX));
            }
            _ => {}
        }
    }
}

/// Writes `event` as one block: `event`, `id`, `retry`, then one `data` line
/// per line of its data (CR, LF and CRLF each start a new line, as a decoder
/// reads them), then the blank line that ends it. An event that sets no
/// field writes nothing (a decoder would report nothing for it).
///
/// An `event` or `id` with a line end, or an `id` with NULL, could not be read
/// back as written: it is refused with
/// [`RuleId::UsageInvalidArgument`](crate::RuleId::UsageInvalidArgument) and
/// nothing is written.
pub fn encode(event: &Event, out: &mut String) -> Result<(), Error> {
    let breaks = |s: &str| s.contains(['\r', '\n']);
    if event.event.as_deref().is_some_and(breaks) {
        return Err(err!(UsageInvalidArgument, "an event name holds no line end"));
    }
    if event.id.as_deref().is_some_and(|id| breaks(id) || id.contains('\0')) {
        return Err(err!(UsageInvalidArgument, "an event id holds no line end and no NULL"));
    }
    if event.is_empty() {
        return Ok(());
    }
    if let Some(name) = &event.event {
        field(out, "event", name);
    }
    if let Some(id) = &event.id {
        field(out, "id", id);
    }
    if let Some(ms) = event.retry {
        // Writing into a String cannot fail.
        let _ = writeln!(out, "retry: {ms}");
    }
    if let Some(data) = &event.data {
        let mut rest = data.as_str();
        loop {
            let Some(i) = rest.find(['\r', '\n']) else {
                field(out, "data", rest);
                break;
            };
            field(out, "data", &rest[..i]);
            let crlf = rest[i..].starts_with("\r\n");
            rest = &rest[i + if crlf { 2 } else { 1 }..];
        }
    }
    out.push('\n');
    Ok(())
}

/// One `name: value` line (the space keeps a value that starts with a space intact).
fn field(out: &mut String, name: &str, value: &str) {
    out.push_str(name);
    out.push_str(": ");
    out.push_str(value);
    out.push('\n');
}
