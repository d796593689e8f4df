//! The export code of the bindings, written from the one table of what they
//! export (`mrtr_facade::exports`): a backend per binding turns each row
//! into that binding's export, calling the façade through the same few
//! conversions its hand-written kernel provides.
//!
//! - [`js`]: `bindings-node/src/exports.rs` (napi) and
//!   `bindings-wasm/src/exports.rs` (wasm-bindgen);
//! - [`jsapi`]: `bindings-node/lib/exports.mjs` (the JavaScript API's rows that only convert);
//! - [`c`]: `bindings-ffi/src/exports.rs` (the C ABI; its header is cbindgen's);
//! - [`uniffi`]: `bindings-ffi/uniffi/src/exports.rs` (Kotlin, Swift, Python);
//! - [`jvm`]: `bindings-jvm/src/main/java/dev/mrtr/MrtrFunctions.java` (the Java façade's
//!   static functions over the UniFFI Kotlin, one per generated UniFFI function, a check
//!   throwing its refusal) and those functions' signatures in `bindings-jvm/README.md`;
//! - [`python`]: `bindings-python/src/exports.rs` (pyo3, in the package's idiom);
//! - [`names`]: `docs/exports.md`, every row by its name in each binding.

use crate::gen::wrap;
use mrtr_facade::exports::{Binding, Machine, EXPORTS, MACHINES};
use std::path::PathBuf;

pub mod c;
pub mod js;
pub mod jsapi;
pub mod jvm;
pub mod names;
pub mod python;
pub mod uniffi;

/// `(path, contents)` of each generated file.
pub fn outputs() -> Vec<(PathBuf, String)> {
    let mut all = js::outputs();
    all.extend(jsapi::outputs());
    all.extend(c::outputs());
    all.extend(uniffi::outputs());
    all.extend(jvm::outputs());
    all.extend(python::outputs());
    all.extend(names::outputs());
    all
}

/// Whether `binding` exports the machine `m`.
fn machine_in(m: &Machine, binding: Binding) -> bool {
    !m.left_out.iter().any(|(x, _)| *x == binding)
}

/// The rows `binding` leaves out, as `// left out: NAME: why` lines (empty: none).
fn left_out_lines(binding: Binding) -> String {
    let machines = MACHINES.iter().flat_map(|m| m.left_out.iter().map(move |(x, why)| (x, m.name, why)));
    let rows = EXPORTS.iter().flat_map(|e| e.left_out.iter().map(move |(x, why)| (x, e.name, why)));
    let lines: String = machines
        .chain(rows)
        .filter(|(x, _, _)| **x == binding)
        .map(|(_, name, why)| format!("// left out: {name}: {why}\n"))
        .collect();
    if lines.is_empty() {
        lines
    } else {
        format!("\n{lines}")
    }
}

/// `text` as `///` doc lines at `indent`, wrapped before 100 columns (the
/// header and the generated types are read by people).
fn doc_lines(indent: &str, text: &str) -> String {
    wrap(text, 96usize.saturating_sub(indent.len())).iter().map(|l| format!("{indent}/// {l}\n")).collect()
}

/// `snake_case` as `camelCase`.
pub fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for c in snake.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// `CamelCase` as `snake_case`.
fn snake(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// `text` as `rustfmt` writes it (the repository's `rustfmt.toml`), so that
/// `cargo fmt --check` and `mrtr-gen --check` agree on the generated files.
fn rustfmt(text: &str) -> String {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace root");
    let spawned = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout", "--quiet"])
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let Ok(mut child) = spawned else { return text.to_string() };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(text.as_bytes());
    }
    match child.wait_with_output() {
        Ok(o) if o.status.success() => String::from_utf8(o.stdout).unwrap_or_else(|_| text.to_string()),
        _ => text.to_string(),
    }
}
