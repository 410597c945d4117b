//! The C front end: every SV-COMP array task lowers or is rejected as
//! unsupported, the lowered models survive the canonical round trip and are
//! snapshot-tested, and the semantics choices show in the lowered systems.

mod common;

use arrax::frontend::{canonical, parse_file, parse_str, Diagnostic, Format, Parsed};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn c(src: &str) -> Parsed {
    parse_str(src, Format::C).unwrap_or_else(|d| panic!("{d}\n{src}"))
}

fn c_err(src: &str) -> Diagnostic {
    match parse_str(src, Format::C) {
        Ok(p) => panic!("expected an error for:\n{src}\ngot\n{}", canonical::print(&p.system)),
        Err(d) => d,
    }
}

fn round_trip(parsed: &Parsed, what: &str) -> String {
    let printed = canonical::print(&parsed.system);
    let again = parse_str(&printed, Format::Canonical).unwrap_or_else(|d| panic!("{what}: the lowered print does not parse back: {d}\n{printed}"));
    assert_eq!(canonical::print(&again.system), printed, "{what}: round trip changed the print");
    printed
}

/// Every program of the shared SV-COMP array tasks (when the folder is
/// there) either lowers, with a print that reads back, or is rejected with
/// an `unsupported:` diagnostic; the task files read the same way.
#[test]
fn sv_arrays_lower_or_are_unsupported() {
    let dir = root().join("../shared/bench/sv-arrays");
    let Ok(entries) = std::fs::read_dir(&dir) else { return };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    let (mut lowered, mut unsupported, mut failures) = (0, vec![], vec![]);
    for p in paths.iter().filter(|p| p.extension().is_some_and(|e| e == "i" || e == "c" || e == "yml")) {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        match std::panic::catch_unwind(|| parse_file(p)) {
            Err(_) => failures.push(format!("{name}: panicked")),
            Ok(Ok(parsed)) => {
                round_trip(&parsed, &name);
                lowered += 1;
            }
            Ok(Err(d)) if d.message.starts_with("unsupported:") => unsupported.push(d.render(&name)),
            Ok(Err(d)) => failures.push(d.render(&name)),
        }
    }
    assert!(failures.is_empty(), "not lowered and not unsupported:\n{}", failures.join("\n"));
    assert!(lowered > 0, "nothing lowered in {}", dir.display());
    eprintln!("{lowered} lowered; unsupported:\n{}", unsupported.join("\n"));
}

#[test]
fn c_models_round_trip() {
    let models = common::c_models();
    assert!(models.len() >= 12, "expected the C models, found {}", models.len());
    for (path, _) in models {
        let parsed = parse_file(&path).unwrap_or_else(|d| panic!("{}", d.render(&path.display().to_string())));
        round_trip(&parsed, &path.display().to_string());
    }
}

#[test]
fn snapshots_of_lowered_c_models() {
    let settings = common::snapshot_settings();
    for name in ["init_test", "find", "strcmp", "integers", "selection_sort"] {
        let path = root().join("models").join(format!("{name}.c"));
        let parsed = parse_file(&path).unwrap();
        settings.bind(|| insta::assert_snapshot!(format!("c_{name}"), canonical::print(&parsed.system)));
    }
}

#[test]
fn lowered_system_contract() {
    let p = c("int g; int b[10];\nint main() {\n  int a[100000];\n  int i = 0;\n  while (i < 100000) {\n    a[i] = g;\n    i++;\n  }\n  return 0;\n}\n");
    let s = &p.system;
    assert_eq!(s.index, Some(arrax::system::IndexKind::Int));
    assert_eq!(s.vars[0].name(), "pc");
    assert!(s.transitions.iter().all(|t| t.params.is_empty()));
    let text = canonical::print(s);
    assert!(text.contains("(enum loc (names l2 l5 error exit))"), "{text}");
    assert!(text.contains("(local a Int)") && text.contains("(global i Int)"), "{text}");
    assert!(text.contains("(initial (forall ((x! Int)) (= b[x!] 0)))"), "{text}");
    assert!(text.contains("(= g 0)") && text.contains("(= pc l2)"), "{text}");
    assert!(text.contains("(unsafe (exists () (= pc error)))"), "{text}");
    // the loop body is one transition, the write a λ-term, the size a number
    assert!(text.contains("(transition l5-l5"), "{text}");
    assert!(text.contains("(update a (lambda ((j! Int)) (ite (= i j!) g a[j!])))"), "{text}");
    assert!(text.contains("(< i 100000)"), "{text}");
}

