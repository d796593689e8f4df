//! `bindings-node/lib/exports.mjs`: the rows of the JavaScript API that only
//! convert, written from the one table of what the bindings export
//! (`mrtr_facade::exports`). Each function or method turns its arguments
//! into what the backend takes (the conversions of `lib/kernel.mjs`), calls
//! the backend (napi or wasm-bindgen, whichever `lib/backend.mjs` loads) and
//! turns the answer into a value: JSON parsed, none as `null`, a refusal
//! thrown with its `data`.
//!
//! Two idioms follow from the rows' names, so that they hold for every
//! machine alike: a `poll_x` method that gives values until none gets an
//! iterator `xs()` draining it, and an `is_x` method a getter `x`. What is
//! the API's own (the packed `classify`, the key ring and its guard, the
//! await-style tools, the drivers) stays written by hand in `lib/api.mjs`.

use super::{camel, machine_in};
use mrtr_facade::exports::{Arg, Binding, Export, Machine, Receiver, Ret, Shape, EXPORTS, MACHINES};
use mrtr_facade::records::{Body, Holds, Member, Presence, RECORDS};
use mrtr_facade::settings::{settings, SETTINGS};
use std::fmt::Write;
use std::path::PathBuf;

/// `(path, contents)` of the generated file.
pub fn outputs() -> Vec<(PathBuf, String)> {
    vec![
        (PathBuf::from("bindings-node/lib/exports.mjs"), file()),
        (PathBuf::from("bindings-node/lib/exports.d.ts"), declarations()),
    ]
}

/// The free functions `lib/api.mjs` writes itself, each for its idiom.
const HAND_FREE: &[(&str, &str)] = &[
    ("catalogue", "read once, into the tables and the error classes"),
    ("classify", "the packed answer unpacked without JSON"),
    ("binding_for", "the subject as {subject} or {anonymous: true}, the digest as bytes"),
    ("read_http_request", "the body as bytes, text or a JSON value"),
    ("check_request", "the header fields among the options"),
    ("error_response", "takes an MrtrError"),
    ("question_elicit", "the questions of a tool's context (ctx.q)"),
    ("question_sample", "the questions of a tool's context (ctx.q)"),
    ("question_roots", "the questions of a tool's context (ctx.q)"),
];

/// The machines `lib/api.mjs` drives itself: the key ring (its guard, its keys as objects) and,
/// under its await-style tools, the replay, the run and the bridge.
const HAND_MACHINES: &[&str] = &["KeyRing", "ToolReplay", "ToolRun", "ToolBridge"];

/// Whether `lib/api.mjs` writes the row (or its machine) by hand.
pub fn hand_written(e: &Export) -> bool {
    match e.machine {
        None => HAND_FREE.iter().any(|(n, _)| *n == e.name),
        Some(m) => HAND_MACHINES.contains(&m),
    }
}

/// Whether one of the two JavaScript backends may lack the row: the API checks before calling it.
fn backend_may_lack(left_out: &[(Binding, &str)]) -> bool {
    left_out.iter().any(|(b, _)| matches!(b, Binding::Napi | Binding::Wasm))
}

/// A parameter's name in JavaScript: its camelCase, but where strict mode reserves it.
fn js_name(name: &str) -> String {
    match name {
        "arguments" => "args".into(),
        _ => camel(name),
    }
}

/// A parameter as the backend takes it, from the JavaScript value of the same name.
fn arg(name: &str, arg: Arg) -> String {
    let (js, what) = (js_name(name), camel(name));
    match arg {
        Arg::OptBytes | Arg::Guard => unreachable!("the key ring's rows: this binding writes its own"),
        Arg::Text => format!("k.text({js}, '{what}')"),
        Arg::OptText | Arg::OrEmpty => format!("k.optional({js}, k.text, '{what}')"),
        Arg::Value => format!("k.json({js}, '{what}')"),
        Arg::OptValue => format!("k.optional({js}, k.json, '{what}')"),
        Arg::Headers => format!("k.headerFields({js})"),
        Arg::Bytes => format!("k.chunk({js}, '{what}')"),
        Arg::Options => format!("k.settings({js})"),
        Arg::Str => format!("k.string({js}, '{what}')"),
        Arg::OptStr => format!("k.optional({js}, k.string, '{what}')"),
        Arg::Bool => format!("k.boolean({js}, '{what}')"),
        Arg::Whole | Arg::KeyId | Arg::Status | Arg::Handle => format!("k.whole({js}, '{what}')"),
        Arg::Random => "k.entropy()".into(),
        Arg::Machine(m) => panic!("{name}: a row reading a {m} is written by hand in lib/api.mjs"),
    }
}

