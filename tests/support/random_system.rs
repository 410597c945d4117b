//! Small random well-formed array-based systems, described in a little
//! model of their own (so that the explicit-state explorer of
//! `tests/differential.rs` does not depend on arrax) and printed in arrax's
//! canonical text.
//!
//! Two families: protocols (order indices, one or two process parameters,
//! universal guards, broadcasts) and programs over short arrays (integer
//! indices, a counter `i` running over `0..n`, a program counter `pc`).
//! Every value is of a finite sort (Booleans, small subranges), and every
//! array cell a program reads or writes lies in `0..n`, so a finite
//! instance (a number of processes, or a length `n`) has finitely many
//! states and explores exactly.

use std::fmt::Write;

/// A deterministic pseudo-random generator (SplitMix64).
pub struct Rng(u64);

impl Rng {
    /// A generator with the given seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// True with probability `num/den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next() % den < num
    }
    /// A random element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// A finite sort: `Bool` (values 0, 1) or the subrange `0..=hi`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dom {
    /// Booleans, false as 0 and true as 1.
    Bool,
    /// The integers `0..=hi`, declared as an enumeration.
    Range(i64),
}

impl Dom {
    /// The number of values.
    pub fn size(self) -> i64 {
        match self {
            Dom::Bool => 2,
            Dom::Range(hi) => hi + 1,
        }
    }
}

/// A state variable: an array over processes (or cells) or a scalar.
#[derive(Clone, Debug)]
pub struct Var {
    /// The name.
    pub name: String,
    /// Whether it is an array.
    pub array: bool,
    /// Its value sort (element sort of an array).
    pub dom: Dom,
}

/// An index: a process or an array cell.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ix {
    /// The `k`-th parameter of a transition (`x`, `y`).
    Param(usize),
    /// The `k`-th variable of an unsafe cube (`z1`, `z2`).
    Z(usize),
    /// The variable of a universal guard or of an array update (`j`).
    J,
    /// The variable of the initial formula (`x`).
    X,
    /// A program's counter `i`.
    Counter,
}

/// A value-valued term.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Val {
    /// A constant of the sort.
    Const(i64),
    /// A scalar (position in [`Model::vars`]).
    Scalar(usize),
    /// An array read (array position, index).
    Read(usize, Ix),
}

/// A literal.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Lit {
    /// Two values are equal (`true`) or differ (`false`).
    Eq(Val, Val, bool),
    /// Two indices are equal (`true`) or differ (`false`).
    IxEq(Ix, Ix, bool),
    /// The first process precedes the second.
    Lt(Ix, Ix),
    /// A program's counter is below the length: `i < n`.
    CounterBelow,
    /// A program's counter has reached the length: `n <= i`.
    CounterDone,
    /// The index lies in `0..n` (programs).
    InRange(Ix),
}

/// The new value of a state variable.
#[derive(Clone, Debug)]
pub enum Upd {
    /// A scalar's new value.
    Scalar(Val),
    /// An array's new content: the cell of each listed index gets its
    /// value (first match), every other cell `j` gets the default (a term
    /// over `j`).
    Array(Vec<(Ix, Val)>, Val),
    /// A program's counter goes up by one.
    Increment,
    /// A program's counter goes back to 0.
    Reset,
}

/// A transition.
#[derive(Clone, Debug)]
pub struct Trans {
    /// The number of process parameters (pairwise distinct).
    pub params: usize,
    /// The guard, a conjunction.
    pub guard: Vec<Lit>,
    /// The universal guard: for every process `j`, the disjunction holds.
    pub uguard: Option<Vec<Lit>>,
    /// The updates: state variable position (or `None`: the counter) and how.
    pub updates: Vec<(Option<usize>, Upd)>,
}

/// A cube of the unsafe states: `∃ z1…zk pairwise distinct. ⋀ lits`.
#[derive(Clone, Debug)]
pub struct Cube {
    /// The number of variables.
    pub arity: usize,
    /// The literals.
    pub lits: Vec<Lit>,
}

/// A random system.
#[derive(Clone, Debug)]
pub struct Model {
    /// A program (integer indices, counter, no parameters) or a protocol.
    pub program: bool,
    /// The state variables (the counter of a program is not among them).
    pub vars: Vec<Var>,
    /// The initial states: `∀x. ⋀ lits` (programs: and `i = 0`).
    pub init: Vec<Lit>,
    /// The unsafe cubes.
    pub unsafe_: Vec<Cube>,
    /// The transitions.
    pub trans: Vec<Trans>,
}