#[test]
fn branches_merge_into_one_transition() {
    let p = c("int main() {\n  int x = 0; int y;\n  while (x < 10) {\n    if (y > 0) x = x + 2; else x = x + 1;\n  }\n}\n");
    let loops: Vec<_> = p.system.transitions.iter().filter(|t| t.name == "l3-l3").collect();
    assert_eq!(loops.len(), 1);
    let text = canonical::print(&p.system);
    assert!(text.contains("(update x (ite (< 0 y) (+ x 2) (+ x 1)))"), "{text}");
}

#[test]
fn shadowing_inlining_and_nondeterminism() {
    let p = c("extern int __VERIFIER_nondet_int(void);\nint inc(int i) { return i + 1; }\nint main() {\n  int i = 0;\n  for (int i = 5; i < 7; i++) { }\n  i = inc(i);\n  int u = __VERIFIER_nondet_int();\n  while (u > i) u--;\n  return 0;\n}\n");
    let text = canonical::print(&p.system);
    for v in ["(global i Int)", "(global i_2 Int)", "(global i_3 Int)", "(global inc_result Int)"] {
        assert!(text.contains(v), "{v} in {text}");
    }
    assert!(text.contains("(values (nd!7 Int))"), "{text}");
    assert!(text.contains("(<= (- 2147483648) nd!7)") && text.contains("(<= nd!7 2147483647)"), "{text}");
}

#[test]
fn unsigned_arithmetic_wraps() {
    let p = c("int main() {\n  unsigned int u = 0;\n  u = u - 1;\n  unsigned char c = 255;\n  c++;\n  while (u > c) u--;\n}\n");
    let text = canonical::print(&p.system);
    assert!(text.contains("(update u 4294967295)"), "{text}");
    assert!(text.contains("(update c 0)"), "{text}");
    let p = c("int main() {\n  int t = (int) 4294967295u;\n  char c = 200;\n  while (t < c) t++;\n}\n");
    let text = canonical::print(&p.system);
    assert!(text.contains("(update t (- 1))") && text.contains("(update c (- 56))"), "{text}");
    let p = c("int main() {\n  unsigned int u;\n  u = u + 1;\n  while (u > 0) u--;\n}\n");
    let text = canonical::print(&p.system);
    assert!(text.contains("(mod (+ u 1) 4294967296)"), "{text}");
}

#[test]
fn verification_calls() {
    let p = c("extern void abort(void);\nint main() {\n  int x;\n  assume_abort_if_not(x > 0);\n  if (x == 5) abort();\n  __VERIFIER_assert(x != 7);\n  reach_error();\n}\n");
    let names: Vec<&str> = p.system.transitions.iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"l2-error") && names.contains(&"l2-exit"), "{names:?}");
    let text = canonical::print(&p.system);
    assert!(text.contains("(= x 5)") && text.contains("(< 0 x)"), "{text}");
}

