//! A strict JSON reader that allocates nothing: the one way `classify` reads
//! bytes, with an allocator (`mrtr::classify`) or without (`mrtr::bare`).
//!
//! [`read`] checks the whole document in one pass and decides every fault of
//! the document itself, in the precedence `conformance/README.md` writes down
//! ("Several faults in one message"): over `Limits::max_message_bytes`, then
//! not UTF-8, then nesting deeper than `Limits::max_depth` (wherever it is),
//! then not one JSON value (RFC 8259's grammar, a lone surrogate escape, a
//! number no `f64` holds), then an object with one key twice (compared after
//! unescaping). [`At`] then reads the checked bytes lazily, by spans, for the
//! validators (`validate`), which never see a malformed document.
//!
//! Why a reader of our own: `serde_json` needs an allocator, and
//! `serde-json-core` is lenient where `serde_json` is strict (`01`, `1.`,
//! `"\x"`, raw control characters), cannot read a value of unknown type, and
//! refuses escaped surrogate pairs. A document both parsers accept gives
//! both the same values, so `mrtr::parse` (this reader, then `serde_json`) and
//! `classify` agree on every input (`fuzz/fuzz_targets/bare_differential.rs`).
//!
//! Numbers are decided on their decimal digits, as `serde_json` with
//! `float_roundtrip` rounds them (correctly): whether one is out of `f64`
//! range, or an integer (an error `code`, a sampling `maxTokens`). No `f64` is
//! parsed and no float tables are linked (they would cost a thumb build ~15 KB).
//!
//! Memory: the reader remembers the keys of the open objects to find a key
//! twice. Without an allocator it holds [`FIXED_KEYS`] of them; past that it
//! checks the document again, object by object, once the pass is done. With
//! one, it also notes where each large container ends, so that reading a field
//! skips a large sibling in one step instead of a scan.

use crate::{
    base::error::Error, base::limits::Limits, base::rules::RuleId, read::validate::Node, read::validate::Num,
    read::validate::Type,
};
use core::cmp::Ordering;

/// Nesting of arrays and objects the reader can follow (its bit stack); a
/// bound above it in `Limits::max_depth` is met here first.
pub const MAX_NESTING: usize = 1024;

/// Keys of open objects the no-allocator reader remembers during its pass
/// (8 bytes each on a 32-bit target).
pub(crate) const FIXED_KEYS: usize = 48;

/// A key's span, quotes included.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Key {
    s: usize,
    e: usize,
}

/// Marks where an object's keys start among the remembered keys.
const OBJECT: Key = Key { s: usize::MAX, e: usize::MAX };

/// What the reader remembers during its pass: a bounded stack of keys without
/// an allocator ([`Fixed`]), growable ones with it (`Grown`).
pub(crate) trait Memory {
    /// The keys of the open objects, each object's behind an [`OBJECT`] mark.
    fn keys(&mut self) -> &mut [Key];
    /// Remembers a key or a mark; `false` when full.
    fn push(&mut self, key: Key) -> bool;
    /// Forgets the keys from `n` on.
    fn truncate(&mut self, n: usize);
    /// Whether one of an object's keys is there twice: pair by pair (at most
    /// [`FIXED_KEYS`] of them, and far smaller code than a sort), or sorted.
    /// `escaped`: some key of the document so far held an escape, so keys
    /// are compared by their unescaped bytes.
    fn twice(b: &[u8], keys: &mut [Key], escaped: bool) -> bool {
        twice(b, keys, escaped)
    }
    /// A container opens at `_s`.
    fn open(&mut self, _s: usize) {}
    /// The innermost open container ends before `_e`.
    fn close(&mut self, _e: usize) {}
    /// Where the noted containers end, sorted by their start.
    #[cfg(feature = "alloc")]
    fn ends(&self) -> &[(usize, usize)] {
        &[]
    }
}

/// The no-allocator memory: [`FIXED_KEYS`] keys on the stack.
#[derive(Default)]
pub(crate) struct Fixed(heapless::Vec<Key, FIXED_KEYS>);

impl Memory for Fixed {
    fn keys(&mut self) -> &mut [Key] {
        &mut self.0
    }
    fn push(&mut self, key: Key) -> bool {
        self.0.push(key).is_ok()
    }
    fn truncate(&mut self, n: usize) {
        self.0.truncate(n);
    }
}

/// The allocating memory: unbounded keys, and the ends of large containers.
#[cfg(feature = "alloc")]
#[derive(Default)]
pub(crate) struct Grown {
    keys: alloc::vec::Vec<Key>,
    ends: alloc::vec::Vec<(usize, usize)>,
    open: alloc::vec::Vec<usize>,
}

/// Containers smaller than this are scanned rather than noted.
#[cfg(feature = "alloc")]
const NOTED: usize = 16;

