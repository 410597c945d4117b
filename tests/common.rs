//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The project's own models (protocols: MCMT, Cubicle, canonical) with
/// their expected verdicts (from an `expect: SAFE|UNSAFE|UNKNOWN` remark in
/// the first lines of the file). C programs are listed by [`c_models`].
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
/// reader of the SMT-LIB files arrax writes): `solvers/bin/z3` when the
/// fetch script unpacked it, else unpacked here from the downloaded wheel.
pub fn z3_binary() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("solvers");
    let bin = root.join("bin").join("z3");
    if bin.is_file() {
        return bin;
    }
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("z3-bin").join("z3");
    if !out.is_file() {
        let wheel = std::fs::read_dir(root.join("wheels"))
            .expect("the solver wheels (scripts/fetch-solvers.sh)")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("z3_solver-") && n.ends_with(".whl")))
            .expect("the z3-solver wheel in solvers/wheels");
        let script = "import sys, zipfile, os\nz = zipfile.ZipFile(sys.argv[1])\nn = [m for m in z.namelist() if m.endswith('/bin/z3')][0]\nos.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)\nopen(sys.argv[2] + '.tmp', 'wb').write(z.read(n))\nos.chmod(sys.argv[2] + '.tmp', 0o755)\nos.replace(sys.argv[2] + '.tmp', sys.argv[2])\n";
        let ok = std::process::Command::new("python3").args(["-c", script]).arg(&wheel).arg(&out).status().expect("python3 to unpack the wheel");
        assert!(ok.success(), "could not unpack z3 from {}", wheel.display());
    }
    out
}
