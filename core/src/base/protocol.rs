//! The protocols mrtr speaks, and what differs between them, as one table.
//!
//! The caller chooses the protocol (the negotiated version); the core never
//! guesses. Every difference the core acts on is a field of [`ProtocolRules`],
//! so the table below is the whole answer to "what does `sep-2322` change?".

/// A protocol, chosen by the caller. `Protocol as u8` is stable (the C ABI's
/// `mrtr_protocol`; 0, the default, is what a zeroed struct holds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
#[non_exhaustive]
pub enum Protocol {
    /// The released MRTR, MCP `2026-07-28`, with the Tasks extension.
    #[default]
    V2026_07_28 = 0,
    /// The approved SEP-2322 text.
    Sep2322 = 1,
    /// The earlier SEP-2322 draft: envelope-level snake_case fields.
    Sep2322Draft = 2,
    /// MCP `2025-11-25`, before MRTR: server requests on SSE streams.
    V2025_11_25 = 3,
}

/// Whether and how a protocol reads `resultType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultTypeRule {
    /// Not part of the protocol: an ordinary unknown field.
    Ignored,
    /// Read when present; absent means `complete`.
    Optional,
    /// Servers must send it; a client still reads an absent one as `complete`.
    Required,
}

/// Whether URL-mode elicitation carries an `elicitationId`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElicitationIdRule {
    /// It must be there.
    Required,
    /// It must not be there.
    Forbidden,
}

/// Which Tasks workflow a protocol has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TasksFlavor {
    /// Tasks in core: `tasks/get`, `tasks/result`, `tasks/input_response`, related-task `_meta`.
    Core,
    /// The `io.modelcontextprotocol/tasks` extension: `resultType: "task"`, `tasks/update`.
    Extension,
}

/// What one protocol asks of the core.
#[derive(Clone, Copy, Debug)]
pub struct ProtocolRules {
    /// The name callers and corpora use.
    pub name: &'static str,
    /// Methods a server may answer with `input_required`.
    pub allow_list: &'static [&'static str],
    /// How `resultType` is read.
    pub result_type: ResultTypeRule,
    /// Whether `resultType: "task"` is known.
    pub task_result_type: bool,
    /// Whether an `input_required` result needs `inputRequests` or `requestState`.
    pub input_required_needs_content: bool,
    /// Whether client requests carry the per-request `_meta` (version and capabilities).
    pub request_meta: bool,
    /// URL-mode elicitation and its id.
    pub elicitation_id: ElicitationIdRule,
    /// Whether MRTR replaced in-stream server requests (else SEP-2260 association applies).
    pub mrtr: bool,
    /// Whether the MRTR fields live on the JSON-RPC envelope in snake_case.
    pub draft_envelope: bool,
    /// The Tasks workflow.
    pub tasks: TasksFlavor,
    /// Whether results carry caching hints (`ttlMs`, `cacheScope`): a
    /// cacheable result names them, an `input_required` one never does, and a
    /// retry's result is never cacheable.
    pub caching_hints: bool,
    /// Whether a request over Streamable HTTP mirrors its body in header
    /// fields (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`:
    /// [`mirrored_fields`]).
    pub header_mirroring: bool,
    /// Whether the refusals a client acts on carry their `data`: -32021 its
    /// `requiredCapabilities`, -32022 its `supported` and `requested` versions.
    pub refusal_data: bool,
}

const ALLOW_RELEASED: &[&str] = &["tools/call", "prompts/get", "resources/read"];
const ALLOW_SEP: &[&str] = &["tools/call", "prompts/get", "resources/read", "tasks/result"];

