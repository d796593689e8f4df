//! `docs/RULES.md`: the project's rule catalogue, made from the core's tables
//! (`mrtr::rules::RULES`, `mrtr::rules::Area`, `mrtr::protocol::PROTOCOLS`,
//! `mrtr::http::MODES`, `mrtr::check::WARNINGS`, `mrtr::gateway::REPAIRS`).

use mrtr::check::WARNINGS;
use mrtr::gateway::REPAIRS;
use mrtr::http::{Answering, Asking, Continuation, MODES};
use mrtr::protocol::{ElicitationIdRule, ResultTypeRule, TasksFlavor, PROTOCOLS};
use mrtr::rules::{Area, RULES};
use std::fmt::Write;
use std::path::PathBuf;

/// `(path, contents)` of each generated file.
pub fn outputs() -> Vec<(PathBuf, String)> {
    vec![(PathBuf::from("docs/RULES.md"), rules_md())]
}

const INTRO: &str = "\
# mrtr rule catalogue

Every rule mrtr enforces has a stable id (and a stable number, the C ABI's \
error code). Errors, checker violations, conformance cases and every binding \
use these ids; an id is never renamed and a number never reused. Each rule \
belongs to an *area*, and every language raises one error class per area \
(`ProtocolError`, `RetryError`, …), so a rule raises the same class \
everywhere. The JSON-RPC code is what a peer answers the failure with, where \
there is one.

**client** is the MCP client, **server** the MCP server. Sources: the texts \
of SEP-2322 (001, approved; 002, its draft), SEP-1858 (000), SEP-1335 (003) \
and SEP-2260 (004); the released MCP specification `2026-07-28` (\"Multi \
Round-Trip Requests\") and its Tasks extension `io.modelcontextprotocol/tasks`; \
the schemas vendored in `spec/schema/`. `mrtr` marks a rule this project \
added; `mrtr API` one about the use of mrtr itself rather than the protocol.
";

const NOTES: &[(Area, &str)] = &[
    (
        Area::Retry,
        "A *retry* answers an `input_required` result: same method, same params apart from `inputResponses`, \
`requestState` and `_meta`. In a conversation, a request counts as the retry of an earlier one when it carries \
`inputResponses` or `requestState` and has the same method and target (tool or prompt `name`, resource `uri`) as a \
request answered with `input_required` and not retried since, or whose retry got no answer: a retry whose response \
never came (a cut connection, a 502) may be sent again, under a new id, and the round stays open to it. A request \
with neither field starts afresh: a client \
may always abandon a round. For `tasks/result` (`sep-2322`) the answer to `input_required` is \
`tasks/input_response`, not a retry. A client MAY retry at once when the result had no `inputRequests` (load \
shedding); an empty map (`\"inputRequests\": {}`, the only form in which the Go SDK 1.8 server sheds load) asks nothing \
either, and its retry carries the `requestState` and no answer (`mrtr` clients retry it as a state-only round; the \
interop warnings `state-only-not-retried` and `state-only-gave-up` name the clients that do not). Each retry carries only the answers to the latest round and the latest `requestState`. Keys the server \
did not ask for are ignored by it; keys it needs and did not get are asked for again.",
    ),
    (Area::State, "A server answers every `state-*` failure with JSON-RPC error -32602."),
    (
        Area::Usage,
        "These are *local* errors (h11's distinction): the caller of mrtr did something the API does not allow. \
They are never a peer's violation, never reported by the checker, and never sent to a peer.",
    ),
];

fn rules_md() -> String {
    let mut s = format!(
        "<!-- {} Source: core/src/base/rules.rs, core/src/base/protocol.rs, core/src/machines/http/mode.rs, core/src/conversation/check/interop.rs, core/src/machines/gateway.rs. -->\n",
        super::MARK
    );
    s.push_str(INTRO);
    s.push_str(
        "\n## Protocols\n\nThe caller chooses the protocol (the negotiated version); the core never guesses.\n\n",
    );
    s.push_str("| protocol | input_required allowed for | `resultType` | `input_required` needs content | per-request `_meta` | URL elicitation id | server requests | fields on | Tasks | caching hints | header fields mirror the body | refusals carry `data` |\n");
    s.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (_, r) in PROTOCOLS {
        let allow = if r.allow_list.is_empty() {
            "nothing".to_string()
        } else {
            r.allow_list.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
        };
        let result_type = match r.result_type {
            ResultTypeRule::Ignored => "not read",
            ResultTypeRule::Optional => "optional",
            ResultTypeRule::Required => "required",
        };
        let id = match r.elicitation_id {
            ElicitationIdRule::Required => "required",
            ElicitationIdRule::Forbidden => "forbidden",
        };
        let tasks = match r.tasks {
            TasksFlavor::Core => "in core",
            TasksFlavor::Extension => "extension",
        };
        let _ = writeln!(
            s,
            "| `{}` | {allow} | {result_type}{} | {} | {} | {id} | {} | {} | {tasks} | {} | {} | {} |",
            r.name,
            if r.task_result_type { " (`task` known)" } else { "" },
            yes(r.input_required_needs_content),
            yes(r.request_meta),
            if r.mrtr { "only as `inputRequests`" } else { "on SSE streams (SEP-2260)" },
            if r.draft_envelope { "the envelope, snake_case" } else { "`params` / `result`" },
            yes(r.caching_hints),
            yes(r.header_mirroring),
            yes(r.refusal_data),
        );
    }
    modes(&mut s);
    for area in Area::ALL {
        let _ = write!(s, "\n## {} (`{}`)\n\n{}\n\n", area.title(), area.name(), area.summary());
        if let Some((_, note)) = NOTES.iter().find(|(a, _)| *a == area) {
            let _ = write!(s, "{note}\n\n");
        }
        s.push_str("| id | number | code | rule | source |\n|---|---|---|---|---|\n");
        for r in RULES.iter().filter(|r| r.area == area) {
            let code = r.code.map_or("—".to_string(), |c| c.to_string());
            let _ = writeln!(
                s,
                "| `{}` | {} | {code} | {} | {} |",
                r.name,
                r.id as u16,
                r.id.text().replace('|', "\\|"),
                r.source
            );
        }
    }
    interop(&mut s);
    repairs(&mut s);
    s
}

/// The gateway repairs' table (`mrtr::gateway::REPAIRS`).
fn repairs(s: &mut String) {
    s.push_str(
        "\n## Gateway repairs\n\nWhat `mrtr proxy --repair NAME` does for the clients behind it that get MRTR \
wrong, so that the server behind it serves them as the texts say. None is made by default: each changes what a \
client sees. They are made on JSON responses (an event stream is relayed as it comes); the gateway's own retries \
are exchanges of their own in its record and its checks. `peers/run` shows each rescuing the real clients it names.\n\n\
| name | repair |\n|---|---|\n",
    );
    for r in REPAIRS {
        let _ = writeln!(s, "| `{}` | {} |", r.name, r.text.replace('|', "\\|"));
    }
}

/// The interop warnings' table (`mrtr::check::WARNINGS`).
fn interop(s: &mut String) {
    s.push_str(
        "\n## Interop warnings\n\nA second severity, below the rules: what breaks no rule of the texts but fails a \
peer's users in the wild. The checker reports each with the client's `clientInfo` (`mrtr check`'s text, `--json` \
(`interop`) and `--html`; the proxy's and the bridge's reports and live page); a warning never changes a verdict or \
an exit status. The windows are `CheckConfig::ask_window_ms` and `human_ms` (`mrtr check --ask-window`, \
`--human-ms`), measured on the host's clock (a recording's `at`); a round still open when a recording ends was never \
answered.\n\n| id | warning |\n|---|---|\n",
    );
    for w in WARNINGS {
        let _ = writeln!(s, "| `{}` | {} |", w.name, w.text.replace('|', "\\|"));
    }
}

/// The transport modes' table (`mrtr::http::MODES`).
fn modes(s: &mut String) {
    s.push_str(
        "\n## Transport modes\n\nHow JSON-RPC travels over HTTP, chosen with a call's `mode`; every difference \
         the client machine, the server side and the checker act on.\n\n",
    );
    s.push_str("| mode | protocol by default | the server asks | the client's answers go | a continuation names its call by | `rel=\"stream\"` URL, `204` ends | header fields mirror the body |\n");
    s.push_str("|---|---|---|---|---|---|---|\n");
    for (_, r) in MODES {
        let asks = match r.asking {
            Asking::InResults => "inside results (`input_required`)",
            Asking::OnStream => "server requests on the response stream",
        };
        let answers = match r.answering {
            Answering::Retry => "in the retry (`inputResponses`)",
            Answering::EachPosted => "each in its own POST (`202`)",
            Answering::UntilInputRequired => {
                "held after `buffer_input`, then one POST with `Last-Event-ID` after `input_required`"
            }
            Answering::UntilStreamEnds => "held until the stream ends (`204`), then one POST to the stream URL",
        };
        let continuation = match r.continuation {
            Continuation::None => "—",
            Continuation::LastEventId => "`Last-Event-ID`",
            Continuation::StreamUrl => "its stream URL",
        };
        let _ = writeln!(
            s,
            "| `{}` | `{}` | {asks} | {answers} | {continuation} | {} | {} |",
            r.name,
            r.protocol.name(),
            yes(r.stream_url),
            yes(r.mirrors_body)
        );
    }
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}
