//! How an `#[export]` item reads as a row of the export table: one reader,
//! compiled twice — into the `#[export]` attribute (which refuses a bad row
//! where it is written) and into `mrtr-facade`'s build script (which writes the
//! table from every row it finds). The two cannot disagree, because they are
//! the same code.
//!
//! A row is read from the item itself: its name, whether it takes `&self` or
//! `&mut self` or makes its machine, its parameters' names and kinds, what it
//! returns, whether that is a `Result`, and its doc comment's first
//! paragraph. The attribute adds only what no signature can say: a name in
//! the bindings apart from the function's, the shapes of JSON parameters,
//! the bindings that leave the row out and why, and whether a failure is a
//! refusal handed back rather than raised.

use proc_macro2::Span;
use quote::ToTokens;
use syn::{
    meta::ParseNestedMeta, Attribute, Error, Expr, ExprLit, FnArg, Ident, Lit, LitStr, Meta, Pat, Path, Result,
    ReturnType, Signature, Type,
};

/// The parameter kinds by the type a facade function declares (`facade/src/kinds.rs`
/// names each alias and says how it crosses). A plain `&[u8]` is no kind: it
/// could be JSON text, raw bytes or header fields, which the bindings convert
/// differently.
const ARGS: &[(&str, &str)] = &[
    ("JsonText", "Text"),
    ("OptJsonText", "OptText"),
    ("JsonValue", "Value"),
    ("OptJsonValue", "OptValue"),
    ("HeaderFields", "Headers"),
    ("RawBytes", "Bytes"),
    ("JsonOrEmpty", "OrEmpty"),
    ("&Options", "Options"),
    ("&str", "Str"),
    ("Option<&str>", "OptStr"),
    ("bool", "Bool"),
    ("Whole", "Whole"),
    ("KeyId", "KeyId"),
    ("Status", "Status"),
    ("Handle", "Handle"),
    ("Randomness", "Random"),
    ("OptRawBytes", "OptBytes"),
    ("Guard", "Guard"),
];

/// The answer kinds by the type a facade function returns (inside its
/// `Result`, when it has one).
const RETS: &[(&str, &str)] = &[
    ("()", "Unit"),
    ("String", "Text"),
    ("Option<String>", "OptText"),
    ("JsonString", "Json"),
    ("Option<JsonString>", "OptJson"),
    ("&'staticstr", "Name"),
    ("Vec<String>", "Texts"),
    ("bool", "Bool"),
    ("Count", "Count"),
    ("Handle", "Handle"),
    ("OptMillis", "OptMillis"),
    ("OptWhole", "OptWhole"),
    ("Opened", "Opened"),
    ("Digest", "Bytes"),
    ("Option<Result<String>>", "NextOrError"),
];

/// The bindings a row can leave out (`exports::Binding`).
const BINDINGS: &[&str] = &["Napi", "Wasm", "C", "Uniffi", "Python"];

/// Who leaves a row out.
#[derive(Debug, Default)]
pub enum LeftOut {
    /// Every binding exports it.
    #[default]
    None,
    /// A list kept once in `exports.rs` for several rows.
    Const(String),
    /// The bindings and their reasons, on the row itself.
    List(Vec<(String, String)>),
}

/// What the attribute says; the rest comes from the item.
#[derive(Debug, Default)]
pub struct Attr {
    /// The item is a machine (on a struct).
    pub machine: bool,
    /// Its name in the bindings when it is not the function's.
    pub name: Option<String>,
    /// The shapes of JSON parameters, by name.
    pub shapes: Vec<(String, String)>,
    /// The shape of the answer.
    pub returns: Option<String>,
    /// Who leaves it out.
    pub left_out: LeftOut,
    /// A failure is handed back as the refusal's JSON, not raised.
    pub refusal: bool,
}

/// One row of the export table, as the build script renders it.
#[derive(Debug)]
pub struct Row {
    /// The machine the row belongs to, none for a free function.
    pub machine: Option<String>,
    /// Its name in the bindings.
    pub name: String,
    /// `Free`, `New`, `Static`, `Ref` or `Mut`.
    pub receiver: &'static str,
    /// The facade function, when named apart from `name`.
    pub call: Option<String>,
    /// The doc comment's first paragraph.
    pub doc: String,
    /// Each parameter's name and kind (an `Arg` expression).
    pub params: Vec<(String, String)>,
    /// What it returns (a `Ret` expression).
    pub ret: String,
    /// Whether the function returns a `Result`.
    pub fallible: bool,
    /// Who leaves it out.
    pub left_out: LeftOut,
    /// The shapes of its JSON parameters and answer (`"return"`).
    pub shapes: Vec<(String, String)>,
}

