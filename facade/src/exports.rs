//! What the bindings export, declared once: on the function itself.
//!
//! Every function and machine of the façade that a binding exposes carries
//! `#[export]` (`mrtr-facade-macros`), and its row of this table is read from
//! it: its name, its parameters' names and kinds (from the types written in
//! its signature, [`crate::kinds`]), what it returns, whether that is a
//! `Result`, its doc comment's first paragraph, and what only the attribute
//! can say — a name apart from the function's, the shapes of JSON
//! parameters, the bindings that leave it out (with the reason), a refusal
//! handed back. The build script (`facade/build.rs`) writes [`EXPORTS`] and
//! [`MACHINES`] from the sources with the reader the attribute uses itself,
//! so a row is never written a second time, and a signature no binding can
//! carry fails the build where it is written.
//!
//! `mrtr-gen` writes each binding's export code from these rows, and
//! `scripts/export-gaps` holds every binding to them: an export a binding
//! neither has nor lists here is a red CI run. The table says *what*
//! crosses; the kinds say *how* in each language (an [`Arg::Text`] is a
//! `string | Uint8Array` in JavaScript, a `str`/`bytes` in Python, a pointer
//! and a length in C). Every machine is generated, the key ring with its
//! replay guard included (a kind, [`Arg::Guard`], that each binding carries
//! in its idiom: a callable, a function pointer, a callback interface). What
//! is the idiom of one language alone (coroutines over `ToolRun`, error
//! classes, an async driver) stays written by hand in that binding.

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
    /// The Python package (`bindings-python`, pyo3): generated rows, its coroutines in Python.
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

/// Why the wasm module leaves the client operation out.
pub(crate) const WASM_SIZE: &[(Binding, &str)] = &[(
    Binding::Wasm,
    "the wasm artifact is at its size bound (bindings-wasm/README.md, \"What this package leaves out\"); issue #27 works on the size",
)];

/// Why the bindings whose objects are freed when their owner lets go leave `ToolReplay.release` out.
pub(crate) const FREED_AT_ONCE: &[(Binding, &str)] = &[
    (Binding::C, "the host frees the replay itself, when it chooses: mrtr_tool_replay_free"),
    (Binding::Uniffi, "the object is freed when its last reference goes: Kotlin's `close()` or `use`, Swift's deinit"),
    (Binding::Python, "CPython frees the replay when its last reference goes, at once"),
];

/// Why the bindings whose objects are freed when their owner lets go leave `ToolRun.release` out.
pub(crate) const RUN_FREED_AT_ONCE: &[(Binding, &str)] = &[
    (Binding::C, "the host frees the run itself, when it chooses: mrtr_tool_run_free"),
    (Binding::Uniffi, "the object is freed when its last reference goes: Kotlin's `close()` or `use`, Swift's deinit"),
    (Binding::Python, "CPython frees the run when its last reference goes, at once"),
];

// The rows, `EXPORTS` and `MACHINES`: written by build.rs from the `#[export]` items of the sources.
include!(concat!(env!("OUT_DIR"), "/exports_table.rs"));

/// The machine named `name`.
pub fn machine(name: &str) -> Option<&'static Machine> {
    MACHINES.iter().find(|m| m.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every method belongs to a declared machine, every machine-typed
    /// argument or result names one, and no
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
