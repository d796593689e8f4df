//! Writes the export table (`exports::EXPORTS`, `exports::MACHINES`) from the
//! `#[export]` items of this crate's sources: a row is read from its
//! function's signature and doc comment, with the reader the attribute itself
//! uses (`macros/src/row.rs`), so a row is declared once, where its function
//! is.

#[path = "macros/src/row.rs"]
#[allow(dead_code)] // the attribute uses what the build script does not
mod row;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use syn::{ImplItem, Item};

fn main() {
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=macros/src/row.rs");
    let files = sources(Path::new("src"));
    let parsed: Vec<(PathBuf, syn::File)> = files.iter().map(|p| (p.clone(), parse(p))).collect();
    let mut machines = Vec::new();
    for (path, file) in &parsed {
        collect_machines(path, &file.items, &mut machines);
    }
    let names: Vec<String> = machines.iter().map(|(n, _, _)| n.clone()).collect();
    let is_machine = |t: &str| names.iter().any(|n| n == t);
    let mut rows = Vec::new();
    for (path, file) in &parsed {
        let macros = macro_bodies(&file.items);
        collect_rows(path, &file.items, &macros, &is_machine, &mut rows);
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("exports_table.rs");
    std::fs::write(out, render(&machines, &rows)).expect("the export table is written");
}

/// Every `.rs` file under `dir`, in name order (the table's order is the sources' order).
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("src").map(|e| e.expect("entry").path()).collect();
    entries.sort();
    // lib.rs first: the crate's own order, then its modules.
    entries.sort_by_key(|p| p.file_name().is_none_or(|n| n != "lib.rs"));
    for p in entries {
        if p.is_dir() {
            out.extend(sources(&p));
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
    out
}

fn parse(path: &Path) -> syn::File {
    let text = std::fs::read_to_string(path).expect("a source file");
    syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn fail(path: &Path, e: &syn::Error) -> ! {
    let at = e.span().start();
    panic!("{}:{}:{}: {e}", path.display(), at.line, at.column + 1)
}

fn collect_machines(path: &Path, items: &[Item], out: &mut Vec<(String, String, String)>) {
    for item in items {
        match item {
            Item::Struct(s) => {
                for a in s.attrs.iter().filter(|a| row::is_export(a)) {
                    let attr = row::read_attr(a).unwrap_or_else(|e| fail(path, &e));
                    if attr.machine {
                        out.push(row::read_machine(&s.ident, &s.attrs, &attr).unwrap_or_else(|e| fail(path, &e)));
                    }
                }
            }
            Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect_machines(path, items, out);
                }
            }
            _ => {}
        }
    }
}

/// The methods a `macro_rules!` of this file writes into an impl, by its name
/// (a macro with one rule without parameters, such as `exchange_inputs!`).
fn macro_bodies(items: &[Item]) -> HashMap<String, Vec<ImplItem>> {
    let mut out = HashMap::new();
    for item in items {
        let Item::Macro(m) = item else { continue };
        let Some(name) = &m.ident else { continue };
        // `() => { … };`: the body is the last braced group.
        let body = m.mac.tokens.clone().into_iter().filter_map(|t| match t {
            proc_macro2::TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::Brace => Some(g),
            _ => None,
        });
        if let Some(body) = body.last() {
            if let Ok(file) = syn::parse2::<ImplItems>(body.stream()) {
                out.insert(name.to_string(), file.0);
            }
        }
    }
    out
}

struct ImplItems(Vec<ImplItem>);

impl syn::parse::Parse for ImplItems {
    fn parse(input: syn::parse::ParseStream<'_>) -> syn::Result<Self> {
        let mut items = Vec::new();
        while !input.is_empty() {
            items.push(input.parse()?);
        }
        Ok(ImplItems(items))
    }
}

fn collect_rows(
    path: &Path,
    items: &[Item],
    macros: &HashMap<String, Vec<ImplItem>>,
    is_machine: &dyn Fn(&str) -> bool,
    out: &mut Vec<row::Row>,
) {
    for item in items {
        match item {
            Item::Fn(f) if f.attrs.iter().any(row::is_export) => {
                out.push(row::read_fn(&f.sig, &f.attrs, None, is_machine).unwrap_or_else(|e| fail(path, &e)));
            }
            Item::Impl(i) if i.trait_.is_none() => {
                let syn::Type::Path(tp) = &*i.self_ty else { continue };
                let Some(ty) = tp.path.get_ident().map(ToString::to_string) else { continue };
                for member in &i.items {
                    let spliced: Vec<&ImplItem> = match member {
                        ImplItem::Macro(m) => m
                            .mac
                            .path
                            .get_ident()
                            .and_then(|n| macros.get(&n.to_string()))
                            .map(|b| b.iter().collect())
                            .unwrap_or_default(),
                        other => vec![other],
                    };
                    for m in spliced {
                        let ImplItem::Fn(f) = m else { continue };
                        if !f.attrs.iter().any(row::is_export) {
                            continue;
                        }
                        if !is_machine(&ty) {
                            panic!(
                                "{}: `{}` is exported, but `{ty}` is no #[export(machine)]",
                                path.display(),
                                f.sig.ident
                            );
                        }
                        out.push(
                            row::read_fn(&f.sig, &f.attrs, Some(&ty), is_machine).unwrap_or_else(|e| fail(path, &e)),
                        );
                    }
                }
            }
            Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect_rows(path, items, macros, is_machine, out);
                }
            }
            _ => {}
        }
    }
}

fn render(machines: &[(String, String, String)], rows: &[row::Row]) -> String {
    let mut s = String::from("// Written by facade/build.rs from the #[export] items: do not edit.\n\n");
    s.push_str("/// Every exported machine, in the order of the sources.\npub const MACHINES: &[Machine] = &[\n");
    for (name, doc, left_out) in machines {
        s.push_str(&format!(
            "    Machine {{ name: {name:?}, inner: {name:?}, doc: {doc:?}, left_out: {left_out} }},\n"
        ));
    }
    s.push_str("];\n\n/// Every exported function and method, in the order of the sources.\npub const EXPORTS: &[Export] = &[\n");
    for r in rows {
        s.push_str(&format!("    {},\n", r.render()));
    }
    s.push_str("];\n");
    s
}