#[test]
fn unsupported_constructs_are_located() {
    let cases: &[(&str, &str, (usize, usize))] = &[
        ("int f(int n) { return f(n - 1); }\nint main() { return f(3); }\n", "recursive call to 'f'", (1, 23)),
        ("int main() {\n  double d = 1.5;\n}\n", "floating point", (2, 10)),
        ("union U { int a; int b; };\nint main() {\n  union U u;\n  u.a = 1;\n}\n", "union types", (3, 11)),
        ("int f(int x) { return x; }\nint main() {\n  int (*g)(int) = f;\n}\n", "function pointers", (3, 19)),
        ("int main() {\n  int a[2], b[2];\n  int *p = a;\n  p = b;\n  return *p;\n}\n", "objects of two regions ('a' and 'b')", (4, 5)),
        ("int main() {\n  int *p = (int *) 4;\n  return *p;\n}\n", "converting an integer to a pointer", (2, 20)),
        ("int main() {\n  int a[2];\n  char *c = (char *) a;\n  return *c;\n}\n", "another type than its object's", (3, 13)),
        ("struct S { int f : 3; };\nint main() {\n  struct S s;\n  s.f = 1;\n}\n", "bit-fields", (4, 7)),
        ("int main() {\n  int x;\n  int *p = &x;\n  p++;\n  return *p;\n}\n", "pointer to a single object", (4, 3)),
        ("int main() {\n  int *p;\n  return *p;\n}\n", "never made to point to an object", (3, 10)),
        ("int main() {\n  int a[3];\n  int b[3];\n  int *p = a;\n  int *q = b;\n  return p < q;\n}\n", "not into one array", (6, 12)),
        ("int main() {\n  unsigned long long x = 0;\n  x = x + 1;\n}\n", "64-bit unsigned", (2, 22)),
    ];
    for (src, msg, (line, col)) in cases {
        let d = c_err(src);
        assert!(d.message.starts_with("unsupported: ") && d.message.contains(msg), "{msg}: {d}");
        assert_eq!((d.line, d.col), (*line, *col), "{msg}: {d}");
    }
}

#[test]
fn syntax_errors_are_located() {
    let d = c_err("int main() {\n  int x = ;\n}\n");
    assert_eq!((d.line, d.col), (2, 11), "{d}");
    assert!(d.message.starts_with("syntax error: expected an expression"), "{d}");
    let d = c_err("int main() {\n  return 0;\n");
    assert!(d.message.contains("expected '}'"), "{d}");
    let d = c_err("int main() { int x = 'a; }");
    assert!(d.message.starts_with("syntax error"), "{d}");
}

#[test]
fn task_files() {
    use arrax::frontend::c::{svcomp, DataModel};
    let t = svcomp::parse("format_version: '2.0'\ninput_files: 'p.i'\nproperties:\n  - property_file: ../properties/unreach-call.prp\n    expected_verdict: false\noptions:\n  language: C\n  data_model: LP64\n").unwrap();
    assert_eq!(t.input, Path::new("p.i"));
    assert_eq!(t.data_model, DataModel::Lp64);
    assert_eq!(t.expected, Some(false));
    let t = svcomp::parse("input_files:\n  - p.c\nproperties:\n  - property_file: ../properties/unreach-call.prp\n").unwrap();
    assert_eq!((t.data_model, t.expected), (DataModel::Ilp32, None));
    let d = svcomp::parse("input_files: 'p.i'\nproperties:\n  - property_file: ../properties/valid-memsafety.prp\n").unwrap_err();
    assert_eq!((d.line, d.col), (3, 20), "{d}");
    assert!(d.message.contains("only unreach-call"), "{d}");
    // Flow style, as YAML allows.
    let t =
        svcomp::parse("input_files: ['s1.i']\nproperties: [{property_file: unreach-call.prp, expected_verdict: true}]\noptions: {data_model: LP64}\n").unwrap();
    assert_eq!((t.input.as_path(), t.data_model, t.expected), (Path::new("s1.i"), DataModel::Lp64, Some(true)));
    let d = svcomp::parse("input_files: ['a.c', 'b.c']\nproperties: [{property_file: unreach-call.prp}]\n").unwrap_err();
    assert!(d.message.contains("several input files"), "{d}");
    let d = svcomp::parse("input_files: a.c\nproperties: [{property_file: unreach-call.prp}]\noptions:\n  data_model: ILP16\n").unwrap_err();
    assert_eq!((d.line, d.col, d.message.contains("ILP16")), (4, 15, true), "{d}");
    // Malformed YAML is located.
    let d = svcomp::parse("input_files: [a.c\nproperties: x\n").unwrap_err();
    assert!(d.line >= 1 && d.message.starts_with("task file:"), "{d}");
}