/// A random value of sort `dom`: a constant, a scalar, or a read at one of the indices `at`.
fn vals_of(m: &Model, dom: Dom, at: &[Ix], rng: &mut Rng) -> Val {
    let mut out = vec![Val::Const(rng.below(dom.size() as usize) as i64)];
    for (k, v) in m.vars.iter().enumerate().filter(|(_, v)| v.dom == dom) {
        if v.array {
            out.extend(at.iter().map(|&i| Val::Read(k, i)));
        } else {
            out.push(Val::Scalar(k));
        }
    }
    // constants half of the time, so that guards are often satisfiable
    if rng.chance(1, 2) {
        out[0]
    } else {
        *rng.pick(&out)
    }
}

/// A literal comparing a state variable readable at `at` with another value.
fn value_lit(m: &Model, at: &[Ix], rng: &mut Rng) -> Lit {
    let k = rng.below(m.vars.len());
    let v = &m.vars[k];
    let lhs = if v.array { Val::Read(k, *rng.pick(at)) } else { Val::Scalar(k) };
    let rhs = vals_of(m, v.dom, at, rng);
    Lit::Eq(lhs, rhs, rng.chance(3, 4))
}

/// A conjunction of 1..=max literals over the state at `at`.
fn lits(m: &Model, at: &[Ix], max: usize, rng: &mut Rng) -> Vec<Lit> {
    (0..1 + rng.below(max)).map(|_| value_lit(m, at, rng)).collect()
}

fn random_vars(program: bool, rng: &mut Rng) -> Vec<Var> {
    let doms = [Dom::Bool, Dom::Range(1 + rng.below(2) as i64)];
    let mut vars = vec![];
    for k in 0..1 + rng.below(2) {
        vars.push(Var { name: ["a", "b"][k].into(), array: true, dom: *rng.pick(&doms) });
    }
    if program {
        vars.push(Var { name: "pc".into(), array: false, dom: Dom::Range(2 + rng.below(2) as i64) });
    }
    for k in 0..rng.below(if program { 2 } else { 3 }) {
        vars.push(Var { name: ["g", "h"][k].into(), array: false, dom: *rng.pick(&doms) });
    }
    vars
}

/// A random protocol.
pub fn protocol(rng: &mut Rng) -> Model {
    let mut m = Model { program: false, vars: random_vars(false, rng), init: vec![], unsafe_: vec![], trans: vec![] };
    m.init = if rng.chance(1, 5) { vec![] } else { lits(&m, &[Ix::X], 2, rng) };
    for _ in 0..1 + rng.below(2) {
        let arity = if rng.chance(1, 6) { 3 } else { 1 + rng.below(2) };
        let zs: Vec<Ix> = (0..arity).map(Ix::Z).collect();
        m.unsafe_.push(Cube { arity, lits: lits(&m, &zs, 3, rng) });
    }
    for _ in 0..1 + rng.below(4) {
        let t = protocol_transition(&m, rng);
        m.trans.push(t);
    }
    m
}

fn protocol_transition(m: &Model, rng: &mut Rng) -> Trans {
    let params = 1 + rng.below(2);
    let ps: Vec<Ix> = (0..params).map(Ix::Param).collect();
    let mut guard = lits(m, &ps, 2, rng);
    if params == 2 && rng.chance(1, 4) {
        guard.push(Lit::Lt(Ix::Param(0), Ix::Param(1)));
    }
    let uguard = rng.chance(1, 4).then(|| {
        let mut body = vec![Lit::IxEq(Ix::J, Ix::Param(0), true), value_lit(m, &[Ix::J], rng)];
        if rng.chance(1, 3) {
            body[0] = Lit::Lt(Ix::Param(0), Ix::J);
        }
        body
    });
    let mut updates = vec![];
    for (k, v) in m.vars.iter().enumerate() {
        if !rng.chance(1, 2) {
            continue;
        }
        let upd = if v.array {
            let mut cases = vec![];
            for &p in &ps {
                if rng.chance(2, 3) {
                    cases.push((p, vals_of(m, v.dom, &ps, rng)));
                }
            }
            let default = if rng.chance(1, 6) { vals_of(m, v.dom, &[], rng) } else { Val::Read(k, Ix::J) };
            Upd::Array(cases, default)
        } else {
            Upd::Scalar(vals_of(m, v.dom, &ps, rng))
        };
        updates.push((Some(k), upd));
    }
    Trans { params, guard, uguard, updates }
}

