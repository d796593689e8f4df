//! `bindings-ffi/src/exports.rs`: the C ABI of the table's rows that the C
//! binding does not write by hand, in its conventions (the header says them):
//! every function returns an `mrtr_status`; JSON text and names come in as a
//! pointer and a length; the options as a protocol number and an optional
//! `mrtr_limits`; results go out through pointers, last: JSON text in an
//! `mrtr_buf` (`{NULL, 0}`: none), numbers and yes/no by value, a machine as
//! an opaque handle, freed with its `mrtr_<machine>_free`.
//!
//! The key ring's rows take a replay guard as a function pointer and its
//! `void *user` (`mrtr_first_use`), a key's secret as a pointer and a length
//! (NULL: none), and give an opened token as an `mrtr_opened`. The options
//! of the checker and the client machine (a round bound, a transport) are
//! the options JSON. The functions written by hand (typed classification,
//! a transcript as an array or JSON Lines) are listed here with their C
//! names, so that every row has exactly one C export.

use super::{doc_lines, left_out_lines, machine_in, rustfmt, snake};
use mrtr_facade::exports::{Arg, Binding, Export, Receiver, Ret, Shape, EXPORTS, MACHINES};
use std::fmt::Write;
use std::path::PathBuf;

/// `(path, contents)` of the generated file.
pub fn outputs() -> Vec<(PathBuf, String)> {
    vec![(PathBuf::from("bindings-ffi/src/exports.rs"), file())]
}

/// Methods of generated machines the binding writes by hand.
const HAND_METHODS: &[(&str, &str)] = &[("SseDecoder", "new")];

/// The free functions the C binding writes by hand, with their C names.
const HAND_FREE: &[(&str, &str)] =
    &[("classify", "mrtr_classify_json"), ("check", "mrtr_check"), ("task_update", "mrtr_task_update")];

/// Methods of hand-written machines whose C name is not `mrtr_<machine>_<name>`.
const RENAMED: &[(&str, &str, &str)] = &[("Checker", "handle", "mrtr_checker_handle_entry")];

/// The C function of a row.
pub fn c_name(e: &Export) -> String {
    if let Some((_, _, name)) = RENAMED.iter().find(|(m, n, _)| Some(*m) == e.machine && *n == e.name) {
        return (*name).into();
    }
    match e.machine {
        None => HAND_FREE.iter().find(|(n, _)| *n == e.name).map_or(format!("mrtr_{}", e.name), |(_, c)| (*c).into()),
        Some(m) => format!("mrtr_{}_{}", handle_type(m), e.name),
    }
}

/// Whether the C binding writes the row by hand.
pub fn hand_written(e: &Export) -> bool {
    match e.machine {
        None => HAND_FREE.iter().any(|(n, _)| *n == e.name),
        Some(m) => HAND_METHODS.contains(&(m, e.name)),
    }
}

/// The C name of a parameter (times are milliseconds: the name says so; the
/// key ring's are seconds, as its tokens' expiry).
fn param_name(e: &Export, name: &str) -> String {
    if name == "now" && e.machine != Some("KeyRing") {
        "now_ms".into()
    } else {
        name.into()
    }
}

/// Whether the options of a row cross as the options JSON (the checker's and
/// the client's, whose round bound and transport the protocol number and the
/// limits cannot say), rather than a protocol number and an `mrtr_limits`.
fn json_options(e: &Export, name: &str) -> bool {
    matches!(e.shape(name), Shape::CheckConfig | Shape::ClientConfig)
}

