//! Loading cases and comparing outcomes with expectations.

use serde_json::Value;
use std::path::{Path, PathBuf};

/// One conformance case.
#[derive(Clone, Debug)]
pub struct Case {
    /// `<area>/<name>`.
    pub id: String,
    /// Rule ids the case is about.
    pub rules: Vec<String>,
    /// The op: `classify`, `check`, `retry`, `resume`, `respond`.
    pub op: String,
    /// The op's input.
    pub input: Value,
    /// What must come out.
    pub expect: Value,
    /// The whole case as read.
    pub raw: Value,
    /// The file it came from.
    pub path: PathBuf,
}

/// `MRTR_CONFORMANCE_DIR`, or this crate's `cases/`.
pub fn corpus_dir() -> PathBuf {
    std::env::var_os("MRTR_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("cases"))
}

/// Every `*.json` below `dir`, sorted by path.
pub fn case_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Loads every case below `dir`.
pub fn load(dir: &Path) -> Result<Vec<Case>, String> {
    let files = case_files(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    files.into_iter().map(|p| load_one(&p)).collect()
}

/// Loads one case file.
pub fn load_one(path: &Path) -> Result<Case, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let raw: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let field = |k: &str| raw.get(k).cloned().unwrap_or(Value::Null);
    let text_of = |k: &str| field(k).as_str().unwrap_or_default().to_string();
    let rules = field("rules")
        .as_array()
        .map(|a| a.iter().filter_map(|r| r.as_str().map(String::from)).collect())
        .unwrap_or_default();
    Ok(Case {
        id: text_of("id"),
        rules,
        op: text_of("op"),
        input: field("input"),
        expect: field("expect"),
        raw,
        path: path.to_path_buf(),
    })
}

/// JSON equality: key order ignored, numbers by value.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
            (Some(i), Some(j), _, _) => i == j,
            (_, _, Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Arrays compared as sets (each element matched once).
pub fn set_eq(a: &Value, b: &Value) -> bool {
    let (Some(x), Some(y)) = (a.as_array(), b.as_array()) else { return json_eq(a, b) };
    let mut left: Vec<&Value> = y.iter().collect();
    x.len() == y.len()
        && x.iter().all(|v| match left.iter().position(|w| json_eq(v, w)) {
            Some(i) => {
                left.swap_remove(i);
                true
            }
            None => false,
        })
}
