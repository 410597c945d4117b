//! SV-COMP witnesses (YAML format 2.0) of the C models: a violation
//! witness for every buggy model, read back and confirmed by replay (and a
//! wrong value rejected where the value matters); a correctness witness
//! for every safe model, each loop invariant a C expression; the command
//! line's `--witness` and `validate` with their exit codes; one small
//! witness as a snapshot.

mod common;

use arrax::driver::{check, CheckOptions, CheckResult, Verdict};
use arrax::engine::Choice;
use arrax::frontend::{parse_file, Parsed};
use arrax::report::witness::{self, validate};
use std::path::Path;
use std::process::Command;

/// The checks of the heavy tests run one at a time (their 60 s limits
/// are meant for a machine that is not also running the others).
static HEAVY: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn checked(path: &Path, opts: &CheckOptions) -> (Parsed, CheckResult) {
    let parsed = parse_file(path).unwrap_or_else(|d| panic!("{}: {d}", path.display()));
    let r = check(&parsed.system, opts);
    (parsed, r)
}

fn default_opts() -> CheckOptions {
    CheckOptions { timeout: Some(std::time::Duration::from_secs(60)), ..CheckOptions::default() }
}

/// The witness text of a checked answer.
fn witness_of(parsed: &Parsed, r: &CheckResult) -> String {
    let map = parsed.source.as_ref().expect("a C program has a source map");
    let program = witness::Program::of(map).expect("the program file");
    witness::of_result(&parsed.system, map, &program, r).unwrap_or_else(|e| panic!("no witness: {e}"))
}

/// Checks the keys every entry of a witness needs.
fn required_keys(text: &str, entry_type: &str) -> serde_yaml_ng::Value {
    let doc: serde_yaml_ng::Value = serde_yaml_ng::from_str(text).expect("the witness is YAML");
    let entries = doc.as_sequence().expect("a list of entries");
    assert_eq!(entries.len(), 1);
    let e = &entries[0];
    assert_eq!(e["entry_type"].as_str(), Some(entry_type));
    let m = &e["metadata"];
    assert_eq!(m["format_version"].as_str(), Some("2.0"));
    assert_eq!(m["uuid"].as_str().map(|u| u.len()), Some(36));
    assert!(m["creation_time"].as_str().is_some_and(|t| t.ends_with('Z') && t.len() == 20));
    assert_eq!(m["producer"]["name"].as_str(), Some("arrax"));
    assert!(m["producer"]["version"].as_str().is_some());
    let task = &m["task"];
    let file = task["input_files"][0].as_str().expect("an input file").to_string();
    let hash = task["input_file_hashes"][file.as_str()].as_str().expect("the input file's hash");
    // the digest as coreutils' sha256sum computes it
    let out = std::process::Command::new("sha256sum").arg(&file).output().expect("sha256sum runs");
    let expected = String::from_utf8_lossy(&out.stdout).split_whitespace().next().unwrap_or_default().to_string();
    assert_eq!(hash, expected);
    assert_eq!(task["specification"].as_str(), Some("G ! call(reach_error())"));
    assert_eq!(task["data_model"].as_str(), Some("ILP32"));
    assert_eq!(task["language"].as_str(), Some("C"));
    assert!(e["content"].as_sequence().is_some());
    doc
}