/// The Rust parameters of an argument in the C signature.
fn params(name: &str, arg: Arg) -> Vec<String> {
    match arg {
        Arg::Guard => vec!["first_use: mrtr_first_use".into(), "user: *mut c_void".into()],
        Arg::Text
        | Arg::Value
        | Arg::OptText
        | Arg::OptValue
        | Arg::OrEmpty
        | Arg::Headers
        | Arg::Str
        | Arg::OptStr => {
            vec![format!("{name}: *const c_char"), format!("{name}_len: usize")]
        }
        Arg::Bytes | Arg::OptBytes => vec![format!("{name}: *const u8"), format!("{name}_len: usize")],
        // The C binding draws nonces from the operating system, as `mrtr_keyring_seal`.
        Arg::Random => vec![],
        Arg::Options => vec!["protocol: mrtr_protocol".into(), "limits: *const mrtr_limits".into()],
        Arg::Bool => vec![format!("{name}: bool")],
        Arg::KeyId => vec![format!("{name}: u8")],
        Arg::Whole | Arg::Handle => vec![format!("{name}: u64")],
        Arg::Status => vec![format!("{name}: u16")],
        Arg::Machine(m) => vec![format!("{name}: *const mrtr_{}", handle_type(m))],
    }
}

/// The C type name of a machine's handle (the key ring's is `mrtr_keyring`).
fn handle_type(machine: &str) -> String {
    if machine == "KeyRing" {
        "keyring".into()
    } else {
        snake(machine)
    }
}

/// An argument read from the caller's pointers (inside `unsafe`), and how the
/// façade call then uses the binding.
fn read(name: &str, arg: Arg) -> (Option<String>, String) {
    let q = format!("\"{name}\"");
    match arg {
        Arg::Guard => (None, "CGuard::of(first_use, user).as_mut().map(CGuard::as_dyn)".into()),
        Arg::KeyId => (None, format!("u64::from({name})")),
        Arg::Text | Arg::Value => (Some(format!("args::required({name}, {name}_len, {q})?")), name.into()),
        Arg::OptText | Arg::OptValue | Arg::OptBytes => {
            (Some(format!("args::optional({name}, {name}_len, {q})?")), name.into())
        }
        Arg::OrEmpty | Arg::Headers | Arg::Bytes => {
            (Some(format!("args::bytes({name}, {name}_len, {q})?")), name.into())
        }
        Arg::Str => (Some(format!("args::text({name}, {name}_len, {q})?")), name.into()),
        Arg::OptStr => (Some(format!("args::optional_text({name}, {name}_len, {q})?")), name.into()),
        Arg::Random => (None, "Randomness::Os".into()),
        Arg::Options => (Some("options(protocol, limits, None)?".into()), "&options".into()),
        Arg::Machine(_) => (Some(format!("get({name}, {q})?")), format!("&{name}.0")),
        Arg::Bool | Arg::Whole | Arg::Handle | Arg::Status => (None, name.into()),
    }
}

/// The out parameters of a result, last in the signature.
fn outs(ret: Ret) -> Vec<String> {
    match ret {
        Ret::Opened => vec!["out: *mut mrtr_opened".into()],
        Ret::OptWhole => vec!["out_set: *mut bool".into(), "out: *mut u64".into()],
        Ret::Unit => vec![],
        Ret::Text
        | Ret::Json
        | Ret::OptText
        | Ret::OptJson
        | Ret::Name
        | Ret::Texts
        | Ret::NextOrError
        | Ret::Refusal => {
            vec!["out: *mut mrtr_buf".into()]
        }
        Ret::Bool => vec!["out: *mut bool".into()],
        Ret::Count => vec!["out: *mut u32".into()],
        Ret::Handle => vec!["out: *mut u64".into()],
        Ret::OptMillis => vec!["out_set: *mut bool".into(), "out_at_ms: *mut u64".into()],
        Ret::Bytes => vec!["out: *mut u8".into()],
        Ret::Machine(m) => vec![format!("out: *mut *mut mrtr_{}", handle_type(m))],
    }
}

