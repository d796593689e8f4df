//! The event-stream decoder (`mrtr::sse`): every rule of its contract, and
//! chunking independence as a property.
#![cfg(feature = "alloc")]

use mrtr::sse::{Decoder, Event};
use mrtr::{Error, Limits, RuleId};
use proptest::prelude::*;

fn decode_chunks(chunks: &[&[u8]]) -> Vec<Result<Event, Error>> {
    let mut d = Decoder::new();
    for c in chunks {
        d.feed(c);
    }
    d.finish();
    core::iter::from_fn(|| d.poll_event()).collect()
}

fn decode(bytes: &[u8]) -> Vec<Result<Event, Error>> {
    decode_chunks(&[bytes])
}

fn ok(bytes: &[u8]) -> Vec<Event> {
    decode(bytes).into_iter().map(|r| r.expect("an event")).collect()
}

fn data(d: &str) -> Event {
    Event { data: Some(d.into()), ..Event::default() }
}

#[test]
fn a_block_lists_the_fields_its_lines_set() {
    let events = ok(b"event: message\ndata: {\"a\":1}\nid: 7\nretry: 1500\n\n");
    assert_eq!(
        events,
        vec![Event {
            event: Some("message".into()),
            data: Some("{\"a\":1}".into()),
            id: Some("7".into()),
            retry: Some(1500),
        }]
    );
    assert_eq!(ok(b"event: buffer_input\n\n"), vec![Event { event: Some("buffer_input".into()), ..Event::default() }]);
}

#[test]
fn data_lines_join_with_lf() {
    assert_eq!(ok(b"data: a\ndata\ndata: b\n\n"), vec![data("a\n\nb")]);
}

#[test]
fn blank_line_ends_a_block() {
    assert_eq!(ok(b"data: 1\n\ndata: 2\n\n\n\ndata: 3\n\n"), vec![data("1"), data("2"), data("3")]);
}

#[test]
fn comment_only_blocks_are_not_reported() {
    assert_eq!(ok(b": keep-alive\n\n:\n\ndata: x\n\n"), vec![data("x")]);
}

#[test]
fn data_less_blocks_are_reported() {
    let events = ok(b"event: input_required\nid: 3\n\n");
    assert_eq!(events, vec![Event { event: Some("input_required".into()), id: Some("3".into()), ..Event::default() }]);
}

#[test]
fn an_unterminated_block_is_discarded() {
    assert_eq!(ok(b"data: 1\n\ndata: 2\n"), vec![data("1")]);
    assert_eq!(ok(b"data: 1\n\ndata: 2"), vec![data("1")]);
    // A decoder reused after finish starts a new stream.
    let mut d = Decoder::new();
    d.feed(b"data: lost\n");
    d.finish();
    d.feed(b"\xEF\xBB\xBFdata: kept\n\n");
    assert_eq!(d.poll_event(), Some(Ok(data("kept"))));
    assert_eq!(d.poll_event(), None);
}

#[test]
fn cr_lf_and_crlf_each_end_a_line() {
    assert_eq!(ok(b"data: a\r\rdata: b\n\ndata: c\r\n\r\n"), vec![data("a"), data("b"), data("c")]);
    // CR then LF is one line end, not a blank line: both data lines are one block.
    assert_eq!(ok(b"data: a\r\ndata: b\r\n\r\n"), vec![data("a\nb")]);
    // LF then CR is two line ends.
    assert_eq!(ok(b"data: a\n\rdata: b\n\n"), vec![data("a"), data("b")]);
}

#[test]
fn a_crlf_split_across_chunks_is_one_line_end() {
    assert_eq!(decode_chunks(&[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]), vec![Ok(data("a\nb"))]);
    // An empty chunk between CR and LF changes nothing.
    assert_eq!(decode_chunks(&[b"data: a\r", b"", b"\ndata: b\r\n\r\n"]), vec![Ok(data("a\nb"))]);
    // A CR ending a chunk followed by something else is a line end on its own.
    assert_eq!(decode_chunks(&[b"data: a\r", b"\r"]), vec![Ok(data("a"))]);
}

