//! The C front end without a compiler: arrax's own preprocessor (macros,
//! conditionals, standard headers, line markers), K&R definitions, and a
//! front end that takes time linear in the program and obeys `--timeout`.

use arrax::frontend::{canonical, parse_str, Diagnostic, Format};
use std::process::Command;

fn lowered(src: &str) -> String {
    let p = parse_str(src, Format::C).unwrap_or_else(|d| panic!("{d}\n{src}"));
    canonical::print(&p.system)
}

fn err(src: &str) -> Diagnostic {
    match parse_str(src, Format::C) {
        Ok(p) => panic!("expected an error for:\n{src}\ngot\n{}", canonical::print(&p.system)),
        Err(d) => d,
    }
}

/// A program whose only assertion is `cond`: it lowers to an error
/// transition unless the preprocessed condition folds to true.
fn asserts(defs: &str, cond: &str) -> bool {
    asserts_in(defs, "", cond)
}

/// [`asserts`] with local declarations before the assertion.
fn asserts_in(defs: &str, locals: &str, cond: &str) -> bool {
    let text = lowered(&format!("{defs}\nextern void __VERIFIER_assert(int);\nint main() {{\n  {locals}\n  __VERIFIER_assert({cond});\n  return 0;\n}}\n"));
    !text.contains("-error")
}

#[test]
fn object_and_function_like_macros() {
    assert!(asserts("#define N 1000", "N == 1000"));
    assert!(asserts("#define SQ(x) ((x) * (x))\n#define N 7", "SQ(N + 1) == 64"));
    assert!(asserts_in("#define CAT(a, b) a ## b", "int xy = 5;", "CAT(x, y) == 5 && CAT(1, 2) == 12"));
    assert!(asserts("#define F(x) G(x) + 1\n#define G(x) (2 * x)", "F(3) == 7"));
    // a macro is not expanded inside its own replacement
    assert!(asserts_in("", "int N = 4;\n#define N (N + 1)", "N == 5"));
    assert!(asserts("#define V(...) sum(0, ##__VA_ARGS__)\nint sum(int a, int b) { return a + b; }", "V(4) == 4"));
    assert!(asserts_in("#define N 10\n#undef N", "int N = 3;", "N == 3"));
    assert!(asserts("#define L __LINE__", "L == 5"));
}

#[test]
fn conditionals_with_constant_expressions() {
    let src = "#define A 3\n#if A > 2 && defined(A)\n#define B 1\n#elif 1\n#define B 2\n#else\n#define B 3\n#endif";
    assert!(asserts(src, "B == 1"));
    assert!(asserts("#ifdef NOPE\n#define B 1\n#else\n#define B 2\n#endif", "B == 2"));
    assert!(asserts("#ifndef NOPE\n#define B 1\n#endif", "B == 1"));
    assert!(asserts("#if 0\n this is 'not C at all\n#if 1\n#error inside\n#endif\n#else\n#define B 9\n#endif", "B == 9"));
    assert!(asserts("#if (1 ? 2 : 3) == 2 && !defined B\n#define B 4\n#endif", "B == 4"));
}

#[test]
fn standard_headers() {
    assert!(asserts("#include <limits.h>", "INT_MAX == 2147483647 && INT_MIN < 0 && UINT_MAX > 0"));
    assert!(asserts_in("#include <stdbool.h>", "bool b = true;", "b && sizeof(bool) == 1"));
    assert!(asserts_in("#include <stdint.h>", "uint8_t u = 255;", "(uint8_t)(u + 1) == 0"));
    let p = parse_str("#include <stdlib.h>\n#include \"local.h\"\nint main() { return EXIT_SUCCESS; }\n", Format::C).unwrap();
    assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
    assert_eq!((p.warnings[0].line, p.warnings[0].col), (2, 2));
    assert!(p.warnings[0].message.contains("\"local.h\" left out"), "{}", p.warnings[0]);
    // assert(...) vanishes under NDEBUG
    let text = lowered("#define NDEBUG\n#include <assert.h>\nint main() { int x = 0; assert(x == 1); return 0; }\n");
    assert!(!text.contains("-error"), "{text}");
    let text = lowered("#include <assert.h>\nint main() { int x = 0; assert(x == 1); return 0; }\n");
    assert!(text.contains("-error"), "{text}");
}

