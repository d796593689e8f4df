//! The generated files of the js binding.

use std::path::PathBuf;

/// `(path, contents)` of each generated file.
pub fn outputs() -> Vec<(PathBuf, String)> {
    Vec::new()
}
