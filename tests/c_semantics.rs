//! The C lowering agrees with gcc. Deterministic programs in
//! `tests/c_programs/` (and mutants with one assertion negated) are run
//! twice: compiled by gcc (when present) and as lowered systems, executed
//! by a small reference interpreter of the IR written here. Both must
//! agree on whether an assertion fails.

use arrax::frontend::{parse_str, Format};
use arrax::logic::{BitKind, EnumValues, Op, Sort, Term};
use arrax::system::System;
use std::cell::RefCell;
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

/// An array of any number of dimensions: the listed cells (zero
/// elsewhere), or a `λ` over an older state, read lazily (each cell
/// computed once, at its first read).
enum Arr {
    Cells(HashMap<Vec<i128>, i128>),
    Lambda { vars: Vec<Term>, body: Term, env: Env, cache: RefCell<HashMap<Vec<i128>, i128>> },
}

impl Arr {
    fn read(&self, idx: &[i128]) -> i128 {
        match self {
            Arr::Cells(cells) => cells.get(idx).copied().unwrap_or(0),
            Arr::Lambda { vars, body, env, cache } => {
                if let Some(v) = cache.borrow().get(idx) {
                    return *v;
                }
                let mut bound = (**env).clone();
                for (x, k) in vars.iter().zip(idx) {
                    bound.insert(x.clone(), V::I(*k));
                }
                let v = int(eval(body, &Rc::new(bound)));
                cache.borrow_mut().insert(idx.to_vec(), v);
                v
            }
        }
    }
}

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
            let idx: Vec<i128> = (1..a.len()).map(i).collect();
            V::I(arr.read(&idx))
        }
        Op::Lambda(vars) => V::A(Rc::new(Arr::Lambda { vars: vars.to_vec(), body: a[0].clone(), env: env.clone(), cache: RefCell::default() })),
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
        env.insert(v.term.clone(), if v.is_array { V::A(Rc::new(Arr::Cells(HashMap::new()))) } else { V::I(0) });
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
    // global arrays: `∀x̄. (x̄ ≠ k̄ ∨ a[x̄] = c) ∧ …`, zero elsewhere
    for q in &sys.initial[1..] {
        for l in &q.lits {
            let Op::Or = l.op() else { continue };
            let cell = l.args().iter().find_map(|d| match (d.op(), d.args()) {
                (Op::Eq, [sel, c]) if matches!(sel.op(), Op::Select) => Some((sel.args()[0].clone(), c.as_int()?)),
                _ => None,
            });
            let at = l.args().iter().find_map(|d| match d.op() {
                Op::Not => {
                    let hit = &d.args()[0];
                    let eqs = if matches!(hit.op(), Op::And) { hit.args().to_vec() } else { vec![hit.clone()] };
                    eqs.iter().map(|e| e.args().get(1)?.as_int().map(|k| k as i128)).collect::<Option<Vec<i128>>>()
                }
                _ => None,
            });
            if let (Some((arr, c)), Some(k)) = (cell, at) {
                let V::A(old) = &env[&arr] else { panic!("an array") };
                let Arr::Cells(cells) = &**old else { panic!("initial cells") };
                let mut new = cells.clone();
                new.insert(k, c as i128);
                env.insert(arr, V::A(Rc::new(Arr::Cells(new))));
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
    let close = open
        + src[open..].find(|c: char| {
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
    let tmp = tempfile::Builder::new().prefix("arrax-c-sem-").tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let mut checked = 0;
    for name in ["arith", "control", "scopes", "exprs", "operators", "pointers", "structs"] {
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
    assert!(checked >= 95, "{checked} programs");
}
