//! Every SAFE answer on the project's models writes proof obligations that
//! another program reads and proves: the `z3` binary of the pinned wheel
//! answers `unsat` on every obligation file (enumerations, process indices
//! and uninterpreted sorts declared as the solvers encode them).

mod common;

use std::path::Path;
use std::process::Command;

#[test]
fn every_obligation_of_every_safe_model_is_unsat_for_the_z3_binary() {
    let z3 = common::z3_binary();
    let models: Vec<_> = common::models().into_iter().chain(common::c_models()).filter(|(_, v)| v == "SAFE").collect();
    assert!(models.len() >= 20, "expected the project's safe models, found {}", models.len());
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("obligations");
    // two models at a time (each check and each z3 run is one process)
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<(Vec<String>, usize)> = std::sync::Mutex::new((vec![], 0));
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some((model, _)) = models.get(i) else { break };
                let (fails, n) = check_model(&z3, model, &base);
                let mut r = results.lock().unwrap();
                r.0.extend(fails);
                r.1 += n;
            });
        }
    });
    let (failures, files) = results.into_inner().unwrap();
    assert!(failures.is_empty(), "{} of {files} obligation files not unsat:\n{}", failures.len(), failures.join("\n"));
}

/// Checks one model with obligation files, and runs z3 on each: the
/// failures and the number of files.
fn check_model(z3: &Path, model: &Path, base: &Path) -> (Vec<String>, usize) {
    let name = model.file_name().unwrap().to_string_lossy().to_string();
    let dir = base.join(&name);
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_arrax")).arg("check").arg(model).args(["-v", "--timeout", "120", "--obligations"]).arg(&dir).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    if text.lines().last() != Some("SAFE") {
        // the phases and the last progress lines say where the time went
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = stderr.lines().collect();
        let phases = lines.iter().filter(|l| l.contains(" phase "));
        let tail = phases.chain(&lines[lines.len().saturating_sub(10)..]).copied().collect::<Vec<_>>().join("\n    ");
        return (vec![format!("{name}: not SAFE: {}\n    {tail}", text.lines().last().unwrap_or(""))], 0);
    }
    let mut obligations: Vec<_> = std::fs::read_dir(&dir).map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
    obligations.sort();
    let mut failures = vec![];
    if obligations.is_empty() {
        failures.push(format!("{name}: SAFE without obligation files"));
    }
    for f in &obligations {
        let r = Command::new(z3).arg("-T:60").arg(f).output().unwrap();
        let answer = String::from_utf8_lossy(&r.stdout);
        if answer.trim() != "unsat" {
            failures.push(format!("{name}: {}: z3 says {}", f.display(), answer.trim()));
        }
    }
    (failures, obligations.len())
}