/// What the header says of a result.
fn out_doc(ret: Ret) -> &'static str {
    match ret {
        Ret::Opened => "`*out` is the token's payload (free it with `mrtr_buf_free(&out->payload)`), its state id and expiry; on a failure it is empty (`{NULL, 0}`, `\"\"`, 0).",
        Ret::OptWhole => "`*out_set` is true and `*out` the number when there is one, else false and 0.",
        Ret::Unit => "",
        Ret::Text | Ret::Json | Ret::Name => "`*out` is the text (free it with `mrtr_buf_free`).",
        Ret::OptText | Ret::OptJson => "`*out` is the text, or `{NULL, 0}` when there is none (free it with `mrtr_buf_free`).",
        Ret::Texts => "`*out` is a JSON array of the texts (free it with `mrtr_buf_free`).",
        Ret::NextOrError => {
            "`*out` is the next one, or `{NULL, 0}` when there is none; one that cannot be read fails with its rule, in its place."
        }
        Ret::Refusal => {
            "`*out` is `{NULL, 0}` when the check passes, else the refusal as JSON (`{\"rule\", \"code\", \"message\", \"data\"}`): the status is `MRTR_OK` either way."
        }
        Ret::Bool | Ret::Count | Ret::Handle => "`*out` is the answer.",
        Ret::OptMillis => "`*out_set` is true and `*out_at_ms` the time (ms) when there is one, else false and 0.",
        Ret::Bytes => "`out` receives the 32 bytes.",
        Ret::Machine(_) => "`*out` is the new handle; free it with its `_free`.",
    }
}

/// The statements that write a result `value` through the out parameters.
fn write_out(ret: Ret) -> String {
    const SAFE: &str = "// SAFETY: the caller promises the out pointers are writable.\n";
    match ret {
        Ret::Opened => format!("{SAFE}unsafe {{ write(out, mrtr_opened::from(value), \"out\") }}"),
        Ret::OptWhole => format!(
            "{SAFE}unsafe {{\nwrite(out_set, value.is_some(), \"out_set\")?;\nwrite(out, value.unwrap_or(0), \"out\")\n}}"
        ),
        Ret::Unit => "Ok(())".into(),
        Ret::Text | Ret::Json | Ret::Name => "out.set(value);\nOk(())".into(),
        Ret::OptText | Ret::OptJson | Ret::NextOrError | Ret::Refusal => "if let Some(text) = value {\nout.set(text);\n}\nOk(())".into(),
        Ret::Texts => "out.set(serde_json::Value::from(value).to_string());\nOk(())".into(),
        Ret::Bool | Ret::Count | Ret::Handle => format!("{SAFE}unsafe {{ write(out, value, \"out\") }}"),
        Ret::OptMillis => format!(
            "{SAFE}unsafe {{\nwrite(out_set, value.is_some(), \"out_set\")?;\nwrite(out_at_ms, value.unwrap_or(0), \"out_at_ms\")\n}}"
        ),
        Ret::Bytes => format!("{SAFE}unsafe {{ write(out.cast::<[u8; 32]>(), value, \"out\") }}"),
        Ret::Machine(m) => format!("{SAFE}unsafe {{ handles::new_handle(out, mrtr_{}(value)) }}", handle_type(m)),
    }
}

/// The façade call of a row, its arguments as read.
fn call(e: &Export, inner: &str, uses: &[String]) -> String {
    let args = uses.join(", ");
    let call = match e.receiver {
        Receiver::Free => format!("facade::{}({args})", e.callee()),
        Receiver::New => format!("facade::{inner}::new({args})"),
        Receiver::Static => format!("facade::{inner}::{}({args})", e.callee()),
        Receiver::Ref | Receiver::Mut => {
            format!("{}.0.{}({args})", handle_type(e.machine.unwrap_or_default()), e.callee())
        }
    };
    match e.ret {
        Ret::Refusal => format!("{call}.err().map(|e| facade::error_json(&e))"),
        Ret::NextOrError => format!("{call}.transpose()?"),
        _ if e.fallible => format!("{call}?"),
        _ => call,
    }
}

