//! Finite instances: the system with a fixed number of processes, explored
//! forward state by state. Used as an oracle for approximations (BRAB: a
//! candidate invariant must hold on every reachable state of a small
//! instance) — never as evidence for a verdict.

use crate::instantiate::all_maps;
use crate::logic::{Op, Sort, Term};
use crate::smt::{self, Backend, SatResult};
use crate::system::System;
use std::collections::{HashMap, HashSet};

/// Why a system has no explicit finite instance here.
pub type Unsupported = String;

/// A concrete state: every cell of every state variable, then the rigid constants.
pub type State = Box<[i64]>;

/// A system instantiated with a fixed number of processes.
pub struct Instance<'a> {
    sys: &'a System,
    /// The number of processes.
    pub procs: usize,
    /// For each state variable: where its cells start, and its dimension.
    slots: Vec<(usize, usize)>,
    /// Where each rigid constant is stored.
    consts: IdMap<usize>,
    /// The integers values are drawn from.
    ints: Vec<i64>,
    /// For each transition, every binding of its parameters to distinct processes.
    choices: Vec<Vec<Env>>,
    /// The state variables' symbols, to find their slots.
    vars: IdMap<usize>,
    /// Total number of cells.
    width: usize,
}

/// Variable bindings during evaluation (parameters, quantified variables).
type Env = Vec<(Term, i64)>;

/// A fast hasher: for terms (whose hash is already a unique number) and
/// for states (slices of small integers).
#[derive(Default)]
struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
    fn write(&mut self, bytes: &[u8]) {
        // Fx-style mixing, 8 bytes at a time
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = n as u64;
    }
}

/// A map keyed by terms, hashed by their ids.
type IdMap<V> = HashMap<Term, V, std::hash::BuildHasherDefault<IdHasher>>;

fn lookup(env: &Env, t: &Term) -> Option<i64> {
    env.iter().rev().find(|(v, _)| v == t).map(|(_, x)| *x)
}

/// The finite domain of a sort in an instance with `procs` processes;
/// integers range over `ints` (the system's literals and small numbers:
/// an under-approximation, acceptable for an oracle).
fn domain(s: &Sort, procs: usize, ints: &[i64]) -> Result<Vec<i64>, Unsupported> {
    match s {
        Sort::Bool => Ok(vec![0, 1]),
        Sort::Index => Ok((0..procs as i64).collect()),
        Sort::Enum(_) => {
            let (lo, hi) = s.finite_range().unwrap();
            Ok((lo..=hi).collect())
        }
        // reals are sampled at the same integers (an under-approximation)
        Sort::Int | Sort::Real => Ok(ints.to_vec()),
        // only equality matters: two values tell equal from different
        Sort::Uninterpreted(_) => Ok(vec![0, 1]),
        other => Err(format!("values of sort {other} are not finite")),
    }
}

/// The sort of a cell symbol when enumerating initial states: values of
/// uninterpreted sorts are numbered.
fn cell_sort(s: &Sort) -> Sort {
    match s {
        Sort::Uninterpreted(_) | Sort::Real => Sort::Int,
        other => other.clone(),
    }
}

/// The integers a finite instance draws values from: the system's integer
/// literals and 0..=procs.
fn int_domain(sys: &System, procs: usize) -> Vec<i64> {
    let mut out: Vec<i64> = (0..=procs as i64).collect();
    let mut add = |t: &Term| {
        for l in crate::logic::collect(t, &|x: &Term| matches!(x.op(), Op::Int(_))) {
            if let Some(n) = l.as_int() {
                out.push(n);
            }
        }
    };
    for q in sys.initial.iter().chain(&sys.axioms).chain(&sys.unsafe_) {
        add(&q.body());
    }
    for t in &sys.transitions {
        add(&t.guard);
        for u in &t.updates {
            add(&u.value);
        }
    }
    out.sort();
    out.dedup();
    out
}

