//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The project's own models with their expected verdicts (from an
/// `expect: SAFE|UNSAFE|UNKNOWN` remark in the first lines of the file).
pub fn models() -> Vec<(PathBuf, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut out = vec![];
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if !p.is_file() {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        if let Some(v) = expected(&text) {
            out.push((p, v));
        }
    }
    out.sort();
    out
}

/// The verdict a model file announces.
pub fn expected(text: &str) -> Option<String> {
    text.lines().take(5).find_map(|l| {
        let i = l.find("expect:")?;
        l[i + 7..].split_whitespace().next().map(|w| w.trim_end_matches("*)").to_string())
    })
}

/// Settings insta needs to keep snapshots in the top-level `snapshots/` folder.
pub fn snapshot_settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots"));
    s.set_prepend_module_to_snapshot(false);
    s
}