#[test]
fn one_bom_at_the_start_is_skipped() {
    assert_eq!(ok(b"\xEF\xBB\xBFdata: a\n\n"), vec![data("a")]);
    assert_eq!(decode_chunks(&[b"\xEF", b"\xBB", b"\xBFdata: a\n\n"]), vec![Ok(data("a"))]);
    // A second BOM is part of the field name: an unknown field.
    assert_eq!(ok(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\n"), vec![]);
    // A BOM later in the stream is not skipped.
    assert_eq!(ok(b"data: a\n\n\xEF\xBB\xBFdata: b\n\n"), vec![data("a")]);
}

#[test]
fn one_space_after_the_colon_is_removed() {
    assert_eq!(
        ok(b"data:a\n\ndata: a\n\ndata:  a\n\ndata:a:b\n\n"),
        vec![data("a"), data("a"), data(" a"), data("a:b")]
    );
}

#[test]
fn a_field_without_colon_has_the_empty_value() {
    assert_eq!(ok(b"data\n\n"), vec![data("")]);
    assert_eq!(ok(b"event\n\n"), vec![Event { event: Some(String::new()), ..Event::default() }]);
    assert_eq!(ok(b"id\n\n"), vec![Event { id: Some(String::new()), ..Event::default() }]);
    // An empty retry is not digits.
    assert_eq!(ok(b"retry\n\n"), vec![]);
}

#[test]
fn retry_counts_only_ascii_digits_saturating_at_u64() {
    let retry = |r| Event { retry: Some(r), ..Event::default() };
    assert_eq!(ok(b"retry: 10\n\n"), vec![retry(10)]);
    assert_eq!(ok(b"retry: 18446744073709551615\n\n"), vec![retry(u64::MAX)]);
    assert_eq!(ok(b"retry: 18446744073709551616\n\n"), vec![retry(u64::MAX)]);
    assert_eq!(ok(b"retry: 99999999999999999999999999\n\n"), vec![retry(u64::MAX)]);
    for bad in [
        &b"retry: 1.5\n\n"[..],
        b"retry: -1\n\n",
        b"retry: +1\n\n",
        b"retry:  1\n\n",
        b"retry: \n\n",
        b"retry: \xD9\xA1\n\n",
    ] {
        assert_eq!(ok(bad), vec![], "{:?}", String::from_utf8_lossy(bad));
    }
    // An ignored retry leaves an earlier one.
    assert_eq!(ok(b"retry: 5\nretry: x\n\n"), vec![retry(5)]);
}

#[test]
fn an_id_with_null_is_ignored() {
    assert_eq!(ok(b"id: a\0b\n\n"), vec![]);
    assert_eq!(
        ok(b"id: 1\nid: a\0b\ndata: x\n\n"),
        vec![Event { id: Some("1".into()), data: Some("x".into()), ..Event::default() }]
    );
}

#[test]
fn unknown_fields_are_ignored() {
    assert_eq!(ok(b"foo: bar\nData: x\n\n"), vec![]);
    assert_eq!(ok(b"foo: bar\ndata: x\n\n"), vec![data("x")]);
}

#[test]
fn a_non_utf8_line_makes_its_block_an_error_and_decoding_goes_on() {
    let out = decode(b"data: a\ndata: \xFF\ndata: b\n\ndata: next\n\n");
    assert_eq!(out.len(), 2);
    let e = out[0].clone().unwrap_err();
    assert_eq!(e.rule(), RuleId::JsonrpcParseError);
    assert_eq!(out[1], Ok(data("next")));
    // Also in a comment, and split across chunks (a character split between chunks is fine).
    assert_eq!(decode(b": \xC3\n\n")[0].clone().unwrap_err().rule(), RuleId::JsonrpcParseError);
    assert_eq!(decode_chunks(&[b"data: \xC3", b"\xA9\n\n"]), vec![Ok(data("\u{e9}"))]);
    // An unterminated erroneous block is discarded like any other.
    assert_eq!(decode(b"data: \xFF\n"), vec![]);
}

#[test]
fn a_block_over_the_limit_is_an_error_and_skipped() {
    let limits = Limits { max_message_bytes: 16, ..Limits::default() };
    let mut d = Decoder::with_limits(&limits);
    d.feed(b"data: 0123456789\n"); // 16 bytes: at the bound
    d.feed(b"\n");
    d.feed(b"data: 0123456789");
    d.feed(b"abcdef"); // over the bound mid-line
    d.feed(b"more\ndata: even more\n\ndata: ok\n\n");
    d.finish();
    assert_eq!(d.poll_event(), Some(Ok(data("0123456789"))));
    assert_eq!(d.poll_event().unwrap().unwrap_err().rule(), RuleId::LimitExceeded);
    assert_eq!(d.poll_event(), Some(Ok(data("ok"))));
    assert_eq!(d.poll_event(), None);
    // Over the bound across lines.
    let mut d = Decoder::with_limits(&limits);
    d.feed(b"data: 01234\ndata: 56789\n\n");
    assert_eq!(d.poll_event().unwrap().unwrap_err().rule(), RuleId::LimitExceeded);
    assert_eq!(Decoder::new().poll_event(), None);
}

#[test]
fn the_default_bound_is_the_message_bound() {
    let mut d = Decoder::default();
    let big = vec![b'x'; Limits::default().max_message_bytes];
    d.feed(b"data:");
    d.feed(&big);
    d.feed(b"\n\n");
    assert_eq!(d.poll_event().unwrap().unwrap_err().rule(), RuleId::LimitExceeded);
}

/// Pieces that exercise every rule when concatenated.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(b"data: ".to_vec()),
        Just(b"data:".to_vec()),
        Just(b"event: x".to_vec()),
        Just(b"id: 1".to_vec()),
        Just(b"id: \0".to_vec()),
        Just(b"retry: 12".to_vec()),
        Just(b"retry: 99999999999999999999".to_vec()),
        Just(b": c".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\xEF\xBB\xBF".to_vec()),
        Just(b"\xC3\xA9".to_vec()),
        Just(b"\xFF".to_vec()),
        Just(b"{\"a\": 1}".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..4),
    ]
}

proptest! {
    #[test]
    fn any_chunking_gives_the_same_events(
        pieces in proptest::collection::vec(piece(), 0..40),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
    ) {
        let stream: Vec<u8> = pieces.concat();
        let whole = decode(&stream);
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (stream.len() + 1)).collect();
        cuts.sort_unstable();
        let mut chunks: Vec<&[u8]> = Vec::new();
        let mut at = 0;
        for c in cuts {
            chunks.push(&stream[at..c]);
            at = c;
        }
        chunks.push(&stream[at..]);
        prop_assert_eq!(decode_chunks(&chunks), whole.clone());
        // Byte by byte, too.
        let bytes: Vec<&[u8]> = stream.chunks(1).collect();
        prop_assert_eq!(decode_chunks(&bytes), whole);
    }
}

