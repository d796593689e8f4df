//! Writes the files generated from the core's tables (`mrtr_conformance::gen`):
//! `docs/RULES.md` and each binding's rule lists.
//!
//! - `mrtr-gen`: writes every file that differs.
//! - `mrtr-gen --check`: writes nothing; names every stale file and exits 1.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    if let Some(code) = mrtr_conformance::version_asked("mrtr-gen") {
        return code;
    }
    let check = std::env::args().any(|a| a == "--check");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace root");
    let mut stale = 0;
    for (path, contents) in mrtr_conformance::gen::outputs() {
        let file = root.join(&path);
        if std::fs::read_to_string(&file).ok().as_deref() == Some(contents.as_str()) {
            continue;
        }
        stale += 1;
        if check {
            println!("stale: {} (run `cargo run -p mrtr-conformance --bin mrtr-gen`)", path.display());
        } else if let Err(e) =
            file.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::write(&file, &contents))
        {
            eprintln!("cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        } else {
            println!("wrote {}", path.display());
        }
    }
    if check && stale > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
