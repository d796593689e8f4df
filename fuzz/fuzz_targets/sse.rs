//! The event-stream decoder on any bytes: no panic, bounded memory (a small
//! block bound), the same blocks whole and chunked at the positions the
//! first byte picks, and every block decoded re-encodes to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mrtr::{sse, Limits};

fn decode(chunks: &[&[u8]]) -> Vec<Result<sse::Event, mrtr::Error>> {
    let limits = Limits { max_message_bytes: 4096, ..Limits::DEFAULT };
    let mut d = sse::Decoder::with_limits(&limits);
    chunks.iter().for_each(|c| d.feed(c));
    d.finish();
    std::iter::from_fn(|| d.poll_event()).collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&step, bytes)) = data.split_first() else { return };
    let whole = decode(&[bytes]);
    let step = usize::from(step % 16) + 1;
    let chunks: Vec<&[u8]> = bytes.chunks(step).collect();
    assert_eq!(whole, decode(&chunks), "chunking changed the blocks");
    for event in whole.into_iter().flatten() {
        let mut text = String::new();
        sse::encode(&event, &mut text).expect("a decoded block encodes");
        let again = decode(&[text.as_bytes()]);
        assert_eq!(again, vec![Ok(event)], "encode then decode is the identity");
    }
});