#[cfg(feature = "alloc")]
impl Memory for Grown {
    fn keys(&mut self) -> &mut [Key] {
        &mut self.keys
    }
    fn push(&mut self, key: Key) -> bool {
        self.keys.push(key);
        true
    }
    fn truncate(&mut self, n: usize) {
        self.keys.truncate(n);
    }
    fn twice(b: &[u8], keys: &mut [Key], escaped: bool) -> bool {
        if keys.len() <= 8 {
            return twice(b, keys, escaped);
        }
        match escaped {
            true => keys.sort_unstable_by(|x, y| cmp_keys(b, *x, *y)),
            false => keys.sort_unstable_by(|x, y| raw_key(b, *x).cmp(raw_key(b, *y))),
        }
        keys.windows(2).any(|w| twice(b, w, escaped))
    }
    fn open(&mut self, s: usize) {
        self.open.push(self.ends.len());
        self.ends.push((s, usize::MAX));
    }
    fn close(&mut self, e: usize) {
        let Some(k) = self.open.pop() else { return };
        match self.ends.get_mut(k) {
            // A small container is the last one noted (its children are smaller still).
            Some(&mut (s, _)) if e - s < NOTED => self.ends.truncate(k),
            Some(slot) => slot.1 = e,
            None => {}
        }
    }
    fn ends(&self) -> &[(usize, usize)] {
        &self.ends
    }
}

/// A fault of the document, in precedence order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    TooDeep,
    Parse,
}

/// Checks `b` as one JSON document under `limits` (see the module docs for
/// the faults and their precedence).
pub(crate) fn read<M: Memory>(b: &[u8], limits: &Limits, memory: &mut M) -> Result<(), Error> {
    if b.len() > limits.max_message_bytes {
        return Err(Error::new(RuleId::LimitExceeded, "message over Limits::max_message_bytes"));
    }
    if core::str::from_utf8(b).is_err() {
        return Err(Error::new(RuleId::JsonrpcParseError, "the message is not UTF-8"));
    }
    let bound = limits.max_depth.min(MAX_NESTING);
    let too_deep = || match limits.max_depth > MAX_NESTING {
        true => Error::new(RuleId::LimitExceeded, "message nested deeper than the reader's MAX_NESTING"),
        false => Error::new(RuleId::LimitExceeded, "message nested deeper than Limits::max_depth"),
    };
    let kinds = Bits { bits: [0; MAX_NESTING / 8], len: 0 };
    let mut r =
        Reader { b, i: 0, memory, kinds, bound, twice: false, unchecked: false, escapes: 0, escaped_keys: false };
    match r.document() {
        Ok(()) => {}
        Err(Fault::TooDeep) => return Err(too_deep()),
        // The nesting bound holds wherever the grammar breaks.
        Err(Fault::Parse) if raw_too_deep(b, bound) => return Err(too_deep()),
        Err(Fault::Parse) => return Err(Error::new(RuleId::JsonrpcParseError, "not one JSON value")),
    }
    if r.twice || (r.unchecked && Doc { b, ends: &[] }.any_key_twice()) {
        return Err(Error::new(RuleId::JsonrpcInvalid, "an object has the same key twice"));
    }
    Ok(())
}

