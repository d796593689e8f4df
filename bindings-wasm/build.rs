//! The browser package's exports (`--no-default-features --features browser`,
//! `scripts/build.sh` into `pkg-browser/`): the items of the generated
//! `src/exports.rs` that the package keeps, copied as they are into
//! `$OUT_DIR/browser_exports.rs`, and the JavaScript names of those it leaves
//! out (`LEFT_OUT`), which `js/backend.mjs` turns into functions that throw
//! the API's `UsageError` ("this backend has no X"). With the default feature
//! `full` it writes nothing: `src/lib.rs` takes `src/exports.rs` whole.
//!
//! An item of `src/exports.rs` is a run of lines from the end of the one
//! before (a blank line at the top level) to a line that closes it at the top
//! level (`}` or `…;`): its doc comment, attributes and body. A free function
//! or a struct is kept by its Rust name, an `impl` block with its struct.
use std::{env, fs, path::Path};

/// What the browser package keeps (Rust names of `src/exports.rs`); see
/// README.md, "Two packages": what a page, a devtool or an in-browser gateway
/// reads traffic with. `catalogue` is needed by every build (the API's tables
/// and error classes come from it). Left out: the conversation checker
/// (`check`, `Checker`: ~88 KB gzipped at the speed this build is made for),
/// the client and server machines, sealing, the server's builders.
const BROWSER: &[&str] = &[
    "catalogue",
    "classify",
    "task_transition",
    "SseDecoder",
    "sse_encode",
    "mirrored_fields",
    "inspect",
    "unassociated_reply",
];

fn main() {
    println!("cargo::rerun-if-changed=src/exports.rs");
    println!("cargo::rerun-if-changed=build.rs");
    if env::var_os("CARGO_FEATURE_FULL").is_some() {
        return;
    }
    let keep = BROWSER;
    let source = fs::read_to_string("src/exports.rs").expect("src/exports.rs");
    let mut kept = String::new();
    let mut left_out = Vec::new();
    let mut item: Vec<&str> = Vec::new();
    for line in source.lines() {
        if item.is_empty() && line.starts_with("use ") {
            // The generated file's imports, some unused by the kept items.
            kept.push_str("#[allow(unused_imports)]\n");
            kept.push_str(line);
            kept.push('\n');
            continue;
        }
        if item.is_empty() && (line.is_empty() || (line.starts_with("//") && !line.starts_with("///"))) {
            continue;
        }
        item.push(line);
        if line == "}" || (!line.starts_with(' ') && !line.starts_with("///") && line.ends_with(';')) {
            let (name, js) = named(&item);
            if keep.contains(&name.as_str()) {
                kept.push_str(&item.join("\n"));
                kept.push_str("\n\n");
            } else if let Some(js) = js {
                left_out.push(js);
            }
            item.clear();
        }
    }
    assert!(item.is_empty(), "src/exports.rs: an item runs to the end of the file");
    for name in keep {
        let rust = [format!("pub fn {name}("), format!("pub struct {name}(")];
        assert!(rust.iter().any(|r| kept.contains(r.as_str())), "src/exports.rs has no {name}, which build.rs keeps");
    }
    let out = format!(
        "// Written by build.rs: the items of src/exports.rs the browser package keeps.\n\
         /// The JavaScript names of the exports of src/exports.rs this build leaves out.\n\
         pub const LEFT_OUT: &str = {:?};\n\n{kept}",
        left_out.join(",")
    );
    let path = Path::new(&env::var("OUT_DIR").expect("OUT_DIR")).join("browser_exports.rs");
    fs::write(path, out).expect("write browser_exports.rs");
}

/// The Rust name of an item (a function's, a struct's, an `impl`'s type) and
/// the JavaScript name it is exported under (none for an `impl`).
fn named(item: &[&str]) -> (String, Option<String>) {
    let word = |rest: &str| rest.split(|c: char| !c.is_alphanumeric() && c != '_').next().unwrap_or("").to_string();
    let mut js = None;
    for line in item {
        if let Some(rest) = line.strip_prefix("#[wasm_bindgen(js_name = ") {
            js = Some(word(rest));
        }
        for (prefix, exported) in [("pub fn ", true), ("pub struct ", true), ("impl ", false)] {
            if let Some(rest) = line.strip_prefix(prefix) {
                let name = word(rest);
                let js = exported.then(|| js.clone().unwrap_or_else(|| name.clone()));
                return (name, js);
            }
        }
    }
    panic!("src/exports.rs: an item with no fn, struct or impl: {}", item.join("\n"))
}