/// The table: one row per protocol.
pub const PROTOCOLS: &[(Protocol, ProtocolRules)] = &[
    (
        Protocol::V2026_07_28,
        ProtocolRules {
            name: "2026-07-28",
            allow_list: ALLOW_RELEASED,
            result_type: ResultTypeRule::Required,
            task_result_type: true,
            input_required_needs_content: true,
            request_meta: true,
            elicitation_id: ElicitationIdRule::Forbidden,
            mrtr: true,
            draft_envelope: false,
            tasks: TasksFlavor::Extension,
            caching_hints: true,
            header_mirroring: true,
            refusal_data: true,
        },
    ),
    (
        Protocol::Sep2322,
        ProtocolRules {
            name: "sep-2322",
            allow_list: ALLOW_SEP,
            result_type: ResultTypeRule::Optional,
            task_result_type: false,
            input_required_needs_content: false,
            request_meta: false,
            elicitation_id: ElicitationIdRule::Required,
            mrtr: true,
            draft_envelope: false,
            tasks: TasksFlavor::Core,
            caching_hints: false,
            header_mirroring: false,
            refusal_data: false,
        },
    ),
    (
        Protocol::Sep2322Draft,
        ProtocolRules {
            name: "sep-2322-draft",
            allow_list: ALLOW_SEP,
            result_type: ResultTypeRule::Optional,
            task_result_type: false,
            input_required_needs_content: false,
            request_meta: false,
            elicitation_id: ElicitationIdRule::Required,
            mrtr: true,
            draft_envelope: true,
            tasks: TasksFlavor::Core,
            caching_hints: false,
            header_mirroring: false,
            refusal_data: false,
        },
    ),
    (
        Protocol::V2025_11_25,
        ProtocolRules {
            name: "2025-11-25",
            allow_list: &[],
            result_type: ResultTypeRule::Ignored,
            task_result_type: false,
            input_required_needs_content: false,
            request_meta: false,
            elicitation_id: ElicitationIdRule::Required,
            mrtr: false,
            draft_envelope: false,
            tasks: TasksFlavor::Core,
            caching_hints: false,
            header_mirroring: false,
            refusal_data: false,
        },
    ),
];

impl Protocol {
    /// Every protocol, default first.
    pub const ALL: [Protocol; 4] =
        [Protocol::V2026_07_28, Protocol::Sep2322, Protocol::Sep2322Draft, Protocol::V2025_11_25];

    /// The protocol whose Tasks workflow is the `io.modelcontextprotocol/tasks`
    /// extension ([`TasksFlavor::Extension`]): where `tasks/update` belongs.
    pub fn of_tasks_extension() -> Protocol {
        PROTOCOLS
            .iter()
            .find(|(_, rules)| rules.tasks == TasksFlavor::Extension)
            .map_or(Protocol::default(), |(p, _)| *p)
    }

    /// This protocol's row of [`PROTOCOLS`].
    pub fn rules(self) -> &'static ProtocolRules {
        // PROTOCOLS has one row per variant (checked by a test).
        &PROTOCOLS.iter().find(|(p, _)| *p == self).unwrap_or(&PROTOCOLS[0]).1
    }

    /// The name callers use (`"2026-07-28"`, `"sep-2322"`, …).
    pub fn name(self) -> &'static str {
        self.rules().name
    }

    /// The protocol with this name.
    pub fn from_name(name: &str) -> Option<Protocol> {
        PROTOCOLS.iter().find(|(_, r)| r.name == name).map(|(p, _)| *p)
    }

    /// The protocol with this name, or the error for an unknown one:
    /// `jsonrpc-invalid` "unknown protocol", as `conformance/README.md`
    /// decides (a protocol name usually comes from the peer's negotiated
    /// version), followed by the name given and the known ones, so that the
    /// reader can correct it. Every binding reads protocol names through this.
    pub fn parse(name: &str) -> crate::base::error::Result<Protocol> {
        Protocol::from_name(name).ok_or_else(|| Protocol::unknown(name))
    }

    #[cfg(feature = "alloc")]
    fn unknown(name: &str) -> crate::base::error::Error {
        let known: alloc::vec::Vec<&str> = PROTOCOLS.iter().map(|(_, r)| r.name).collect();
        let message = alloc::format!(
            "unknown protocol {}: the known ones are {}",
            crate::base::error::quoted(name),
            known.join(", ")
        );
        crate::base::error::Error::with(crate::base::rules::RuleId::JsonrpcInvalid, message)
    }

    #[cfg(not(feature = "alloc"))]
    fn unknown(_: &str) -> crate::base::error::Error {
        crate::base::error::Error::new(crate::base::rules::RuleId::JsonrpcInvalid, "unknown protocol")
    }

    /// [`Protocol::parse`] of an optional name: absent is the default.
    pub fn parse_or_default(name: Option<&str>) -> crate::base::error::Result<Protocol> {
        name.map_or(Ok(Protocol::default()), Protocol::parse)
    }

    /// Whether a server may answer `method` with `input_required`.
    pub fn allows_input_required(self, method: &str) -> bool {
        self.rules().allow_list.contains(&method)
    }
}

