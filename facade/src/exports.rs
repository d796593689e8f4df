//! What the bindings export, declared once.
//!
//! Every function and machine of the façade that a binding exposes is a row
//! here: its name, its parameters by kind, what it returns, and the bindings
//! that leave it out (with the reason). `mrtr-gen` writes each binding's
//! export code from these rows (the napi and wasm-bindgen backends of the
//! JavaScript API), and `scripts/export-gaps` holds every binding to them: an
//! export a binding neither has nor lists here is a red CI run.
//!
//! The table says *what* crosses; the kinds say *how* in each language (a
//! [`Arg::Text`] is a `string | Uint8Array` in JavaScript, a `str`/`bytes` in
//! Python, a pointer and a length in C). What is the idiom of one language
//! alone (a replay guard called back, a key ring, an async driver) stays
//! written by hand in that binding.

/// How one argument crosses a binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// JSON text (or bytes) the façade reads: `&[u8]`.
    Text,
    /// JSON text that may be absent: `Option<&[u8]>`.
    OptText,
    /// A JSON value (an id, a `requestState`): JSON text at the native
    /// level, but a language's own value in its idiom, where a string is a
    /// string, never JSON text ([`Arg::native`]).
    Value,
    /// A JSON value that may be absent: [`Arg::OptText`] at the native level.
    OptValue,
    /// Header fields, a JSON object of names to strings, absent being none:
    /// [`Arg::OrEmpty`] at the native level, a language's map in its idiom.
    Headers,
    /// Raw bytes, not read as JSON here (a body chunk, split anywhere):
    /// `&[u8]`, empty allowed.
    Bytes,
    /// JSON text that may be absent, absent being empty: `&[u8]` (header
    /// fields, a machine's settings).
    OrEmpty,
    /// The options (`{protocol, limits, maxRounds, transport}`) as JSON
    /// text, absent being every default: `&Options`.
    Options,
    /// A name or a message: `&str`.
    Str,
    /// A name that may be absent: `Option<&str>`.
    OptStr,
    /// A key's id (0–255): [`Arg::Whole`] where every number is one kind
    /// (JavaScript, Python), the smallest integer that holds it in a typed
    /// binding; an id above 255 is `usage-invalid-argument` there, and names
    /// no key in the façade.
    KeyId,
    /// A yes or no.
    Bool,
    /// A time (milliseconds), an exchange number or a count: a whole number
    /// below 2^53 ([`super::whole`]), `u64`.
    Whole,
    /// An HTTP status ([`super::status`]), `u16`.
    Status,
    /// A handle the machine gave out ([`super::handle`]), `u64`.
    Handle,
    /// Bytes from the caller's CSPRNG: [`super::Randomness::Bytes`].
    Random,
    /// Raw bytes that may be absent: `Option<&[u8]>` (a key's secret).
    OptBytes,
    /// The host's replay guard, called back with `(stateId, expiry)` and
    /// answering whether it is the state's first use, or none:
    /// `Option<&mut dyn ReplayGuard>`. Each binding's kernel makes one of its
    /// language's callable (and fails closed when it throws).
    Guard,
    /// A machine of this table the method reads (by its class name).
    Machine(&'static str),
}

/// What a row gives back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ret {
    /// Nothing.
    Unit,
    /// Text that is no JSON: a name, an event id, event-stream text, a URL.
    Text,
    /// Such text, or nothing.
    OptText,
    /// JSON text: [`Ret::Text`] at the native level, a language's own value
    /// in its idiom ([`Ret::native`]).
    Json,
    /// JSON text, or nothing.
    OptJson,
    /// A static name.
    Name,
    /// One JSON text per element.
    Texts,
    /// A yes or no.
    Bool,
    /// A small count.
    Count,
    /// A handle the machine gives out (`u64`, below 2^53).
    Handle,
    /// A time in milliseconds, or none.
    OptMillis,
    /// A whole number, or none (a count of seals).
    OptWhole,
    /// A token that opened: its payload bytes, its state id and its expiry ([`mrtr::state::Opened`]).
    Opened,
    /// Raw bytes (a digest).
    Bytes,
    /// The next block as JSON text, none, or the error of an unreadable
    /// block: the façade's `Option<Result<String>>`.
    NextOrError,
    /// A check whose refusal carries `data`, which a thrown error of some
    /// languages cannot: none when it passes, else the refusal as JSON text
    /// ([`super::error_json`]) for the binding's own layer to raise.
    Refusal,
    /// A machine of this table.
    Machine(&'static str),
}

impl Arg {
    /// The kind at the native level (napi, wasm-bindgen, C, UniFFI), where a
    /// value and header fields cross as the JSON text they are.
    pub const fn native(self) -> Arg {
        match self {
            Arg::Value => Arg::Text,
            Arg::OptValue => Arg::OptText,
            Arg::Headers => Arg::OrEmpty,
            other => other,
        }
    }
}

impl Ret {
    /// The kind at the native level, where JSON crosses as text.
    pub const fn native(self) -> Ret {
        match self {
            Ret::Json => Ret::Text,
            Ret::OptJson => Ret::OptText,
            other => other,
        }
    }
}

/// What a JSON parameter or answer holds, named once so that the bindings
/// with types of their own give it one (TypeScript's declarations, UniFFI's
/// records, the Python stubs). A row without a shape for one of its JSON
/// parameters takes a JSON object (or its text) there, and answers one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A JSON-RPC message, or any JSON object.
    Object,
    /// A JSON-RPC id: a string or an integer.
    Id,
    /// A `requestState`: a string.
    RequestState,
    /// A transcript: entries of messages and HTTP exchanges, or JSON Lines.
    Transcript,
    /// One transcript entry.
    TranscriptEntry,
    /// The violations a checker found, in transcript order.
    Violations,
    /// What a server reads off a retry: `{responses, missing, ignored, requestState}`.
    Resumed,
    /// A task status's name.
    TaskStatus,
    /// A handle a `Client` gave out.
    Handle,
    /// What the `Client` machine tells its host.
    ClientEvent,
    /// One event-stream block: `{event, data, id, retry}`, each optional.
    SseEvent,
    /// HTTP header fields: names to values.
    HeaderFields,
    /// A transport mode's name: `2026-07-28`, `2025-11-25`, `sep-1858`, `sep-1335`.
    TransportMode,
    /// An HTTP request to send: `{exchange, method, url, headers, body}`.
    HttpRequest,
    /// What an `HttpCall` tells its host.
    HttpCallEvent,
    /// What an `Operation` tells its host.
    OperationEvent,
    /// What an incoming HTTP request asks: `{type: call | messages | answers | resume, …}`.
    Incoming,
    /// A token's public part: `{stateId, keyId, algorithm, expiry}`.
    TokenInfo,
    /// A task record: `taskId`, `status`, `createdAt`, `lastUpdatedAt`, `ttlMs`, ….
    TaskRecord,
    /// Input requests by key: `{<key>: {method, params}}`.
    Questions,
    /// A list of JSON-RPC messages.
    Messages,
    /// The limits: `{maxMessageBytes, maxDepth, maxInputRequests, maxRequestStateBytes}`.
    Limits,
    /// The options of one call: `{protocol, limits}`.
    Options,
    /// The options of a check: `{protocol, limits, maxRounds, transport}`.
    CheckConfig,
    /// The options of the `Client` machine: `{protocol, limits, maxRounds}`.
    ClientConfig,
    /// How an `HttpCall` reaches its server: `{mode, url, headers, protocol, limits, …}`.
    CallConfig,
    /// An `HttpCall`'s configuration plus how far an `Operation` goes.
    OperationConfig,
    /// What a client's session declares once: `{protocol, capabilities, clientInfo, firstId}`.
    SessionConfig,
    /// How far a legacy bridge's call goes: `{maxRounds, roundTimeoutMs, limits}`.
    BridgeConfig,
    /// A SHA-256 digest: 32 bytes.
    Digest,
    /// Exchange numbers of a machine's HTTP requests: a list of integers.
    Exchanges,
    /// What a sealed state is bound to: `{subject | anonymous: true, protocol, method, target, params | paramsDigest}`
    /// ([`super::records::TYPED_RECORDS`]: a record in the typed bindings).
    Binding,
}