/// Every buggy C model: a violation witness with the required keys and
/// waypoints, confirmed by replay; a wrong value is rejected in the
/// models where the values matter.
#[test]
fn violation_witnesses_of_the_buggy_models_are_confirmed() {
    let _cwd = std::env::set_current_dir(env!("CARGO_MANIFEST_DIR"));
    let models: Vec<_> = common::c_models().into_iter().filter(|(_, v)| v == "UNSAFE").collect();
    assert!(models.len() >= 15, "expected the buggy C models, found {}", models.len());
    let mut failures = vec![];
    let mut rejected = vec![];
    for (path, _) in &models {
        let _one = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let rel = Path::new("models").join(path.file_name().unwrap());
        let (parsed, r) = checked(&rel, &default_opts());
        if r.verdict != Verdict::Unsafe {
            failures.push(format!("{name}: {:?}", r.verdict));
            continue;
        }
        let text = witness_of(&parsed, &r);
        let doc = required_keys(&text, "violation_sequence");
        let content = doc[0]["content"].as_sequence().unwrap();
        for seg in content {
            let w = &seg["segment"][0]["waypoint"];
            assert_eq!(w["action"].as_str(), Some("follow"), "{name}");
            assert!(w["location"]["line"].as_u64().is_some() && w["location"]["column"].as_u64().is_some(), "{name}");
            assert_eq!(w["location"]["file_name"].as_str(), rel.to_str(), "{name}");
        }
        let last = &content.last().unwrap()["segment"][0]["waypoint"];
        assert_eq!(last["type"].as_str(), Some("target"), "{name}");
        let map = parsed.source.as_ref().unwrap();
        let w = validate::read(&text).unwrap_or_else(|d| panic!("{name}: {d}"));
        assert_eq!(w.returns.len() + 1, content.len(), "{name}");
        match validate::validate(&parsed.system, map, &w, None) {
            validate::Outcome::Confirmed(p) => assert_eq!(p.calls.len(), w.returns.len(), "{name}"),
            validate::Outcome::NotConfirmed(why) => failures.push(format!("{name}: not confirmed: {why}")),
        }
        // a target elsewhere is never confirmed (tried on the short runs)
        if w.returns.len() <= 1000 {
            let mut moved = w.clone();
            moved.target.line += 1;
            if matches!(validate::validate(&parsed.system, map, &moved, None), validate::Outcome::Confirmed(_)) {
                failures.push(format!("{name}: a witness with a moved target was confirmed"));
            }
        }
        // wrong values: the first few, and the rare ones (a spike among zeros)
        let mut tries: Vec<usize> = (0..w.returns.len().min(3)).collect();
        let zeros = w.returns.iter().filter(|p| p.value == Some(0)).count();
        if zeros * 2 > w.returns.len() {
            tries.extend(w.returns.iter().enumerate().filter(|(_, p)| p.value != Some(0)).map(|(k, _)| k).take(3));
        }
        tries.dedup();
        for k in tries {
            let mut bad = w.clone();
            let v = bad.returns[k].value.unwrap();
            bad.returns[k].value = Some(if v == 0 { 1 } else { 0 });
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            if let validate::Outcome::NotConfirmed(_) = validate::validate(&parsed.system, map, &bad, Some(deadline)) {
                rejected.push(name.clone());
                break;
            }
        }
    }
    assert!(failures.is_empty(), "witness failures:\n{}", failures.join("\n"));
    // where a value decides whether the error is reached, a wrong one is rejected
    for must in ["last_of_buggy", "malloc_init_buggy", "matrix_buggy", "pointer_walk_buggy", "rescale_buggy", "vla_fill_buggy", "bubble_sort_buggy"] {
        assert!(rejected.iter().any(|n| n == must), "{must}: no mutated witness was rejected (rejected in: {rejected:?})");
    }
}

/// Parses a C expression with the C front end (inside a function body).
fn parses_as_c(expr: &str) -> Result<(), String> {
    let src = format!("int f(void) {{ return ({expr}); }}\n");
    let pp = arrax::frontend::c::preprocess::preprocess(&src, Default::default(), None).map_err(|d| d.to_string())?;
    arrax::frontend::c::parse::parse(&src, pp.tokens, None).map(|_| ()).map_err(|d| d.to_string())
}

