//! The command line as users meet it: verdict lines, exit codes, limits,
//! bad input, JSON, written invariants and obligations.

use std::path::Path;
use std::process::Command;

fn arrax(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_arrax")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn last_line(s: &str) -> &str {
    s.lines().last().unwrap_or("")
}

#[test]
fn safe_model_ends_with_safe_and_exit_0() {
    let (code, out, _) = arrax(&["check", "models/mutex.mcmt"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(last_line(&out), "SAFE");
    assert!(out.contains("certified: "), "{out}");
    assert!(out.contains("Inductive invariant"), "{out}");
}

#[test]
fn unsafe_model_prints_a_trace_and_exits_1() {
    let (code, out, _) = arrax(&["check", "models/mutex_buggy.mcmt"]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(last_line(&out), "UNSAFE");
    assert!(out.contains("Counterexample with 2 process(es)"), "{out}");
    assert!(out.contains("step 1:"), "{out}");
}

#[test]
fn node_limit_gives_unknown_and_exit_3() {
    let (code, out, _) = arrax(&["check", "models/german.mcmt", "--brab", "0", "--max-nodes", "20"]);
    assert_eq!(code, 3, "{out}");
    assert_eq!(last_line(&out), "UNKNOWN (node limit)");
    assert!(out.contains("statistics: nodes"), "{out}");
}

#[test]
fn timeout_gives_unknown_and_exit_3() {
    let (code, out, _) = arrax(&["check", "models/german.mcmt", "--brab", "0", "--timeout", "0.05"]);
    assert_eq!(code, 3, "{out}");
    assert_eq!(last_line(&out), "UNKNOWN (timeout)");
}

#[test]
fn process_limit_never_claims_safe() {
    // with at most 2 processes per cube the German protocol's pre-images are cut: no SAFE
    let (code, out, _) = arrax(&["check", "models/german.mcmt", "--brab", "0", "--max-procs", "2"]);
    assert_eq!(code, 3, "{out}");
    assert!(last_line(&out).starts_with("UNKNOWN (process limit"), "{out}");
}

#[test]
fn bad_input_gets_file_line_col_and_exit_2() {
    let tmp = tempfile::Builder::new().prefix("arrax-cli-").tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let cases: &[(&str, &[u8], &str)] = &[
        ("undeclared.mcmt", b":local a bool\n:initial\n:var x\n:cnj (= q[x] true)\n:unsafe\n:var z1\n:cnj (= a[z1] true)\n", ":4:"),
        ("truncated.mcmt", b":local a bool\n:initial\n:var x\n:cnj (= a[x] ", ":4:"),
        ("binary.mcmt", b"\x00\x01\xff\xfe garbage", ":1:1:"),
        ("empty.mcmt", b"", ":1:1:"),
    ];
    for (name, bytes, loc) in cases {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        for cmd in ["parse", "check"] {
            let (code, out, err) = arrax(&[cmd, p.to_str().unwrap()]);
            assert_eq!(code, 2, "{name} {cmd}: {out}{err}");
            let first = err.lines().next().unwrap_or("");
            assert!(first.starts_with(&format!("{}{loc}", p.display())), "{name}: {err}");
            assert!(!err.contains("panicked"), "{name}: {err}");
        }
    }
    // Problems of the whole file have no position: `file: message`.
    let missing = dir.join("missing.mcmt");
    let (code, _, err) = arrax(&["check", missing.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.starts_with(&format!("{}: cannot read the file:", missing.display())), "{err}");
    let unknown = dir.join("model.txt");
    std::fs::write(&unknown, ":local a bool\n").unwrap();
    let (code, _, err) = arrax(&["check", unknown.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.starts_with(&format!("{}: unknown input language", unknown.display())) && err.contains(".cub"), "{err}");
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(arrax(&["check"]).0, 2);
    assert_eq!(arrax(&["frobnicate"]).0, 2);
    assert_eq!(arrax(&["check", "models/mutex.mcmt", "--timeout", "-1"]).0, 2);
    assert_eq!(arrax(&["check", "models/mutex.mcmt", "--max-nodes", "many"]).0, 2);
}

#[test]
fn json_is_one_object_with_the_verdict() {
    let (code, out, _) = arrax(&["check", "models/bakery_buggy.mcmt", "--json"]);
    assert_eq!(code, 1);
    let line = out.trim();
    assert!(line.starts_with('{') && line.ends_with('}'), "{out}");
    assert_eq!(out.lines().count(), 1);
    assert!(line.contains("\"verdict\":\"UNSAFE\""), "{out}");
    assert!(line.contains("\"certified\":true"), "{out}");
    assert!(line.contains("\"trace\":{\"procs\":2"), "{out}");
}

#[test]
fn invariant_and_obligations_are_written_as_smtlib() {
    let tmp = tempfile::Builder::new().prefix("arrax-obl-").tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let inv = dir.join("inv.smt2");
    let (code, out, err) = arrax(&["check", "models/bakery.mcmt", "--invariant", inv.to_str().unwrap(), "--obligations", dir.join("obl").to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let text = std::fs::read_to_string(&inv).unwrap();
    assert!(text.contains("(define-fun invariant () Bool"), "{text}");
    let files: Vec<_> = std::fs::read_dir(dir.join("obl")).unwrap().collect();
    assert!(!files.is_empty());
    for f in files {
        let t = std::fs::read_to_string(f.unwrap().path()).unwrap();
        assert!(t.contains("(check-sat)") && t.contains("expected unsat"));
    }
    assert!(Path::new(&inv).exists());
}

#[test]
fn json_statistics_agree_with_the_text() {
    // one lane: which of two parallel lanes answers first may differ between runs
    let (_, json, _) = arrax(&["check", "models/german.mcmt", "--json", "--lanes", "1"]);
    let (_, text, _) = arrax(&["check", "models/german.mcmt", "-v", "--lanes", "1"]);
    let num = |hay: &str, key: &str, after: &str| -> String {
        let i = hay.find(key).unwrap_or_else(|| panic!("{key} in {hay}")) + key.len();
        let rest = &hay[i..];
        let rest = &rest[rest.find(after).unwrap() + after.len()..];
        rest.chars().take_while(|c| c.is_ascii_digit()).collect()
    };
    for (j, t) in [("\"expanded\"", "expanded"), ("\"approximated\"", "approximated"), ("\"covered\"", "covered"), ("\"nodes\"", "nodes")] {
        assert_eq!(num(&json, j, ":"), num(&text, t, " "), "{t}");
    }
}

/// Two lanes of the parallel portfolio: whichever answers first, the
/// verdict and exit code are the model's, and the answer names its lane;
/// with one lane there is no such note; a run that writes files runs one lane.
#[test]
fn parallel_lanes_answer_with_a_checked_answer() {
    for (model, code, word) in [
        ("models/home_directory.cub", 0, "SAFE"),
        ("models/home_directory_buggy.cub", 1, "UNSAFE"),
        ("models/mark_zeros.c", 0, "SAFE"),
        ("models/find_buggy.c", 1, "UNSAFE"),
    ] {
        // the second lane starts at once (by default after half a second)
        let (c, out, err) = arrax(&["check", model, "--lanes", "2", "--lanes-after", "0"]);
        assert_eq!(c, code, "{model}: {out}{err}");
        assert!(out.lines().last().is_some_and(|l| l.starts_with(word)), "{model}: {out}");
        assert!(out.contains("parallel portfolio: lane"), "{model}: {out}");
        assert!(out.contains("certified"), "{model}: {out}");
        let (c, out, _) = arrax(&["check", model, "--lanes", "1"]);
        assert_eq!(c, code, "{model}");
        assert!(!out.contains("parallel portfolio"), "{model}: {out}");
    }
    // both lanes undecided: UNKNOWN at the time limit, no lane left behind
    let t0 = std::time::Instant::now();
    let (c, out, _) = arrax(&["check", "tests/data/diverging.cub", "--lanes", "2", "--lanes-after", "0", "--timeout", "2"]);
    assert_eq!(c, 3, "{out}");
    assert!(out.contains("UNKNOWN"), "{out}");
    assert!(t0.elapsed() < std::time::Duration::from_secs(10), "{:?}", t0.elapsed());
    let tmp = tempfile::Builder::new().prefix("arrax-cli-lanes-").tempdir().unwrap();
    let inv = tmp.path().join("inv.smt2");
    let (c, out, _) = arrax(&["check", "models/home_directory.cub", "--lanes", "2", "--invariant", inv.to_str().unwrap()]);
    assert_eq!(c, 0);
    assert!(!out.contains("parallel portfolio"), "{out}");
}

#[test]
fn bad_c_input_gets_file_line_col_and_exit_2() {
    let tmp = tempfile::Builder::new().prefix("arrax-cli-c-").tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let cases: &[(&str, &str, &str)] = &[
        ("syntax.c", "int main() {\n  int x = 1 +;\n}\n", ":2:14: syntax error: expected an expression"),
        ("pointer.c", "int main() {\n  int *p = (int *) 4;\n  return *p;\n}\n", ":2:20: unsupported: converting an integer to a pointer"),
        ("recursion.c", "int f(int n) {\n  return n <= 0 ? 0 : f(n - 1);\n}\nint main() { return f(3); }\n", ":2:23: unsupported: recursive call to 'f'"),
        ("float.c", "int main() {\n  float f = 0;\n}\n", ":2:9: unsupported: floating point"),
    ];
    for (name, src, msg) in cases {
        let p = dir.join(name);
        std::fs::write(&p, src).unwrap();
        for cmd in ["parse", "check"] {
            let (code, out, err) = arrax(&[cmd, p.to_str().unwrap()]);
            assert_eq!(code, 2, "{name} {cmd}: {out}{err}");
            let first = err.lines().next().unwrap_or("");
            assert!(first.starts_with(&format!("{}{msg}", p.display())), "{name}: {err}");
            assert!(!err.contains("panicked"), "{name}: {err}");
        }
    }
}

#[test]
fn task_files_name_their_program_and_property() {
    let tmp = tempfile::Builder::new().prefix("arrax-cli-yml-").tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    std::fs::write(dir.join("ok.c"), "extern void __VERIFIER_assert(int);\nint main() {\n  int x = 1;\n  __VERIFIER_assert(x == 1);\n}\n").unwrap();
    std::fs::write(dir.join("bad.c"), "int main() {\n  return 0\n}\n").unwrap();
    let task = |program: &str, property: &str| {
        format!("format_version: '2.0'\ninput_files: '{program}'\nproperties:\n  - property_file: ../properties/{property}.prp\n    expected_verdict: true\noptions:\n  language: C\n")
    };
    std::fs::write(dir.join("ok.yml"), task("ok.c", "unreach-call")).unwrap();
    std::fs::write(dir.join("memsafety.yml"), task("ok.c", "valid-memsafety")).unwrap();
    std::fs::write(dir.join("bad.yml"), task("bad.c", "unreach-call")).unwrap();
    let yml = |n: &str| dir.join(n).to_str().unwrap().to_string();
    let (code, out, err) = arrax(&["check", "--svcomp", &yml("ok.yml")]);
    assert_eq!((code, out.lines().next()), (0, Some("TRUE")), "{out}{err}");
    let (code, _, err) = arrax(&["check", &yml("memsafety.yml")]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with(&format!("{}:4:20: unsupported: property", yml("memsafety.yml"))), "{err}");
    assert!(err.contains("only unreach-call"), "{err}");
    // an error in the program is located in the program's file
    let (code, _, err) = arrax(&["parse", &yml("bad.yml")]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with(&format!("{}:3:1: syntax error: expected ';'", dir.join("bad.c").display())), "{err}");
}

#[test]
fn svcomp_verdict_is_the_first_line() {
    for (model, first, code) in [("models/mutex.mcmt", "TRUE", 0), ("models/mutex_buggy.mcmt", "FALSE", 1)] {
        let (c, out, _) = arrax(&["check", "--svcomp", model]);
        assert_eq!((c, out.lines().next()), (code, Some(first)), "{out}");
    }
    let (c, out, _) = arrax(&["check", "--svcomp", "--timeout", "1", "models/init_test.c"]);
    let first = out.lines().next().unwrap_or("");
    assert!(["TRUE", "UNKNOWN"].contains(&first), "{out}");
    assert!(c == 0 || c == 3, "{out}");
}

#[test]
fn parse_lowered_prints_the_canonical_system() {
    let (code, out, _) = arrax(&["parse", "models/init_test.c"]);
    assert_eq!(code, 0);
    assert!(out.contains("lowered to") && out.contains("--lowered"), "{out}");
    let (code, out, _) = arrax(&["parse", "--lowered", "models/init_test.c"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("(system\n  (index int)\n  (enum loc (names "), "{out}");
}

/// `-v` shows progress on stderr within about a second, and SIGINT ends
/// the run with its statistics and `UNKNOWN (interrupted)`, exit code 3.
/// The model never converges, so the signal always lands mid-search.
#[test]
fn progress_and_interrupt() {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_arrax"))
        .args(["check", "tests/data/diverging.cub", "--engine", "bwd", "--brab", "0", "--timeout", "120", "-v"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    // the first progress line, whatever second it reports (later under load)
    while !seen.lines().any(|l| l.contains("backward search ") && l.trim_end().contains("s: ")) {
        let mut line = String::new();
        assert_ne!(stderr.read_line(&mut line).unwrap(), 0, "no progress line before the end: {seen}");
        seen.push_str(&line);
    }
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{seen}");
    assert_eq!(last_line(&stdout), "UNKNOWN (interrupted)", "{stdout}");
    assert!(stdout.contains("statistics: nodes"), "{stdout}");
    assert!(seen.contains("nodes"), "{seen}");
}

/// A closed stdout ends the run without a panic.
#[test]
fn closed_stdout_is_no_panic() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arrax"))
        .args(["check", "--svcomp", "models/find.c"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(out.status.code(), Some(101), "{stderr}");
}

/// `--property` accepts unreach-call and refuses other properties with
/// `file:line:col`, exit code 2.
#[test]
fn property_files() {
    let tmp = tempfile::Builder::new().prefix("arrax-prp-").tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let good = dir.join("unreach-call.prp");
    std::fs::write(&good, "CHECK( init(main()), LTL(G ! call(reach_error())) )\n").unwrap();
    let bad = dir.join("valid-memsafety.prp");
    std::fs::write(&bad, "CHECK( init(main()), LTL(G valid-free) )\n").unwrap();
    let (code, out, _) = arrax(&["check", "models/find.c", "--property", good.to_str().unwrap(), "--svcomp"]);
    assert_eq!((code, out.lines().next()), (0, Some("TRUE")), "{out}");
    let (code, _, err) = arrax(&["check", "models/find.c", "--property", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{}:1:1: unsupported property", bad.display())), "{err}");
}

/// Engines that need integer indices are a usage error on a protocol.
#[test]
fn program_engines_on_a_protocol_are_usage_errors() {
    for engine in ["houdini", "run"] {
        let (code, out, err) = arrax(&["check", "models/mutex.mcmt", "--engine", engine]);
        assert_eq!(code, 2, "{engine}: {out}{err}");
        assert!(err.contains(&format!("--engine {engine} needs integer indices")), "{err}");
    }
}

/// Invariant clauses say that their variables are distinct.
#[test]
fn clauses_name_distinct_variables() {
    let (code, out, _) = arrax(&["check", "models/mutex.mcmt"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("∀z1 ≠ z2. ¬("), "{out}");
}

/// `--dot` writes the search graph: backward nodes with their cubes and
/// covering edges, or the lazy abstraction tree.
#[test]
fn dot_writes_the_search_graph() {
    let tmp = tempfile::Builder::new().prefix("arrax-dot-").tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    for (model, engine) in [("models/mutex.mcmt", "bwd"), ("models/find.c", "lazy")] {
        let file = dir.join(format!("{engine}.dot"));
        let (code, out, err) = arrax(&["check", model, "--engine", engine, "--dot", file.to_str().unwrap()]);
        assert_eq!(code, 0, "{out}{err}");
        let dot = std::fs::read_to_string(&file).unwrap();
        assert!(dot.starts_with("digraph search {") && dot.trim_end().ends_with('}'), "{dot}");
        assert!(dot.contains("n0 [label=\"#0: ") && dot.contains(" -> n"), "{dot}");
        if engine == "bwd" {
            assert!(dot.contains("style=dashed"), "covering edges: {dot}");
        }
    }
}

/// Option values out of range are usage errors (exit 2), never a panic or
/// a run that cannot end.
#[test]
fn option_values_out_of_range_are_usage_errors() {
    for args in [
        ["--timeout", "1e30"],
        ["--timeout", "0"],
        ["--timeout", "nan"],
        ["--brab", "1000000"],
        ["--max-procs", "0"],
        ["--max-nodes", "0"],
        ["--memory", "1"],
        ["--max-steps", "0"],
    ] {
        let (code, out, err) = arrax(&["check", "models/mutex.mcmt", args[0], args[1]]);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// The memory limit ends a run UNKNOWN (memory), exit 3.
#[test]
fn memory_limit_gives_unknown() {
    // forward execution writing 400M cells of an array: its memory grows
    let file = std::env::temp_dir().join(format!("arrax-big-{}.c", std::process::id()));
    let src = "extern void reach_error(void);\nint a[400000000];\nint main() {\n  for (int i = 0; i < 400000000; i++) a[i] = i;\n  for (int i = 0; i < 400000000; i++) if (a[i] != i) reach_error();\n  return 0;\n}\n";
    std::fs::write(&file, src).unwrap();
    let (code, out, err) = arrax(&["check", file.to_str().unwrap(), "--engine", "run", "--memory", "100", "--timeout", "120"]);
    let _ = std::fs::remove_file(&file);
    assert_eq!(code, 3, "{out}{err}");
    assert_eq!(last_line(&out), "UNKNOWN (memory)", "{out}");
}

/// `--data-model` sets the width of `long` (over a task file's own).
#[test]
fn data_model_option() {
    let prog = "tests/c_programs/long_width.c";
    let (code, out, err) = arrax(&["check", "--svcomp", prog]);
    assert_eq!((code, out.lines().next()), (0, Some("TRUE")), "{out}{err}");
    let (code, out, err) = arrax(&["check", "--svcomp", "--data-model", "LP64", prog]);
    assert_eq!((code, out.lines().next()), (1, Some("FALSE")), "{out}{err}");
    let tmp = tempfile::Builder::new().prefix("arrax-cli-dm-").tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let program = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(prog);
    let task = dir.join("t.yml");
    let yaml = format!("input_files: '{}'\nproperties: [{{property_file: unreach-call.prp}}]\noptions: {{language: C, data_model: LP64}}\n", program.display());
    std::fs::write(&task, yaml).unwrap();
    let (code, out, _) = arrax(&["check", "--svcomp", task.to_str().unwrap()]);
    assert_eq!((code, out.lines().next()), (1, Some("FALSE")), "{out}");
    let (code, out, _) = arrax(&["check", "--svcomp", "--data-model", "ILP32", task.to_str().unwrap()]);
    assert_eq!((code, out.lines().next()), (0, Some("TRUE")), "{out}");
    assert_eq!(arrax(&["check", "--data-model", "LP32", prog]).0, 2);
}