/// Whether `attr` is an `#[export]` (by its last path segment, however imported).
pub fn is_export(attr: &Attribute) -> bool {
    attr.path().segments.last().is_some_and(|s| s.ident == "export")
}

/// Reads the arguments of one `#[export(...)]` (none for a bare `#[export]`).
pub fn read_attr(attr: &Attribute) -> Result<Attr> {
    let mut out = Attr::default();
    if matches!(attr.meta, Meta::Path(_)) {
        return Ok(out);
    }
    attr.parse_nested_meta(|meta| read_arg(&mut out, meta))?;
    Ok(out)
}

/// Reads the arguments of the attribute macro's own input (`export(...)`'s inside).
pub fn read_args(args: proc_macro2::TokenStream) -> Result<Attr> {
    let mut out = Attr::default();
    let parser = syn::meta::parser(|meta| read_arg(&mut out, meta));
    syn::parse::Parser::parse2(parser, args)?;
    Ok(out)
}

fn read_arg(out: &mut Attr, meta: ParseNestedMeta<'_>) -> Result<()> {
    let key = ident_of(&meta.path)?;
    match key.to_string().as_str() {
        "machine" => out.machine = true,
        "refusal" => out.refusal = true,
        "name" => out.name = Some(meta.value()?.parse::<LitStr>()?.value()),
        "returns" => out.returns = Some(meta.value()?.parse::<Ident>()?.to_string()),
        "shapes" => meta.parse_nested_meta(|m| {
            let name = ident_of(&m.path)?.to_string();
            out.shapes.push((name, m.value()?.parse::<Ident>()?.to_string()));
            Ok(())
        })?,
        "left_out" if meta.input.peek(syn::Token![=]) => {
            out.left_out = LeftOut::Const(meta.value()?.parse::<Path>()?.to_token_stream().to_string().replace(' ', ""))
        }
        "left_out" => {
            let mut list = Vec::new();
            meta.parse_nested_meta(|m| {
                let binding = ident_of(&m.path)?;
                if !BINDINGS.contains(&binding.to_string().as_str()) {
                    return Err(Error::new(binding.span(), format!("no binding `{binding}`: one of {BINDINGS:?}")));
                }
                list.push((binding.to_string(), m.value()?.parse::<LitStr>()?.value()));
                Ok(())
            })?;
            out.left_out = LeftOut::List(list);
        }
        other => {
            let known = "machine, name, returns, shapes(..), left_out(..) or left_out = CONST, refusal";
            return Err(Error::new(key.span(), format!("`{other}` is no argument of #[export]: {known}")));
        }
    }
    Ok(())
}

fn ident_of(path: &Path) -> Result<&Ident> {
    path.get_ident().ok_or_else(|| Error::new_spanned(path, "a plain name"))
}

/// The type as one string without spaces or elided lifetimes (`Option<&str>`, `JsonText`).
fn type_text(ty: &Type) -> String {
    ty.to_token_stream().to_string().replace(' ', "").replace("<'_>", "").replace("'_", "")
}

/// The first paragraph of the doc comment, its lines joined by spaces.
pub fn doc_of(attrs: &[Attribute]) -> String {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        if let Meta::NameValue(nv) = &attr.meta {
            if let Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) = &nv.value {
                let line = s.value();
                let line = line.strip_prefix(' ').unwrap_or(&line).trim_end().to_string();
                if line.is_empty() && !lines.is_empty() {
                    break;
                }
                if !line.is_empty() {
                    lines.push(line);
                }
            }
        }
    }
    lines.join(" ")
}

/// The row of a function of the facade: free when `machine` is none, else a
/// constructor (returning `Self`) or a method of that machine. `machine` is
/// the impl's type; `others` tells a machine-typed parameter or answer from
/// any other type (none: every capitalised `&T` is taken for a machine).
pub fn read_fn(
    sig: &Signature,
    attrs: &[Attribute],
    machine: Option<&str>,
    is_machine: &dyn Fn(&str) -> bool,
) -> Result<Row> {
    let mut attr = Attr::default();
    for a in attrs.iter().filter(|a| is_export(a)) {
        attr = read_attr(a)?;
    }
    read_fn_with(sig, attrs, machine, is_machine, attr)
}