impl core::fmt::Display for Protocol {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// The params a retry changes by design: the rest of a retry's params equal
/// its original's (`retry-request-changed`), and sealed state is bound to
/// that rest (`state::params_digest`). Everything else stays bound, SEP-3221's
/// host-injected `secureArguments` included: "a client MUST re-send
/// `secureArguments` unchanged on an MRTR retry".
pub const RETRY_FREE_PARAMS: [&str; 3] = ["inputResponses", "requestState", "_meta"];

/// The server requests that MRTR carries as input requests.
pub const INPUT_METHODS: [&str; 3] = ["elicitation/create", "sampling/createMessage", "roots/list"];

/// `_meta` key of the per-request protocol version (2026-07-28).
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the per-request client capabilities (2026-07-28).
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key binding a message to a task (Tasks in core).
pub const META_RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// (`2026-07-28`) The methods whose results are cacheable (`CacheableResult`:
/// `ttlMs` and `cacheScope` required), from the schema's result types.
pub const CACHEABLE_METHODS: [&str; 6] =
    ["server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"];

/// The params field a request's target is (`Mcp-Name` mirrors it): `name`
/// for `tools/call` and `prompts/get`, `uri` for `resources/read`, `taskId`
/// for `tasks/get`, `tasks/update` and `tasks/cancel`.
pub fn name_field(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// (`2026-07-28`, Streamable HTTP) The header fields that mirror a request's
/// body (SEP-2243): `mcp-protocol-version` (its `_meta` protocol version),
/// `mcp-method` (its method) and `mcp-name` (its target,
/// [`name_field`]), each with the body's value, or `None`
/// where the body has none. What a client sends and a server checks
/// ([`crate::server::check_headers`]).
#[cfg(feature = "alloc")]
pub fn mirrored_fields(request: &serde_json::Value) -> [(&'static str, Option<&str>); 3] {
    let params = request.get("params");
    let meta = params.and_then(|p| p.get("_meta"));
    let method = request.get("method").and_then(serde_json::Value::as_str);
    let target = method.and_then(name_field).and_then(|f| params?.get(f)?.as_str());
    [
        ("mcp-protocol-version", meta.and_then(|m| m.get(META_PROTOCOL_VERSION)?.as_str())),
        ("mcp-method", method),
        ("mcp-name", target),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_protocol_has_one_row_and_names_round_trip() {
        for p in Protocol::ALL {
            assert_eq!(PROTOCOLS.iter().filter(|(q, _)| *q == p).count(), 1);
            assert_eq!(Protocol::from_name(p.name()), Some(p));
        }
        assert_eq!(Protocol::default().name(), "2026-07-28");
        assert_eq!(Protocol::from_name("2024-11-05"), None);
        assert_eq!(Protocol::parse("2024-11-05").unwrap_err().rule(), crate::base::rules::RuleId::JsonrpcInvalid);
        assert_eq!(Protocol::parse_or_default(None), Ok(Protocol::V2026_07_28));
        assert_eq!(Protocol::parse_or_default(Some("sep-2322")), Ok(Protocol::Sep2322));
    }

    #[test]
    fn allow_lists_follow_the_released_revision() {
        assert!(Protocol::V2026_07_28.allows_input_required("tools/call"));
        assert!(!Protocol::V2026_07_28.allows_input_required("tasks/result"));
        assert!(Protocol::Sep2322.allows_input_required("tasks/result"));
        assert!(!Protocol::Sep2322.allows_input_required("tools/list"));
        assert!(!Protocol::V2025_11_25.allows_input_required("tools/call"));
    }
}