impl<'a> Instance<'a> {
    /// The instance of `sys` with `procs` processes.
    pub fn new(sys: &'a System, procs: usize) -> Result<Self, Unsupported> {
        let ints = int_domain(sys, procs);
        let mut slots = vec![];
        let mut width = 0;
        let mut vars = IdMap::default();
        for (i, v) in sys.vars.iter().enumerate() {
            domain(&v.value_sort(), procs, &ints)?;
            let dims = if v.is_array { v.term.sort().as_array().map(|a| a.index.len()).unwrap_or(1) } else { 0 };
            slots.push((width, dims));
            vars.insert(v.term.clone(), i);
            width += procs.pow(dims as u32);
        }
        let mut consts = IdMap::default();
        for c in &sys.consts {
            domain(c.sort(), procs, &ints)?;
            consts.insert(c.clone(), width);
            width += 1;
        }
        for t in &sys.transitions {
            for v in &t.values {
                domain(v.sort(), procs, &ints)?;
            }
        }
        let pterms: Vec<Term> = (0..procs as i64).map(|p| Term::raw(Op::Int(p), vec![], Sort::Index)).collect();
        let choices = sys
            .transitions
            .iter()
            .map(|t| {
                crate::instantiate::injective_maps(&t.params, &pterms)
                    .into_iter()
                    .map(|m| t.params.iter().map(|p| (p.clone(), m[p].as_int().unwrap())).collect())
                    .collect()
            })
            .collect();
        Ok(Instance { sys, procs, slots, consts, ints, choices, vars, width })
    }

    fn cell(&self, var: usize, idx: &[i64]) -> usize {
        let (base, _) = self.slots[var];
        let mut off = 0;
        for i in idx {
            off = off * self.procs + *i as usize;
        }
        base + off
    }

    /// Evaluates a term on a state (Booleans as 0/1).
    pub fn eval(&self, t: &Term, st: &[i64], env: &mut Env) -> Result<i64, Unsupported> {
        let a = t.args();
        Ok(match t.op() {
            Op::Var(_) => {
                if let Some(x) = lookup(env, t) {
                    x
                } else if let Some(&i) = self.vars.get(t) {
                    st[self.slots[i].0]
                } else if let Some(&c) = self.consts.get(t) {
                    st[c]
                } else {
                    return Err(format!("unbound symbol {t}"));
                }
            }
            Op::Bool(b) => *b as i64,
            Op::Int(n) | Op::EnumConst(n) => *n,
            // reals are sampled at integers in finite instances
            Op::Real(n, 1) => *n,
            Op::Not => 1 - self.eval(&a[0], st, env)?,
            Op::And => {
                for x in a {
                    if self.eval(x, st, env)? == 0 {
                        return Ok(0);
                    }
                }
                1
            }
            Op::Or => {
                for x in a {
                    if self.eval(x, st, env)? != 0 {
                        return Ok(1);
                    }
                }
                0
            }
            Op::Ite => {
                if self.eval(&a[0], st, env)? != 0 {
                    self.eval(&a[1], st, env)?
                } else {
                    self.eval(&a[2], st, env)?
                }
            }
            Op::Eq => (self.eval(&a[0], st, env)? == self.eval(&a[1], st, env)?) as i64,
            Op::Lt => (self.eval(&a[0], st, env)? < self.eval(&a[1], st, env)?) as i64,
            Op::Le => (self.eval(&a[0], st, env)? <= self.eval(&a[1], st, env)?) as i64,
            Op::Add => {
                let mut s = 0i64;
                for x in a {
                    s = s.checked_add(self.eval(x, st, env)?).ok_or("overflow")?;
                }
                s
            }
            Op::Neg => -self.eval(&a[0], st, env)?,
            Op::Mul => {
                let mut s = 1i64;
                for x in a {
                    s = s.checked_mul(self.eval(x, st, env)?).ok_or("overflow")?;
                }
                s
            }
            Op::Select => {
                let Some(&var) = self.vars.get(&a[0]) else {
                    return Err(format!("read of a non-state array {}", a[0]));
                };
                let mut idx = Vec::with_capacity(a.len() - 1);
                for i in &a[1..] {
                    let x = self.eval(i, st, env)?;
                    if x < 0 || x as usize >= self.procs {
                        return Err("index out of the instance".into());
                    }
                    idx.push(x);
                }
                st[self.cell(var, &idx)]
            }
            Op::Forall(vs) | Op::Exists(vs) => {
                let univ = matches!(t.op(), Op::Forall(_));
                let doms: Vec<Vec<i64>> = vs.iter().map(|v| domain(v.sort(), self.procs, &self.ints)).collect::<Result<_, _>>()?;
                let mut combo = vec![0usize; vs.len()];
                loop {
                    let n = env.len();
                    for (k, v) in vs.iter().enumerate() {
                        env.push((v.clone(), doms[k][combo[k]]));
                    }
                    let r = self.eval(&a[0], st, env);
                    env.truncate(n);
                    let r = r?;
                    if univ && r == 0 {
                        return Ok(0);
                    }
                    if !univ && r != 0 {
                        return Ok(1);
                    }
                    // next combination
                    let mut k = 0;
                    loop {
                        if k == vs.len() {
                            return Ok(univ as i64);
                        }
                        combo[k] += 1;
                        if combo[k] < doms[k].len() {
                            break;
                        }
                        combo[k] = 0;
                        k += 1;
                    }
                }
            }
            _ => return Err(format!("cannot evaluate {t}")),
        })
    }