/// Every safe C model: a correctness witness, one loop invariant per loop
/// statement the lowered program has a location for, each a C expression.
#[test]
fn correctness_witnesses_of_the_safe_models_hold_c_invariants() {
    let _cwd = std::env::set_current_dir(env!("CARGO_MANIFEST_DIR"));
    let models: Vec<_> = common::c_models().into_iter().filter(|(_, v)| v == "SAFE").collect();
    assert!(models.len() >= 15, "expected the safe C models, found {}", models.len());
    let mut failures = vec![];
    let mut expressed = 0;
    for (path, _) in &models {
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let rel = Path::new("models").join(path.file_name().unwrap());
        let _one = HEAVY.lock().unwrap_or_else(|e| e.into_inner());
        let (mut parsed, mut r) = checked(&rel, &default_opts());
        if matches!(r.verdict, Verdict::Unknown(_)) {
            // a loaded machine can leave a phase short of time: once more
            (parsed, r) = checked(&rel, &default_opts());
        }
        if r.verdict != Verdict::Safe {
            failures.push(format!("{name}: {:?}", r.verdict));
            continue;
        }
        let text = witness_of(&parsed, &r);
        let doc = required_keys(&text, "invariant_set");
        let heads = parsed.source.as_ref().unwrap().locations.iter().filter(|l| l.loop_head.is_some()).count();
        let content = doc[0]["content"].as_sequence().unwrap();
        assert!(content.len() <= heads && (heads == 0 || !content.is_empty()), "{name}: {} invariants for {heads} loop heads", content.len());
        for item in content {
            let inv = &item["invariant"];
            assert_eq!(inv["type"].as_str(), Some("loop_invariant"), "{name}");
            assert_eq!(inv["format"].as_str(), Some("c_expression"), "{name}");
            assert!(inv["location"]["line"].as_u64().is_some() && inv["location"]["column"].as_u64().is_some(), "{name}");
            let value = inv["value"].as_str().unwrap_or_else(|| panic!("{name}: an invariant without a value"));
            if let Err(e) = parses_as_c(value) {
                failures.push(format!("{name}: `{value}` is not a C expression: {e}"));
            }
            if value != "1" {
                expressed += 1;
            }
        }
    }
    assert!(failures.is_empty(), "correctness witness failures:\n{}", failures.join("\n"));
    assert!(expressed >= 10, "only {expressed} loop invariants say more than 1");
}

/// The loop invariant of a small program, exactly.
#[test]
fn a_loop_invariant_is_the_certified_invariant_in_c() {
    let _cwd = std::env::set_current_dir(env!("CARGO_MANIFEST_DIR"));
    let (parsed, r) = checked(Path::new("models/init_test.c"), &default_opts());
    assert_eq!(r.verdict, Verdict::Safe);
    let text = witness_of(&parsed, &r);
    let doc: serde_yaml_ng::Value = serde_yaml_ng::from_str(&text).unwrap();
    let values: Vec<&str> = doc[0]["content"].as_sequence().unwrap().iter().map(|i| i["invariant"]["value"].as_str().unwrap()).collect();
    assert_eq!(values, ["!(i < 0)", "!(i < 0)"]);
}