/// [`read_fn`] with the attribute's arguments already read.
pub fn read_fn_with(
    sig: &Signature,
    attrs: &[Attribute],
    machine: Option<&str>,
    is_machine: &dyn Fn(&str) -> bool,
    attr: Attr,
) -> Result<Row> {
    if attr.machine {
        return Err(Error::new(sig.ident.span(), "`machine` goes on the machine's struct"));
    }
    let doc = doc_of(attrs);
    if doc.is_empty() {
        return Err(Error::new(
            sig.ident.span(),
            "an exported function says what it does: its doc comment is its row's doc",
        ));
    }
    let mut receiver = "Free";
    let mut params = Vec::new();
    for input in &sig.inputs {
        match input {
            FnArg::Receiver(r) => receiver = if r.mutability.is_some() { "Mut" } else { "Ref" },
            FnArg::Typed(t) => {
                let Pat::Ident(name) = &*t.pat else {
                    return Err(Error::new_spanned(&t.pat, "an exported parameter is a plain name"));
                };
                params.push((name.ident.to_string(), arg_kind(&t.ty, is_machine)?));
            }
        }
    }
    let (ret, fallible) = ret_kind(&sig.output, machine, is_machine, attr.refusal)?;
    if receiver == "Free" && machine.is_some() {
        receiver = if ret == format!("Ret::Machine({:?})", machine.unwrap_or_default()) {
            if sig.ident == "new" {
                "New"
            } else {
                "Static"
            }
        } else {
            return Err(Error::new(
                sig.ident.span(),
                "an associated function without `self` exports only as a constructor (it returns `Self`)",
            ));
        };
    }
    let fn_name = sig.ident.to_string();
    let name = attr.name.clone().unwrap_or_else(|| fn_name.clone());
    let call = (name != fn_name).then_some(fn_name);
    let mut shapes = Vec::new();
    for (param, shape) in attr.shapes {
        if !params.iter().any(|(p, _)| *p == param) {
            return Err(Error::new(Span::call_site(), format!("shapes: `{name}` has no parameter `{param}`")));
        }
        shapes.push((param, shape));
    }
    if let Some(shape) = attr.returns {
        shapes.push(("return".into(), shape));
    }
    Ok(Row {
        machine: machine.map(str::to_string),
        name,
        receiver,
        call,
        doc,
        params,
        ret,
        fallible,
        left_out: attr.left_out,
        shapes,
    })
}

fn arg_kind(ty: &Type, is_machine: &dyn Fn(&str) -> bool) -> Result<String> {
    let text = type_text(ty);
    if let Some((_, kind)) = ARGS.iter().find(|(t, _)| *t == text) {
        return Ok(format!("Arg::{kind}"));
    }
    if let Some(m) = text.strip_prefix('&').filter(|m| is_machine(m)) {
        return Ok(format!("Arg::Machine({m:?})"));
    }
    let known: Vec<&str> = ARGS.iter().map(|(t, _)| *t).collect();
    Err(Error::new_spanned(
        ty,
        format!("`{text}` is no kind a binding knows how to pass: one of {known:?} or `&Machine`"),
    ))
}

fn ret_kind(
    output: &ReturnType,
    machine: Option<&str>,
    is_machine: &dyn Fn(&str) -> bool,
    refusal: bool,
) -> Result<(String, bool)> {
    let ty = match output {
        ReturnType::Default => return Ok(("Ret::Unit".into(), false)),
        ReturnType::Type(_, ty) => ty,
    };
    let text = type_text(ty);
    let (inner, fallible) = match text.strip_prefix("Result<").and_then(|t| t.strip_suffix('>')) {
        Some(inner) => (inner.to_string(), true),
        None => (text.clone(), false),
    };
    if refusal {
        return if fallible && inner == "()" {
            Ok(("Ret::Refusal".into(), true))
        } else {
            Err(Error::new_spanned(ty, "a `refusal` row returns `Result<()>`: its error is handed back, not raised"))
        };
    }
    if inner == "Self" {
        let m = machine.ok_or_else(|| Error::new_spanned(ty, "`Self` outside a machine"))?;
        return Ok((format!("Ret::Machine({m:?})"), fallible));
    }
    if let Some((_, kind)) = RETS.iter().find(|(t, _)| *t == inner) {
        return Ok((format!("Ret::{kind}"), fallible));
    }
    if is_machine(&inner) {
        return Ok((format!("Ret::Machine({inner:?})"), fallible));
    }
    let known: Vec<&str> = RETS.iter().map(|(t, _)| *t).collect();
    Err(Error::new_spanned(
        ty,
        format!("`{inner}` is no answer a binding knows how to give: one of {known:?}, `Self` or a machine"),
    ))
}

/// A machine's row: its struct's name and doc, and who leaves it out.
pub fn read_machine(ident: &Ident, attrs: &[Attribute], attr: &Attr) -> Result<(String, String, String)> {
    let doc = doc_of(attrs);
    if doc.is_empty() {
        return Err(Error::new(ident.span(), "an exported machine says what it is: its doc comment is its row's doc"));
    }
    Ok((ident.to_string(), doc, render_left_out(&attr.left_out)))
}