fn function(out: &mut String, e: &Export, inner: &str) {
    let name = c_name(e);
    let mut sig = Vec::new();
    let mut reads = Vec::new();
    let mut uses = Vec::new();
    if let Some(m) = e.machine.filter(|_| !matches!(e.receiver, Receiver::New | Receiver::Static)) {
        let ty = format!("mrtr_{}", handle_type(m));
        let (ptr, get) = if e.receiver == Receiver::Mut { ("*mut", "get_mut") } else { ("*const", "get") };
        let this = handle_type(m);
        sig.push(format!("{this}: {ptr} {ty}"));
        reads.push((this.clone(), format!("{get}({this}, \"{this}\")?")));
    }
    for (n, a) in e.params {
        let json = *a == Arg::Options && json_options(e, n);
        let n = param_name(e, n);
        let (a, (r, u)) = if json {
            let read = format!("facade::Options::from_json(args::bytes({n}, {n}_len, \"{n}\")?)?");
            (Arg::Text, (Some(read), "&options".into()))
        } else {
            (*a, read(&n, *a))
        };
        let a = &a;
        sig.extend(params(&n, *a));
        if let Some(r) = r {
            reads.push((if *a == Arg::Options { "options".into() } else { n.clone() }, r));
        }
        uses.push(u);
    }
    let outs = outs(e.ret);
    if outs.first().is_some_and(|o| o.contains("mrtr_buf")) {
        reads.insert(0, ("out".into(), "Out::new(out)?".into()));
    }
    // Every other out pointer is checked before the call, so that a call that acts (opens a state under
    // the replay guard, changes a machine) never fails afterwards for want of a place to write.
    let checks: String = outs
        .iter()
        .filter(|o| !o.contains("mrtr_buf"))
        .filter_map(|o| o.split(':').next())
        .map(|o| format!("if {o}.is_null() {{\nreturn Err(null(\"{o}\"));\n}}\n"))
        .collect();
    // An opened token's place is emptied first: a failed open leaves nothing to free.
    let checks = if e.ret == Ret::Opened {
        format!(
            "{checks}// SAFETY: the caller promises `out` is writable.\nunsafe {{ out.write(mrtr_opened::EMPTY) }};\n"
        )
    } else {
        checks
    };
    sig.extend(outs);
    let doc = format!("{} {}", e.doc, out_doc(e.ret));
    out.push('\n');
    out.push_str(&doc_lines("", &doc));
    out.push_str(
        "///\n/// # Safety\n/// Each `(pointer, length)` is valid for its length (NULL only where the value may be\n\
         /// absent); a handle is live and used by no one else meanwhile; the out pointers are writable.\n",
    );
    let _ = writeln!(out, "#[no_mangle]\npub unsafe extern \"C\" fn {name}({}) -> mrtr_status {{", sig.join(", "));
    out.push_str("guard(|| {\n");
    out.push_str(&checks);
    if !reads.is_empty() {
        let (names, exprs): (Vec<_>, Vec<_>) = reads.into_iter().unzip();
        let (names, exprs) = if names.len() == 1 {
            (names[0].clone(), exprs[0].clone())
        } else {
            (format!("({})", names.join(", ")), format!("({})", exprs.join(", ")))
        };
        let _ = writeln!(
            out,
            "// SAFETY: the caller's contract (`# Safety`), passed on.\nlet {names} = unsafe {{ {exprs} }};"
        );
    }
    let binding = if e.ret == Ret::Unit { "" } else { "let value = " };
    let _ = writeln!(out, "{binding}{};\n{}\n}})\n}}", call(e, inner, &uses), write_out(e.ret));
}