fn arrax(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_arrax")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The command line: `check --witness` writes it, `validate` confirms it
/// (exit 1), rejects a wrong value (exit 3) and a malformed file (exit 2,
/// `file:line:col: message`); no witness for non-C inputs or UNKNOWN.
#[test]
fn witnesses_on_the_command_line() {
    let tmp = tempfile::Builder::new().prefix("arrax-witness-").tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let w = dir.join("w.yml");
    let ws = w.to_str().unwrap();
    let (code, out, _) = arrax(&["check", "models/last_of_buggy.c", "--witness", ws]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("__VERIFIER_nondet_int() = "), "the trace in source terms: {out}");
    assert!(out.contains("fails at line 18, column 3 (in main)"), "{out}");
    let (code, out, _) = arrax(&["validate", "models/last_of_buggy.c", ws]);
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("witness confirmed"), "{out}");
    // n = 0 returns before the bug
    let text = std::fs::read_to_string(&w).unwrap();
    let value = text.lines().find(|l| l.contains("\\result ==")).unwrap().trim().trim_start_matches("value: \\result == ").to_string();
    let bad = dir.join("bad.yml");
    std::fs::write(&bad, text.replace(&format!("\\result == {value}"), "\\result == 0")).unwrap();
    let (code, out, _) = arrax(&["validate", "models/last_of_buggy.c", bad.to_str().unwrap()]);
    assert_eq!(code, 3, "{out}");
    assert!(out.starts_with("witness not confirmed: "), "{out}");
    // malformed: an unreadable constraint, a missing key
    std::fs::write(&bad, text.replace(&format!("\\result == {value}"), "\\result > 3")).unwrap();
    let (code, _, err) = arrax(&["validate", "models/last_of_buggy.c", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with(&format!("{}:", bad.display())) && err.contains("cannot read the constraint"), "{err}");
    let line = err.split(':').nth(1).unwrap().parse::<usize>().unwrap();
    assert!(text.lines().nth(line - 1).unwrap().contains("\\result"), "{err}");
    std::fs::write(&bad, text.replace("action: follow", "actio: follow")).unwrap();
    let (code, _, err) = arrax(&["validate", "models/last_of_buggy.c", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("missing field `action`"), "{err}");
    assert!(err.split(':').nth(1).is_some_and(|l| l.parse::<usize>().is_ok()), "{err}");
    // a correctness witness for SAFE, also from a task file in SV-COMP mode
    let task = dir.join("init_test.yml");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("models/init_test.c"), dir.join("init_test.c")).unwrap();
    std::fs::write(&task, "format_version: '2.0'\ninput_files: 'init_test.c'\nproperties:\n  - property_file: ../properties/unreach-call.prp\n    expected_verdict: true\noptions:\n  language: C\n  data_model: ILP32\n").unwrap();
    let (code, out, _) = arrax(&["check", "--svcomp", task.to_str().unwrap(), "--witness", ws]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("TRUE"), "{out}");
    let text = std::fs::read_to_string(&w).unwrap();
    assert!(text.contains("entry_type: invariant_set") && text.contains("type: loop_invariant"), "{text}");
    assert!(text.contains(&format!("- {}", dir.join("init_test.c").display())), "{text}");
    // UNKNOWN: no file; non-C input: a usage error
    std::fs::remove_file(&w).unwrap();
    let (code, _, err) = arrax(&["check", "models/init_test.c", "--engine", "run", "--timeout", "1", "--witness", ws]);
    assert_eq!(code, 3);
    assert!(err.contains("no witness written") && !w.exists(), "{err}");
    let (code, _, err) = arrax(&["check", "models/german.mcmt", "--witness", ws]);
    assert_eq!(code, 2);
    assert!(err.contains("--witness: witnesses are written for C programs"), "{err}");
}

/// A small violation witness as written (forward execution, whose choices
/// are seeded), its uuid, time and hash replaced.
#[test]
fn a_small_violation_witness() {
    let _cwd = std::env::set_current_dir(env!("CARGO_MANIFEST_DIR"));
    let opts = CheckOptions { engine: Choice::Run, ..default_opts() };
    let (parsed, r) = checked(Path::new("models/pointer_walk_buggy.c"), &opts);
    assert_eq!(r.verdict, Verdict::Unsafe);
    let text = witness_of(&parsed, &r);
    let redacted: String = text
        .lines()
        .map(|l| {
            let t = l.trim_start();
            let indent = &l[..l.len() - t.len()];
            if t.starts_with("uuid:") {
                format!("{indent}uuid: '[uuid]'")
            } else if t.starts_with("creation_time:") {
                format!("{indent}creation_time: '[time]'")
            } else if t.starts_with("models/pointer_walk_buggy.c: ") {
                format!("{indent}models/pointer_walk_buggy.c: '[sha256]'")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    common::snapshot_settings().bind(|| insta::assert_snapshot!("witness_pointer_walk_buggy", redacted));
}
