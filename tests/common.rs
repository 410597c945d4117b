//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The project's own models (protocols: MCMT, Cubicle, canonical; Horn
/// clauses) with their expected verdicts (from an `expect:
/// SAFE|UNSAFE|UNKNOWN|REFUSED` remark in the first lines of the file). C
/// programs are listed by [`c_models`].
pub fn models() -> Vec<(PathBuf, String)> {
    expected_models(false)
}

/// The C programs among the models, with their expected verdicts. Their
/// verdict test (`tests/verdicts.rs`) requires no wrong answer on any of
/// them and a certified answer on those the portfolio (forward execution,
/// lazy abstraction) decides today; the others are listed there.
pub fn c_models() -> Vec<(PathBuf, String)> {
    expected_models(true)
}

fn expected_models(c: bool) -> Vec<(PathBuf, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut out = vec![];
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if !p.is_file() || (p.extension().is_some_and(|x| x == "c") != c) {
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

/// The `z3` binary of the pinned solver wheel (Spacer, and an independent
/// reader of the SMT-LIB files arrax writes): `solvers/bin/z3`, which the
/// build fetches when it is missing (`ARRAX_Z3`, see `build.rs`).
pub fn z3_binary() -> PathBuf {
    PathBuf::from(env!("ARRAX_Z3"))
}