/// The hand-lowered MCMT versions in `models/c-lowered/` read, and announce
/// the verdict of the C program they lower. (Both stay undecided by the
/// backward engine, so their verdicts are compared once an engine for C
/// programs decides them.)
#[test]
fn hand_lowered_models_match_their_c_programs() {
    let dir = root().join("models/c-lowered");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "mcmt") {
            continue;
        }
        let c_path = root().join("models").join(p.with_extension("c").file_name().unwrap());
        let expect = |path: &Path| common::expected(&std::fs::read_to_string(path).unwrap());
        assert!(expect(&p).is_some(), "{}", p.display());
        assert_eq!(expect(&p), expect(&c_path), "{}", p.display());
        parse_file(&p).unwrap_or_else(|d| panic!("{}", d.render(&p.display().to_string())));
        parse_file(&c_path).unwrap();
        n += 1;
    }
    assert!(n >= 2);
}

/// Truncated or damaged programs give diagnostics, never panics.
#[test]
fn damaged_programs_never_panic() {
    for name in ["find.c", "integers.c", "strcmp.c"] {
        let src = std::fs::read_to_string(root().join("models").join(name)).unwrap();
        let mut variants: Vec<String> = (0..src.len()).filter(|k| src.is_char_boundary(*k)).map(|k| src[..k].to_string()).collect();
        variants.extend((0..src.len()).filter(|k| src.is_char_boundary(*k) && src.is_char_boundary(k + 1)).map(|k| format!("{}{}", &src[..k], &src[k + 1..])));
        for v in variants {
            let r = std::panic::catch_unwind(|| parse_str(&v, Format::C).map(|_| ()));
            assert!(r.is_ok(), "{name}: panic on\n{v}");
        }
    }
}

/// Conditions on inputs stay in the guard; only the range facts of unused
/// inputs are dropped.
#[test]
fn conditions_on_inputs_are_kept() {
    let p = c("extern unsigned int __VERIFIER_nondet_uint(void);\nint main() {\n  unsigned int u = __VERIFIER_nondet_uint();\n  if (u + 1 == 0) reach_error();\n  return 0;\n}\n");
    let t = p.system.transitions.iter().find(|t| t.name == "l2-error").expect("an error transition");
    let text = canonical::print(&p.system);
    assert_eq!(t.values.len(), 1, "{text}");
    assert!(text.contains("(= (mod (+ nd!3 1) 4294967296) 0)") && text.contains("(<= nd!3 4294967295)"), "{text}");
    // `int y;` in a loop chooses a value, overwritten at once: no input left
    let p = c("int main() {\n  unsigned int u;\n  while (u > 5) { int y; y = 1; u = u - y; }\n  return 0;\n}\n");
    let t = p.system.transitions.iter().find(|t| t.name == "l3-l3").expect("the loop");
    assert!(t.values.is_empty(), "{}", canonical::print(&p.system));
}

/// A long sequence of dependent branches gets extra cut points instead of
/// exponentially large merged terms.
#[test]
fn long_branch_sequences_stay_small() {
    let body = "  if (x > y) y = y + 1; else x = x - 1;\n".repeat(40);
    let p = c(&format!("int main() {{\n  int x; int y = 0;\n{body}  while (x) x--;\n}}\n"));
    let text = round_trip(&p, "40 branches");
    assert!(text.len() < 2_000_000, "{} bytes", text.len());
    assert!(p.system.transitions.len() > 4, "{text}");
}