    fn holds_axioms(&self, st: &[i64]) -> Result<bool, Unsupported> {
        let procs: Vec<Term> = (0..self.procs).map(|p| Term::raw(Op::Int(p as i64), vec![], Sort::Index)).collect();
        for q in &self.sys.axioms {
            for m in all_maps(&q.vars, &procs) {
                let mut env: Env = m.iter().map(|(k, v)| (k.clone(), v.as_int().unwrap())).collect();
                if self.eval(&q.body(), st, &mut env)? == 0 {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// The first `cap` initial states found.
    pub fn initial_states_sample(&self, cap: usize) -> Result<Vec<State>, Unsupported> {
        self.enumerate_initial(cap).map(|(v, _)| v)
    }

    /// The initial states (at most `cap`; `None` if there are more).
    pub fn initial_states(&self, cap: usize) -> Result<Option<Vec<State>>, Unsupported> {
        self.enumerate_initial(cap).map(|(v, all)| all.then_some(v))
    }

    /// Up to `cap` initial states, and whether they are all of them.
    fn enumerate_initial(&self, cap: usize) -> Result<(Vec<State>, bool), Unsupported> {
        // Enumerate with the solver: the initial formula over one symbol per cell.
        let isort = self.sys.index_sort();
        let procs: Vec<Term> = (0..self.procs).map(|p| Term::raw(Op::Int(p as i64), vec![], isort.clone())).collect();
        let mut cells: Vec<Term> = vec![Term::ff(); self.width];
        // cells of uninterpreted sorts (numbered values, see `cell_sort`)
        let mut data: HashSet<Term> = HashSet::new();
        // scalar cells: a process-valued scalar may also name a process
        // outside the instance (Cubicle's `Home <> p` for every p)
        let mut scalars: HashSet<Term> = HashSet::new();
        let mut map: HashMap<Term, Term> = HashMap::new();
        for (i, v) in self.sys.vars.iter().enumerate() {
            let (base, dims) = self.slots[i];
            if dims == 0 {
                let c = Term::var(&format!("{}!0", v.name()), cell_sort(&v.value_sort()));
                scalars.insert(c.clone());
                if matches!(v.value_sort(), Sort::Uninterpreted(_)) {
                    data.insert(c.clone());
                }
                map.insert(v.term.clone(), c.clone());
                cells[base] = c;
            } else {
                let dummy: Vec<Term> = (0..dims).map(|d| Term::var(&format!("d!{d}"), isort.clone())).collect();
                for m in all_maps(&dummy, &procs) {
                    let idx: Vec<Term> = dummy.iter().map(|d| m[d].clone()).collect();
                    let ix: Vec<i64> = idx.iter().map(|t| t.as_int().unwrap()).collect();
                    let name = format!("{}!{}", v.name(), ix.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("_"));
                    let c = Term::var(&name, cell_sort(&v.value_sort()));
                    if matches!(v.value_sort(), Sort::Uninterpreted(_)) {
                        data.insert(c.clone());
                    }
                    map.insert(Term::select(&v.term, &idx), c.clone());
                    cells[self.cell(i, &ix)] = c;
                }
            }
        }
        for (c, &slot) in &self.consts {
            let s = Term::var(&format!("{}!c", c.var_name().unwrap_or("c")), cell_sort(c.sort()));
            scalars.insert(s.clone());
            if matches!(c.sort(), Sort::Uninterpreted(_)) {
                data.insert(s.clone());
            }
            map.insert(c.clone(), s.clone());
            cells[slot] = s;
        }
        let mut parts = vec![];
        for q in self.sys.initial.iter().chain(&self.sys.axioms) {
            for m in all_maps(&q.vars, &procs) {
                let f = crate::logic::substitute(&q.body(), &m);
                parts.push(crate::logic::substitute(&f, &map));
            }
        }
        for c in &cells {
            if *c.sort() == Sort::Index {
                let bound = self.procs as i64 + scalars.contains(c) as i64;
                parts.push(Term::le(&procs[0], c));
                parts.push(Term::lt(c, &Term::raw(Op::Int(bound), vec![], isort.clone())));
            } else if data.contains(c) {
                let dom = domain(&Sort::Uninterpreted("data".into()), self.procs, &self.ints)?;
                parts.push(Term::or(dom.iter().map(|n| Term::eq(c, &Term::int(*n)))));
            } else if *c.sort() == Sort::Int {
                parts.push(Term::or(self.ints.iter().map(|n| Term::eq(c, &Term::int(*n)))));
            } else if let Some((lo, hi)) = c.sort().finite_range() {
                // explicit, so that every cell gets a value in its range
                parts.push(Term::raw(crate::logic::Op::Le, vec![Term::int(lo), c.clone()], Sort::Bool));
                parts.push(Term::raw(crate::logic::Op::Le, vec![c.clone(), Term::int(hi)], Sort::Bool));
            }
        }
        // integral real literals become integers, like the real cells
        let f = Term::and(parts);
        let reals = crate::logic::collect(&f, &|t: &Term| matches!(t.op(), Op::Real(_, 1)));
        let to_int: HashMap<Term, Term> =
            reals.into_iter().map(|t| if let Op::Real(n, _) = t.op() { (t.clone(), Term::int(*n)) } else { unreachable!() }).collect();
        let f = crate::logic::substitute(&f, &to_int);
        if !crate::logic::free_vars(&f).iter().all(|v| cells.contains(v)) {
            return Err("initial formula mentions arrays at non-process indices".into());
        }
        let mut solver = smt::solver(Backend::Z3);
        solver.assert(&f);
        let mut out = vec![];
        loop {
            match solver.check() {
                SatResult::Unsat => return Ok((out, true)),
                SatResult::Unknown(why) => return Err(why),
                SatResult::Sat => {}
            }
            if out.len() >= cap {
                return Ok((out, false));
            }
            let mut st = vec![0i64; self.width];
            let mut block = vec![];
            for (k, c) in cells.iter().enumerate() {
                let v = solver.value(c).ok_or("no model value")?;
                let x = match v.op() {
                    Op::Bool(b) => *b as i64,
                    Op::Int(n) | Op::EnumConst(n) => *n,
                    _ => return Err(format!("unexpected value {v}")),
                };
                st[k] = x;
                let lit = match v.op() {
                    Op::Bool(_) => Term::eq(c, &v),
                    _ => Term::eq(c, &Term::raw(v.op().clone(), vec![], c.sort().clone())),
                };
                block.push(lit);
            }
            solver.assert(&Term::and(block).not());
            out.push(st.into_boxed_slice());
        }
    }

    /// The successors of a state.
    pub fn successors(&self, st: &[i64]) -> Result<Vec<State>, Unsupported> {
        let mut out = vec![];
        for (t, choices) in self.sys.transitions.iter().zip(&self.choices) {
            for base in choices {
                let mut env: Env = base.clone();
                // nondeterministic values
                let doms: Vec<Vec<i64>> = t.values.iter().map(|v| domain(v.sort(), self.procs, &self.ints)).collect::<Result<_, _>>()?;
                let mut combo = vec![0usize; t.values.len()];
                'values: loop {
                    let n = env.len();
                    for (i, v) in t.values.iter().enumerate() {
                        env.push((v.clone(), doms[i][combo[i]]));
                    }
                    // a step the instance cannot represent (an index outside it) is not taken
                    let enabled = matches!(self.eval(&t.guard, st, &mut env), Ok(x) if x != 0)
                        && matches!(self.uguard_holds(t, st, &mut env), Ok(true));
                    if enabled {
                        if let Ok(next) = self.apply(t, st, &mut env) {
                            if matches!(self.holds_axioms(&next), Ok(true)) {
                                out.push(next);
                            }
                        }
                    }
                    env.truncate(n);
                    let mut i = 0;
                    loop {
                        if i == t.values.len() {
                            break 'values;
                        }
                        combo[i] += 1;
                        if combo[i] < doms[i].len() {
                            break;
                        }
                        combo[i] = 0;
                        i += 1;
                    }
                }
            }
        }
        Ok(out)
    }

    fn uguard_holds(&self, t: &crate::system::Transition, st: &[i64], env: &mut Env) -> Result<bool, Unsupported> {
        let Some((j, body)) = &t.uguard else { return Ok(true) };
        for p in 0..self.procs as i64 {
            env.push((j.clone(), p));
            let r = self.eval(body, st, env);
            env.pop();
            if r? == 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn apply(&self, t: &crate::system::Transition, st: &[i64], env: &mut Env) -> Result<State, Unsupported> {
        let mut next = st.to_vec();
        for u in &t.updates {
            let (base, dims) = self.slots[u.var];
            if dims == 0 {
                next[base] = self.eval(&u.value, st, env)?;
                continue;
            }
            let Op::Lambda(vs) = u.value.op() else {
                return Err("array update that is not a λ-term".into());
            };
            let body = &u.value.args()[0];
            let cells = self.procs.pow(dims as u32);
            for c in 0..cells {
                let mut idx = vec![0i64; dims];
                let mut r = c;
                for d in (0..dims).rev() {
                    idx[d] = (r % self.procs) as i64;
                    r /= self.procs;
                }
                let n = env.len();
                for (v, x) in vs.iter().zip(&idx) {
                    env.push((v.clone(), *x));
                }
                let x = self.eval(body, st, env);
                env.truncate(n);
                next[base + c] = x?;
            }
        }
        Ok(next.into_boxed_slice())
    }

    /// Every reachable state, breadth-first, up to `cap` states (the flag
    /// says whether exploration was complete).
    pub fn reachable(&self, cap: usize) -> Result<(Vec<State>, bool), Unsupported> {
        // beyond the cap the initial states are a sample (fine for an oracle)
        let (init, all_init) = match self.initial_states(2048)? {
            Some(init) => (init, true),
            None => (self.initial_states_sample(2048)?, false),
        };
        let mut seen: HashSet<State, std::hash::BuildHasherDefault<IdHasher>> = HashSet::default();
        let mut order = vec![];
        for s in init {
            if self.holds_axioms(&s)? && seen.insert(s.clone()) {
                order.push(s);
            }
        }
        let mut k = 0;
        while k < order.len() {
            if order.len() >= cap {
                return Ok((order, false));
            }
            let _ = all_init;
            let succ = self.successors(&order[k].clone())?;
            for s in succ {
                if seen.insert(s.clone()) {
                    order.push(s);
                }
            }
            k += 1;
        }
        Ok((order, all_init))
    }
}