/// Whether the bracket depth exceeds `max`, counted over any bytes (strings
/// skipped as far as they go): the bound of a malformed document.
fn raw_too_deep(b: &[u8], max: usize) -> bool {
    let (mut depth, mut i) = (0usize, 0usize);
    while let Some(&c) = b.get(i) {
        match c {
            b'"' => {
                i = string_end(b, i);
                continue;
            }
            b'{' | b'[' if depth >= max => return true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    false
}

/// A stack of container kinds, one bit per level (1 = object).
struct Bits {
    bits: [u8; MAX_NESTING / 8],
    len: usize,
}

impl Bits {
    fn top(&self) -> Option<bool> {
        let i = self.len.checked_sub(1)?;
        Some(self.bits[i / 8] & (1 << (i % 8)) != 0)
    }
    fn push(&mut self, object: bool) -> Result<(), Fault> {
        let i = self.len;
        let byte = self.bits.get_mut(i / 8).ok_or(Fault::TooDeep)?;
        *byte = if object { *byte | 1 << (i % 8) } else { *byte & !(1 << (i % 8)) };
        self.len += 1;
        Ok(())
    }
}

struct Reader<'a, 'm, M> {
    b: &'a [u8],
    i: usize,
    memory: &'m mut M,
    kinds: Bits,
    bound: usize,
    /// An object had a key twice (reported once the grammar held everywhere).
    twice: bool,
    /// Some keys went unremembered (the memory was full): the check for a
    /// key twice is still to do.
    unchecked: bool,
    /// Escapes read in strings so far.
    escapes: usize,
    /// Some key so far held an escape: keys are compared unescaped from
    /// then on (most documents have none, and compare raw bytes).
    escaped_keys: bool,
}

impl<M: Memory> Reader<'_, '_, M> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn ws(&mut self) {
        self.i = ws(self.b, self.i);
    }

    /// The whole document.
    fn document(&mut self) -> Result<(), Fault> {
        loop {
            // One value, or the opening of a container.
            self.ws();
            match self.peek() {
                Some(c @ (b'{' | b'[')) => {
                    if self.kinds.len >= self.bound {
                        return Err(Fault::TooDeep);
                    }
                    self.kinds.push(c == b'{')?;
                    self.memory.open(self.i);
                    self.i += 1;
                    self.ws();
                    let empty = self.peek() == Some(if c == b'{' { b'}' } else { b']' });
                    if c == b'{' {
                        self.unchecked |= !self.memory.push(OBJECT);
                        if !empty {
                            self.key()?;
                        }
                    }
                    if !empty {
                        continue;
                    }
                }
                Some(b'"') => self.string()?,
                Some(b'-' | b'0'..=b'9') => self.number()?,
                Some(b't') => self.literal(b"true")?,
                Some(b'f') => self.literal(b"false")?,
                Some(b'n') => self.literal(b"null")?,
                _ => return Err(Fault::Parse),
            }
            // A value is complete (or a container empty): commas and closers.
            loop {
                self.ws();
                let Some(object) = self.kinds.top() else {
                    return if self.i == self.b.len() { Ok(()) } else { Err(Fault::Parse) };
                };
                match (self.peek(), object) {
                    (Some(b','), _) => {
                        self.i += 1;
                        if object {
                            self.key()?;
                        }
                        break;
                    }
                    (Some(b'}'), true) => self.close_object(),
                    (Some(b']'), false) => {}
                    _ => return Err(Fault::Parse),
                }
                self.i += 1;
                self.kinds.len -= 1;
                self.memory.close(self.i);
            }
        }
    }

    /// An object key and its colon.
    fn key(&mut self) -> Result<(), Fault> {
        self.ws();
        if self.peek() != Some(b'"') {
            return Err(Fault::Parse);
        }
        let (s, escapes) = (self.i, self.escapes);
        self.string()?;
        self.escaped_keys |= self.escapes != escapes;
        self.unchecked |= !self.memory.push(Key { s, e: self.i });
        self.ws();
        self.literal(b":")
    }

    /// Checks the keys of the object that closes here, and forgets them.
    fn close_object(&mut self) {
        let keys = self.memory.keys();
        let Some(mark) = keys.iter().rposition(|k| k.s == OBJECT.s) else { return };
        if !self.unchecked {
            self.twice |= M::twice(self.b, &mut keys[mark + 1..], self.escaped_keys);
        }
        self.memory.truncate(mark);
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), Fault> {
        if self.b.get(self.i..self.i + word.len()) != Some(word) {
            return Err(Fault::Parse);
        }
        self.i += word.len();
        Ok(())
    }

    fn hex4(&self, at: usize) -> Result<u32, Fault> {
        self.b.get(at..at + 4).and_then(hex).ok_or(Fault::Parse)
    }

    /// A string at its opening quote: escapes and control characters checked,
    /// surrogate escapes paired.
    fn string(&mut self) -> Result<(), Fault> {
        let mut i = self.i + 1;
        loop {
            i = skip_plain(self.b, i);
            match self.b.get(i) {
                Some(b'"') => {
                    self.i = i + 1;
                    return Ok(());
                }
                Some(b'\\') => self.escapes += 1,
                _ => return Err(Fault::Parse),
            }
            i += match self.b.get(i + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => 2,
                Some(b'u') => match self.hex4(i + 2)? {
                    0xDC00..=0xDFFF => return Err(Fault::Parse),
                    0xD800..=0xDBFF if self.b.get(i + 6..i + 8) == Some(b"\\u") => match self.hex4(i + 8)? {
                        0xDC00..=0xDFFF => 12,
                        _ => return Err(Fault::Parse),
                    },
                    0xD800..=0xDBFF => return Err(Fault::Parse),
                    _ => 6,
                },
                _ => return Err(Fault::Parse),
            };
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while let Some(b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
        self.i - start
    }

    /// A number: the grammar, then whether it is within `f64` range.
    fn number(&mut self) -> Result<(), Fault> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match (self.peek(), self.b.get(self.i + 1)) {
            (Some(b'0'), Some(b'0'..=b'9')) => return Err(Fault::Parse),
            (Some(b'0'..=b'9'), _) => {
                self.digits();
            }
            _ => return Err(Fault::Parse),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return Err(Fault::Parse);
            }
        }
        let mut exponent = false;
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(Fault::Parse);
            }
            exponent = true;
        }
        // Below 10^300 without an exponent: within range, no digits to weigh.
        if (exponent || self.i - start >= 300) && Dec::parse(&self.b[start..self.i]).out_of_range() {
            return Err(Fault::Parse);
        }
        Ok(())
    }
}