/// The JavaScript parameters of a row (the randomness is the API's own, never a parameter).
fn params(e: &Export) -> String {
    let names: Vec<String> = e.params.iter().filter(|(_, a)| *a != Arg::Random).map(|(n, _)| js_name(n)).collect();
    names.join(", ")
}

/// The statements of a row: its arguments converted, the backend called through `target`, the answer made a value.
fn body(e: &Export, target: &str) -> String {
    let args: Vec<String> = e.params.iter().map(|(n, a)| arg(n, *a)).collect();
    let mut out = String::new();
    let spread = match args.len() {
        0 => String::new(),
        _ => {
            let _ = writeln!(out, "const input = [{}]", args.join(", "));
            "...input".into()
        }
    };
    let call = format!("k.call(() => {target}({spread}))");
    let line = match e.ret {
        Ret::OptWhole | Ret::Opened => unreachable!("the key ring's rows: this binding writes its own"),
        Ret::Unit => call,
        Ret::Json => format!("return JSON.parse({call})"),
        Ret::OptJson | Ret::NextOrError => format!("return k.parsed({call})"),
        Ret::OptText | Ret::OptMillis => format!("return {call} ?? null"),
        Ret::Refusal => format!("k.refused({call})"),
        Ret::Machine(_) => format!("return k.adopt(this, {call})"),
        Ret::Text | Ret::Name | Ret::Texts | Ret::Bool | Ret::Count | Ret::Handle | Ret::Bytes => {
            format!("return {call}")
        }
    };
    out.push_str(&line);
    out
}

fn doc(indent: &str, text: &str) -> String {
    let mut out = format!("{indent}/**\n");
    for line in super::doc_lines("", &js_names(text)).lines() {
        let _ = writeln!(out, "{indent} *{}", line.trim_start_matches("///"));
    }
    out + &format!("{indent} */\n")
}

/// `text` with every name of a parameter or method of the table, quoted in backticks, as JavaScript spells it.
fn js_names(text: &str) -> String {
    let mut out = text.to_string();
    let params = EXPORTS.iter().flat_map(|e| e.params.iter().map(|(n, _)| *n));
    let methods = EXPORTS.iter().filter(|e| e.machine.is_some()).map(|e| e.name);
    for name in params.chain(methods).filter(|n| n.contains('_') && *n != "input_required") {
        out = out.replace(&format!("`{name}`"), &format!("`{}`", camel(name)));
    }
    out
}

fn indented(indent: &str, text: &str) -> String {
    text.lines().map(|l| format!("{indent}{l}\n")).collect()
}

fn free(out: &mut String, e: &Export) {
    let js = camel(e.name);
    out.push('\n');
    out.push_str(&doc("", e.doc));
    let _ = writeln!(out, "export function {js}({}) {{", params(e));
    if backend_may_lack(e.left_out) {
        let _ = writeln!(out, "  k.lacks(native.{js}, '{js}')");
    }
    out.push_str(&indented("  ", &body(e, &format!("native.{js}"))));
    out.push_str("}\n");
}

fn method(out: &mut String, m: &Machine, e: &Export) {
    let js = camel(e.name);
    out.push('\n');
    out.push_str(&doc("  ", e.doc));
    let lacks = if backend_may_lack(m.left_out) {
        format!("    k.lacks(native.{}, '{}')\n", m.name, m.name)
    } else {
        String::new()
    };
    match e.receiver {
        Receiver::New => {
            let _ = writeln!(out, "  constructor({}) {{", params(e));
            out.push_str(&lacks);
            let made =
                body(e, &format!("new native.{}", m.name)).replace("return k.adopt(this, ", "k.NATIVE.set(this, ");
            out.push_str(&indented("    ", &made));
        }
        Receiver::Static => {
            let _ = writeln!(out, "  static {js}({}) {{", params(e));
            out.push_str(&lacks);
            out.push_str(&indented("    ", &body(e, &format!("native.{}.{}", m.name, js))));
        }
        Receiver::Ref | Receiver::Mut => {
            let _ = writeln!(out, "  {js}({}) {{", params(e));
            out.push_str(&indented("    ", &body(e, &format!("k.NATIVE.get(this).{js}"))));
        }
        Receiver::Free => unreachable!("a machine's row"),
    }
    out.push_str("  }\n");
    idioms(out, e);
}

