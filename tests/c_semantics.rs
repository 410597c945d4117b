//! The C lowering agrees with gcc. Deterministic programs in
//! `tests/c_programs/` (and mutants with one assertion negated) are run
//! twice: compiled by gcc (when present) and as lowered systems, executed
//! by a small reference interpreter of the IR written here. Both must
//! agree on whether an assertion fails.

use arrax::frontend::{parse_str, Format};
use arrax::logic::{BitKind, EnumValues, Op, Sort, Term};
use arrax::system::System;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;

/// A value: an integer, a truth value, or an array (all integers to integers).
#[derive(Clone)]
enum V {
    I(i128),
    B(bool),
    A(Rc<Arr>),
}

/// An array, one-dimensional, over the indices the test programs use
/// ([`INDICES`]), zero elsewhere.
type Arr = HashMap<i128, i128>;

/// The indices an array is computed on (the test programs stay inside).
const INDICES: std::ops::Range<i128> = -4..64;

type Env = Rc<HashMap<Term, V>>;

fn int(v: V) -> i128 {
    match v {
        V::I(n) => n,
        _ => panic!("not an integer"),
    }
}

fn boolean(v: V) -> bool {
    match v {
        V::B(b) => b,
        _ => panic!("not a truth value"),
    }
}


fn eval(t: &Term, env: &Env) -> V {
    let a = t.args();
    let i = |k: usize| int(eval(&a[k], env));
    let b = |k: usize| boolean(eval(&a[k], env));
    match t.op() {
        Op::Var(n) => env.get(t).cloned().unwrap_or_else(|| panic!("unbound {n}")),
        Op::Int(n) => V::I(*n as i128),
        Op::Bool(x) => V::B(*x),
        Op::EnumConst(k) => V::I(*k as i128),
        Op::Not => V::B(!b(0)),
        Op::And => V::B((0..a.len()).all(b)),
        Op::Or => V::B((0..a.len()).any(b)),
        Op::Ite => {
            if b(0) {
                eval(&a[1], env)
            } else {
                eval(&a[2], env)
            }
        }
        Op::Eq => V::B(match (eval(&a[0], env), eval(&a[1], env)) {
            (V::I(x), V::I(y)) => x == y,
            (V::B(x), V::B(y)) => x == y,
            _ => panic!("equality of arrays"),
        }),
        Op::Lt => V::B(i(0) < i(1)),
        Op::Le => V::B(i(0) <= i(1)),
        Op::Add => V::I((0..a.len()).map(i).sum()),
        Op::Neg => V::I(-i(0)),
        Op::Mul => V::I((0..a.len()).map(i).product()),
        Op::Div => V::I(i(0).div_euclid(i(1))),
        Op::Mod => V::I(i(0).rem_euclid(i(1))),
        Op::Bits(op) => {
            // the words modulo 2^width, the operator, the word read back
            let m = 1i128 << op.width;
            let (x, y) = (i(0).rem_euclid(m), i(1).rem_euclid(m));
            let r = match op.kind {
                BitKind::And => x & y,
                BitKind::Or => x | y,
                BitKind::Xor => x ^ y,
            };
            V::I(if op.signed && r >= m / 2 { r - m } else { r })
        }
        Op::Select => {
            let V::A(arr) = eval(&a[0], env) else { panic!("select from a non-array") };
            assert_eq!(a.len(), 2, "one-dimensional arrays only");
            let k = i(1);
            assert!(INDICES.contains(&k), "index {k} outside the interpreted range");
            V::I(arr.get(&k).copied().unwrap_or(0))
        }
        Op::Lambda(vars) => {
            // computed at once on every index (reads of older arrays stay cheap)
            let mut e = (**env).clone();
            let mut arr = Arr::new();
            for k in INDICES {
                e.insert(vars[0].clone(), V::I(k));
                let env_k = Rc::new(e);
                arr.insert(k, int(eval(&a[0], &env_k)));
                e = Rc::try_unwrap(env_k).unwrap_or_else(|rc| (*rc).clone());
            }
            V::A(Rc::new(arr))
        }
        op => panic!("unexpected operator {op:?}"),
    }
}