/// The index of the first byte at or after `i` that is not JSON whitespace.
fn ws(b: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\n' | b'\t' | b'\r') = b.get(i) {
        i += 1;
    }
    i
}

/// The index of the first `"`, `\` or control character at or after `i` (or
/// the end), eight bytes at a time: long strings are most of a message.
fn skip_plain(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    while let Some(chunk) = b.get(i..i + 8) {
        let w = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let (quote, backslash) = (w ^ (ONES * u64::from(b'"')), w ^ (ONES * u64::from(b'\\')));
        let zero = |x: u64| x.wrapping_sub(ONES) & !x;
        let hits = (zero(quote) | zero(backslash) | (w.wrapping_sub(ONES * 0x20) & !w)) & HIGH;
        if hits != 0 {
            // The lowest flagged byte is exact (a borrow only runs upward from
            // a true hit): the first quote, backslash or control byte.
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&c) = b.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            break;
        }
        i += 1;
    }
    i
}

/// The index after the closing quote of the string opening at `i` (or the end).
fn string_end(b: &[u8], mut i: usize) -> usize {
    i += 1;
    loop {
        i = skip_plain(b, i);
        match b.get(i) {
            Some(b'"') => return i + 1,
            Some(b'\\') => i += 2,
            Some(_) => i += 1,
            None => return b.len(),
        }
    }
}

fn hex(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0u32, |n, &c| Some(n * 16 + (c as char).to_digit(16)?))
}

/// The raw bytes between a key's quotes.
fn raw_key(b: &[u8], k: Key) -> &[u8] {
    b.get(k.s + 1..k.e.saturating_sub(1)).unwrap_or_default()
}

/// Two keys' order by their unescaped bytes (the raw ones when neither has
/// an escape: the same order, found faster).
fn cmp_keys(b: &[u8], x: Key, y: Key) -> Ordering {
    match raw_key(b, x).contains(&b'\\') || raw_key(b, y).contains(&b'\\') {
        false => raw_key(b, x).cmp(raw_key(b, y)),
        true => Unescape::new(b, x.s, x.e).cmp(Unescape::new(b, y.s, y.e)),
    }
}

/// Whether one of `keys` is there twice, pair by pair: by raw bytes unless
/// `escaped` (some key may hold an escape). Lengths and first bytes are
/// compared before the bytes, which tells most pairs apart without a call.
fn twice(b: &[u8], keys: &[Key], escaped: bool) -> bool {
    let same = |x: Key, y: Key| match escaped {
        false => x.e - x.s == y.e - y.s && b.get(x.s + 1) == b.get(y.s + 1) && raw_key(b, x) == raw_key(b, y),
        true => cmp_keys(b, x, y) == Ordering::Equal,
    };
    (1..keys.len()).any(|j| keys[..j].iter().any(|x| same(*x, keys[j])))
}

// ---------------------------------------------------------------------------
// Reading the checked document.

/// A checked document, and where its large containers end (if noted).
pub(crate) struct Doc<'a> {
    pub(crate) b: &'a [u8],
    pub(crate) ends: &'a [(usize, usize)],
}

/// A value of a checked document: its bytes `s..e` (a string's with quotes).
#[derive(Clone, Copy)]
pub(crate) struct At<'d> {
    d: &'d Doc<'d>,
    pub(crate) s: usize,
    pub(crate) e: usize,
}

impl<'a> Doc<'a> {
    /// The top-level value.
    pub(crate) fn root(&'a self) -> At<'a> {
        let s = ws(self.b, 0);
        At { d: self, s, e: self.end(s) }
    }

    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(b'}')
    }

    /// Where the value starting at `i` ends.
    fn end(&self, i: usize) -> usize {
        match self.at(i) {
            b'"' => string_end(self.b, i),
            b'{' | b'[' => match self.ends.binary_search_by_key(&i, |&(s, _)| s) {
                Ok(k) => self.ends[k].1,
                Err(_) => self.container_end(i),
            },
            _ => {
                let rest = self.b.get(i..).unwrap_or_default();
                i + rest
                    .iter()
                    .position(|c| matches!(c, b',' | b']' | b'}' | b' ' | b'\n' | b'\t' | b'\r'))
                    .unwrap_or(rest.len())
            }
        }
    }

