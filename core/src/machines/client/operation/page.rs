//! `docs/machines.md`: the client machines' transition tables, rendered from
//! the const tables, so the page cannot drift from the code. The test fails
//! when the page differs; `MRTR_BLESS=1` rewrites it.

extern crate std;

use super::state::OPERATION_TRANSITIONS;
use crate::machines::http::call::CALL_TRANSITIONS;
use alloc::{format, string::String};
use core::fmt::Debug;

const INTRO: &str = "# The client machines' states

Generated from the tables in the code (`CALL_TRANSITIONS` in
`core/src/machines/http/call/state.rs`, `OPERATION_TRANSITIONS` in
`core/src/machines/client/operation/state.rs`) by the test
`machines::client::operation::page`; `MRTR_BLESS=1` rewrites this page. Every
change of state goes through its table: a (state, input) pair that is not a
row is out of turn, refused (`usage-out-of-turn`) with the state unchanged.
The `walk` tests beside each machine drive it through every row, and check
that it makes no other move.
";

const CALL: &str = "## `http::call::Call`

The client side of one JSON-RPC request over HTTP. It starts `Reading`
(SEP-1335: `Buffering`, as every answer is kept). Its inputs are what the
host's inputs mean to it: `handle_body` and `handle_end` yield the stream's
events (`BufferInput`, `InputRequired`), the response, a cut, `NoContent`
(SEP-1335's `204`) and failures; `handle_timeout` a stall's cut and
`Reconnect`; `answer` the `Flush` of the kept answers. A peer's event out of
turn changes nothing.
";

const OPERATION: &str = "## `client::Operation`

One request carried to its final response over any transport mode. It
starts `Sending`. Counters (rounds, re-sends, hedges) and timers are data
bounded by the configuration, not states.
";

/// `rows` as a Markdown table.
fn table<S: Debug, I: Debug>(rows: &[(S, I, S)]) -> String {
    let mut out = String::from("| from | input | to |\n|---|---|---|\n");
    for (from, input, to) in rows {
        out.push_str(&format!("| {from:?} | {input:?} | {to:?} |\n"));
    }
    out
}

/// The whole page.
fn page() -> String {
    format!("{INTRO}\n{CALL}\n{}\n{OPERATION}\n{}", table(CALL_TRANSITIONS), table(OPERATION_TRANSITIONS))
}

#[test]
fn docs_machines_md_is_the_tables() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/machines.md");
    let want = page();
    if std::env::var_os("MRTR_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(have == want, "docs/machines.md differs from the tables: run with MRTR_BLESS=1 and commit it");
}