/// Runs a deterministic lowered program from its entry; the name of the
/// location it stops in (`exit` or `error`).
fn run(sys: &System) -> String {
    let pc = sys.vars[0].term.clone();
    let Sort::Enum(def) = pc.sort() else { panic!("pc is an enumeration") };
    let EnumValues::Names(names) = &def.values else { panic!("named locations") };
    let mut env: HashMap<Term, V> = HashMap::new();
    for v in &sys.vars {
        env.insert(v.term.clone(), if v.is_array { V::A(Rc::new(Arr::new())) } else { V::I(0) });
    }
    for l in &sys.initial[0].lits {
        if let (Op::Eq, [x, c]) = (l.op(), l.args()) {
            if sys.is_state_var(x) {
                let c = match c.op() {
                    Op::Int(n) => *n as i128,
                    Op::EnumConst(k) => *k as i128,
                    _ => continue,
                };
                env.insert(x.clone(), V::I(c));
            }
        }
    }
    // global arrays: `∀x. (x ≠ k ∨ a[x] = c) ∧ …`, zero elsewhere
    for q in &sys.initial[1..] {
        for l in &q.lits {
            let Op::Or = l.op() else { continue };
            let cell = l.args().iter().find_map(|d| match (d.op(), d.args()) {
                (Op::Eq, [sel, c]) if matches!(sel.op(), Op::Select) => Some((sel.args()[0].clone(), c.as_int()?)),
                _ => None,
            });
            let at = l.args().iter().find_map(|d| match d.op() {
                Op::Not => d.args()[0].args().get(1)?.as_int(),
                _ => None,
            });
            if let (Some((arr, c)), Some(k)) = (cell, at) {
                let V::A(old) = &env[&arr] else { panic!("an array") };
                let mut new = (**old).clone();
                new.insert(k as i128, c as i128);
                env.insert(arr, V::A(Rc::new(new)));
            }
        }
    }
    let mut env: Env = Rc::new(env);
    for _ in 0..100_000 {
        let at = names[int(env[&pc].clone()) as usize].to_string();
        if at == "exit" || at == "error" {
            return at;
        }
        let enabled: Vec<_> = sys.transitions.iter().filter(|t| boolean(eval(&t.guard, &env))).collect();
        assert_eq!(enabled.len(), 1, "not deterministic at {at}: {:?}", enabled.iter().map(|t| &t.name).collect::<Vec<_>>());
        let t = enabled[0];
        assert!(t.values.is_empty(), "{} chooses values", t.name);
        let mut next = (*env).clone();
        for u in &t.updates {
            next.insert(sys.vars[u.var].term.clone(), eval(&u.value, &env));
        }
        env = Rc::new(next);
    }
    panic!("no end after 100000 steps, at {}", names[int(env[&pc].clone()) as usize])
}

/// Whether gcc's build of the program stops on a failed assertion (None without gcc).
fn gcc_fails(src: &str, dir: &Path, name: &str) -> Option<bool> {
    let prelude = dir.join("prelude.h");
    std::fs::write(&prelude, "void abort(void);\nvoid reach_error(void) { abort(); }\nvoid __VERIFIER_assert(int c) { if (!c) abort(); }\n").unwrap();
    let c = dir.join(format!("{name}.c"));
    let exe = dir.join(name);
    std::fs::write(&c, src).unwrap();
    let built = Command::new("gcc").arg("-w").arg("-include").arg(&prelude).arg(&c).arg("-o").arg(&exe).output().ok()?;
    assert!(built.status.success(), "gcc: {}", String::from_utf8_lossy(&built.stderr));
    Some(!Command::new(&exe).output().unwrap().status.success())
}

/// The program with its `k`-th assertion negated.
fn negate(src: &str, k: usize) -> Option<String> {
    let key = "__VERIFIER_assert(";
    let (at, _) = src.match_indices(key).filter(|(i, _)| !src[..*i].ends_with("void ")).nth(k)?;
    let open = at + key.len();
    let mut depth = 1;
    let close = open + src[open..].find(|c: char| {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        depth == 0
    })?;
    Some(format!("{}!({}){}", &src[..open], &src[open..close], &src[close..]))
}

#[test]
fn lowered_programs_agree_with_gcc() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("arrax-c-sem-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut checked = 0;
    for name in ["arith", "control", "scopes", "exprs", "operators"] {
        let src = std::fs::read_to_string(root.join("tests/c_programs").join(format!("{name}.c"))).unwrap();
        let mut variants = vec![(name.to_string(), src.clone())];
        for k in 0.. {
            let Some(m) = negate(&src, k) else { break };
            variants.push((format!("{name}_not{k}"), m));
        }
        for (vname, v) in variants {
            let sys = parse_str(&v, Format::C).unwrap_or_else(|d| panic!("{vname}: {d}")).system;
            let arrax_fails = run(&sys) == "error";
            let expected = gcc_fails(&v, &dir, &vname).unwrap_or(vname != name);
            assert_eq!(arrax_fails, expected, "{vname}: lowered run and gcc disagree on whether an assertion fails");
            checked += 1;
        }
    }
    assert!(checked >= 65, "{checked} programs");
}