#[test]
fn directive_errors_point_at_the_directive() {
    let d = err("int x;\n#if 1\nint main() { return 0; }\n");
    assert_eq!((d.line, d.col), (2, 1), "{d}");
    let d = err("int main() {\n#  error stop here\n}\n");
    assert_eq!((d.line, d.col), (2, 1), "{d}");
    assert!(d.message.contains("#error stop here"), "{d}");
    let d = err("#define F(a, b) a\nint main() { return F(1); }\n");
    assert_eq!((d.line, d.col), (2, 21), "{d}");
    assert!(d.message.contains("takes 2 argument(s), 1 given"), "{d}");
    let d = err("#endif\n");
    assert_eq!((d.line, d.col), (1, 2), "{d}");
    let d = err("#frobnicate\n");
    assert!(d.message.contains("unknown preprocessing directive"), "{d}");
}

#[test]
fn line_markers_map_positions() {
    let d = err("# 1 \"orig.c\"\n# 1 \"<built-in>\"\n# 1 \"orig.c\"\nint main() {\n  int x = ;\n}\n");
    assert_eq!((d.line, d.col), (5, 11), "{d}");
    assert!(d.message.ends_with("(at orig.c:2 by the line markers)"), "{d}");
    let d = err("#line 100\nint main() {\n  return ;; x;\n}\n");
    assert!(d.message.ends_with("(at line 101 by the line markers)"), "{d}");
}

#[test]
fn k_and_r_main_without_a_return_type() {
    let text = lowered("extern void __VERIFIER_assert(int);\nmain() {\n  int x = 1;\n  __VERIFIER_assert(x == 1);\n}\n");
    assert!(text.contains("(enum loc"), "{text}");
}

/// A long straight-line program with branches, array writes and
/// assertions lowers (the front end takes time linear in the program:
/// long blocks are cut into blocks of bounded size).
#[test]
fn long_straight_line_programs_lower() {
    let mut src = String::from("extern int __VERIFIER_nondet_int(void);\nextern void __VERIFIER_assert(int);\nint a[1000];\nint main() {\n  int x = 0; int y = __VERIFIER_nondet_int();\n");
    for k in 0..20_000 {
        src.push_str(&match k % 4 {
            0 => format!("  x = x + y * {};\n", k % 7),
            1 => format!("  a[{}] = x + a[{}];\n", k % 1000, (k + 1) % 1000),
            2 => format!("  if (y > {k}) x = x - 1; else y = y + 1;\n"),
            _ => format!("  __VERIFIER_assert(a[{}] >= -100000000);\n", k % 1000),
        });
    }
    src.push_str("  return 0;\n}\n");
    let p = parse_str(&src, Format::C).unwrap();
    assert!(p.system.transitions.len() > 100, "{}", p.system.transitions.len());
}

/// `check --timeout` covers reading the program: on an input too large to
/// lower in the time limit the run ends UNKNOWN (exit 3), not later.
#[test]
fn the_time_limit_covers_the_front_end() {
    let tmp = tempfile::Builder::new().prefix("arrax-pp-").tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let path = dir.join("huge.c");
    let mut src = String::from("int a[1000];\nint main() {\n  int x = 0; int y = 1;\n");
    for k in 0..400_000 {
        src.push_str(&format!("  if (y > {k}) x = x - 1; else y = y + a[{}];\n", k % 1000));
    }
    src.push_str("  return 0;\n}\n");
    std::fs::write(&path, src).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_arrax")).args(["check", "--timeout", "0.2"]).arg(&path).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert_eq!(stdout.lines().last(), Some("UNKNOWN (timeout)"), "{stdout}");
    let out = Command::new(env!("CARGO_BIN_EXE_arrax")).args(["check", "--timeout", "0.2", "--json"]).arg(&path).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("\"verdict\":\"UNKNOWN\"") && stdout.contains("\"reason\":\"timeout\""), "{stdout}");
}