/// Where a row's function lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Receiver {
    /// A free function of the façade.
    Free,
    /// A machine's constructor.
    New,
    /// Another constructor of a machine, under its own name (the façade's
    /// associated function of that name).
    Static,
    /// A method reading the machine.
    Ref,
    /// A method changing the machine.
    Mut,
}

/// A binding that can leave a row out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    /// The napi backend of the JavaScript API (`bindings-node`).
    Napi,
    /// The wasm-bindgen backend of the JavaScript API (`bindings-wasm`).
    Wasm,
    /// The C ABI (`bindings-ffi`, `include/mrtr.h`).
    C,
    /// The UniFFI binding: Kotlin, Swift, Python (`bindings-ffi/uniffi`).
    Uniffi,
    /// The Python package (`bindings-python`, pyo3), written by hand in Python's idiom.
    Python,
}

/// One parameter: its name (snake_case) and kind.
pub type Param = (&'static str, Arg);

/// One exported function or method.
#[derive(Clone, Copy, Debug)]
pub struct Export {
    /// The machine it belongs to (a [`Machine::name`]), or none.
    pub machine: Option<&'static str>,
    /// Its name in the bindings, snake_case (each binding spells it in its idiom).
    pub name: &'static str,
    /// Where it is called.
    pub receiver: Receiver,
    /// The façade function (a path under `facade::` for a free function or a
    /// constructor, a method name otherwise) when it is named apart from `name`.
    pub call: Option<&'static str>,
    /// One line on what it does.
    pub doc: &'static str,
    /// Its parameters, in order.
    pub params: &'static [Param],
    /// What it gives back.
    pub ret: Ret,
    /// Whether the façade function returns a `Result`.
    pub fallible: bool,
    /// The bindings that leave it out, and why.
    pub left_out: &'static [(Binding, &'static str)],
    /// The shapes of its JSON parameters and answer (`"return"`), where not an object.
    pub shapes: &'static [(&'static str, Shape)],
}

impl Export {
    /// The shape of the parameter `name` (or of the answer, `"return"`): [`Shape::Object`] unless the row names one.
    pub fn shape(&self, name: &str) -> Shape {
        self.shapes.iter().find(|(n, _)| *n == name).map_or(Shape::Object, |(_, s)| *s)
    }

    /// The façade function called: `call`, or the name.
    pub fn callee(&self) -> &'static str {
        self.call.unwrap_or(self.name)
    }

    /// Whether `binding` exports it.
    pub fn in_binding(&self, binding: Binding) -> bool {
        !self.left_out.iter().any(|(b, _)| *b == binding)
    }
}

/// One exported machine (a class in most languages).
#[derive(Clone, Copy, Debug)]
pub struct Machine {
    /// Its name in every binding.
    pub name: &'static str,
    /// The façade type it wraps, under `facade::`.
    pub inner: &'static str,
    /// One line on what it is.
    pub doc: &'static str,
    /// The bindings that leave it out, and why.
    pub left_out: &'static [(Binding, &'static str)],
}

const fn free(name: &'static str, doc: &'static str, params: &'static [Param], ret: Ret) -> Export {
    Export {
        machine: None,
        name,
        receiver: Receiver::Free,
        call: None,
        doc,
        params,
        ret,
        fallible: true,
        left_out: &[],
        shapes: &[],
    }
}

const fn new(machine: &'static str, doc: &'static str, params: &'static [Param]) -> Export {
    let ret = Ret::Machine(machine);
    Export {
        machine: Some(machine),
        name: "new",
        receiver: Receiver::New,
        call: None,
        doc,
        params,
        ret,
        fallible: true,
        left_out: &[],
        shapes: &[],
    }
}

const fn made(machine: &'static str, name: &'static str, doc: &'static str, params: &'static [Param]) -> Export {
    let ret = Ret::Machine(machine);
    Export {
        machine: Some(machine),
        name,
        receiver: Receiver::Static,
        call: None,
        doc,
        params,
        ret,
        fallible: true,
        left_out: &[],
        shapes: &[],
    }
}

const fn method(
    machine: &'static str,
    name: &'static str,
    receiver: Receiver,
    doc: &'static str,
    params: &'static [Param],
    ret: Ret,
) -> Export {
    Export {
        machine: Some(machine),
        name,
        receiver,
        call: None,
        doc,
        params,
        ret,
        fallible: true,
        left_out: &[],
        shapes: &[],
    }
}

impl Export {
    const fn infallible(mut self) -> Export {
        self.fallible = false;
        self
    }

    const fn calls(mut self, call: &'static str) -> Export {
        self.call = Some(call);
        self
    }

    const fn shaped(mut self, shapes: &'static [(&'static str, Shape)]) -> Export {
        self.shapes = shapes;
        self
    }

    const fn leaving(mut self, left_out: &'static [(Binding, &'static str)]) -> Export {
        self.left_out = left_out;
        self
    }
}

use Arg::*;
use Receiver::{Mut, Ref};

const OPTIONS: Param = ("options", Options);
const NOW: Param = ("now", Whole);
/// Why the wasm module leaves the client operation out.
const WASM_SIZE: &[(Binding, &str)] = &[(
    Binding::Wasm,
    "the wasm artifact is at its size bound (bindings-wasm/README.md, \"What this package leaves out\"); issue #27 works on the size",
)];

/// Why C and Python leave the table's key ring out (UniFFI's is generated from its rows).
const TYPED_RING: &[(Binding, &str)] = &[
    (
        Binding::C,
        "a key ring of its own: keys and bindings as C structs, a guard as a function pointer (mrtr_keyring_*)",
    ),
    (Binding::Python, "a key ring of its own: Key and Binding objects, a guard as a callable"),
];

