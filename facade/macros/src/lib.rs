//! `#[export]`: a function or machine of `mrtr-facade` is a row of the
//! bindings' export table, declared once, on the item itself.
//!
//! The attribute leaves the item as it is. What it adds is a check where the
//! row is written: a parameter whose type is no kind a binding can pass, an
//! answer no binding can give, a missing doc comment or an unknown argument
//! fails the build at that line, not later in a generated binding.
//! `mrtr-facade`'s build script reads the same rows, with the same reader
//! (`row.rs`), into the table the binding generators use.
//!
//! ```text
//! /// Checks a whole conversation: the violations, in transcript order.
//! #[export(shapes(transcript = Transcript, options = CheckConfig), returns = Violations)]
//! pub fn check(transcript: JsonText, options: &Options) -> Result<JsonString> { … }
//! ```

use proc_macro::TokenStream;
use syn::{Item, ReturnType};

#[allow(dead_code)] // the build script uses what the attribute does not
mod row;

/// Marks a facade function (free, a constructor or a method) or a machine's
/// struct (`#[export(machine)]`) as exported. Arguments, each optional:
/// `name = "..."` (its name in the bindings), `shapes(param = Shape, ...)`,
/// `returns = Shape`, `left_out(Binding = "reason", ...)` or
/// `left_out = CONST`, `refusal` (a `Result<()>` whose error is handed back).
#[proc_macro_attribute]
pub fn export(args: TokenStream, item: TokenStream) -> TokenStream {
    match check(args.into(), item.clone().into()) {
        Ok(()) => item,
        Err(e) => {
            let mut out: TokenStream = e.to_compile_error().into();
            out.extend(item);
            out
        }
    }
}

fn check(args: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> syn::Result<()> {
    let attr = row::read_args(args)?;
    match syn::parse2::<Item>(item)? {
        Item::Struct(s) if attr.machine => row::read_machine(&s.ident, &s.attrs, &attr).map(drop),
        Item::Fn(f) => {
            let in_machine = f.sig.receiver().is_some() || returns_self(&f.sig.output);
            let machine = in_machine.then_some("Self");
            row::read_fn_with(&f.sig, &f.attrs, machine, &|t| t.starts_with(char::is_uppercase), attr).map(drop)
        }
        other => Err(syn::Error::new_spanned(other, "#[export] goes on a function, or with `machine` on a struct")),
    }
}

fn returns_self(output: &ReturnType) -> bool {
    matches!(output, ReturnType::Type(_, ty) if quote::quote!(#ty).to_string().contains("Self"))
}