/// A random program: `pc` goes through loops over `a[0..n)`.
pub fn program(rng: &mut Rng) -> Model {
    let mut m = Model { program: true, vars: random_vars(true, rng), init: vec![], unsafe_: vec![], trans: vec![] };
    let pc = m.vars.iter().position(|v| v.name == "pc").expect("a program counter");
    let Dom::Range(last) = m.vars[pc].dom else { unreachable!("pc is a subrange") };
    m.init = vec![Lit::Eq(Val::Scalar(pc), Val::Const(0), true)];
    if rng.chance(1, 2) {
        let a = Val::Read(0, Ix::X);
        m.init.push(Lit::Eq(a, Val::Const(rng.below(m.vars[0].dom.size() as usize) as i64), true));
    }
    let at_pc = |p: i64| Lit::Eq(Val::Scalar(pc), Val::Const(p), true);
    for p in 0..last {
        // the loop body at `p`: reads and writes a[i] for i < n
        let mut guard = vec![at_pc(p), Lit::CounterBelow];
        guard.extend(lits(&m, &[Ix::Counter], 2, rng));
        let mut updates = vec![(None, Upd::Increment)];
        for (k, v) in m.vars.iter().enumerate() {
            if k == pc || rng.chance(1, 2) {
                continue;
            }
            let value = vals_of(&m, v.dom, &[Ix::Counter], rng);
            updates.push((Some(k), if v.array { Upd::Array(vec![(Ix::Counter, value)], Val::Read(k, Ix::J)) } else { Upd::Scalar(value) }));
        }
        m.trans.push(Trans { params: 0, guard, uguard: None, updates });
        // leaving the loop, or breaking out of it
        let target = p + 1 + rng.below((last - p) as usize) as i64;
        let leave = vec![(Some(pc), Upd::Scalar(Val::Const(target))), (None, Upd::Reset)];
        m.trans.push(Trans { params: 0, guard: vec![at_pc(p), Lit::CounterDone], uguard: None, updates: leave.clone() });
        if rng.chance(1, 3) {
            let guard = vec![at_pc(p), Lit::CounterBelow, value_lit(&m, &[Ix::Counter], rng)];
            m.trans.push(Trans { params: 0, guard, uguard: None, updates: leave });
        }
    }
    for _ in 0..1 + rng.below(2) {
        let mut lits = vec![Lit::InRange(Ix::Z(0)), at_pc(rng.below(last as usize + 1) as i64)];
        lits.extend(self::lits(&m, &[Ix::Z(0)], 2, rng));
        m.unsafe_.push(Cube { arity: 1, lits });
    }
    m
}

impl Model {
    /// The canonical text of the system.
    pub fn canonical(&self) -> String {
        let mut out = String::from("(system\n");
        let index = if self.program { "int" } else { "order" };
        let _ = writeln!(out, "  (index {index})");
        let mut ranges: Vec<i64> = self.vars.iter().filter_map(|v| if let Dom::Range(hi) = v.dom { Some(hi) } else { None }).collect();
        ranges.sort();
        ranges.dedup();
        for hi in ranges {
            let _ = writeln!(out, "  (enum r{hi} (subrange 0 {hi}))");
        }
        for v in &self.vars {
            let _ = writeln!(out, "  ({} {} {})", if v.array { "local" } else { "global" }, v.name, sort_name(v.dom));
        }
        if self.program {
            out.push_str("  (global i Int)\n  (global n Int)\n");
        }
        let mut init = self.lits(&self.init);
        if self.program {
            init.push("(= i 0)".into());
        }
        let _ = writeln!(out, "  (initial (forall ((x {})) {}))", self.isort(), and(&init));
        for c in &self.unsafe_ {
            let zs: Vec<String> = (0..c.arity).map(|k| format!("(z{} {})", k + 1, self.isort())).collect();
            let _ = writeln!(out, "  (unsafe (exists ({}) {}))", zs.join(" "), and(&self.lits(&c.lits)));
        }
        for (k, t) in self.trans.iter().enumerate() {
            self.transition(&mut out, k, t);
        }
        out.push_str(")\n");
        out
    }