    fn container_end(&self, mut j: usize) -> usize {
        let mut depth = 0usize;
        while let Some(&c) = self.b.get(j) {
            match c {
                b'"' => {
                    j = string_end(self.b, j);
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth <= 1 => return j + 1,
                b'}' | b']' => depth -= 1,
                _ => {}
            }
            j += 1;
        }
        self.b.len()
    }

    /// The slow check for a key twice, object by object, for a document
    /// whose open objects had more keys than the reader's memory holds
    /// ([`FIXED_KEYS`], without an allocator): each block of 32 keys against
    /// itself and against every later key of its object.
    #[inline(never)]
    fn any_key_twice(&self) -> bool {
        let mut i = 0;
        while let Some(&c) = self.b.get(i) {
            match c {
                b'"' => i = string_end(self.b, i),
                b'{' => {
                    let keys =
                        Members { d: self, i, end: self.end(i), keyed: true }.map(|(k, _)| Key { s: k.s, e: k.e });
                    let mut block = [OBJECT; 32];
                    let mut done = 0;
                    loop {
                        let mut later = keys.clone().skip(done);
                        let mut n = 0;
                        for (slot, k) in block.iter_mut().zip(later.by_ref()) {
                            *slot = k;
                            n += 1;
                        }
                        let among = |k: Key| block[..n].iter().any(|x| cmp_keys(self.b, *x, k) == Ordering::Equal);
                        if twice(self.b, &block[..n], true) || later.any(among) {
                            return true;
                        }
                        if n < block.len() {
                            break;
                        }
                        done += n;
                    }
                    i += 1;
                }
                _ => i += 1,
            }
        }
        false
    }
}

/// The members of an object, as (key, value), or of an array, as (element,
/// element): one walk over a checked container.
#[derive(Clone)]
pub(crate) struct Members<'d> {
    d: &'d Doc<'d>,
    i: usize,
    end: usize,
    keyed: bool,
}

impl<'d> Iterator for Members<'d> {
    type Item = (At<'d>, At<'d>);

    fn next(&mut self) -> Option<Self::Item> {
        let d = self.d;
        let i = ws(d.b, self.i + 1);
        if i >= self.end || (self.keyed && d.at(i) != b'"') || (!self.keyed && d.at(i) == b']') {
            return None;
        }
        let first = At { d, s: i, e: d.end(i) };
        let v = if self.keyed { ws(d.b, ws(d.b, first.e) + 1) } else { i };
        let value = At { d, s: v, e: d.end(v) };
        self.i = ws(d.b, value.e);
        Some((first, value))
    }
}

impl<'d> At<'d> {
    /// The raw bytes between a string's quotes.
    pub(crate) fn raw(self) -> &'d [u8] {
        self.raw_in(self.d.b)
    }

    /// The same bytes in `b`, the document's bytes (for their lifetime).
    pub(crate) fn raw_in(self, b: &[u8]) -> &[u8] {
        b.get(self.s + 1..self.e.saturating_sub(1)).unwrap_or_default()
    }

    /// Whether a string holds an escape (else its raw bytes are its value).
    pub(crate) fn escaped(self) -> bool {
        self.raw().contains(&b'\\')
    }

    /// A string's unescaped bytes.
    pub(crate) fn unescaped(self) -> Unescape<'d> {
        Unescape::new(self.d.b, self.s, self.e)
    }

    /// The value's bytes.
    pub(crate) fn bytes(self) -> &'d [u8] {
        self.d.b.get(self.s..self.e).unwrap_or_default()
    }

    fn dec(self) -> Option<Dec<'d>> {
        (self.kind() == Type::Number).then(|| Dec::parse(self.bytes()))
    }
}

impl<'d> Node for At<'d> {
    fn kind(self) -> Type {
        match self.d.at(self.s) {
            b'{' => Type::Object,
            b'[' => Type::Array,
            b'"' => Type::String,
            b't' | b'f' => Type::Bool,
            b'n' => Type::Null,
            _ => Type::Number,
        }
    }

    fn fields<const K: usize>(self, names: [&str; K]) -> [Option<Self>; K] {
        let mut out = [None; K];
        for (key, value) in self.entries() {
            // A key's escapes are looked for once, not once per name.
            let (raw, escaped) = (key.raw(), key.escaped());
            let named =
                |n: &&str| raw == n.as_bytes() || (escaped && raw.len() > n.len() && key.unescaped().eq(n.bytes()));
            if let Some(j) = names.iter().position(named) {
                out[j].get_or_insert(value);
            }
        }
        out
    }

    fn entries(self) -> impl Iterator<Item = (Self, Self)> {
        let end = if self.kind() == Type::Object { self.e } else { self.s };
        Members { d: self.d, i: self.s, end, keyed: true }
    }

    fn elements(self) -> impl Iterator<Item = Self> {
        let end = if self.kind() == Type::Array { self.e } else { self.s };
        Members { d: self.d, i: self.s, end, keyed: false }.map(|(_, v)| v)
    }

    fn is(self, lit: &str) -> bool {
        let raw = self.raw();
        self.kind() == Type::String
            && (raw == lit.as_bytes() || (raw.len() > lit.len() && self.escaped() && self.unescaped().eq(lit.bytes())))
    }