/// The shape of a sealing call's `binding`: a record in the typed bindings.
const BINDING: &[(&str, Shape)] = &[("binding", Shape::Binding)];

/// Why the typed bindings leave the JavaScript API's one-call-per-ask replay rows out.
const JS_REPLAY: &[(Binding, &str)] = &[
    (
        Binding::C,
        "runTool's one call per ask, JavaScript's own: a C host builds its questions (mrtr_question_elicit), reads its request, passes its data",
    ),
    (
        Binding::Uniffi,
        "runTool's one call per ask, JavaScript's own: a host builds its questions (questionElicit), reads its request, passes its data",
    ),
    (
        Binding::Python,
        "the package's await-style tools run over ToolRun, which has them (ask_elicit, arguments, the kept data)",
    ),
];

/// Why the bindings whose objects are freed when their owner lets go leave `ToolReplay.release` out.
const FREED_AT_ONCE: &[(Binding, &str)] = &[
    (Binding::C, "the host frees the replay itself, when it chooses: mrtr_tool_replay_free"),
    (Binding::Uniffi, "the object is freed when its last reference goes: Kotlin's `close()` or `use`, Swift's deinit"),
    (Binding::Python, "CPython frees the replay when its last reference goes, at once"),
];

/// Why the bindings whose objects are freed when their owner lets go leave `ToolRun.release` out.
const RUN_FREED_AT_ONCE: &[(Binding, &str)] = &[
    (Binding::C, "the host frees the run itself, when it chooses: mrtr_tool_run_free"),
    (Binding::Uniffi, "the object is freed when its last reference goes: Kotlin's `close()` or `use`, Swift's deinit"),
    (Binding::Python, "CPython frees the run when its last reference goes, at once"),
];

/// Every exported machine.
pub const MACHINES: &[Machine] = &[
    Machine {
        name: "Session",
        inner: "Session",
        doc: "A client's session: what it declares once (`{\"protocol\", \"capabilities\", \"clientInfo\", \"firstId\"}`), and the requests it makes from that, each under a fresh id with the `_meta` its protocol wants on every request (in `2026-07-28`: the protocol version, the capabilities, the client's name).",
        left_out: WASM_SIZE,
    },
    Machine {
        name: "Checker",
        inner: "Checker",
        doc: "The incremental checker of a conversation: `handle` one entry at a time (a message, or an HTTP exchange), read the violations so far.",
        left_out: &[],
    },
    Machine { name: "Client", inner: "Client", doc: "The client's retry machine (sans-IO). Inputs: `send`, `handle_response`, `answer`; after each, drain `poll_transmit` (messages to send, in order), then `poll_event`.", left_out: &[] },
    Machine {
        name: "SseDecoder",
        inner: "SseDecoder",
        doc: "The incremental event-stream (`text/event-stream`) decoder: `feed` bytes in any chunking, `finish` at the end of the stream, and drain `poll_event`: each block as `{event, data, id, retry}` (the fields its lines set), blocks without `data` included. An unreadable block fails `poll_event` with its rule, in its place; the next call goes on after it.",
        left_out: &[],
    },
    Machine {
        name: "HttpCall",
        inner: "HttpCall",
        doc: "The client machine of one JSON-RPC call over HTTP (sans-IO), in any transport mode (`2026-07-28`, `2025-11-25`, `sep-1858`, `sep-1335`). Inputs: the response head, body bytes and end of each exchange, timeouts, and the host's answers to server requests, each with the time (ms). After each, drain `poll_transmit` (HTTP requests to send), then `poll_event` (`serverRequest`, `message`, `violation`, and last `response` or `failed`), then read `poll_timeout`.",
        left_out: &[],
    },
    Machine {
        name: "Operation",
        inner: "Operation",
        doc: "One client operation over HTTP in any transport mode (sans-IO): the rounds of `2026-07-28` (each retry under a new id, with the answers and the exact `requestState`) or the server requests on a call's stream (`2025-11-25`, `sep-1858`, `sep-1335`), every question answered the same way, `answer(key, result)`. Drain after every input: `poll_transmit`, then `poll_event` (`inputRequired`, `message`, `violation`, and last `done` or `failed`; an answer given there is an input: drain again), then read `poll_timeout`; drop it once `is_drained`.",
        left_out: WASM_SIZE,
    },
    Machine {
        name: "ServerStream",
        inner: "ServerStream",
        doc: "A server's response stream in a transport mode, for the continuation `key` (the host's name of the call's state), its event ids `<key>.<n>` numbered from `first`. Write with `message`, `retry` and `ask`; `take` the text to send.",
        left_out: &[],
    },
    Machine {
        name: "KeyRing",
        inner: "KeyRing",
        doc: "Keys by id (AES-256-GCM, XChaCha20-Poly1305, XAES-256-GCM): the current seals, any opens.",
        left_out: TYPED_RING,
    },
    Machine {
        name: "ToolReplay",
        inner: "ToolReplay",
        doc: "One replay of an await-style tool on one request: each `ask` answered from what the conversation holds, or the round ends there.",
        left_out: &[],
    },
    Machine {
        name: "ToolRun",
        inner: "ToolRun",
        doc: "One run of an await-style tool on one request (`ToolReplay.run`): the host plays the tool once, forwarding its asks (each answered, or none: the tool stops there), then ends the run with one input, `respond` (the tool returned, or stopped at an unanswered ask: the response to send) or `refused` (the tool raised its own error). A refusal at an ask is recorded and wins over whatever the tool does next, even when it caught it.",
        left_out: &[],
    },
    Machine {
        name: "ToolBridge",
        inner: "ToolBridge",
        doc: "One `2025-11-25` call of an await-style tool, its questions sent as server requests on the call's stream (each associated with the call, SEP-2260).",
        left_out: &[],
    },
];

/// The machines' methods of an HTTP client exchange, shared by `HttpCall` and `Operation`.
macro_rules! exchange_inputs {
    ($m:literal) => {
        [
            method(
                $m,
                "handle_head",
                Mut,
                "The status and header fields of the response to `exchange` (the number of a request from `poll_transmit`); `headers` a JSON object of names (any case) to strings, or none. A second head for one exchange is `usage-out-of-turn`, an exchange unknown or ended `usage-unknown-handle`. What the server did wrong is no failure of this call: it comes out as an event.",
                &[("exchange", Whole), ("status", Status), ("headers", Headers), NOW],
                Ret::Unit,
            ),
            method(
                $m,
                "handle_body",
                Mut,
                "Bytes of the body of the response to `exchange`, in any chunking (raw bytes: an event stream that is not UTF-8 is the server's error, reported as an event). A body before its head is `usage-out-of-turn`.",
                &[("exchange", Whole), ("chunk", Bytes), NOW],
                Ret::Unit,
            ),
            method($m, "handle_end", Mut, "The response to `exchange` ended: the server closed it, the connection was cut, or none came.", &[("exchange", Whole), NOW], Ret::Unit),
            method($m, "handle_timeout", Mut, "The time `poll_timeout` named came (`now` at or after it; earlier does nothing).", &[NOW], Ret::Unit).infallible(),
        ]
    };
}