/// The idioms a row's name implies: `poll_x` → the iterator `xs()`; `is_x` → the getter `x`.
fn idioms(out: &mut String, e: &Export) {
    let polls = matches!(e.ret, Ret::OptJson | Ret::OptText | Ret::NextOrError);
    if let Some(what) = e.name.strip_prefix("poll_").filter(|_| polls && e.params.is_empty()) {
        let (js, all) = (camel(e.name), format!("{}s", camel(what)));
        let _ = write!(
            out,
            "  /** Drains `{js}()`. */\n  *{all}() {{\n    for (let v = this.{js}(); v !== null; v = this.{js}()) yield v\n  }}\n"
        );
    }
    if let Some(what) = e.name.strip_prefix("is_").filter(|_| e.ret == Ret::Bool && e.params.is_empty()) {
        let js = camel(e.name);
        let _ = write!(out, "  /** `{js}()`. */\n  get {}() {{\n    return this.{js}()\n  }}\n", camel(what));
    }
}

fn machine(out: &mut String, m: &Machine) {
    out.push('\n');
    out.push_str(&doc("", m.doc));
    let _ = writeln!(out, "export class {} {{", m.name);
    // The table puts a machine's constructor first, its methods after in their drain order.
    for e in EXPORTS.iter().filter(|e| e.machine == Some(m.name) && e.in_binding(Binding::Napi)) {
        method(out, m, e);
    }
    out.push_str("}\n");
}

fn file() -> String {
    let mut out = format!(
        "// {}\n\
         // The rows of the JavaScript API that only convert (conformance/src/gen/exports/jsapi.rs):\n\
         // arguments into what the backend takes, its answer into a value. The idiom is in api.mjs.\n\
         import native from './backend.mjs'\n\
         import * as k from './kernel.mjs'\n",
        crate::gen::MARK
    );
    for e in EXPORTS.iter().filter(|e| e.receiver == Receiver::Free && !hand_written(e)) {
        free(&mut out, e);
    }
    for m in MACHINES.iter().filter(|m| !HAND_MACHINES.contains(&m.name) && machine_in(m, Binding::Napi)) {
        machine(&mut out, m);
    }
    out
}

/// The TypeScript type of a JSON argument of shape `s` (a value, or its JSON text where `text`).
fn ts_input(s: Shape, text: bool) -> &'static str {
    match (s, text) {
        (Shape::Transcript, _) => "JsonInput<TranscriptEntry[]>",
        (Shape::TranscriptEntry, _) => "JsonInput<TranscriptEntry>",
        (Shape::SseEvent, _) => "JsonInput<SseEvent>",
        (Shape::Questions, _) => "JsonInput<AskedQuestions>",
        (Shape::TaskRecord, _) => "JsonInput<TaskRecord>",
        (Shape::Messages, _) => "JsonInput<JsonObject[]>",
        (Shape::CallConfig, _) => "HttpCallConfig",
        (Shape::OperationConfig, _) => "OperationConfig",
        (Shape::SessionConfig, _) => "SessionConfig",
        (Shape::CheckConfig, _) => "CheckConfig",
        (Shape::ClientConfig, _) => "ClientConfig",
        (Shape::Id, _) => "Id",
        (Shape::RequestState, _) => "string",
        (Shape::TransportMode, _) => "TransportMode",
        (Shape::TaskStatus, _) => "TaskStatusName",
        (Shape::Handle, _) => "Handle",
        (_, true) => "JsonInput",
        (_, false) => "Json",
    }
}

/// The TypeScript type of an answer of shape `s`.
fn ts_output(s: Shape) -> &'static str {
    match s {
        Shape::Violations => "Violation[]",
        Shape::Resumed => "Resumed",
        Shape::TaskStatus => "TaskStatusName",
        Shape::Handle => "Handle",
        Shape::ClientEvent => "ClientEvent",
        Shape::SseEvent => "SseEvent",
        Shape::HeaderFields => "HeaderFields",
        Shape::HttpRequest => "HttpRequest",
        Shape::HttpCallEvent => "HttpCallEvent",
        Shape::OperationEvent => "OperationEvent",
        Shape::Incoming => "Incoming",
        Shape::TokenInfo => "TokenInfo",
        Shape::Digest => "PlatformBytes",
        Shape::Exchanges => "number[]",
        _ => "JsonObject",
    }
}