    fn same(self, other: Self) -> bool {
        let (a, b) = (self.raw(), other.raw());
        a == b || ((self.escaped() || other.escaped()) && self.unescaped().eq(other.unescaped()))
    }

    fn str_len(self) -> usize {
        match self.escaped() {
            true => self.unescaped().count(),
            false => self.raw().len(),
        }
    }

    fn number(self) -> Option<Num> {
        self.dec().map(|n| n.num())
    }

    fn is_integer(self) -> bool {
        self.dec().is_some_and(|n| n.is_integer())
    }

    #[cfg(feature = "alloc")]
    fn text(self) -> alloc::string::String {
        match self.escaped() {
            false => core::str::from_utf8(self.raw()).unwrap_or_default().into(),
            true => alloc::string::String::from_utf8(self.unescaped().collect()).unwrap_or_default(),
        }
    }
}

/// The unescaped bytes of a (checked) string.
pub(crate) struct Unescape<'a> {
    b: &'a [u8],
    i: usize,
    end: usize,
    buf: [u8; 4],
    at: usize,
    len: usize,
}

impl<'a> Unescape<'a> {
    /// The string whose quotes are at `s` and `e - 1`.
    fn new(b: &'a [u8], s: usize, e: usize) -> Self {
        Unescape { b, i: s + 1, end: e.saturating_sub(1), buf: [0; 4], at: 0, len: 0 }
    }

    fn hex_at(&self, i: usize) -> u32 {
        self.b.get(i..i + 4).and_then(hex).unwrap_or(0xFFFD)
    }
}

impl Iterator for Unescape<'_> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        if self.at < self.len {
            self.at += 1;
            return Some(self.buf[self.at - 1]);
        }
        if self.i >= self.end {
            return None;
        }
        let c = self.b[self.i];
        if c != b'\\' {
            self.i += 1;
            return Some(c);
        }
        let e = self.b.get(self.i + 1).copied().unwrap_or(b'\\');
        self.i += 2;
        Some(match e {
            b'b' => 0x08,
            b'f' => 0x0C,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let mut n = self.hex_at(self.i);
                self.i += 4;
                if (0xD800..=0xDBFF).contains(&n) {
                    let low = self.hex_at(self.i + 2);
                    self.i += 6;
                    n = 0x1_0000 + ((n - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF);
                }
                let ch = char::from_u32(n).unwrap_or(char::REPLACEMENT_CHARACTER);
                self.len = ch.encode_utf8(&mut self.buf).len();
                self.at = 1;
                self.buf[0]
            }
            other => other,
        })
    }
}

// ---------------------------------------------------------------------------
// Numbers, decided on their decimal digits.

/// A (grammatical) JSON number as decimal parts.
struct Dec<'a> {
    negative: bool,
    /// No fraction and no exponent.
    plain: bool,
    int: &'a [u8],
    frac: &'a [u8],
    /// The exponent, when it fits serde_json's `i32`.
    exp: i64,
    /// The exponent overflowed `i32` (serde_json: 0, or out of range).
    exp_overflow: bool,
    exp_negative: bool,
}

impl<'a> Dec<'a> {
    fn parse(n: &'a [u8]) -> Dec<'a> {
        let negative = n.first() == Some(&b'-');
        let rest = &n[usize::from(negative)..];
        let int_len = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        let (int, mut rest) = rest.split_at(int_len);
        let mut frac: &[u8] = &[];
        if rest.first() == Some(&b'.') {
            let len = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
            frac = &rest[1..1 + len];
            rest = &rest[1 + len..];
        }
        let plain = rest.is_empty() && frac.is_empty() && n.get(usize::from(negative) + int_len) != Some(&b'.');
        let (mut exp, mut exp_overflow, mut exp_negative) = (0i64, false, false);
        if let Some(e) = rest.get(1..) {
            exp_negative = e.first() == Some(&b'-');
            let digits = e.strip_prefix(b"-").or_else(|| e.strip_prefix(b"+")).unwrap_or(e);
            let mut mag = 0i64;
            for &d in digits {
                mag = mag * 10 + i64::from(d - b'0');
                if mag > i64::from(i32::MAX) {
                    exp_overflow = true;
                    break;
                }
            }
            exp = if exp_negative { -mag } else { mag };
        }
        Dec { negative, plain, int, frac, exp, exp_overflow, exp_negative }
    }

    fn all_digits(&self) -> impl Iterator<Item = u8> + '_ {
        self.int.iter().chain(self.frac).map(|c| c - b'0')
    }

    /// Leading zeros among all digits; equal to the digit count for zero.
    fn leading_zeros(&self) -> usize {
        self.all_digits().take_while(|&d| d == 0).count()
    }

    fn is_zero(&self) -> bool {
        self.leading_zeros() == self.int.len() + self.frac.len()
    }