/// Field values an encoder may be handed: line ends of every kind, spaces,
/// colons, non-ASCII.
fn value() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![Just("\r"), Just("\n"), Just("\r\n"), Just(" "), Just(":"), Just("é"), Just("a")],
        0..8,
    )
    .prop_map(|parts| parts.concat())
}

fn line_value() -> impl Strategy<Value = String> {
    value().prop_map(|v| v.replace(['\r', '\n'], ""))
}

proptest! {
    #[test]
    fn an_encoded_block_decodes_to_itself(
        event in proptest::option::of(line_value()),
        data in proptest::option::of(value()),
        id in proptest::option::of(line_value()),
        retry in proptest::option::of(any::<u64>()),
    ) {
        let block = Event { event, data: data.map(|d| d.replace("\r\n", "\n").replace('\r', "\n")), id, retry };
        let mut text = String::new();
        mrtr::sse::encode(&block, &mut text).unwrap();
        let expected = if block == Event::default() { vec![] } else { vec![Ok(block)] };
        prop_assert_eq!(decode(text.as_bytes()), expected);
    }
}

#[test]
fn what_cannot_be_read_back_is_not_encoded() {
    let mut out = String::new();
    for bad in [
        Event { event: Some("a\nb".into()), ..Event::default() },
        Event { id: Some("a\rb".into()), ..Event::default() },
        Event { id: Some("a\0b".into()), ..Event::default() },
    ] {
        assert_eq!(mrtr::sse::encode(&bad, &mut out).unwrap_err().rule(), RuleId::UsageInvalidArgument);
    }
    assert_eq!(out, "", "nothing written");
}