/// A parameter's declaration: `name: type` or `name?: type`, optional where every later one is.
fn ts_param(e: &Export, i: usize) -> Option<String> {
    let (name, arg) = e.params[i];
    let shape = e.shape(name);
    let (ty, optional) = match arg {
        Arg::OptBytes | Arg::Guard => unreachable!("the key ring's rows: this binding writes its own"),
        Arg::Random => return None,
        Arg::Text => (ts_input(shape, true).to_string(), false),
        Arg::OptText | Arg::OrEmpty => (format!("{} | null", ts_input(shape, true)), true),
        Arg::Value => (ts_input(shape, false).to_string(), false),
        Arg::OptValue => (format!("{} | null", ts_input(shape, false)), true),
        Arg::Headers => ("HeaderFields | null".into(), true),
        Arg::Bytes => ("Chunk".into(), false),
        Arg::Options => (if shape == Shape::Object { "Options" } else { ts_input(shape, true) }.to_string(), true),
        Arg::Str => (if shape == Shape::Object { "string" } else { ts_input(shape, false) }.to_string(), false),
        Arg::OptStr => ("string | null".into(), true),
        Arg::Bool => ("boolean".into(), false),
        Arg::Whole | Arg::KeyId | Arg::Status => ("number".into(), false),
        Arg::Handle => ("Handle".into(), false),
        Arg::Machine(m) => (m.to_string(), false),
    };
    let later_required = e.params[i + 1..].iter().any(|(_, a)| {
        !matches!(
            a,
            Arg::Random | Arg::OptText | Arg::OrEmpty | Arg::OptValue | Arg::Headers | Arg::Options | Arg::OptStr
        )
    });
    Some(match (optional, later_required) {
        (true, false) => format!("{}?: {ty}", js_name(name)),
        (true, true) => format!("{}: {ty} | undefined", js_name(name)),
        (false, _) => format!("{}: {ty}", js_name(name)),
    })
}

/// The TypeScript type a row answers.
fn ts_return(e: &Export) -> String {
    let shape = e.shape("return");
    match e.ret {
        Ret::OptWhole | Ret::Opened => unreachable!("the key ring's rows: this binding writes its own"),
        Ret::Unit | Ret::Refusal => "void".into(),
        Ret::Text => "string".into(),
        Ret::Name => ts_output(shape).into(),
        Ret::OptText => "string | null".into(),
        Ret::Json => ts_output(shape).into(),
        Ret::OptJson | Ret::NextOrError => format!("{} | null", ts_output(shape)),
        Ret::Texts => "string[]".into(),
        Ret::Bool => "boolean".into(),
        Ret::OptMillis => "number | null".into(),
        Ret::Count => "number".into(),
        Ret::Handle => "Handle".into(),
        Ret::Bytes => "PlatformBytes".into(),
        Ret::Machine(m) => m.into(),
    }
}

fn ts_params(e: &Export) -> String {
    (0..e.params.len()).filter_map(|i| ts_param(e, i)).collect::<Vec<_>>().join(", ")
}

/// The declaration of a machine's row, with the idioms its name implies.
fn ts_member(out: &mut String, m: &Machine, e: &Export) {
    let js = camel(e.name);
    out.push_str(&doc("  ", e.doc));
    match e.receiver {
        Receiver::New => {
            let _ = writeln!(out, "  constructor({})", ts_params(e));
        }
        Receiver::Static => {
            let _ = writeln!(out, "  static {js}({}): {}", ts_params(e), m.name);
        }
        _ => {
            let _ = writeln!(out, "  {js}({}): {}", ts_params(e), ts_return(e));
        }
    }
    let polls = matches!(e.ret, Ret::OptJson | Ret::OptText | Ret::NextOrError);
    if let Some(what) = e.name.strip_prefix("poll_").filter(|_| polls && e.params.is_empty()) {
        let item = ts_return(e).trim_end_matches(" | null").to_string();
        let _ = writeln!(out, "  /** Drains `{js}()`. */\n  {}s(): Generator<{item}, void, undefined>", camel(what));
    }
    if let Some(what) = e.name.strip_prefix("is_").filter(|_| e.ret == Ret::Bool && e.params.is_empty()) {
        let _ = writeln!(out, "  /** `{js}()`. */\n  readonly {}: boolean", camel(what));
    }
}

/// The interfaces of the settings objects (`mrtr_facade::settings`).
fn settings_interfaces(out: &mut String) {
    for s in SETTINGS {
        out.push('\n');
        out.push_str(&doc("", s.doc));
        let extends = s.extends.and_then(settings).map_or(String::new(), |b| format!("extends {} ", b.name));
        let _ = writeln!(out, "export interface {} {extends}{{", s.name);
        for (f, line) in s.fields.iter().zip(ts_members(s.fields)) {
            out.push_str(&doc("  ", f.doc));
            let _ = writeln!(out, "  {line}");
        }
        out.push_str("}\n");
    }
}