    /// The significant digits `d1 d2 …` (d1 ≠ 0) of `0.d1d2… × 10^P`.
    fn significant(&self) -> impl Iterator<Item = u8> + '_ {
        self.all_digits().skip(self.leading_zeros())
    }

    /// `P` of `0.d1d2… × 10^P` (the value is not zero).
    fn point(&self) -> i64 {
        self.int.len() as i64 - self.leading_zeros() as i64 + self.exp
    }

    /// `|value|` against a positive constant `0.c1c2… × 10^point`.
    fn cmp_const(&self, digits: impl Iterator<Item = u8>, point: i64) -> Ordering {
        if self.is_zero() {
            return Ordering::Less;
        }
        match self.point().cmp(&point) {
            Ordering::Equal => cmp_digits(self.significant(), digits),
            other => other,
        }
    }

    /// serde_json's `NumberOutOfRange`: the nearest `f64` is infinite.
    fn out_of_range(&self) -> bool {
        if self.exp_overflow {
            return !self.exp_negative && !self.is_zero();
        }
        if self.is_zero() || self.point() < 300 {
            return false;
        }
        self.at_least_f64_overflow()
    }

    /// `|value| >= 2^1024 - 2^970`, the least value that rounds to infinity
    /// (a frame of its own: the big number is only needed from 10^299 on).
    #[inline(never)]
    fn at_least_f64_overflow(&self) -> bool {
        let max = Big::<36>::f64_overflow();
        self.cmp_const(max.digits(), max.num_digits() as i64) != Ordering::Less
    }

    /// How serde_json hands the number to a visitor.
    fn num(&self) -> Num {
        if !self.plain {
            return Num::Float;
        }
        let mut s = 0u64;
        for d in self.all_digits() {
            match s.checked_mul(10).and_then(|s| s.checked_add(u64::from(d))) {
                Some(v) => s = v,
                None => return Num::Float,
            }
        }
        match (self.negative, i64::try_from(s)) {
            (false, Ok(i)) => Num::Int(i),
            (false, Err(_)) => Num::UInt(s),
            (true, _) if s == 0 => Num::Float,
            (true, _) if s <= 1 << 63 => Num::Int((s as i64).wrapping_neg()),
            (true, _) => Num::Float,
        }
    }

    /// `Prim::is_integer`: an integer, or an `f64` that is a whole number
    /// within `[-2^63, 2^63]` (what `f as i64` keeps).
    fn is_integer(&self) -> bool {
        if !matches!(self.num(), Num::Float) || self.exp_overflow || self.is_zero() {
            return true;
        }
        // |f| <= 2^63 exactly when |v| <= 2^63 + 1024 (the tie rounds to 2^63).
        const TWO_63_PLUS_1024: &[u8] = b"9223372036854776832";
        if self.cmp_const(TWO_63_PLUS_1024.iter().map(|d| d - b'0'), 19) == Ordering::Greater {
            return false;
        }
        let p = self.point();
        if p >= 17 {
            return true; // v >= 10^16 > 2^53: every f64 there is whole.
        }
        if p < 0 {
            // v < 0.1: whole only when it rounds to 0, i.e. v <= 2^-1075.
            return p < -323 || (p == -323 && self.at_most_half_min_subnormal());
        }
        let p = p as usize;
        let n = self.significant().take(p).fold(0u64, |n, d| n * 10 + u64::from(d));
        if n >= 1 << 52 {
            return true; // ulp >= 1
        }
        let fraction = || self.significant().skip(p);
        if fraction().all(|d| d == 0) {
            return true;
        }
        if n == 0 {
            // v in [0.1, 1): whole when it rounds up to 1 (v >= 1 - 2^-54),
            // since 2^-1075 is far below.
            return cmp_digits(fraction(), one_minus_pow2(54)) != Ordering::Less;
        }
        // v in [2^m, 2^(m+1)), ulp 2^(m-52): whole when within half an ulp of
        // n or n + 1 (ties go to the integer, whose mantissa is even).
        let k = 53 - (63 - n.leading_zeros() as usize);
        cmp_digits(fraction(), pow2_neg(k)) != Ordering::Greater
            || cmp_digits(fraction(), one_minus_pow2(k)) != Ordering::Less
    }

    #[inline(never)]
    fn at_most_half_min_subnormal(&self) -> bool {
        // 2^-1075 = 5^1075 × 10^-1075 (752 digits, 84 limbs).
        let five = Big::<84>::pow5(1075);
        self.cmp_const(five.digits(), five.num_digits() as i64 - 1075) != Ordering::Greater
    }
}

/// Compares two digit streams as decimal fractions (missing digits are zeros).
fn cmp_digits(mut a: impl Iterator<Item = u8>, mut b: impl Iterator<Item = u8>) -> Ordering {
    loop {
        match (a.next(), b.next()) {
            (None, None) => return Ordering::Equal,
            (x, y) => match x.unwrap_or(0).cmp(&y.unwrap_or(0)) {
                Ordering::Equal => {}
                other => return other,
            },
        }
    }
}