/// `@abstract` comments name the terms lazy abstraction abstracts; a name
/// that is not an integer scalar of the program is an error at its place.
#[test]
fn abstraction_annotations() {
    let src = "extern void __VERIFIER_assert(int);\nint main(void) {\n  int a[10]; int n = 10;\n  /* @abstract n */\n  // @abstract i\n  for (int i = 0; i < n; i++) a[i] = 0;\n  return 0;\n}\n";
    let p = c(src);
    let names: Vec<String> = p.system.abstract_terms.iter().map(|t| t.to_string()).collect();
    assert_eq!(names, ["n", "i"]);
    let d = c_err("int main(void) {\n  int i = 0; // @abstract i, a\n  return i;\n}\n");
    assert_eq!((d.line, d.col), (2, 30), "{d}");
    assert!(d.message.contains("`a`"), "{d}");
}

/// Pointers into arrays: an allocation of symbolic size is an array
/// variable of its own, a pointer its offset (`p++` moves it), `*(p + k)`
/// a read at the offset plus `k`; distinct allocations are distinct arrays.
#[test]
fn pointers_are_offsets_into_allocations() {
    let p = c("#include <stdlib.h>\nextern int __VERIFIER_nondet_int(void);\nint main() {\n  int n = __VERIFIER_nondet_int();\n  int *a = malloc(n * sizeof(int));\n  int *b = calloc(n, sizeof(int));\n  int *p = a;\n  while (p < a + n) {\n    *(p + 1) = b[2];\n    p++;\n  }\n  return 0;\n}\n");
    let text = canonical::print(&p.system);
    assert!(text.contains("(local heap5 Int)") && text.contains("(local heap6 Int)"), "{text}");
    // calloc's block starts zero; the pointer is an offset into heap5
    assert!(text.contains("(= heap6[x!] 0)"), "{text}");
    assert!(text.contains("(update heap5 (lambda ((j! Int)) (ite (= (+ p.offset 1) j!) heap6[2] heap5[j!])))"), "{text}");
    assert!(text.contains("(update p.offset (+ p.offset 1))") && text.contains("(< p.offset n)"), "{text}");
}

/// Structs are split field by field: `s[i].f` is the array `s.f` at `i`;
/// allocations in a loop are numbered (an instance index first), so the
/// objects an array of pointers points to never share cells.
#[test]
fn structs_split_and_allocations_in_loops_are_numbered() {
    let p = c("#include <stdlib.h>\nstruct S { int key; struct { int x; } in; };\nint main() {\n  struct S s[10];\n  struct S *p[10];\n  for (int i = 0; i < 10; i++) {\n    s[i].in.x = i;\n    p[i] = malloc(sizeof(struct S));\n    p[i]->key = s[i].in.x;\n  }\n  return 0;\n}\n");
    let text = canonical::print(&p.system);
    for v in ["(local s.key Int)", "(local s.in.x Int)", "(local heap8.key (Array Int Int Int))", "(global heap8.count Int)", "(local p.index1 Int)"] {
        assert!(text.contains(v), "{v} in {text}");
    }
    assert!(text.contains("(update heap8.count (+ heap8.count 1))"), "{text}");
    assert!(text.contains("(update p.index1 (lambda ((j! Int)) (ite (= i j!) (+ heap8.count 1) p.index1[j!])))"), "{text}");
    let p = c("extern void __VERIFIER_assert(int);\nint main() {\n  int c[2][3][4];\n  for (int i = 0; i < 2; i++) c[i][2][3] = 5;\n  __VERIFIER_assert(c[1][2][3] == 5);\n}\n");
    let text = canonical::print(&p.system);
    assert!(text.contains("(update c (lambda ((j! Int) (k! Int) (j3! Int)) (ite (and (= i j!) (= j3! 3) (= k! 2)) 5 c[j!, k!, j3!])))"), "{text}");
}