fn free_function(out: &mut String, machine: &str) {
    let ty = format!("mrtr_{}", handle_type(machine));
    // The key ring stays while a call further up this thread holds it (its replay guard frees it).
    let (doc, check) = if machine == "KeyRing" {
        (
            " Its key material is zeroized; `usage-out-of-turn` (and the ring stays) from inside its own replay guard.",
            "if !handle.is_null() {\n// SAFETY: the caller's contract.\nunsafe { get(handle, \"handle\") }?.0.idle()?;\n}\n",
        )
    } else {
        ("", "")
    };
    let _ = writeln!(
        out,
        "\n/// Frees a `{ty}`. NULL is a no-op.{doc}\n///\n/// # Safety\n/// `handle` is NULL or a live handle, not used afterwards.\n\
         #[no_mangle]\npub unsafe extern \"C\" fn {ty}_free(handle: *mut {ty}) -> mrtr_status {{\n\
         guard(|| {{\n{check}// SAFETY: the caller's contract.\nunsafe {{ handles::free(handle) }}\n}})\n}}"
    );
}

/// What the generated functions may use; each file keeps what it does.
const USES: &str = "use crate::args::{self, write};
use crate::buf::{mrtr_buf, Out};
use crate::handles::{self, get, get_mut, Handle, Kind};
use crate::ring::{mrtr_first_use, mrtr_opened, CGuard};
use crate::status::{guard, mrtr_status, null};
use crate::tables::{mrtr_protocol};
use crate::types::{mrtr_limits, options};
use mrtr_facade::{self as facade, Randomness};
use std::ffi::{c_char, c_void};
";

fn file() -> String {
    let mut out = format!("// {}\n", crate::gen::MARK);
    out.push_str(
        "//! The C exports of the façade's table (`mrtr_facade::exports`) that the\n\
         //! binding does not write by hand: each a line over `mrtr_facade` under\n\
         //! the panic boundary of `crate::status::guard`.\n\n\
         #![allow(clippy::too_many_arguments)]\n\n",
    );
    let mut body = String::new();
    for e in EXPORTS.iter().filter(|e| e.receiver == Receiver::Free && e.in_binding(Binding::C) && !hand_written(e)) {
        function(&mut body, e, "");
    }
    for m in MACHINES.iter().filter(|m| machine_in(m, Binding::C)) {
        let ty = format!("mrtr_{}", handle_type(m.name));
        let _ = writeln!(
            body,
            "\n{}///\n/// An opaque handle.\npub struct {ty}(pub(crate) facade::{});\n\nimpl Handle for {ty} {{\nconst KIND: Kind = Kind::{};\n}}",
            doc_lines("", m.doc), m.inner, m.name
        );
        for e in EXPORTS.iter().filter(|e| e.machine == Some(m.name) && e.in_binding(Binding::C) && !hand_written(e)) {
            function(&mut body, e, m.inner);
        }
        free_function(&mut body, m.name);
    }
    out.push_str(&kept_uses(USES, &body));
    out.push_str(&body);
    out.push_str(&left_out_lines(Binding::C));
    rustfmt(&out)
}

/// The `use` lines of `uses` trimmed to the names `body` uses (the file
/// builds without warnings whatever rows the table has).
fn kept_uses(uses: &str, body: &str) -> String {
    let words: Vec<&str> = body.split(|c: char| !(c.is_alphanumeric() || c == '_')).collect();
    let mut kept = String::new();
    for line in uses.lines() {
        let Some((path, names)) = line.split_once('{') else { continue };
        let module = path.trim_end_matches("::").rsplit("::").next().unwrap_or("");
        let names: Vec<&str> = names
            .trim_end_matches("};")
            .split(',')
            .map(str::trim)
            .filter(|n| match n.strip_prefix("self") {
                // `self`, or `self as alias`: kept when the body names the module by that name.
                Some(alias) => {
                    let name = alias.strip_prefix(" as ").unwrap_or(module);
                    body.contains(&format!("{name}::"))
                }
                None => words.contains(n),
            })
            .collect();
        if !names.is_empty() {
            let _ = writeln!(kept, "{path}{{{}}};", names.join(", "));
        }
    }
    kept
}