/// The `k` fraction digits of `2^-k = 5^k × 10^-k`.
fn pow2_neg(k: usize) -> impl Iterator<Item = u8> {
    // k <= 54: 5^54 has 38 digits (5 limbs).
    let five = Big::<5>::pow5(k as u32);
    let pad = k - five.num_digits();
    core::iter::repeat_n(0, pad).chain(five.digits())
}

/// The `k` fraction digits of `1 - 2^-k` (the last digit of `5^k` is 5).
fn one_minus_pow2(k: usize) -> impl Iterator<Item = u8> {
    pow2_neg(k).enumerate().map(move |(i, d)| if i + 1 == k { 10 - d } else { 9 - d })
}

/// A small unsigned big number in base 10^9 (little-endian), of `N` limbs.
#[derive(Clone, Copy)]
struct Big<const N: usize> {
    limbs: [u32; N],
    len: usize,
}

const BASE: u64 = 1_000_000_000;

impl<const N: usize> Big<N> {
    fn from_u64(mut x: u64) -> Self {
        let mut big = Big { limbs: [0; N], len: 0 };
        while x > 0 {
            big.limbs[big.len] = (x % BASE) as u32;
            big.len += 1;
            x /= BASE;
        }
        big
    }

    fn mul(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.limbs[..self.len] {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = (v % BASE) as u32;
            carry = v / BASE;
        }
        while carry > 0 && self.len < self.limbs.len() {
            self.limbs[self.len] = (carry % BASE) as u32;
            self.len += 1;
            carry /= BASE;
        }
    }

    fn pow5(mut k: u32) -> Self {
        let mut big = Self::from_u64(1);
        while k >= 13 {
            big.mul(1_220_703_125); // 5^13
            k -= 13;
        }
        big.mul(5u32.pow(k));
        big
    }

    /// 2^1024 - 2^970 = (2^54 - 1) × 2^970.
    fn f64_overflow() -> Self {
        let mut big = Self::from_u64((1 << 54) - 1);
        for _ in 0..33 {
            big.mul(1 << 29);
        }
        big.mul(1 << 13);
        big
    }

    fn num_digits(&self) -> usize {
        match self.len {
            0 => 0,
            n => 9 * (n - 1) + digits_of(self.limbs[n - 1]),
        }
    }

    /// The decimal digits, most significant first.
    fn digits(self) -> impl Iterator<Item = u8> {
        let n = self.num_digits();
        (0..n).map(move |i| self.digit(n - 1 - i))
    }

    /// The digit at `10^i`.
    fn digit(&self, i: usize) -> u8 {
        let limb = self.limbs.get(i / 9).copied().unwrap_or(0);
        ((limb / 10u32.pow((i % 9) as u32)) % 10) as u8
    }
}

fn digits_of(x: u32) -> usize {
    x.checked_ilog10().map_or(1, |l| l as usize + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_int(s: &str) -> bool {
        Dec::parse(s.as_bytes()).is_integer()
    }

    #[test]
    fn big_constants() {
        let max = Big::<36>::f64_overflow();
        assert_eq!(max.num_digits(), 309);
        assert!(max.digits().take(20).eq([1, 7, 9, 7, 6, 9, 3, 1, 3, 4, 8, 6, 2, 3, 1, 5, 8, 0, 7, 9].into_iter()));
        assert_eq!(max.digits().count(), 309);
        let five = Big::<84>::pow5(1075);
        assert_eq!(five.num_digits(), 752);
        assert!(Big::<5>::pow5(54).digits().eq(Big::<84>::pow5(54).digits()));
        assert!(five.digits().take(6).eq([2, 4, 7, 0, 3, 2].into_iter()));
        assert!(pow2_neg(3).eq([1, 2, 5].into_iter()));
        assert!(one_minus_pow2(3).eq([8, 7, 5].into_iter()));
    }

    #[test]
    fn integers_and_ranges() {
        assert!(is_int("1.0") && is_int("1e3") && is_int("-0") && is_int("0.0") && is_int("1e-400"));
        assert!(is_int("1.0000000000000001") && is_int("0.99999999999999999"));
        assert!(!is_int("1.5") && !is_int("0.5") && !is_int("1e-300") && !is_int("1e19"));
        assert!(is_int("9223372036854776832.0") && !is_int("9223372036854776833.0"));
        assert!(Dec::parse(b"1e309").out_of_range() && !Dec::parse(b"1e308").out_of_range());
        assert!(!Dec::parse(b"1e-99999999999").out_of_range() && Dec::parse(b"1e99999999999").out_of_range());
        assert!(!Dec::parse(b"0e99999999999").out_of_range());
    }
}