/// The TypeScript type of a member of a record or a settings object.
fn ts_holds(holds: Holds) -> &'static str {
    use Holds as H;
    match holds {
        H::Text => "string",
        H::Mode => "TransportMode",
        H::Transport => "'sep-1858' | 'sep-1335'",
        H::ErrorCodes => "'released' | 'draft'",
        H::Protocol => "ProtocolName",
        H::Limits => "Limits",
        H::Object => "JsonObject",
        H::Whole | H::Count => "number",
        H::Flag => "boolean",
        H::Handle => "Handle",
        H::Rule => "RuleId",
        H::Method => "'POST' | 'GET'",
        H::Headers => "HeaderFields",
        H::Message => "JsonObject",
        H::Messages => "JsonObject[]",
        H::Questions => "Record<string, Question>",
        H::Names => "string[]",
        H::Json => "Json",
        H::Digest => "string",
    }
}

fn ts_members(members: &[Member]) -> Vec<String> {
    members
        .iter()
        .map(|m| match m.presence {
            Presence::Required => format!("{}: {}", m.name, ts_holds(m.holds)),
            Presence::Optional => format!("{}?: {}", m.name, ts_holds(m.holds)),
            Presence::Nullable => format!("{}: {} | null", m.name, ts_holds(m.holds)),
        })
        .collect()
}

/// The types of the records the façade writes (`mrtr_facade::records`).
fn record_types(out: &mut String) {
    for r in RECORDS {
        out.push('\n');
        out.push_str(&doc("", r.doc));
        match r.body {
            Body::Object(members) => {
                let _ = writeln!(out, "export interface {} {{", r.name);
                for (m, line) in members.iter().zip(ts_members(members)) {
                    out.push_str(&doc("  ", m.doc));
                    let _ = writeln!(out, "  {line}");
                }
                out.push_str("}\n");
            }
            Body::Union(variants) => {
                let _ = writeln!(out, "export type {} =", r.name);
                for v in variants {
                    out.push_str(&doc("  ", v.doc));
                    let members = std::iter::once(format!("type: '{}'", v.tag)).chain(ts_members(v.members));
                    let _ = writeln!(out, "  | {{ {} }}", members.collect::<Vec<_>>().join("; "));
                }
            }
        }
    }
}

/// `bindings-node/lib/exports.d.ts`: the declarations of `lib/exports.mjs`, naming index.d.ts's types.
fn declarations() -> String {
    let mut body = String::new();
    settings_interfaces(&mut body);
    record_types(&mut body);
    for e in EXPORTS.iter().filter(|e| e.receiver == Receiver::Free && !hand_written(e)) {
        body.push('\n');
        body.push_str(&doc("", e.doc));
        let _ = writeln!(body, "export declare function {}({}): {}", camel(e.name), ts_params(e), ts_return(e));
    }
    for m in MACHINES.iter().filter(|m| !HAND_MACHINES.contains(&m.name) && machine_in(m, Binding::Napi)) {
        body.push('\n');
        body.push_str(&doc("", m.doc));
        let _ = writeln!(body, "export declare class {} {{", m.name);
        for e in EXPORTS.iter().filter(|e| e.machine == Some(m.name) && e.in_binding(Binding::Napi)) {
            ts_member(&mut body, m, e);
        }
        body.push_str("}\n");
    }
    // Import exactly the types the declarations name.
    // The settings' interfaces and the records' types are declared here; the other types a
    // declaration names, imported.
    let known = [
        "AskedQuestions",
        "Chunk",
        "Handle",
        "HeaderFields",
        "Id",
        "Json",
        "JsonInput",
        "JsonObject",
        "PlatformBytes",
        "ProtocolName",
        "Question",
        "RuleId",
        "TaskRecord",
        "TaskStatusName",
        "TokenInfo",
        "TranscriptEntry",
        "TransportMode",
    ];
    let used: Vec<&str> = known.iter().copied().filter(|t| mentions(&body, t)).collect();
    format!(
        "// {}\n\
         // The declarations of lib/exports.mjs (conformance/src/gen/exports/jsapi.rs); the types\n\
         // they name are declared in index.d.ts.\n\
         import type {{ {} }} from '../index.js'\n{body}",
        crate::gen::MARK,
        used.join(", ")
    )
}

/// Whether `text` names the type `ty` (as a whole word).
fn mentions(text: &str, ty: &str) -> bool {
    text.match_indices(ty).any(|(i, _)| {
        let before = text[..i].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_');
        let after = text[i + ty.len()..].chars().next().is_some_and(|c| c.is_alphanumeric() || c == '_');
        !before && !after
    })
}