    fn isort(&self) -> &'static str {
        if self.program {
            "Int"
        } else {
            "proc"
        }
    }

    fn transition(&self, out: &mut String, k: usize, t: &Trans) {
        let ps: Vec<String> = (0..t.params).map(|p| format!(" ({} proc)", ix_name(Ix::Param(p)))).collect();
        let _ = write!(out, "  (transition t{k}\n    (params{})", ps.concat());
        let _ = write!(out, "\n    (guard {})", and(&self.lits(&t.guard)));
        if let Some(body) = &t.uguard {
            let _ = write!(out, "\n    (uguard (j {}) (or {}))", self.isort(), self.lits(body).join(" "));
        }
        for (var, upd) in &t.updates {
            let name = var.map_or("i", |k| self.vars[k].name.as_str());
            let dom = var.map_or(Dom::Range(0), |k| self.vars[k].dom);
            let value = match upd {
                Upd::Scalar(v) => self.val(*v, dom),
                Upd::Increment => "(+ i 1)".into(),
                Upd::Reset => "0".into(),
                Upd::Array(cases, default) => {
                    let mut body = self.val(*default, dom);
                    for (ix, v) in cases.iter().rev() {
                        body = format!("(ite (= j {}) {} {body})", ix_name(*ix), self.val(*v, dom));
                    }
                    format!("(lambda ((j {})) {body})", self.isort())
                }
            };
            let _ = write!(out, "\n    (update {name} {value})");
        }
        out.push_str(")\n");
    }

    /// A value of sort `dom` (which tells how constants print).
    fn val(&self, v: Val, dom: Dom) -> String {
        match (v, dom) {
            (Val::Const(c), Dom::Bool) => (if c == 0 { "false" } else { "true" }).into(),
            (Val::Const(c), _) => c.to_string(),
            (Val::Scalar(k), _) => self.vars[k].name.clone(),
            (Val::Read(k, ix), _) => format!("{}[{}]", self.vars[k].name, ix_name(ix)),
        }
    }

    fn dom_of(&self, v: Val) -> Option<Dom> {
        match v {
            Val::Const(_) => None,
            Val::Scalar(k) | Val::Read(k, _) => Some(self.vars[k].dom),
        }
    }

    /// The printed literals (a range literal prints as two).
    fn lits(&self, lits: &[Lit]) -> Vec<String> {
        let pos = |s: String, yes: bool| if yes { s } else { format!("(not {s})") };
        let mut out = vec![];
        for l in lits {
            match *l {
                Lit::Eq(a, b, yes) => {
                    let dom = self.dom_of(a).or(self.dom_of(b)).unwrap_or(Dom::Range(0));
                    out.push(pos(format!("(= {} {})", self.val(a, dom), self.val(b, dom)), yes));
                }
                Lit::IxEq(a, b, yes) => out.push(pos(format!("(= {} {})", ix_name(a), ix_name(b)), yes)),
                Lit::Lt(a, b) => out.push(format!("(< {} {})", ix_name(a), ix_name(b))),
                Lit::CounterBelow => out.push("(< i n)".into()),
                Lit::CounterDone => out.push("(<= n i)".into()),
                Lit::InRange(ix) => out.extend([format!("(<= 0 {})", ix_name(ix)), format!("(< {} n)", ix_name(ix))]),
            }
        }
        out
    }
}

fn sort_name(d: Dom) -> String {
    match d {
        Dom::Bool => "Bool".into(),
        Dom::Range(hi) => format!("r{hi}"),
    }
}

fn ix_name(ix: Ix) -> String {
    match ix {
        Ix::Param(0) => "x".into(),
        Ix::Param(_) => "y".into(),
        Ix::Z(k) => format!("z{}", k + 1),
        Ix::J => "j".into(),
        Ix::X => "x".into(),
        Ix::Counter => "i".into(),
    }
}

fn and(lits: &[String]) -> String {
    match lits {
        [] => "true".into(),
        [l] => l.clone(),
        _ => format!("(and {})", lits.join(" ")),
    }
}
