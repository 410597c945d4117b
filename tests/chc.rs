//! Horn clauses: the `.smt2` models in both dialects, snapshots of their
//! lowered systems, located refusals, models re-checked by the z3
//! executable against the clauses as written, and the round trip of the
//! program models through their export.

mod common;

use arrax::driver::{check, CheckOptions, Verdict};
use arrax::frontend::chc::{self, emit};
use arrax::frontend::sexp::{read_all, Sexp};
use arrax::frontend::{canonical, parse_file, parse_str, Format};
use arrax::smt::smtlib;
use arrax::system::horn::Clauses;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `.smt2` models with their expected verdicts (`REFUSED` for the one
/// outside the fragment).
fn chc_models() -> Vec<(PathBuf, String)> {
    let models: Vec<(PathBuf, String)> = common::models().into_iter().filter(|(p, _)| p.extension().is_some_and(|e| e == "smt2")).collect();
    assert!(models.len() >= 7, "expected the CHC models, found {}", models.len());
    models
}

/// The clauses in z3's rule format: one `declare-var` per variable name
/// (renamed apart where two clauses give one name two sorts), a rule per
/// clause (queries are rules with head `false`).
fn rules(cs: &Clauses) -> String {
    let mut out = String::new();
    for p in &cs.predicates {
        let sorts: Vec<String> = p.params.iter().map(|v| smtlib::sort(v.sort())).collect();
        out.push_str(&format!("(declare-rel {} ({}))\n", smtlib::symbol(&p.name), sorts.join(" ")));
    }
    let mut declared: Vec<(String, String)> = vec![];
    for c in &cs.clauses {
        for v in &c.vars {
            let (name, sort) = (v.var_name().unwrap().to_string(), smtlib::sort(v.sort()));
            assert!(!declared.iter().any(|(n, s)| *n == name && *s != sort), "{name} has two sorts");
            if !declared.contains(&(name.clone(), sort.clone())) {
                out.push_str(&format!("(declare-var {} {sort})\n", smtlib::symbol(&name)));
                declared.push((name, sort));
            }
        }
    }
    for c in &cs.clauses {
        let text = cs.clause_text(c);
        // the clause without its quantifier: the declared variables are free
        let sexps = read_all(&text).unwrap();
        let inner = match sexps[0].list() {
            Some([q, _, body]) if q.symbol() == Some("forall") => body.text(&text).to_string(),
            _ => text.clone(),
        };
        out.push_str(&format!("(rule {inner})\n"));
    }
    out
}

#[test]
fn every_chc_model_parses_in_both_dialects_to_the_same_system() {
    for (path, expected) in chc_models() {
        let src = std::fs::read_to_string(&path).unwrap();
        if expected == "REFUSED" {
            continue;
        }
        let (parsed, horn) = chc::read(&src).unwrap_or_else(|d| panic!("{}: {d}", path.display()));
        let is_rules = src.contains("(declare-rel");
        let other = if is_rules { horn.clauses.smtlib("converted") } else { rules(&horn.clauses) };
        assert_eq!(other.contains("(declare-rel"), !is_rules);
        let (again, _) = chc::read(&other).unwrap_or_else(|d| panic!("{}: the other dialect does not parse: {d}\n{other}", path.display()));
        assert_eq!(canonical::print(&again.system), canonical::print(&parsed.system), "{}: the dialects lower differently\n{other}", path.display());
    }
}

#[test]
fn snapshots_of_lowered_chc_models() {
    for (path, expected) in chc_models() {
        if expected == "REFUSED" {
            continue;
        }
        let parsed = parse_file(&path).unwrap_or_else(|d| panic!("{}: {d}", path.display()));
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        common::snapshot_settings().bind(|| insta::assert_snapshot!(name, canonical::print(&parsed.system)));
    }
}

/// Asserts the input is refused at `line:col` with a message containing `msg`.
fn refused(src: &str, line: usize, col: usize, msg: &str) {
    match parse_str(src, Format::Chc) {
        Ok(p) => panic!("expected a refusal for:\n{src}\ngot\n{}", canonical::print(&p.system)),
        Err(d) => {
            assert_eq!((d.line, d.col), (line, col), "{d} for:\n{src}");
            assert!(d.message.contains(msg), "'{}' lacks '{msg}'", d.message);
        }
    }
}

const HEAD: &str = "(set-logic HORN)\n(declare-fun p (Int) Bool)\n";

#[test]
fn inputs_outside_the_fragment_are_refused_at_their_position() {
    refused(&format!("{HEAD}(assert (forall ((x Int)) (=> (and (p x) (p (+ x 1))) false)))"), 3, 1, "non-linear clause");
    refused(&format!("{HEAD}(assert (forall ((x Int)) (=> (= x 0) (ite (> x 1) (p x) (p 0)))))"), 3, 52, "not a Horn clause");
    refused(&format!("{HEAD}(assert (forall ((x Int)) (=> (or (p x) (= x 1)) (p x))))"), 3, 35, "not a Horn clause");
    refused(&format!("{HEAD}(assert (forall ((x Int)) (=> (= x 0) (or (p x) (p 1)))))"), 3, 1, "2 predicates in the head");
    refused(&format!("{HEAD}(assert (forall ((x Real)) (p 0)))"), 3, 21, "sort Real is outside");
    refused(&format!("{HEAD}(assert (forall ((x Int)) (=> (= x 0.5) (p x))))"), 3, 36, "real numbers");
    refused(&format!("{HEAD}(assert (forall ((x Int)) (=> (forall ((y Int)) (< y x)) (p x))))"), 3, 32, "quantifiers only around");
    refused(&format!("{HEAD}(assert (forall ((x Int)) (=> (= (* x x) 4) (p x))))"), 3, 34, "non-linear product");
    refused(&format!("{HEAD}(assert (forall ((x Int)) (=> (= (div 4 x) 1) (p x))))"), 3, 41, "non-zero number literal");
    refused(&format!("{HEAD}(assert (forall ((x Int)) (p x y)))"), 3, 27, "takes 1 arguments");
    refused(&format!("{HEAD}(assert (forall ((x Int)) (p y)))"), 3, 30, "undeclared symbol 'y'");
    refused("(set-logic QF_LIA)", 1, 12, "set-logic HORN");
    refused("(set-logic HORN)\n(declare-fun f (Int) Int)", 2, 22, "uninterpreted functions");
    refused("(set-logic HORN)\n(declare-fun p ((Array Int (Array Bool Int))) Bool)", 2, 17, "outside the fragment");
    // bit-vectors only as the export writes C's bitwise operators
    let bv = |op: &str, w1: u8, w2: u8| {
        format!("{HEAD}(assert (forall ((x Int)) (=> (= (ubv_to_int ({op} ((_ int_to_bv {w1}) x) ((_ int_to_bv {w2}) 1))) 0) (p x))))")
    };
    refused(&bv("bvadd", 8, 8), 3, 46, "bit-vectors are read only as C's bitwise operators");
    refused(&bv("bvand", 8, 16), 3, 46, "different widths");
    refused(&bv("bvand", 65, 65), 3, 67, "from 1 to 64 bits");
    refused(&format!("{HEAD}(assert (forall ((x Int)) (=> (= (sbv_to_int x) 0) (p x))))"), 3, 46, "bit-vectors are read only");
    // an equality of arrays of several dimensions in a step (a universal guard over two variables)
    let grid = "(set-logic HORN)\n(declare-fun q ((Array Int (Array Int Int))) Bool)\n\
                (assert (forall ((a (Array Int (Array Int Int)))) (q a)))\n\
                (assert (forall ((a (Array Int (Array Int Int)))) (=> (and (q a) (= a ((as const (Array Int (Array Int Int))) ((as const (Array Int Int)) 1)))) (q a))))";
    refused(grid, 4, 1, "arrays of several dimensions in a step");
    refused(&format!("{HEAD}(push 1)"), 3, 2, "unsupported command 'push'");
    refused(&format!("{HEAD}(declare-rel q (Int))"), 3, 1, "mixes");
    refused("(declare-rel q (Int))\n(query (q 1))", 2, 8, "declared predicate");
    refused(&format!("{HEAD}(assert (forall ((x Int)) (=> (p x (= x 1)"), 3, 31, "unclosed");
    // an array chosen freely in a step
    let havoc = "(set-logic HORN)\n(declare-fun q ((Array Int Int)) Bool)\n(assert (forall ((a (Array Int Int))) (q a)))\n\
                 (assert (forall ((a (Array Int Int)) (b (Array Int Int))) (=> (q a) (q b))))";
    refused(havoc, 4, 1, "array chosen freely");
    let under_or = "(set-logic HORN)\n(declare-fun q ((Array Int Int)) Bool)\n(assert (forall ((a (Array Int Int))) (q a)))\n\
                    (assert (forall ((a (Array Int Int))) (=> (and (q a) (or (= a ((as const (Array Int Int)) 0)) (= (select a 0) 1))) false)))";
    refused(under_or, 4, 1, "array equality under a negation or disjunction");
}

#[test]
fn the_non_linear_model_is_refused_and_truncated_inputs_never_panic() {
    let path = root().join("models/chc_nonlinear.smt2");
    let d = parse_file(&path).err().expect("refused");
    assert!(d.message.contains("non-linear clause") && d.line == 9, "{d}");
    for (path, _) in chc_models() {
        let src = std::fs::read_to_string(&path).unwrap();
        for cut in (0..src.len()).step_by(7) {
            let _ = parse_str(&src[..src.floor_char_boundary(cut)], Format::Chc);
        }
    }
}

/// A script checking `model` (define-funs) against the clauses of a
/// Horn file as written: each clause negated, expected `unsat`.
fn model_check_script(src: &str, model: &str) -> String {
    let mut out = format!("(set-logic ALL)\n{model}\n");
    let mut vars = vec![];
    let check = |out: &mut String, f: String| out.push_str(&format!("(push 1)\n(assert (not {f}))\n(check-sat)\n(pop 1)\n"));
    for n in read_all(src).unwrap() {
        let items = n.list().unwrap();
        let text = |e: &Sexp| e.text(src).to_string();
        match n.head().unwrap() {
            "assert" => check(&mut out, text(&items[1])),
            "declare-var" => vars.push(format!("({} {})", text(&items[1]), text(&items[2]))),
            "rule" => check(&mut out, format!("(forall ({}) {})", vars.join(" "), text(&items[1]))),
            "query" => check(&mut out, format!("(=> {} false)", text(&items[1]))),
            _ => {}
        }
    }
    out
}

/// Runs the z3 executable on a script; its answers.
fn z3(script: &str) -> Vec<String> {
    let file = std::env::temp_dir().join(format!("arrax-chc-{}-{}.smt2", std::process::id(), script.len()));
    std::fs::write(&file, script).unwrap();
    let out = Command::new(common::z3_binary()).arg("-T:120").arg(&file).output().expect("the z3 executable (scripts/fetch-solvers.sh)");
    let _ = std::fs::remove_file(&file);
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect()
}

/// Checks a file with `--chc` semantics and returns the model (SAFE) or
/// the derivation (UNSAFE) text.
fn chc_answer(path: &Path, timeout: u64) -> (String, u8) {
    let (parsed, horn) = arrax::frontend::parse_file_horn(path, Default::default()).unwrap();
    let horn = horn.unwrap_or_else(|| emit::clauses(&parsed.system).unwrap());
    let opts = CheckOptions { timeout: Some(Duration::from_secs(timeout)), ..CheckOptions::default() };
    let r = check(&parsed.system, &opts);
    arrax::report::chc::answer(&parsed.system, &horn, &r)
}

#[test]
fn sat_models_hold_according_to_the_z3_executable() {
    let mut files: Vec<(PathBuf, Option<String>)> = vec![];
    for (path, expected) in chc_models() {
        files.push((path, Some(expected)));
    }
    // programs, through their export
    for name in ["find.c", "strcpy.c", "init_test.c", "array_copy.mcmt", "array_max.mcmt"] {
        files.push((root().join("models").join(name), None));
    }
    for (path, expected) in files {
        let name = path.display().to_string();
        if expected.as_deref().is_some_and(|e| e != "SAFE") {
            continue;
        }
        let (answer, code) = chc_answer(&path, 60);
        assert_eq!((code, answer.lines().next()), (0, Some("sat")), "{name}:\n{answer}");
        assert!(answer.contains("; model checked against the"), "{name}: {answer}");
        let model = answer.lines().skip_while(|l| !l.starts_with('(')).skip(1).collect::<Vec<_>>().join("\n");
        let model = model.trim_end().strip_suffix(')').unwrap().to_string();
        let src = match expected {
            Some(_) => std::fs::read_to_string(&path).unwrap(),
            None => emit::smtlib(&parse_file(&path).unwrap().system, "export").unwrap(),
        };
        let script = model_check_script(&src, &model);
        let answers = z3(&script);
        assert!(!answers.is_empty() && answers.iter().all(|a| a == "unsat"), "{name}: z3 answers {answers:?} to\n{script}");
    }
}

#[test]
fn unsat_answers_give_a_derivation_ending_in_false() {
    for name in ["chc_init_buggy.smt2", "chc_rules_copy_buggy.smt2", "find_buggy.c"] {
        let (answer, code) = chc_answer(&root().join("models").join(name), 60);
        assert_eq!((code, answer.lines().next()), (1, Some("unsat")), "{name}:\n{answer}");
        assert!(answer.contains("(derivation\n"), "{name}:\n{answer}");
        let last = answer.lines().rev().find(|l| l.trim_start().starts_with("(step")).unwrap();
        assert!(last.trim_end().ends_with("false)"), "{name}: {last}\n{answer}");
    }
}

/// The canonical print without its enumeration line (the export orders
/// the locations differently).
fn without_enums(p: &str) -> String {
    p.lines().filter(|l| !l.trim_start().starts_with("(enum ")).collect::<Vec<_>>().join("\n")
}

#[test]
fn program_models_survive_the_round_trip_through_their_export() {
    let mut programs: Vec<(PathBuf, String)> = common::c_models();
    programs.extend(common::models().into_iter().filter(|(p, _)| {
        p.extension().is_some_and(|e| e == "mcmt") && {
            let s = parse_file(p).unwrap().system;
            s.index_kind() == arrax::system::IndexKind::Int && s.transitions.iter().all(|t| t.params.is_empty())
        }
    }));
    assert!(programs.len() >= 30, "{}", programs.len());
    let mut slow = vec![];
    for (path, expected) in &programs {
        let sys = parse_file(path).unwrap().system;
        // every program is written, arrays of several dimensions and C's bitwise operators too
        let text = emit::smtlib(&sys, "round trip").unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let back = parse_str(&text, Format::Chc).unwrap_or_else(|d| panic!("{}: the export does not read back: {d}\n{text}", path.display()));
        // the same system (up to the order of locations), or else the same verdict
        if without_enums(&canonical::print(&back.system)) != without_enums(&canonical::print(&sys)) {
            slow.push((path.clone(), expected.clone(), back.system));
        }
    }
    eprintln!("read back as another system (verdicts compared): {:?}", slow.iter().map(|s| s.0.file_name().unwrap()).collect::<Vec<_>>());
    assert!(programs.len() >= 30, "only {} programs exported", programs.len());
    for (path, expected, sys) in slow {
        let opts = CheckOptions { timeout: Some(Duration::from_secs(120)), ..CheckOptions::default() };
        let got = match check(&sys, &opts).verdict {
            Verdict::Safe => "SAFE",
            Verdict::Unsafe => "UNSAFE",
            Verdict::Unknown(_) => "UNKNOWN",
        };
        assert_eq!(got, expected, "{}: the read-back export", path.display());
    }
}

#[test]
fn spacer_runs_side_by_side_on_the_chc_models_and_never_disagrees() {
    let models: Vec<PathBuf> = chc_models().into_iter().filter(|(_, e)| e != "REFUSED").map(|(p, _)| p).collect();
    let out = Command::new(env!("CARGO_BIN_EXE_arrax")).arg("bench").args(&models).args(["--peer", "spacer", "--timeout", "30"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let n = models.len();
    assert!(text.contains(&format!("{n} tasks, {n} exported to Horn clauses")), "{text}");
    assert!(text.contains(&format!("decided (agreeing with the expected verdict): arrax {n} ({n} of them exported), spacer ")), "{text}");
    assert!(!text.contains("!!!") && !text.contains("not run by spacer"), "{text}");
}

#[test]
fn a_two_dimensional_array_is_exported_as_an_array_of_arrays() {
    let sys = parse_file(&root().join("models/grid_column.c")).unwrap().system;
    let text = emit::smtlib(&sys, "grid_column.c").unwrap();
    for form in [
        "(grid (Array Int (Array Int Int)))",
        "(store grid r (store (select grid r) c 5))",
        "((as const (Array Int (Array Int Int))) ((as const (Array Int Int)) 0))",
    ] {
        assert!(text.contains(form), "{form} missing from\n{text}");
    }
    common::snapshot_settings().bind(|| insta::assert_snapshot!("chc_export_grid_column", text));
    let back = parse_str(&text, Format::Chc).unwrap_or_else(|d| panic!("{d}\n{text}"));
    let printed = canonical::print(&back.system);
    assert!(printed.contains("(local grid (Array Int Int Int))") && printed.contains("(= grid[j!, j!_2] 0)"), "{printed}");
}

#[test]
fn bitwise_operators_are_exported_over_bit_vectors_and_read_back_as_they_were() {
    let sys = parse_file(&root().join("models/bit_flags.c")).unwrap().system;
    let text = emit::smtlib(&sys, "bit_flags.c").unwrap();
    for form in ["(sbv_to_int (bvxor ((_ int_to_bv 32) ", "(sbv_to_int (bvand ((_ int_to_bv 32) ", "(ubv_to_int (bvor ((_ int_to_bv 32) "] {
        assert!(text.contains(form), "{form} missing from\n{text}");
    }
    let back = parse_str(&text, Format::Chc).unwrap_or_else(|d| panic!("{d}\n{text}"));
    let printed = canonical::print(&back.system);
    for op in ["bxor.s32", "band.s32", "bor.u32"] {
        assert!(printed.contains(op), "{op} missing from\n{printed}");
    }
    // z3's own names read the same
    let z3_names = text.replace("ubv_to_int", "bv2nat").replace("int_to_bv", "int2bv");
    assert_eq!(canonical::print(&parse_str(&z3_names, Format::Chc).unwrap().system), printed);
}

#[test]
fn a_row_of_a_nested_array_is_written_back_as_a_read_of_the_outer_array() {
    let src = "(set-logic HORN)\n(declare-fun q (Int (Array Int (Array Int Int))) Bool)\n\
               (assert (forall ((i Int) (a (Array Int (Array Int Int)))) (=> (= (select a i) ((as const (Array Int Int)) 1)) (q i a))))\n\
               (assert (forall ((i Int) (a (Array Int (Array Int Int)))) (=> (and (q i a) (not (= (select (select a i) 3) 1))) false)))";
    let (parsed, horn) = chc::read(src).unwrap();
    let text = horn.clauses.smtlib("again");
    assert!(text.contains("(= (select a i) ((as const (Array Int Int)) 1))") && !text.contains("lambda"), "{text}");
    let (again, _) = chc::read(&text).unwrap_or_else(|d| panic!("{d}\n{text}"));
    assert_eq!(canonical::print(&again.system), canonical::print(&parsed.system));
    let printed = canonical::print(&parsed.system);
    assert!(printed.contains("(forall ((j! Int)) (= a[i, j!] 1))"), "{printed}");
}