/// `left_out` as Rust source.
pub fn render_left_out(l: &LeftOut) -> String {
    match l {
        LeftOut::None => "&[]".into(),
        LeftOut::Const(path) => path.clone(),
        LeftOut::List(list) => {
            let items: Vec<String> = list.iter().map(|(b, r)| format!("(Binding::{b}, {r:?})")).collect();
            format!("&[{}]", items.join(", "))
        }
    }
}

impl Row {
    /// The row as a Rust expression of type `Export`.
    pub fn render(&self) -> String {
        let params: Vec<String> = self.params.iter().map(|(n, k)| format!("({n:?}, {k})")).collect();
        let shapes: Vec<String> = self.shapes.iter().map(|(n, s)| format!("({n:?}, Shape::{s})")).collect();
        format!(
            "Export {{ machine: {:?}, name: {:?}, receiver: Receiver::{}, call: {:?}, doc: {:?}, params: &[{}], ret: {}, fallible: {}, left_out: {}, shapes: &[{}] }}",
            self.machine,
            self.name,
            self.receiver,
            self.call,
            self.doc,
            params.join(", "),
            self.ret,
            self.fallible,
            render_left_out(&self.left_out),
            shapes.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(item: &str, machine: Option<&str>) -> Result<Row> {
        let f: syn::ItemFn = syn::parse_str(item).expect("a function");
        read_fn(&f.sig, &f.attrs, machine, &|t| t == "KeyRing")
    }

    #[test]
    fn a_signature_reads_as_its_row() {
        let r = row(
            "/// Checks it.\n/// More.\n///\n/// Not the row's.\n#[export(name = \"check\", shapes(t = Transcript), returns = Violations, left_out(C = \"why\"))]\n\
             fn check_text(t: JsonText, o: &Options, ring: &KeyRing) -> Result<JsonString> {}",
            None,
        )
        .unwrap();
        assert_eq!(
            (r.name.as_str(), r.call.as_deref(), r.receiver, r.fallible),
            ("check", Some("check_text"), "Free", true)
        );
        assert_eq!(r.doc, "Checks it. More.");
        assert_eq!(
            r.params,
            [
                ("t".into(), "Arg::Text".into()),
                ("o".into(), "Arg::Options".into()),
                ("ring".into(), "Arg::Machine(\"KeyRing\")".into())
            ]
        );
        assert_eq!(r.ret, "Ret::Json");
        assert_eq!(r.shapes, [("t".into(), "Transcript".into()), ("return".into(), "Violations".into())]);
        assert_eq!(render_left_out(&r.left_out), "&[(Binding::C, \"why\")]");
    }

    #[test]
    fn a_machine_reads_its_receivers_and_constructors() {
        let m = Some("Session");
        assert_eq!(row("/// N.\n#[export] fn new(config: JsonOrEmpty) -> Result<Self> {}", m).unwrap().receiver, "New");
        assert_eq!(row("/// R.\n#[export] fn restore(s: JsonText) -> Result<Self> {}", m).unwrap().receiver, "Static");
        let read = row("/// P.\n#[export] fn poll_timeout(&self) -> OptMillis {}", m).unwrap();
        assert_eq!((read.receiver, read.ret.as_str(), read.fallible), ("Ref", "Ret::OptMillis", false));
        assert_eq!(row("/// M.\n#[export] fn feed(&mut self, chunk: RawBytes) {}", m).unwrap().receiver, "Mut");
        assert!(
            row("/// H.\n#[export] fn helper(x: JsonText) -> JsonString {}", m).is_err(),
            "no self and no Self: no row"
        );
    }

    #[test]
    fn what_no_binding_can_carry_is_refused_where_it_is_written() {
        let bad = [
            "/// Ambiguous bytes.\n#[export] fn f(x: &[u8]) {}",
            "/// A float.\n#[export] fn f(x: f64) {}",
            "/// An answer of no kind.\n#[export] fn f() -> Vec<u8> {}",
            "#[export] fn undocumented(x: JsonText) {}",
            "/// A typo.\n#[export(shape(x = Id))] fn f(x: JsonValue) {}",
            "/// A shape of no parameter.\n#[export(shapes(y = Id))] fn f(x: JsonValue) {}",
            "/// No such binding.\n#[export(left_out(Go = \"no\"))] fn f() {}",
            "/// A refusal must be Result<()>.\n#[export(refusal)] fn f() -> Result<String> {}",
        ];
        for item in bad {
            assert!(row(item, None).is_err(), "{item}");
        }
        let refusal = row("/// R.\n#[export(refusal)] fn f(r: JsonText) -> Result<()> {}", None).unwrap();
        assert_eq!(refusal.ret, "Ret::Refusal");
    }
}