/// The outputs of an HTTP client machine, in its drain order.
macro_rules! exchange_outputs {
    ($m:literal) => {
        [
            method(
                $m,
                "poll_transmit",
                Mut,
                "The next HTTP request to send, `{\"exchange\": <n>, \"method\": \"POST\" | \"GET\", \"url\", \"headers\": {<lower-case name>: <value>}, \"body\": <JSON, when there is one>}`, or none. Quote `exchange` with every part of its response.",
                &[],
                Ret::OptJson,
            )
            .infallible()
            .shaped(&[("return", Shape::HttpRequest)]),
            method($m, "poll_timeout", Ref, "When to call `handle_timeout` (the host's milliseconds), or none.", &[], Ret::OptMillis)
                .infallible(),
        ]
    };
}

const HTTP_CALL_IN: [Export; 4] = exchange_inputs!("HttpCall");
const HTTP_CALL_OUT: [Export; 2] = exchange_outputs!("HttpCall");
const OPERATION_IN: [Export; 4] = exchange_inputs!("Operation");
const OPERATION_OUT: [Export; 2] = exchange_outputs!("Operation");

/// Every exported function and method, a machine's right after its constructor.
pub const EXPORTS: &[Export] = &[
    free("catalogue", "The tables (`facade::catalogue`): rules, areas, protocols, kinds, limits, ….", &[], Ret::Json).infallible(),
    free("classify", "Classifies one raw message: what it found, packed into one string (`facade::classify_packed`).", &[("text", Text), OPTIONS], Ret::Text).calls("classify_packed"),
    free("check", "Checks a whole conversation (message entries and HTTP entries): the violations, in transcript order (none: compliant).", &[("transcript", Text), OPTIONS], Ret::Json).shaped(&[("transcript", Shape::Transcript), ("options", Shape::CheckConfig), ("return", Shape::Violations)]),
    free("retry", "Client: the retry of `request` (the request last sent) answering `result` (the response carrying `input_required`) with `input_responses` (an `inputResponses` object; none: no answers) under the new `id` (a JSON string or integer). In `sep-2322` the answer to `tasks/result` is a `tasks/input_response` request. Fails with `input-responses-unsolicited`, `input-required-method-not-allowed`, `retry-id-reused`, `retry-missing-input-response`, `retry-input-response-invalid`, or the rule a malformed argument breaks.", &[("request", Text), ("result", Text), ("input_responses", OptText), ("id", Value), OPTIONS], Ret::Json).shaped(&[("id", Shape::Id)]),
    free("task_update", "Client (the Tasks extension of `2026-07-28`): the `tasks/update` request answering the input requests of the task that `get_response` (the answer to the `tasks/get` request `get_request`) shows, with `input_responses` (none: no answers), under the new `id`.", &[("get_request", Text), ("get_response", Text), ("input_responses", OptText), ("id", Value), OPTIONS], Ret::Json).shaped(&[("id", Shape::Id)]),
    free("respond", "Server: the `input_required` answer to `request`; `input_requests` (an `inputRequests` object) and `request_state` (a JSON string) are optional, an absent one left out. Fails with `input-required-method-not-allowed`, `request-meta-missing`, `request-capability-missing` (-32021: `data.requiredCapabilities` names what the asks need), `input-required-empty`, `input-request-invalid`, `request-state-invalid`.", &[("request", Text), ("input_requests", OptText), ("request_state", OptValue), OPTIONS], Ret::Json).shaped(&[("input_requests", Shape::Questions), ("request_state", Shape::RequestState)]),
    free("resume", "Server: the MRTR fields of `request` read against what this server `needs` (an `inputRequests`-shaped object): `{\"responses\": {<needed keys present>: …}, \"missing\": [<needed keys absent>], \"ignored\": [<keys present, not needed>], \"requestState\": <string or null>}`.", &[("request", Text), ("needs", OptText), OPTIONS], Ret::Json).shaped(&[("needs", Shape::Questions), ("return", Shape::Resumed)]),
    free("task_transition", "`next`, when a task may go from `current` to `next`; else the refusal (`task-status-invalid`, `task-transition-invalid`).", &[("current", Str), ("next", Str)], Ret::Name).shaped(&[("current", Shape::TaskStatus), ("next", Shape::TaskStatus), ("return", Shape::TaskStatus)]),
    free("binding_for", "The binding a sealed state of `request` is bound to, for the principal `subject` or, explicitly, `anonymous`: `{subject | anonymous, protocol, method, target, paramsDigest}`.", &[("request", Text), ("subject", OptStr), ("anonymous", Bool), ("protocol", OptStr)], Ret::Json),
    free("params_digest", "The SHA-256 digest a sealed state binds a request's `params` by: every param but `inputResponses`, `requestState` and `_meta`, numbers exact (from their text), key order and spelling not.", &[("params", Text)], Ret::Bytes).shaped(&[("return", Shape::Digest)]),
    free("inspect", "What anyone can read off a token without a key, nothing of it authenticated: `{stateId, keyId, algorithm, expiry}`.", &[("token", Text)], Ret::Json).shaped(&[("return", Shape::TokenInfo)]),
    new("Session", "A session declaring `config` (`{protocol, capabilities, clientInfo, firstId}`; none: the default protocol, no capabilities).", &[("config", OrEmpty)]).shaped(&[("config", Shape::SessionConfig)]),
    method("Session", "request", Mut, "The request of `method` with `params` (an object, or none) under the next id, `params._meta` carrying what the session declares where the protocol reads it from every request; a `_meta` member naming one of those is `usage-invalid-argument`.", &[("method", Str), ("params", OptText)], Ret::Json),
    method("Session", "initialize", Mut, "The `initialize` request under the next id where the protocol settles version and capabilities once at the start (`2025-11-25`), or none where every request declares them.", &[], Ret::OptJson),
    method("Session", "initialized", Ref, "The `notifications/initialized` notification, sent once the server answered `initialize`.", &[], Ret::Json).infallible(),
    method("Session", "call_tool", Mut, "The `tools/call` request of the tool `name` with `arguments` (an object, or none).", &[("name", Str), ("arguments", OptText)], Ret::Json),
    method("Session", "get_prompt", Mut, "The `prompts/get` request of the prompt `name` with `arguments` (an object, or none).", &[("name", Str), ("arguments", OptText)], Ret::Json),
    method("Session", "read_resource", Mut, "The `resources/read` request of `uri`.", &[("uri", Str)], Ret::Json),
    method("Session", "handle_tools_list", Mut, "Reads a page of the server's `tools/list` result: the tools it annotates `readOnlyHint` or `idempotentHint`, which `is_idempotent` then names (a later page or listing replaces what it says of a tool).", &[("result", Text)], Ret::Unit),
    method("Session", "is_idempotent", Ref, "Whether `request` is a `tools/call` of a tool the server's latest `tools/list` called read-only or idempotent: what to set an `Operation`'s `idempotent` from (only then is a first request hedged, or sent again once a server may have taken it).", &[("request", Text)], Ret::Bool),
    new("Checker", "A checker with the options.", &[OPTIONS]).infallible().shaped(&[("options", Shape::CheckConfig)]),
    method("Checker", "handle", Mut, "Checks one entry.", &[("entry", Text)], Ret::Unit).shaped(&[("entry", Shape::TranscriptEntry)]),
    method("Checker", "violations", Ref, "The violations so far, in transcript order.", &[], Ret::Json).infallible().shaped(&[("return", Shape::Violations)]),
    new("Client", "A machine with the options.", &[OPTIONS]).infallible().shaped(&[("options", Shape::ClientConfig)]),
    method("Client", "send", Mut, "Starts a request: its handle.", &[("request", Text)], Ret::Handle).shaped(&[("return", Shape::Handle)]),
    method("Client", "handle_response", Mut, "Takes a response message.", &[("response", Text)], Ret::Unit),
    method("Client", "answer", Mut, "Answers the input requests of `handle`; queues the retry under `id`.", &[("handle", Handle), ("input_responses", OptText), ("id", Value)], Ret::Unit).shaped(&[("handle", Shape::Handle), ("id", Shape::Id)]),
    method("Client", "abandon", Mut, "Gives up on `handle`.", &[("handle", Handle)], Ret::Unit).infallible().shaped(&[("handle", Shape::Handle)]),
    method("Client", "poll_transmit", Mut, "The next message to send, or none.", &[], Ret::OptJson).infallible(),
    method("Client", "poll_event", Mut, "The next event (`inputRequired`, `retryNow`, `done`), or none.", &[], Ret::OptJson).infallible().shaped(&[("return", Shape::ClientEvent)]),
    new("SseDecoder", "A decoder under the options' limits.", &[OPTIONS]).infallible(),
    method("SseDecoder", "feed", Mut, "Decodes the next bytes of the stream, split anywhere (any split gives the same blocks). Bytes that are not UTF-8 are not refused here: the block holding them is reported by `poll_event`.", &[("chunk", Bytes)], Ret::Unit).infallible(),
    method("SseDecoder", "finish", Mut, "Ends the stream: a block not ended by a blank line is discarded (as a browser discards it). Blocks decoded already stay to be polled; a later `feed` starts a new stream.", &[], Ret::Unit).infallible(),
    method("SseDecoder", "poll_event", Mut, "The next decoded block, `{\"event\", \"data\", \"id\", \"retry\"}` (the fields its lines set), or none when none is ready. A block the decoder could not read fails this call with its rule, in its place: `jsonrpc-parse-error` (a line that is not UTF-8), `limit-exceeded` (a block over `maxMessageBytes`); decoding goes on after it.", &[], Ret::NextOrError).infallible().shaped(&[("return", Shape::SseEvent)]),
    free("sse_encode", "One block, `{\"event\", \"data\", \"id\", \"retry\"}` (each optional), as event-stream text: what a decoder reads back as the same block. An event that sets no field writes an empty text. An `event` or `id` holding a line end, an `id` holding NUL, an unknown field or one of the wrong type is `usage-invalid-argument`.", &[("event", Text)], Ret::Text).shaped(&[("event", Shape::SseEvent)]),
    new(
        "HttpCall",
        "Starts the call of `request` (a JSON-RPC request with an id) at `now` (the host's clock, milliseconds) under `config`: `{\"mode\": \"2026-07-28\" | \"2025-11-25\" | \"sep-1858\" | \"sep-1335\", \"url\", \"headers\": {<name>: <value>}, \"protocol\", \"limits\", \"maxEvents\", \"maxLinks\", \"maxLinkBytes\", \"maxRetryMs\", \"maxReconnects\", \"defaultRetryMs\", \"stallMs\"}` (`mode` and `url` required). A bad configuration, or a request that is no JSON-RPC request, is `usage-invalid-argument`. After creating it and after every input, drain `poll_transmit`, then `poll_event`, then read `poll_timeout`.",
        &[("config", Text), ("request", Text), NOW],
    )
    .shaped(&[("config", Shape::CallConfig)]),
    HTTP_CALL_IN[0], HTTP_CALL_IN[1], HTTP_CALL_IN[2], HTTP_CALL_IN[3],
    method("HttpCall", "answer", Mut, "The host's JSON-RPC response to a server request the call reported (a `serverRequest` event). An answer to no reported request is `usage-out-of-turn`; one that is no JSON-RPC response `usage-invalid-argument`.", &[("response", Text), NOW], Ret::Unit),
    HTTP_CALL_OUT[0],
    method(
        "HttpCall",
        "poll_event",
        Mut,
        "The next event, or none: `{\"type\": \"serverRequest\", \"message\"}` (answer it with `answer`), `{\"type\": \"message\", \"message\"}` (a notification or another response, to pass on), `{\"type\": \"violation\", \"rule\", \"message\"}` (the server broke a rule; the call goes on), and last either `{\"type\": \"response\", \"message\"}` (the call's JSON-RPC response) or `{\"type\": \"failed\", \"rule\", \"message\"}`.",
        &[],
        Ret::OptJson,
    )
    .infallible()
    .shaped(&[("return", Shape::HttpCallEvent)]),
    HTTP_CALL_OUT[1],
    method("HttpCall", "is_done", Ref, "Whether the call is over: its `response` or `failed` event was queued.", &[], Ret::Bool).infallible(),
    method("HttpCall", "abandoned", Ref, "The open exchanges given up as stalled (`stallMs`), as a JSON array of their numbers: each went again or its stream was resumed. The host may cut them (then `handle_end` each) rather than wait for a hung server.", &[], Ret::Json).infallible().shaped(&[("return", Shape::Exchanges)]),
    new(
        "Operation",
        "Starts the operation of `request` (a JSON-RPC request with an id) at `now` (the host's clock, milliseconds) under `config`: a call's configuration (as `HttpCall`'s) plus `\"maxRounds\"` (default 10), `\"maxResends\"` (default 2), `\"backoffMs\"`, `\"backoffMaxMs\"`, `\"taskPollMs\"` (default 1000), `\"versions\"`, `\"hedgeAfterMs\"` with `\"maxHedges\"` (default 1) for hedged rounds, and `\"idempotent\"` (default false: a first request is hedged, or sent again once a server may have taken it, only when the host says it is harmless twice). The drain order, after creating it and after every input (`handle_*`, `answer`): `poll_transmit` until none (send each), then `poll_event` until none (an answer given there is an input: drain the transmits again), then read `poll_timeout`. Drop it once `is_drained`.",
        &[("config", Text), ("request", Text), NOW],
    )
    .shaped(&[("config", Shape::OperationConfig)]),
    OPERATION_IN[0], OPERATION_IN[1], OPERATION_IN[2], OPERATION_IN[3],
    method("Operation", "answer", Mut, "Answers the question `key` of an `inputRequired` event with `result` (an elicitation's `{\"action\", …}`, a sampling result, a roots list). An answer that does not fit its question fails with its rule and the question stays open; a key nothing asked is `usage-unknown-handle`, one answered already `usage-out-of-turn`.", &[("key", Str), ("result", Text), NOW], Ret::Unit),
    OPERATION_OUT[0],
    method(
        "Operation",
        "poll_event",
        Mut,
        "The next event, or none: `{\"type\": \"inputRequired\", \"round\", \"requests\": {<key>: {\"method\", \"params\"}}}` (answer each key with `answer`), `{\"type\": \"message\", \"message\"}`, `{\"type\": \"violation\", \"rule\", \"message\"}`, and last either `{\"type\": \"done\", \"response\"}` (the final JSON-RPC response) or `{\"type\": \"failed\", \"rule\", \"message\"}`.",
        &[],
        Ret::OptJson,
    )
    .infallible()
    .shaped(&[("return", Shape::OperationEvent)]),
    OPERATION_OUT[1],
    method("Operation", "is_drained", Ref, "Whether the final event was taken and no exchange is open: the operation may be dropped.", &[], Ret::Bool).infallible(),
    method("Operation", "abandoned", Ref, "The open exchanges whose answer no longer matters, as a JSON array of their numbers: an earlier round's, such as a hedged round's losing copies. The host may cut them (then `handle_end` each) rather than wait for a slow server.", &[], Ret::Json).infallible().shaped(&[("return", Shape::Exchanges)]),
    method(
        "Operation",
        "snapshot",
        Ref,
        "What the operation knows, as JSON, to go on from after the host restarts (in another process or language) with `restore`: the current round's request, the ids, rounds and versions so far, an open round's questions and answers, the task it follows; not the configuration (the host gives it again, credentials included) nor the open exchanges (the round they carried goes again). An operation that is over, or a stream mode's call that answered a server request, is `usage-out-of-turn`.",
        &[NOW],
        Ret::Json,
    ),
    made(
        "Operation",
        "restore",
        "The operation of `snapshot` under `config` (as the constructor reads it) at `now`: the round in flight goes again under a new id, an open round asks its unanswered questions again (one `inputRequired` event), a followed task is polled after the wait that was left. A snapshot of another format or transport mode is `usage-invalid-argument`.",
        &[("config", Text), ("snapshot", Text), NOW],
    )
    .shaped(&[("config", Shape::OperationConfig)]),
    new("ServerStream", "A response stream of `mode` for the continuation `key` (the host's name for the call's state in its own store: event ids are `<key>.<n>`, a stream URL carries `?stream=<key>`), numbering events from `first`. An empty key, or one with a line end or NUL, is `usage-invalid-argument`.", &[("mode", Str), ("key", Str), ("first", Whole)]).shaped(&[("mode", Shape::TransportMode)]),
    method("ServerStream", "head", Ref, "The header fields of the response head (status 200), a JSON object: `content-type: text/event-stream`, `cache-control`, and under `sep-1335` the `link: <stream_url>; rel=\"stream\"` (none: no link).", &[("stream_url", OptStr)], Ret::Json).infallible().shaped(&[("return", Shape::HeaderFields)]),
    method("ServerStream", "message", Mut, "Writes the JSON-RPC `message` as an event; its event id.", &[("message", Text)], Ret::Text),
    method("ServerStream", "retry", Mut, "Writes a `retry: <retry_ms>` block; its event id.", &[("retry_ms", Whole)], Ret::Text),
    method("ServerStream", "ask", Mut, "Writes the mode's sequence asking for `requests` (a JSON array of JSON-RPC requests: elicitation, sampling, roots): under `sep-1858` `buffer_input`, the requests, `input_required`; under `sep-1335` the requests and `retry: <retry_ms>`; under `2025-11-25` the requests (a `2026-07-28` server asks inside results: `usage-invalid-argument`). After a `sep-1858` or `sep-1335` ask the host ends the response; under `sep-1858` anything written after it is `usage-out-of-turn`. The last event id written.", &[("requests", Text), ("retry_ms", Whole)], Ret::Text).shaped(&[("requests", Shape::Messages)]),
    method("ServerStream", "take", Mut, "The event-stream text written since the last `take` (to write to the response body), and empties it.", &[], Ret::Text).infallible(),
    free("read_http_request", "What an incoming HTTP request to an MCP endpoint (or a stream URL) asks under `mode`, from its `method`, `url`, `headers` (a JSON object of names to strings, or none) and `body` (raw bytes, empty for none): `{\"type\": \"call\", \"message\"}` (a new call), `{\"type\": \"messages\", \"messages\": […]}` (answer `202`), `{\"type\": \"answers\", \"key\", \"responses\": […]}` (buffered answers of the continuation `key`), `{\"type\": \"resume\", \"key\", \"lastEventId\"}` (a GET resuming a stream). A body that is no JSON-RPC fails with its rule (`jsonrpc-parse-error`, `jsonrpc-invalid`, `limit-exceeded`): answer it with HTTP 400.", &[("mode", Str), ("method", Str), ("url", Str), ("headers", Headers), ("body", Bytes), OPTIONS], Ret::Json).shaped(&[("mode", Shape::TransportMode), ("return", Shape::Incoming)]),
    free("stream_url", "The `rel=\"stream\"` URL of the continuation `key` at `endpoint` (SEP-1335).", &[("endpoint", Str), ("key", Str)], Ret::Text),
    free("mirrored_fields", "(2026-07-28) The header fields that mirror `request`'s body, for a client that POSTs it itself: `mcp-protocol-version`, `mcp-method`, `mcp-name`, each where the body has its value (`mcp-name`: `params.name`, `params.uri` or `params.taskId`, by method), a value that is not plain visible ASCII written `=?base64?…?=` (SEP-2243).", &[("request", Text)], Ret::Json).shaped(&[("return", Shape::HeaderFields)]),
    free("unassociated_reply", "A client's answer to a server request that arrived outside any request of its own in flight (SEP-2260; e.g. on the standalone GET stream): the JSON-RPC error response (-32602) to send back for `elicitation/create`, `sampling/createMessage` and `roots/list`, or none for any other message (`ping` is exempt).", &[("request", Text)], Ret::OptJson),
    new("KeyRing", "A ring holding the key `id` (0–255) of `algorithm`, with exactly one of a 32-byte `secret` or a `master` secret (at least 32 uniformly random bytes) to derive it from; the key seals.", &[("id", KeyId), ("algorithm", Str), ("secret", OptBytes), ("master", OptBytes)]),
    method("KeyRing", "add", Mut, "Adds a key that opens tokens (replacing one with the same id).", &[("id", KeyId), ("algorithm", Str), ("secret", OptBytes), ("master", OptBytes)], Ret::Unit),
    method("KeyRing", "set_current", Mut, "Makes the key `id` the sealing key; false when the ring lacks it.", &[("id", KeyId)], Ret::Bool).infallible(),
    method("KeyRing", "remove", Mut, "Drops the key `id` (not the current one); false when it could not.", &[("id", KeyId)], Ret::Bool).infallible(),
    method("KeyRing", "set_max_token_bytes", Mut, "The bound on a token's length, checked before any decoding.", &[("max", Whole)], Ret::Unit).infallible(),
    method("KeyRing", "set_context", Mut, "The deployment label every token is sealed and opened under (at most 64 bytes).", &[("label", Bytes)], Ret::Unit),
    method("KeyRing", "set_seal_budget", Mut, "How many seals each key may make in this process.", &[("seals", Whole)], Ret::Unit).infallible(),
    method("KeyRing", "seals", Ref, "How many seals the key `id` has made in this process, or none when the ring lacks it.", &[("id", KeyId)], Ret::OptWhole).infallible(),
    method("KeyRing", "seal", Ref, "Seals `payload` for `binding` (`{subject | anonymous: true, protocol, method, target, params | paramsDigest}`), expiring `ttl` seconds after `now` (seconds since the epoch), with a nonce from `random`: the token.", &[("binding", Text), ("now", Whole), ("ttl", Whole), ("payload", Bytes), ("random", Random)], Ret::Text).shaped(BINDING),
    method("KeyRing", "open", Ref, "Opens `token` for `binding` at `now`, single-use under `guard` when there is one (a second use is `state-replayed`): its payload, state id and expiry.", &[("token", Bytes), ("binding", Text), ("now", Whole), ("guard", Guard)], Ret::Opened).shaped(BINDING),
    method("KeyRing", "resume_round", Ref, "A server's round with sealed state: this request's answers plus the sealed earlier ones for the deployment's `settings` (`{ttl, protocol, limits, pinAnswers, maxRounds}`) and the `call` (`{subject | anonymous: true, now}`), single-use under `guard`: `{answers, missing, ignored, data, round, stateId, expiry}`.", &[("request", Text), ("needs", Text), ("settings", Text), ("call", Text), ("guard", Guard)], Ret::Json),
    method("KeyRing", "respond_round", Ref, "The `input_required` response asking what `round` misses of `needs`, sealing what it has (and `data`) with a nonce from `random`.", &[("request", Text), ("round", Text), ("needs", Text), ("data", OptText), ("settings", Text), ("call", Text), ("random", Random)], Ret::Json),
    method("KeyRing", "start_tool_replay", Ref, "The replay of an await-style tool on `request` for the deployment's `settings` and the `call`, single-use under `guard`.", &[("request", Text), ("settings", Text), ("call", Text), ("guard", Guard)], Ret::Machine("ToolReplay")),
    method("ToolReplay", "ask", Mut, "Asks the next question, under `key` when given: its answer, or none when the tool stops here.", &[("question", Text), ("key", OptStr)], Ret::OptJson).calls("ask_keyed"),
    method("ToolReplay", "ask_elicit", Mut, "Asks the form elicitation `message`, `requested_schema` in one call: its answer, or none.", &[("message", Str), ("requested_schema", Text), ("key", OptStr)], Ret::OptJson).leaving(JS_REPLAY),
    method("ToolReplay", "arguments", Ref, "The request's `params.arguments` when an object, else `{}`; none for a bridge's replay.", &[], Ret::OptJson).infallible().leaving(JS_REPLAY),
    method("ToolReplay", "round", Ref, "How many rounds came before this request.", &[], Ret::Count).infallible(),
    method("ToolReplay", "data", Ref, "The tool's data of the last round, or none.", &[], Ret::OptJson).infallible(),
    method("ToolReplay", "state", Ref, "`{stateId, expiry}` of the state the request carried, or none.", &[], Ret::OptJson).infallible(),
    method("ToolReplay", "input_required", Ref, "The `input_required` response asking what is missing, sealed with `ring`.", &[("ring", Machine("KeyRing")), ("data", OptText), ("random", Random)], Ret::Json),
    method("ToolReplay", "input_required_kept", Ref, "`input_required` sealing again the last round's data as it came (none: none).", &[("ring", Machine("KeyRing")), ("random", Random)], Ret::Json).leaving(JS_REPLAY),
    method("ToolReplay", "complete", Ref, "The final response with `result`.", &[("result", Text)], Ret::Json),
    method("ToolReplay", "release", Mut, "Frees what the replay holds now, not when its object is collected (a finalizer runs only between event-loop turns): the last call on it. After it, asking and answering are out of turn.", &[], Ret::Unit).infallible().leaving(FREED_AT_ONCE),
    free("question_elicit", "A form elicitation asking `message`, its answer shaped by `requested_schema`: an input request.", &[("message", Str), ("requested_schema", Text)], Ret::Json),
    free("question_sample", "A sampling request with `params` (`messages`, `maxTokens`, …): an input request.", &[("params", Text)], Ret::Json),
    free("question_roots", "A request for the client's roots: an input request.", &[], Ret::Json).infallible(),
    free("error_response", "The JSON-RPC error response to the request `id` for `rule`, with `message` and `data` (the members of the error's `data`, an object): `{response, status}`, the HTTP status a transport sends it with. The options' `errorCodes` picks the codes: `released` (default) or `draft` (a refused state is -32026 `StaleState`).", &[("id", Value), ("rule", Str), ("message", Str), ("data", OptText), OPTIONS], Ret::Json).shaped(&[("id", Shape::Id)]),
    free("check_request", "What every request must pass before a server acts on it: its `_meta` (`request-meta-missing`), its HTTP header fields when given (none: it did not come over HTTP; `request-header-mismatch`), then a protocol version among `supported` (`protocol-version-unsupported`, -32022, whose data lists them).", &[("request", Text), ("headers", OptText), ("supported", Text), OPTIONS], Ret::Refusal),
    free("missing_capabilities", "The client capabilities `questions` (input requests by key) need that `request` did not declare, as one `ClientCapabilities` object, or none.", &[("request", Text), ("questions", Text), OPTIONS], Ret::OptJson).shaped(&[("questions", Shape::Questions)]),
    free("require_capabilities", "Refuses with `request-capability-missing` (-32021, its data naming them) unless `request` declared every capability `questions` need.", &[("request", Text), ("questions", Text), OPTIONS], Ret::Refusal).shaped(&[("questions", Shape::Questions)]),
    free("require_declared", "Refuses with `request-capability-missing` (-32021) unless `request` declared every capability of `required` (a `ClientCapabilities` object, such as an extension).", &[("request", Text), ("required", Text), OPTIONS], Ret::Refusal),
    free("complete", "The final response to `request` with `result`: `resultType: \"complete\"`, `ttlMs: 0` when `request` is a retry (its result must not be cached), and for a cacheable result that names no caching hints the safe ones its schema requires.", &[("request", Text), ("result", Text), OPTIONS], Ret::Json),
    free("discover", "The answer to the `server/discover` `request` from what the server declares: `server` is `{capabilities, serverInfo, instructions, supportedVersions}`, only `capabilities` required (absent versions: the protocol's name), completed with the caching hints its schema requires. A member of the wrong shape, or one not named here, is `usage-invalid-argument`.", &[("request", Text), ("server", Text), OPTIONS], Ret::Json),
    method("ToolReplay", "run", Mut, "The run of the tool over this replay (`ToolRun`), which takes what the replay holds: this one is released.", &[], Ret::Machine("ToolRun")).infallible(),
    method("ToolRun", "ask", Mut, "Asks the next question, under `key` when given: its answer, or none (the tool stops here). A refusal fails the ask and is recorded: the run ends with it.", &[("question", Text), ("key", OptStr)], Ret::OptJson),
    method("ToolRun", "ask_elicit", Mut, "Asks the form elicitation `message`, `requested_schema` in one call: its answer, or none. A schema that is no JSON fails, unrecorded: nothing was asked.", &[("message", Str), ("requested_schema", Text), ("key", OptStr)], Ret::OptJson),
    method("ToolRun", "arguments", Ref, "The request's `params.arguments` when an object, else `{}`; none for a bridge's run.", &[], Ret::OptJson).infallible(),
    method("ToolRun", "round", Ref, "How many rounds came before this request.", &[], Ret::Count).infallible(),
    method("ToolRun", "state", Ref, "`{stateId, expiry}` of the state the request carried, or none.", &[], Ret::OptJson).infallible(),
    method("ToolRun", "data", Ref, "The data the next round gets: what the tool set, else the last round's, or none.", &[], Ret::OptJson).infallible(),
    method("ToolRun", "set_data", Mut, "The tool keeps `data` (none: nothing) for the next round, in place of the last round's.", &[("data", OptText)], Ret::Unit).infallible(),
    method("ToolRun", "stop", Mut, "The host stopped the tool (at its first unanswered ask): every later ask asks nothing and gives none.", &[], Ret::Unit).infallible(),
    method("ToolRun", "respond", Mut, "Ends the run: the tool returned `result`, or stopped at an unanswered ask (none). The response to send, sealed with `ring`: `input_required` when an ask went unanswered (with the data set, else the last round's as it came), else the `complete` response; fails with the refusal recorded (or met here: the round cap).", &[("ring", Machine("KeyRing")), ("result", OptText), ("random", Random)], Ret::Json),
    method("ToolRun", "refused", Ref, "Ends the run when the tool raised its own error: the refusal recorded at an ask, which wins over it; none: the tool's error is the host's to raise.", &[], Ret::Refusal),
    method("ToolRun", "refusal_response", Ref, "The refusal the run ended with, as the JSON-RPC error response to its request with its HTTP status (`{response, status}`, the options' `errorCodes`), or none.", &[OPTIONS], Ret::OptJson).infallible(),
    method("ToolRun", "release", Mut, "Frees what the run holds now, not when its object is collected: the last call on it.", &[], Ret::Unit).infallible().leaving(RUN_FREED_AT_ONCE),
    free("task_created", "The response to `request` that starts the task of `record` (a task record: `taskId`, `status`, `createdAt`, `lastUpdatedAt`, `ttlMs`, …).", &[("request", Text), ("record", Text), OPTIONS], Ret::Json).shaped(&[("record", Shape::TaskRecord)]),
    free("task_get_response", "The complete answer to the `tasks/get` `request` for the task of `record`: the fields its status carries.", &[("request", Text), ("record", Text), OPTIONS], Ret::Json).shaped(&[("record", Shape::TaskRecord)]),
    new("ToolBridge", "A bridge for `request`, its event ids under `key`, under `config` (`{maxRounds, roundTimeoutMs, limits}`; none: the defaults).", &[("request", Text), ("key", Str), ("config", OrEmpty)]).shaped(&[("config", Shape::BridgeConfig)]),
    method("ToolBridge", "replay", Ref, "A replay of the tool from the answers collected so far.", &[], Ret::Machine("ToolReplay")).infallible(),
    method("ToolBridge", "ask", Mut, "Sends what `replay` misses as server requests on the stream.", &[("replay", Machine("ToolReplay")), NOW], Ret::Unit),
    method("ToolBridge", "complete", Mut, "The tool completed with `result`.", &[("result", Text)], Ret::Unit),
    method("ToolBridge", "refuse", Mut, "The tool's run was refused: `rule`, `message`, `data` (the members of the error's `data`, an object).", &[("rule", Str), ("message", Str), ("data", OptText)], Ret::Unit),
    method("ToolBridge", "finish", Mut, "Ends the round as `run` ended: its refusal ends the call with the error; else what it misses goes on the stream (past the round cap the call ends with that error); else `result` completes the call.", &[("run", Machine("ToolRun")), ("result", OptText), NOW], Ret::Unit),
    method("ToolBridge", "handle_answer", Mut, "A response the client POSTed; true when the round is complete.", &[("response", Text), NOW], Ret::Bool),
    method("ToolBridge", "handle_timeout", Mut, "The round's deadline may have passed.", &[NOW], Ret::Unit).infallible(),
    method("ToolBridge", "poll_write", Mut, "The next text to write on the stream, or none.", &[], Ret::OptText).infallible(),
    method("ToolBridge", "poll_timeout", Ref, "When (ms) to call `handle_timeout`, or none.", &[], Ret::OptMillis).infallible(),
    method("ToolBridge", "is_done", Ref, "Whether the final response was written.", &[], Ret::Bool).infallible(),
    method("ToolBridge", "pending", Ref, "The ids of the server requests waiting for an answer.", &[], Ret::Texts).infallible(),
];

/// The machine named `name`.
pub fn machine(name: &str) -> Option<&'static Machine> {
    MACHINES.iter().find(|m| m.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every method belongs to a declared machine, every machine-typed
    /// argument or result names one (or the hand-written `KeyRing`), and no
    /// name is declared twice.
    #[test]
    fn rows_name_what_exists_once() {
        let mut seen = alloc::vec::Vec::new();
        for e in EXPORTS {
            if let Some(m) = e.machine {
                assert!(machine(m).is_some(), "{}: no machine {m}", e.name);
            }
            assert_eq!(e.machine.is_none(), e.receiver == Receiver::Free, "{}", e.name);
            if e.receiver == Receiver::Static {
                assert_eq!(e.ret, Ret::Machine(e.machine.unwrap_or_default()), "{} makes its machine", e.name);
            }
            for (_, arg) in e.params {
                if let Arg::Machine(m) = arg {
                    assert!(machine(m).is_some() || *m == "KeyRing", "{}: no machine {m}", e.name);
                }
            }
            assert!(!seen.contains(&(e.machine, e.name)), "{} twice", e.name);
            seen.push((e.machine, e.name));
        }
    }
}
