//! C's integer operators in the IR: bitwise operators are exact terms in
//! both solvers, in forward execution and in the replay; division and
//! remainder by variables truncate as in C; lowered programs with them read
//! back from their canonical print.

use arrax::frontend::{canonical, parse_str, Format};
use arrax::logic::{BitKind, Bits, Sort, Term};
use arrax::smt::{solver, Backend, SatResult};

/// The C value of a bitwise operator, computed on `i128` words.
fn reference(op: Bits, x: i64, y: i64) -> i64 {
    let m = 1i128 << op.width;
    let (a, b) = ((x as i128).rem_euclid(m), (y as i128).rem_euclid(m));
    let r = match op.kind {
        BitKind::And => a & b,
        BitKind::Or => a | b,
        BitKind::Xor => a ^ b,
    };
    (if op.signed && r >= m / 2 { r - m } else { r }) as i64
}

fn ops() -> Vec<Bits> {
    let mut out = vec![];
    for kind in [BitKind::And, BitKind::Or, BitKind::Xor] {
        for (width, signed) in [(32, true), (32, false), (64, true), (8, false)] {
            out.push(Bits { kind, width, signed });
        }
    }
    out
}

const VALUES: [i64; 8] = [0, 1, -1, 7, -7, 2147483647, -2147483648, 4000000000];

#[test]
fn bitwise_operators_fold_exactly() {
    for op in ops() {
        for x in VALUES {
            for y in VALUES {
                let want = reference(op, x, y);
                assert_eq!(op.apply(x, y), Some(want), "{} {x} {y}", op.name());
                assert_eq!(Term::bits(op, &Term::int(x), &Term::int(y)), Term::int(want));
                assert_eq!(Bits::parse(&op.name()), Some(op));
            }
        }
    }
}

#[test]
fn bitwise_operators_are_exact_in_both_solvers() {
    let (x, y) = (Term::var("x", Sort::Int), Term::var("y", Sort::Int));
    for backend in [Backend::Z3, Backend::Cvc5] {
        let mut s = solver(backend);
        for op in ops() {
            for (a, b) in [(7, -7), (-2147483648, 4000000000), (12345, 54321)] {
                let want = Term::int(reference(op, a, b));
                let given = Term::and([Term::eq(&x, &Term::int(a)), Term::eq(&y, &Term::int(b))]);
                let r = Term::bits(op, &x, &y);
                for (claim, expect) in [(Term::eq(&r, &want), SatResult::Sat), (Term::eq(&r, &want).not(), SatResult::Unsat)] {
                    s.push();
                    s.assert(&Term::and([given.clone(), claim]));
                    assert_eq!(s.check(), expect, "{backend}: {} {a} {b}", op.name());
                    s.pop();
                }
            }
        }
    }
}

#[test]
fn lowered_operators_round_trip() {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/c_programs/operators.c")).unwrap();
    let p = parse_str(&src, Format::C).unwrap();
    let printed = canonical::print(&p.system);
    assert!(printed.contains("(bxor.s32 acc (* i i))") || printed.contains("bxor.s32"), "{printed}");
    let again = parse_str(&printed, Format::Canonical).unwrap_or_else(|d| panic!("{d}\n{printed}"));
    assert_eq!(canonical::print(&again.system), printed);
    // products, divisions and remainders by variables are read too
    let src = "extern int __VERIFIER_nondet_int(void);\nint main() {\n  int x = __VERIFIER_nondet_int(); int y = __VERIFIER_nondet_int();\n  int q = x / y; int r = x % y; int p = x * y; int s = x << y; int t = x >> y;\n  while (q > r + p + s + t) q--;\n}\n";
    let p = parse_str(src, Format::C).unwrap();
    let printed = canonical::print(&p.system);
    for op in ["(div ", "(mod ", "(* nd!3 nd!3_2)"] {
        assert!(printed.contains(op), "{op} in {printed}");
    }
    let again = parse_str(&printed, Format::Canonical).unwrap_or_else(|d| panic!("{d}\n{printed}"));
    assert_eq!(canonical::print(&again.system), printed);
}
