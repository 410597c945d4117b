//! Finite instances: the system with a fixed number of processes, explored
//! forward state by state. Used as an oracle for approximations (BRAB: a
//! candidate invariant must hold on every reachable state of a small
//! instance) — never as evidence for a verdict.

use crate::logic::instantiate::all_maps;
use crate::logic::{Op, Sort, Term};
use crate::smt::{self, Backend, SatResult};
use crate::system::System;
use crate::{HashMap, HashSet};

/// Why a system has no explicit finite instance here.
pub type Unsupported = String;

/// A state: every cell of every state variable, then the rigid constants.
/// A cell may hold an *open value* ([`open`]): the unknown initial value
/// of a cell the initial formula leaves free, fixed only when something
/// reads it (Cubicle's "don't care" made exact: a state with open values
/// stands for every way of fixing them).
pub type State = Box<[i64]>;

/// The first open value: the unknown initial value of cell `k` is `OPEN + k`.
const OPEN: i64 = i64::MIN;

/// The cell whose unknown initial value `v` is, if `v` is an open value.
pub fn open(v: i64) -> Option<usize> {
    (v < OPEN + (1 << 40)).then(|| (v - OPEN) as usize)
}

/// The values each open value may take, by the cell it came from.
pub type OpenValues = HashMap<usize, Vec<i64>>;

/// Why evaluating compiled code on a state stopped.
#[derive(Debug)]
pub enum Stuck {
    /// The code inspects this open value: the state must be split on it
    /// (see [`split`]).
    Open(usize),
    /// What the instance cannot represent.
    Unsupported(Unsupported),
}

impl From<Unsupported> for Stuck {
    fn from(e: Unsupported) -> Self {
        Stuck::Unsupported(e)
    }
}

impl From<&str> for Stuck {
    fn from(e: &str) -> Self {
        Stuck::Unsupported(e.to_string())
    }
}

/// Whether a state holds an open value.
pub fn partial(st: &[i64]) -> bool {
    st.iter().any(|&v| open(v).is_some())
}

/// The states `st` stands for with open value `k` fixed to each of its values.
pub fn split(st: &[i64], k: usize, open: &OpenValues) -> Vec<State> {
    let token = OPEN + k as i64;
    open[&k].iter().map(|&v| st.iter().map(|&x| if x == token { v } else { x }).collect()).collect()
}

/// The completions of `st` — its open values fixed — as far as `f` reads
/// them, each with what `f` gives on it.
pub fn completions<T>(st: State, open: &OpenValues, mut f: impl FnMut(&[i64]) -> Result<T, Stuck>) -> Result<Vec<(State, T)>, Unsupported> {
    let mut todo = vec![st];
    let mut out = vec![];
    while let Some(st) = todo.pop() {
        match f(&st) {
            Ok(r) => out.push((st, r)),
            Err(Stuck::Open(k)) => todo.extend(split(&st, k, open).into_iter().rev()),
            Err(Stuck::Unsupported(e)) => return Err(e),
        }
    }
    Ok(out)
}

/// A step of an instance: the transition and its parameters' processes.
pub type Move = (usize, Box<[i64]>);

/// The successors of one state in reused buffers (see
/// [`Instance::successors_into`]).
#[derive(Default)]
pub struct Successors {
    /// Per successor: the transition and the index of its parameters'
    /// processes among the transition's choices.
    moves: Vec<(usize, usize)>,
    /// The successors' cells, one state after the other.
    cells: Vec<i64>,
    /// Registers and value choices while evaluating.
    regs: Vec<i64>,
    combo: Vec<usize>,
    /// The cells of a state.
    width: usize,
}

impl Successors {
    /// The number of successors.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// The `i`-th successor.
    pub fn state(&self, i: usize) -> &[i64] {
        &self.cells[i * self.width..(i + 1) * self.width]
    }
}

/// The states of an instance found by breadth-first exploration.
pub struct Exploration {
    /// The states, in the order found.
    pub states: Vec<State>,
    /// Whether they are all the reachable ones.
    pub complete: bool,
    /// For each state, the state it was first reached from, the step
    /// taken, and the permutation of the processes (see
    /// [`super::symmetry`]) the state went through after the step, 0 for
    /// none (nothing for initial states).
    pub parents: Vec<Option<(usize, Move, usize)>>,
    /// The first state found that satisfies an unsafe cube.
    pub unsafe_state: Option<usize>,
    /// The values of the open values the states may hold.
    pub open: OpenValues,
}

/// A system instantiated with a fixed number of processes.
pub struct Instance<'a> {
    /// The system instantiated: the given one, or its control part (see
    /// [`Instance::abstracting_data`]).
    sys: std::borrow::Cow<'a, System>,
    /// The state variables of the given system left out of the instance
    /// (data abstracted): literals over them are unknown on its states.
    hidden: Vec<Term>,
    /// When an exploration must end (cut short, incomplete).
    pub deadline: Option<std::time::Instant>,
    /// The number of processes.
    pub procs: usize,
    /// For each state variable: where its cells start, and its dimension.
    slots: Vec<(usize, usize)>,
    /// Where each rigid constant is stored.
    consts: IdMap<usize>,
    /// The integers values are drawn from.
    ints: Vec<i64>,
    /// For each transition, every assignment of distinct processes to its parameters.
    choices: Vec<Vec<Vec<i64>>>,
    /// The transitions, compiled.
    steps: Vec<Step>,
    /// The axioms, compiled: number of quantified variables (registers
    /// from 0), registers needed, body.
    axioms: Vec<(usize, usize, Code)>,
    /// The unsafe cubes, compiled like the axioms (their variables take
    /// pairwise distinct processes).
    unsafe_: Vec<(usize, usize, Code)>,
    /// For each unsafe cube, every assignment of distinct processes to its variables.
    unsafe_maps: Vec<Vec<Vec<i64>>>,
    /// The state variables' symbols, to find their slots.
    vars: IdMap<usize>,
    /// Total number of cells.
    width: usize,
    /// The cells holding values of uninterpreted sorts (data), in order:
    /// only compared for equality, so that swapping their two values maps
    /// reachable states to reachable states (see [`Instance::canonical`]).
    data: Vec<usize>,
    /// Process symmetry, when nothing in the system tells processes apart.
    sym: Option<super::symmetry::Symmetry>,
    /// With [`Instance::bound_growing`]: the range growing numbers must stay
    /// in, and per cell whether it holds one.
    bounds: Option<((i64, i64), Vec<bool>)>,
}

/// A term compiled for evaluation on the states of an instance: state
/// cells and bound variables are resolved to positions once, so that
/// evaluating it on many states walks no maps. Booleans are 0/1.
#[derive(Clone, Debug)]
pub enum Code {
    /// A constant.
    Lit(i64),
    /// A state cell (a scalar or a rigid constant).
    Cell(usize),
    /// A bound variable (parameter, value, quantified or λ variable): its register.
    Reg(usize),
    /// A read of the array whose cells start at this position.
    Read(usize, Vec<Code>),
    /// Negation.
    Not(Box<Code>),
    /// Conjunction (left to right, short-circuit).
    And(Vec<Code>),
    /// Disjunction (left to right, short-circuit).
    Or(Vec<Code>),
    /// If-then-else.
    Ite(Box<(Code, Code, Code)>),
    /// Equality.
    Eq(Box<(Code, Code)>),
    /// Less-than.
    Lt(Box<(Code, Code)>),
    /// Less-or-equal.
    Le(Box<(Code, Code)>),
    /// Sum (checked).
    Add(Vec<Code>),
    /// Negation of a number.
    Neg(Box<Code>),
    /// Product (checked).
    Mul(Vec<Code>),
    /// `∀` (flag true) or `∃` over registers from the given one on, each
    /// ranging over its domain.
    Quant(bool, usize, Vec<Vec<i64>>, Box<Code>),
    /// What cannot be evaluated here; an error only when evaluated.
    Fail(String),
}

/// A transition compiled for an instance. Registers: parameters, then
/// nondeterministic values, then the universal guard's or an update's
/// bound variables.
struct Step {
    /// The domains of the nondeterministic values.
    doms: Vec<Vec<i64>>,
    guard: Code,
    /// The universal guard's body, its variable in the register after the values.
    uguard: Option<Code>,
    /// Updates: the cells' first position, the dimension, the new value
    /// (of a cell, for arrays: λ variables in the registers after the values).
    updates: Result<Vec<(usize, usize, Code)>, Unsupported>,
    /// The number of registers needed.
    regs: usize,
}

/// Compiles terms for one instance, allocating registers to bound variables.
struct Compiler<'i, 'a> {
    inst: &'i Instance<'a>,
    /// Bound variables, by register.
    bound: Vec<Term>,
    /// Variables with a fixed value.
    fixed: &'i [(Term, i64)],
    /// The number of registers used so far.
    regs: usize,
}

impl Compiler<'_, '_> {
    fn bind(&mut self, vs: &[Term]) -> usize {
        let at = self.bound.len();
        self.bound.extend(vs.iter().cloned());
        self.regs = self.regs.max(self.bound.len());
        at
    }

    fn all(&mut self, ts: &[Term]) -> Vec<Code> {
        ts.iter().map(|t| self.compile(t)).collect()
    }

    fn two(&mut self, ts: &[Term]) -> Box<(Code, Code)> {
        Box::new((self.compile(&ts[0]), self.compile(&ts[1])))
    }

    fn compile(&mut self, t: &Term) -> Code {
        let inst = self.inst;
        let a = t.args();
        match t.op() {
            Op::Var(_) => {
                if let Some(r) = self.bound.iter().rposition(|b| b == t) {
                    Code::Reg(r)
                } else if let Some((_, x)) = self.fixed.iter().rev().find(|(v, _)| v == t) {
                    Code::Lit(*x)
                } else if let Some(&i) = inst.vars.get(t) {
                    Code::Cell(inst.slots[i].0)
                } else if let Some(&c) = inst.consts.get(t) {
                    Code::Cell(c)
                } else {
                    Code::Fail(format!("unbound symbol {t}"))
                }
            }
            Op::Bool(b) => Code::Lit(*b as i64),
            Op::Int(n) | Op::EnumConst(n) => Code::Lit(*n),
            // reals are sampled at integers in finite instances
            Op::Real(n, 1) => Code::Lit(*n),
            Op::Not => Code::Not(Box::new(self.compile(&a[0]))),
            Op::And => Code::And(self.all(a)),
            Op::Or => Code::Or(self.all(a)),
            Op::Ite => Code::Ite(Box::new((self.compile(&a[0]), self.compile(&a[1]), self.compile(&a[2])))),
            Op::Eq => Code::Eq(self.two(a)),
            Op::Lt => Code::Lt(self.two(a)),
            Op::Le => Code::Le(self.two(a)),
            Op::Add => Code::Add(self.all(a)),
            Op::Neg => Code::Neg(Box::new(self.compile(&a[0]))),
            Op::Mul => Code::Mul(self.all(a)),
            Op::Select => match inst.vars.get(&a[0]) {
                Some(&var) => {
                    let base = inst.slots[var].0;
                    let idx = self.all(&a[1..]);
                    // a read at known processes is a cell
                    let known: Option<Vec<i64>> = idx.iter().map(|c| if let Code::Lit(x) = c { Some(*x) } else { None }).collect();
                    match known {
                        Some(xs) if xs.iter().all(|x| (0..inst.procs as i64).contains(x)) => {
                            Code::Cell(base + xs.iter().fold(0, |off, x| off * inst.procs + *x as usize))
                        }
                        _ => Code::Read(base, idx),
                    }
                }
                None => Code::Fail(format!("read of a non-state array {}", a[0])),
            },
            Op::Forall(vs) | Op::Exists(vs) => {
                let doms: Result<Vec<Vec<i64>>, Unsupported> = vs.iter().map(|v| domain(v.sort(), inst.procs, &inst.ints)).collect();
                match doms {
                    Ok(doms) => {
                        let at = self.bind(vs);
                        let body = self.compile(&a[0]);
                        self.bound.truncate(at);
                        Code::Quant(matches!(t.op(), Op::Forall(_)), at, doms, Box::new(body))
                    }
                    Err(e) => Code::Fail(e),
                }
            }
            _ => Code::Fail(format!("cannot evaluate {t}")),
        }
    }
}

/// A map keyed by terms.
type IdMap<V> = HashMap<Term, V>;

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
/// literals where they meet numbers (not enumerations, whose constants are
/// integers too, nor their cells' ranges) and 0..=procs.
fn int_domain(sys: &System, procs: usize) -> Vec<i64> {
    let mut out: Vec<i64> = (0..=procs as i64).collect();
    for q in sys.initial.iter().chain(&sys.axioms).chain(&sys.unsafe_) {
        numeric_literals(&q.body(), true, &mut out);
    }
    for t in &sys.transitions {
        numeric_literals(&t.guard, true, &mut out);
        for u in &t.updates {
            let numeric = !matches!(sys.vars[u.var].value_sort(), Sort::Enum(_));
            numeric_literals(&u.value, numeric, &mut out);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Collects the integer literals of `t` that stand for numbers: `numeric`
/// says whether `t`'s own value is one (not an enumeration constant).
/// A literal compared with an enumeration-sorted term is that
/// enumeration's constant.
fn numeric_literals(t: &Term, numeric: bool, out: &mut Vec<i64>) {
    let args = t.args();
    match t.op() {
        Op::Int(n) if numeric => out.push(*n),
        Op::Eq | Op::Lt | Op::Le => {
            let numeric = !args.iter().any(|a| matches!(a.sort(), Sort::Enum(_)));
            args.iter().for_each(|a| numeric_literals(a, numeric, out));
        }
        Op::Ite => {
            numeric_literals(&args[0], true, out);
            args[1..].iter().for_each(|a| numeric_literals(a, numeric, out));
        }
        Op::Lambda(_) => numeric_literals(&args[0], numeric, out),
        Op::Store => {
            let elem = args[0].sort().as_array().is_none_or(|a| !matches!(a.elem, Sort::Enum(_)));
            let (value, rest) = args.split_last().unwrap();
            rest.iter().for_each(|a| numeric_literals(a, true, out));
            numeric_literals(value, elem, out);
        }
        _ => args.iter().for_each(|a| numeric_literals(a, true, out)),
    }
}

/// Cells left to enumerate: a cell symbol and the values it takes.
type Domains = Vec<(usize, Vec<i64>)>;

/// Steps `combo` to the next combination of positions (the first one
/// fastest), position `k` ranging over `0..len(k)`; false after the last.
fn next_combination(combo: &mut [usize], len: impl Fn(usize) -> usize) -> bool {
    for (k, c) in combo.iter_mut().enumerate() {
        *c += 1;
        if *c < len(k) {
            return true;
        }
        *c = 0;
    }
    false
}

/// The numeric state variables (by position) that can take unboundedly
/// many values: those assigned a sum, a difference or a product, or the
/// value of such a variable (syntactically, to a fixpoint).
pub fn growing_numbers(sys: &System) -> HashSet<usize> {
    fn any(t: &Term, p: &dyn Fn(&Term) -> bool) -> bool {
        p(t) || t.args().iter().any(|a| any(a, p))
    }
    let numeric = |i: usize| matches!(sys.vars[i].value_sort(), Sort::Int | Sort::Real);
    let mut growing = HashSet::default();
    loop {
        let before = growing.len();
        for t in &sys.transitions {
            for u in &t.updates {
                if numeric(u.var)
                    && !growing.contains(&u.var)
                    && any(&u.value, &|x: &Term| matches!(x.op(), Op::Add | Op::Mul | Op::Neg) || growing.iter().any(|&i: &usize| sys.vars[i].term == *x))
                {
                    growing.insert(u.var);
                }
            }
        }
        if growing.len() == before {
            return growing;
        }
    }
}

impl<'a> Instance<'a> {
    /// The instance of `sys` with `procs` processes.
    pub fn new(sys: &'a System, procs: usize) -> Result<Self, Unsupported> {
        Self::build(std::borrow::Cow::Borrowed(sys), vec![], procs)
    }

    /// The instance of `sys`'s control part (see
    /// [`crate::transform::data`]) with `procs` processes: its states are
    /// the projections of the reachable states of `sys`'s instance with
    /// the data left out (Cubicle's abstract types, never enumerated), so
    /// that it is as small as the control graph; `None` when `sys` has no
    /// data to leave out.
    pub fn abstracting_data(sys: &System, procs: usize) -> Option<Result<Instance<'static>, Unsupported>> {
        let (control, hidden) = crate::transform::data::abstract_data(sys)?;
        Some(Instance::build(std::borrow::Cow::Owned(control), hidden, procs))
    }

    /// Whether the instance evaluates a term: it reads no variable the
    /// instance leaves out (see [`Instance::abstracting_data`]).
    pub fn sees(&self, t: &Term) -> bool {
        !self.hidden.iter().any(|h| crate::logic::occurs(h, t))
    }

    /// Whether the instance leaves data out.
    pub fn abstracts_data(&self) -> bool {
        !self.hidden.is_empty()
    }

    fn build(owned: std::borrow::Cow<'a, System>, hidden: Vec<Term>, procs: usize) -> Result<Self, Unsupported> {
        let sys: &System = &owned;
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
        let index_constants = sys.consts.iter().filter(|c| *c.sort() == Sort::Index).count();
        if index_constants > procs {
            return Err(format!("{index_constants} index constants need as many processes"));
        }
        let uninterpreted = |s: &Sort| matches!(s, Sort::Uninterpreted(_));
        let mut data: Vec<usize> = vec![];
        for (v, &(base, dims)) in sys.vars.iter().zip(&slots) {
            if uninterpreted(&v.value_sort()) {
                data.extend(base..base + procs.pow(dims as u32));
            }
        }
        let mut consts = IdMap::default();
        for c in &sys.consts {
            domain(c.sort(), procs, &ints)?;
            consts.insert(c.clone(), width);
            if uninterpreted(c.sort()) {
                data.push(width);
            }
            width += 1;
        }
        for t in &sys.transitions {
            for v in &t.values {
                domain(v.sort(), procs, &ints)?;
            }
        }
        let pterms: Vec<Term> = (0..procs as i64).map(|p| Term::raw(Op::Int(p), vec![], Sort::Index)).collect();
        // every assignment of distinct processes to some variables
        let injective = |vs: &[Term]| -> Vec<Vec<i64>> {
            crate::logic::instantiate::injective_maps(vs, &pterms).into_iter().map(|m| vs.iter().map(|v| m[v].as_int().unwrap()).collect()).collect()
        };
        let choices = sys.transitions.iter().map(|t| injective(&t.params)).collect();
        let unsafe_maps = sys.unsafe_.iter().map(|q| injective(&q.vars)).collect();
        let sym = (procs > 1 && super::symmetry::symmetric(sys)).then(|| {
            let cells: Vec<(usize, usize, bool)> = sys.vars.iter().zip(&slots).map(|(v, &(b, d))| (b, d, v.value_sort() == Sort::Index)).collect();
            super::symmetry::Symmetry::new(procs, &cells, width)
        });
        let mut inst = Instance {
            sys: owned,
            hidden,
            deadline: None,
            procs,
            slots,
            consts,
            ints,
            choices,
            steps: vec![],
            axioms: vec![],
            unsafe_: vec![],
            unsafe_maps,
            vars,
            width,
            sym,
            data,
            bounds: None,
        };
        let steps = inst.sys.transitions.iter().map(|t| inst.compile_step(t)).collect::<Result<_, _>>()?;
        let compile_all = |qs: &[crate::system::Quantified]| -> Vec<(usize, usize, Code)> {
            qs.iter()
                .map(|q| {
                    let mut c = Compiler { inst: &inst, bound: vec![], fixed: &[], regs: 0 };
                    c.bind(&q.vars);
                    let body = c.compile(&q.body());
                    (q.vars.len(), c.regs, body)
                })
                .collect()
        };
        let axioms = compile_all(&inst.sys.axioms);
        let unsafe_ = compile_all(&inst.sys.unsafe_);
        inst.steps = steps;
        inst.axioms = axioms;
        inst.unsafe_ = unsafe_;
        Ok(inst)
    }

    /// Bounds the instance's growing numbers (numeric variables assigned
    /// sums, products, or values of such variables: clocks, timestamps,
    /// tickets): with `Some(slack)`, a step that would take one out of the
    /// range of the instance's integers widened by `slack` is not taken;
    /// with `None`, numbers are unbounded again. Bounded, the instance is
    /// finite; its states under-approximate the concrete ones but cover
    /// every control state reachable with small numbers (Cubicle's
    /// enumerative oracle bounds its numbers likewise). Whether some
    /// number grows.
    pub fn bound_growing(&mut self, slack: Option<i64>) -> bool {
        let growing = growing_numbers(&self.sys);
        self.bounds = slack.filter(|_| !growing.is_empty()).map(|slack| {
            let mut cells = vec![false; self.width];
            for &i in &growing {
                let (base, dims) = self.slots[i];
                cells[base..base + self.procs.pow(dims as u32)].iter_mut().for_each(|c| *c = true);
            }
            let lo = *self.ints.first().unwrap_or(&0);
            let hi = *self.ints.last().unwrap_or(&0) + slack;
            ((lo, hi), cells)
        });
        !growing.is_empty()
    }

    fn compile_step(&self, t: &crate::system::Transition) -> Result<Step, Unsupported> {
        let doms = t.values.iter().map(|v| domain(v.sort(), self.procs, &self.ints)).collect::<Result<_, _>>()?;
        let mut c = Compiler { inst: self, bound: vec![], fixed: &[], regs: 0 };
        c.bind(&t.params);
        c.bind(&t.values);
        let top = c.bound.len();
        let guard = c.compile(&t.guard);
        let uguard = t.uguard.as_ref().map(|(j, body)| {
            c.bind(std::slice::from_ref(j));
            let code = c.compile(body);
            c.bound.truncate(top);
            code
        });
        let mut updates = Ok(vec![]);
        for u in &t.updates {
            let (base, dims) = self.slots[u.var];
            let code = if dims == 0 {
                c.compile(&u.value)
            } else {
                let Op::Lambda(vs) = u.value.op() else {
                    updates = Err("array update that is not a λ-term".to_string());
                    break;
                };
                c.bind(vs);
                let code = c.compile(&u.value.args()[0]);
                c.bound.truncate(top);
                code
            };
            if let Ok(us) = updates.as_mut() {
                us.push((base, dims, code));
            }
        }
        Ok(Step { doms, guard, uguard, updates, regs: c.regs })
    }

    /// Compiles a term whose free variables are state variables, rigid
    /// constants or the variables given values in `fixed`; with the number
    /// of registers its evaluation needs.
    pub fn compile(&self, t: &Term, fixed: &[(Term, i64)]) -> (Code, usize) {
        let mut c = Compiler { inst: self, bound: vec![], fixed, regs: 0 };
        let code = c.compile(t);
        (code, c.regs)
    }

    /// Evaluates compiled code on a state to a value that is not open:
    /// stuck on an open value it reads.
    pub fn val(&self, c: &Code, st: &[i64], regs: &mut [i64]) -> Result<i64, Stuck> {
        let v = self.run(c, st, regs)?;
        match open(v) {
            Some(k) => Err(Stuck::Open(k)),
            None => Ok(v),
        }
    }

    /// Evaluates compiled code on a state; `regs` holds the bound
    /// variables' values. The value may be open when the code only
    /// passes one on (a cell, a read, a branch); an operation on an open
    /// value is stuck on it.
    pub fn run(&self, c: &Code, st: &[i64], regs: &mut [i64]) -> Result<i64, Stuck> {
        Ok(match c {
            Code::Lit(n) => *n,
            Code::Cell(i) => st[*i],
            Code::Reg(r) => regs[*r],
            Code::Read(base, idx) => {
                let mut off = 0;
                for i in idx {
                    let x = self.val(i, st, regs)?;
                    if x < 0 || x as usize >= self.procs {
                        return Err("index out of the instance".into());
                    }
                    off = off * self.procs + x as usize;
                }
                st[base + off]
            }
            Code::Not(x) => 1 - self.val(x, st, regs)?,
            Code::And(xs) => {
                for x in xs {
                    if self.val(x, st, regs)? == 0 {
                        return Ok(0);
                    }
                }
                1
            }
            Code::Or(xs) => {
                for x in xs {
                    if self.val(x, st, regs)? != 0 {
                        return Ok(1);
                    }
                }
                0
            }
            Code::Ite(b) => {
                if self.val(&b.0, st, regs)? != 0 {
                    self.run(&b.1, st, regs)?
                } else {
                    self.run(&b.2, st, regs)?
                }
            }
            Code::Eq(b) => {
                // an open value equals itself, whatever it is
                let (x, y) = (self.run(&b.0, st, regs)?, self.run(&b.1, st, regs)?);
                if x != y {
                    if let Some(k) = open(x).or(open(y)) {
                        return Err(Stuck::Open(k));
                    }
                }
                (x == y) as i64
            }
            Code::Lt(b) => (self.val(&b.0, st, regs)? < self.val(&b.1, st, regs)?) as i64,
            Code::Le(b) => (self.val(&b.0, st, regs)? <= self.val(&b.1, st, regs)?) as i64,
            Code::Add(xs) => {
                let mut s = 0i64;
                for x in xs {
                    s = s.checked_add(self.val(x, st, regs)?).ok_or("overflow")?;
                }
                s
            }
            Code::Neg(x) => -self.val(x, st, regs)?,
            Code::Mul(xs) => {
                let mut s = 1i64;
                for x in xs {
                    s = s.checked_mul(self.val(x, st, regs)?).ok_or("overflow")?;
                }
                s
            }
            Code::Quant(univ, at, doms, body) => {
                let mut combo = vec![0usize; doms.len()];
                loop {
                    for (k, d) in doms.iter().enumerate() {
                        regs[at + k] = d[combo[k]];
                    }
                    let r = self.val(body, st, regs)?;
                    if *univ && r == 0 {
                        return Ok(0);
                    }
                    if !*univ && r != 0 {
                        return Ok(1);
                    }
                    if !next_combination(&mut combo, |k| doms[k].len()) {
                        return Ok(*univ as i64);
                    }
                }
            }
            Code::Fail(why) => return Err(Stuck::Unsupported(why.clone())),
        })
    }

    fn cell(&self, var: usize, idx: &[i64]) -> usize {
        let (base, _) = self.slots[var];
        let mut off = 0;
        for i in idx {
            off = off * self.procs + *i as usize;
        }
        base + off
    }

    /// Whether a state satisfies the axioms; stuck on an open value they read.
    pub fn holds_axioms(&self, st: &[i64]) -> Result<bool, Stuck> {
        for (n, regs, body) in &self.axioms {
            let mut regs = vec![0i64; *regs];
            let mut combo = vec![0usize; *n];
            loop {
                for (r, &p) in regs.iter_mut().zip(&combo) {
                    *r = p as i64;
                }
                if self.val(body, st, &mut regs)? == 0 {
                    return Ok(false);
                }
                if !next_combination(&mut combo, |_| self.procs) {
                    break;
                }
            }
        }
        Ok(true)
    }

    /// The first unsafe cube (and the distinct processes of its variables)
    /// that state `st` satisfies, if any.
    pub fn unsafe_at(&self, st: &[i64]) -> Result<Option<(usize, Vec<i64>)>, Stuck> {
        for (k, ((n, nregs, body), maps)) in self.unsafe_.iter().zip(&self.unsafe_maps).enumerate() {
            let mut regs = vec![0i64; *nregs];
            for vals in maps {
                regs[..*n].copy_from_slice(vals);
                if self.val(body, st, &mut regs)? != 0 {
                    return Ok(Some((k, vals.clone())));
                }
            }
        }
        Ok(None)
    }

    /// Up to `cap` initial states, whether they are all of them, and the
    /// values of their open values (the cells the initial formula leaves
    /// free).
    fn enumerate_initial(&self, cap: usize) -> Result<(Vec<State>, bool, OpenValues), Unsupported> {
        // The initial formula over one symbol per cell: decided by unit
        // propagation when it fixes every cell it constrains (no solver
        // started), else models enumerated by the solver.
        let cs = self.cell_symbols();
        let (f, ranges, free) = self.initial_formula(&cs)?;
        let constrained = crate::logic::free_vars(&f);
        let mut out = vec![];
        let open: OpenValues = free.iter().filter(|(_, d)| d.len() > 1).cloned().collect();
        let leave_open = |st: &mut Vec<i64>| {
            for (k, dom) in &free {
                st[*k] = if dom.len() == 1 { dom[0] } else { OPEN + *k as i64 };
            }
            st.clone().into_boxed_slice()
        };
        if let Some((mut st, linked)) = self.decided_by_units(&f, &cs, &constrained)? {
            let mut open = open;
            open.extend(linked);
            out.push(leave_open(&mut st));
            return Ok((out, true, open));
        }
        let mut solver = smt::solver(Backend::Z3);
        solver.assert(&Term::and(std::iter::once(f).chain(ranges)));
        loop {
            match solver.check() {
                SatResult::Unsat => return Ok((out, true, open)),
                SatResult::Unknown(why) => return Err(why),
                SatResult::Sat => {}
            }
            if out.len() >= cap {
                return Ok((out, false, open));
            }
            let mut st = vec![0i64; self.width];
            let mut block = vec![];
            for (k, c) in cs.cells.iter().enumerate() {
                if !constrained.contains(c) {
                    continue;
                }
                let v = solver.value(c).ok_or("no model value")?;
                st[k] = cell_value(&v).ok_or_else(|| format!("unexpected value {v}"))?;
                block.push(match v.op() {
                    Op::Bool(_) => Term::eq(c, &v),
                    _ => Term::eq(c, &Term::raw(v.op().clone(), vec![], c.sort().clone())),
                });
            }
            solver.assert(&Term::and(block).not());
            out.push(leave_open(&mut st));
        }
    }

    /// The one initial state when unit propagation decides the initial
    /// formula `f` (no solver started): every cell it constrains fixed to a
    /// value of the cell's domain, or equated with other cells (Cubicle's
    /// `MemData = AuxData`) — each class of equated cells that no unit fixes
    /// holds one open value (its first cell's) standing for every value of
    /// their common domain, so the models of `f` are exactly the states it
    /// stands for. The state (cells `f` leaves free at 0) and those open
    /// values' domains, else `None`.
    #[allow(clippy::type_complexity)]
    fn decided_by_units(&self, f: &Term, cs: &CellSymbols, constrained: &[Term]) -> Result<Option<(Vec<i64>, Vec<(usize, Vec<i64>)>)>, Unsupported> {
        let slot: HashMap<&Term, usize> = cs.cells.iter().enumerate().map(|(k, c)| (c, k)).collect();
        let link = |p: &Term| match p.op() {
            Op::Eq if p.args().len() == 2 => Some((*slot.get(&p.args()[0])?, *slot.get(&p.args()[1])?)),
            _ => None,
        };
        let (mut links, mut rest) = (vec![], vec![]);
        for p in crate::logic::conjuncts(f) {
            match link(&p) {
                Some(l) => links.push(l),
                None => rest.push(p),
            }
        }
        let Some(units) = crate::logic::units::solved_by_units(&Term::and(rest)) else { return Ok(None) };
        // the classes of equated cells (union-find over slots)
        let mut class: Vec<usize> = (0..cs.cells.len()).collect();
        fn root(class: &mut [usize], k: usize) -> usize {
            let mut r = k;
            while class[r] != r {
                r = class[r];
            }
            class[k] = r;
            r
        }
        for &(a, b) in &links {
            let (ra, rb) = (root(&mut class, a), root(&mut class, b));
            class[ra.max(rb)] = ra.min(rb);
        }
        let mut st = vec![0i64; self.width];
        let mut value: HashMap<usize, Option<i64>> = HashMap::default();
        let mut domains: HashMap<usize, Vec<i64>> = HashMap::default();
        for (k, c) in cs.cells.iter().enumerate() {
            if !constrained.contains(c) {
                continue;
            }
            let r = root(&mut class, k);
            let dom = self.domain_of(c, cs)?;
            if domains.entry(r).or_insert_with(|| dom.clone()) != &dom {
                return Ok(None);
            }
            match units.get(c).map(cell_value) {
                Some(Some(v)) if dom.contains(&v) => {
                    if value.insert(r, Some(v)).is_some_and(|w| w != Some(v)) {
                        return Ok(None);
                    }
                }
                Some(_) => return Ok(None),
                None => {
                    value.entry(r).or_insert(None);
                }
            }
        }
        let mut linked = vec![];
        for (k, c) in cs.cells.iter().enumerate() {
            if !constrained.contains(c) {
                continue;
            }
            let r = root(&mut class, k);
            st[k] = match value[&r] {
                Some(v) => v,
                None if domains[&r].len() == 1 => domains[&r][0],
                // a cell constrained but neither fixed nor equated: the solver decides
                None if !links.iter().any(|&(a, b)| a == k || b == k) => return Ok(None),
                None => {
                    if r == k {
                        linked.push((r, domains[&r].clone()));
                    }
                    OPEN + r as i64
                }
            };
        }
        Ok(Some((st, linked)))
    }

    /// One symbol per cell of the instance's state.
    fn cell_symbols(&self) -> CellSymbols {
        let isort = self.sys.index_sort();
        let procs: Vec<Term> = (0..self.procs).map(|p| Term::raw(Op::Int(p as i64), vec![], isort.clone())).collect();
        let mut cs = CellSymbols {
            procs,
            cells: vec![Term::ff(); self.width],
            data: HashSet::default(),
            scalars: HashSet::default(),
            map: HashMap::default(),
            named: HashMap::default(),
            fixed: HashMap::default(),
        };
        for (i, v) in self.sys.vars.iter().enumerate() {
            let (base, dims) = self.slots[i];
            let uninterpreted = matches!(v.value_sort(), Sort::Uninterpreted(_));
            if dims == 0 {
                let c = Term::var(&format!("{}!0", v.name()), cell_sort(&v.value_sort()));
                cs.scalars.insert(c.clone());
                if uninterpreted {
                    cs.data.insert(c.clone());
                }
                cs.map.insert(v.term.clone(), c.clone());
                cs.cells[base] = c;
                continue;
            }
            let dummy: Vec<Term> = (0..dims).map(|d| Term::var(&format!("d!{d}"), isort.clone())).collect();
            for m in all_maps(&dummy, &cs.procs) {
                let idx: Vec<Term> = dummy.iter().map(|d| m[d].clone()).collect();
                let ix: Vec<i64> = idx.iter().map(|t| t.as_int().unwrap()).collect();
                let name = format!("{}!{}", v.name(), ix.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("_"));
                let c = Term::var(&name, cell_sort(&v.value_sort()));
                if uninterpreted {
                    cs.data.insert(c.clone());
                }
                cs.map.insert(Term::select(&v.term, &idx), c.clone());
                cs.cells[self.cell(i, &ix)] = c;
            }
        }
        for (c, &slot) in &self.consts {
            let s = Term::var(&format!("{}!c", c.var_name().unwrap_or("c")), cell_sort(c.sort()));
            cs.scalars.insert(s.clone());
            if matches!(c.sort(), Sort::Uninterpreted(_)) {
                cs.data.insert(s.clone());
            }
            match self.process_constant(c) {
                // an index constant is a process: its reads are cells
                Some(k) => {
                    cs.named.insert(c.clone(), cs.procs[k as usize].clone());
                    cs.fixed.insert(s.clone(), k);
                }
                None => {
                    cs.map.insert(c.clone(), s.clone());
                }
            }
            cs.cells[slot] = s;
        }
        cs
    }

    /// The process an index constant (`#1`) stands for in the instance:
    /// the k-th declared index constant is process k (the instance needs as
    /// many processes); `None` for other constants.
    fn process_constant(&self, c: &Term) -> Option<i64> {
        if *c.sort() != Sort::Index {
            return None;
        }
        self.sys.consts.iter().filter(|d| *d.sort() == Sort::Index).position(|d| d == c).map(|k| k as i64)
    }

    /// The initial formula (with the axioms) over the cell symbols, the
    /// facts keeping each constrained cell in its domain, and the cells it
    /// does not mention with their domains: they take every value of it,
    /// enumerated here rather than by the solver (one model per combination
    /// would cost a solver call each).
    fn initial_formula(&self, cs: &CellSymbols) -> Result<(Term, Vec<Term>, Domains), Unsupported> {
        let isort = self.sys.index_sort();
        let mut parts = vec![];
        for q in self.sys.initial.iter().chain(&self.sys.axioms) {
            for m in all_maps(&q.vars, &cs.procs) {
                let f = crate::logic::substitute(&crate::logic::substitute(&q.body(), &m), &cs.named);
                parts.push(crate::logic::substitute(&f, &cs.map));
            }
        }
        let constrained = crate::logic::free_vars(&Term::and(parts.clone()));
        let mut ranges = vec![];
        let mut free: Vec<(usize, Vec<i64>)> = vec![];
        for (k, c) in cs.cells.iter().enumerate() {
            let dom = self.domain_of(c, cs)?;
            if !constrained.contains(c) {
                free.push((k, dom));
            } else if let (Some((lo, hi)), false) = (c.sort().finite_range(), matches!(c.sort(), Sort::Bool | Sort::Index)) {
                // explicit, so that every cell gets a value in its range
                ranges.push(Term::raw(Op::Le, vec![Term::int(lo), c.clone()], Sort::Bool));
                ranges.push(Term::raw(Op::Le, vec![c.clone(), Term::int(hi)], Sort::Bool));
            } else if *c.sort() != Sort::Bool {
                let n = |x: i64| if *c.sort() == Sort::Index { Term::raw(Op::Int(x), vec![], isort.clone()) } else { Term::int(x) };
                ranges.push(Term::or(dom.iter().map(|&x| Term::eq(c, &n(x)))));
            }
        }
        // integral real literals become integers, like the real cells
        let f = Term::and(parts);
        let reals = crate::logic::collect(&f, &|t: &Term| matches!(t.op(), Op::Real(_, 1)));
        let to_int: HashMap<Term, Term> =
            reals.into_iter().map(|t| if let Op::Real(n, _) = t.op() { (t.clone(), Term::int(*n)) } else { unreachable!() }).collect();
        let f = crate::logic::substitute(&f, &to_int);
        if !crate::logic::free_vars(&f).iter().all(|v| cs.cells.contains(v)) {
            return Err("initial formula mentions arrays at non-process indices".into());
        }
        Ok((f, ranges, free))
    }

    /// The values a cell may take in the instance.
    fn domain_of(&self, c: &Term, cs: &CellSymbols) -> Result<Vec<i64>, Unsupported> {
        Ok(if let Some(&k) = cs.fixed.get(c) {
            vec![k]
        } else if *c.sort() == Sort::Index {
            // a process-valued scalar may also name a process outside the
            // instance (Cubicle's `Home <> p` for every p)
            (0..self.procs as i64 + cs.scalars.contains(c) as i64).collect()
        } else if cs.data.contains(c) {
            domain(&Sort::Uninterpreted("data".into()), self.procs, &self.ints)?
        } else if *c.sort() == Sort::Int {
            self.ints.clone()
        } else if *c.sort() == Sort::Bool {
            vec![0, 1]
        } else if let Some((lo, hi)) = c.sort().finite_range() {
            (lo..=hi).collect()
        } else {
            return Err(format!("cell {c} of sort {} in an initial state", c.sort()));
        })
    }

    /// The representative of a state's class under the instance's
    /// symmetries, with the permutation of the processes it went through
    /// (0 for none; see [`super::symmetry`]). Data symmetry: data are only
    /// compared for equality and every data value ranges over both, open
    /// ones too, so a state and the state with the two data values swapped
    /// are reachable together, and a cube — which names no data value —
    /// holds on both or neither; of the two, the one whose first data cell
    /// holding a value holds 0 stands for both. With process symmetry, the
    /// least of those of the states with permuted processes. The exploration
    /// keeps only representatives (up to `2·n!` times fewer states).
    pub fn canonical<'s>(&self, st: &'s [i64]) -> (std::borrow::Cow<'s, [i64]>, usize) {
        if self.sym.is_none() && !self.swapped(st) {
            return (std::borrow::Cow::Borrowed(st), 0);
        }
        let mut best = vec![];
        let k = self.canonical_into(st, &mut vec![], &mut best);
        (std::borrow::Cow::Owned(best), k)
    }

    /// [`Instance::canonical`] into `best` (`buf` is scratch space), so
    /// that an exploration meeting states it has seen allocates nothing.
    fn canonical_into(&self, st: &[i64], buf: &mut Vec<i64>, best: &mut Vec<i64>) -> usize {
        best.clear();
        best.extend_from_slice(st);
        if self.swapped(best) {
            self.swap_data(best);
        }
        let Some(sym) = &self.sym else { return 0 };
        buf.resize(st.len(), 0);
        let mut at = 0;
        for k in 1..sym.count() {
            sym.apply(k, st, buf);
            if self.swapped(buf) {
                self.swap_data(buf);
            }
            if *buf < *best {
                std::mem::swap(buf, best);
                at = k;
            }
        }
        at
    }

    /// [`Instance::canonical`] of an owned state (swapped in place when
    /// only data symmetry applies).
    fn represent(&self, mut st: State) -> (State, usize) {
        if self.sym.is_none() {
            if self.swapped(&st) {
                self.swap_data(&mut st);
            }
            return (st, 0);
        }
        let mut best = vec![];
        let k = self.canonical_into(&st, &mut vec![], &mut best);
        (best.into_boxed_slice(), k)
    }

    /// Whether a state is not its own representative: its first data
    /// cell holding a value holds 1.
    fn swapped(&self, st: &[i64]) -> bool {
        self.data.iter().map(|&c| st[c]).find(|v| *v == 0 || *v == 1) == Some(1)
    }

    /// Swaps the two data values in a state's data cells (open ones stay).
    fn swap_data(&self, st: &mut [i64]) {
        for &c in &self.data {
            if st[c] == 0 || st[c] == 1 {
                st[c] = 1 - st[c];
            }
        }
    }

    /// The number of transitions the instance steps by.
    pub fn transitions(&self) -> usize {
        self.steps.len()
    }

    /// The successors of a state, each with the step taken to it: the
    /// transition and the processes of its parameters; stuck on an open
    /// value a guard or an update inspects. The axioms are not checked
    /// here (see [`Instance::reachable`]).
    pub fn successors(&self, st: &[i64]) -> Result<Vec<(Move, State)>, Stuck> {
        let mut out = Successors::default();
        self.successors_into(st, &mut out)?;
        Ok((0..out.len()).map(|i| (self.step_of(out.moves[i]), out.state(i).into())).collect())
    }

    /// The step `(transition, choice of its parameters)` as a [`Move`].
    fn step_of(&self, (ti, ci): (usize, usize)) -> Move {
        (ti, self.choices[ti][ci].clone().into_boxed_slice())
    }

    /// [`Instance::successors`] into reused buffers: no allocation per
    /// successor, so that the many a breadth-first exploration has seen
    /// already cost no more than their computation.
    pub fn successors_into(&self, st: &[i64], out: &mut Successors) -> Result<(), Stuck> {
        let Successors { moves, cells, regs, combo, width } = out;
        moves.clear();
        cells.clear();
        *width = st.len();
        for (ti, (step, choices)) in self.steps.iter().zip(&self.choices).enumerate() {
            let Ok(updates) = &step.updates else { continue };
            regs.clear();
            regs.resize(step.regs, 0);
            let np = choices.first().map_or(0, |c| c.len());
            for (ci, params) in choices.iter().enumerate() {
                regs[..np].copy_from_slice(params);
                // nondeterministic values
                combo.clear();
                combo.resize(step.doms.len(), 0);
                loop {
                    for (i, d) in step.doms.iter().enumerate() {
                        regs[np + i] = d[combo[i]];
                    }
                    // a step the instance cannot represent (an index outside it) is not taken
                    if self.enabled(step, np, st, regs)? {
                        let at = cells.len();
                        cells.extend_from_slice(st);
                        match self.apply(updates, np + step.doms.len(), st, regs, &mut cells[at..]) {
                            Ok(()) => moves.push((ti, ci)),
                            Err(Stuck::Open(k)) => return Err(Stuck::Open(k)),
                            Err(Stuck::Unsupported(_)) => cells.truncate(at),
                        }
                    }
                    if !next_combination(combo, |i| step.doms[i].len()) {
                        break;
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether a step's guards hold (not when the instance cannot evaluate them).
    fn enabled(&self, step: &Step, np: usize, st: &[i64], regs: &mut [i64]) -> Result<bool, Stuck> {
        let holds = self.val(&step.guard, st, regs).and_then(|g| if g == 0 { Ok(false) } else { self.uguard_holds(step, np, st, regs) });
        match holds {
            Err(Stuck::Unsupported(_)) => Ok(false),
            other => other,
        }
    }

    fn uguard_holds(&self, step: &Step, np: usize, st: &[i64], regs: &mut [i64]) -> Result<bool, Stuck> {
        let Some(body) = &step.uguard else { return Ok(true) };
        let j = np + step.doms.len();
        for p in 0..self.procs as i64 {
            regs[j] = p;
            if self.val(body, st, regs)? == 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Writes the state after the updates into `next` (a copy of `st`);
    /// `top` is the first register of λ variables.
    fn apply(&self, updates: &[(usize, usize, Code)], top: usize, st: &[i64], regs: &mut [i64], next: &mut [i64]) -> Result<(), Stuck> {
        for (base, dims, code) in updates {
            if *dims == 0 {
                next[*base] = self.run(code, st, regs)?;
                continue;
            }
            let cells = self.procs.pow(*dims as u32);
            for c in 0..cells {
                let mut r = c;
                for d in (0..*dims).rev() {
                    regs[top + d] = (r % self.procs) as i64;
                    r /= self.procs;
                }
                next[base + c] = self.run(code, st, regs)?;
            }
        }
        if let Some(((lo, hi), cells)) = &self.bounds {
            if next.iter().zip(cells).any(|(v, &b)| b && open(*v).is_none() && !(*lo..=*hi).contains(v)) {
                return Err("a number out of the instance's range".into());
            }
        }
        Ok(())
    }

    /// Every reachable state, breadth-first, up to `cap` states, with
    /// how each was first reached (see [`Exploration`]); with `stop`, the
    /// exploration ends at the first unsafe state found. States may hold
    /// open values; a state is split on one when a guard, an update, an
    /// axiom or an unsafe cube inspects it, so that exploring stays exact
    /// while values nothing reads stay unenumerated.
    pub fn reachable(&self, cap: usize, stop: bool) -> Result<Exploration, Unsupported> {
        // beyond the cap the initial states are a sample (fine for an oracle)
        let (init, all_init, open) = self.enumerate_initial(2048)?;
        let mut seen: HashSet<State> = HashSet::default();
        let mut ex = Exploration { states: vec![], complete: false, parents: vec![], unsafe_state: None, open };
        for s in init {
            // (an initial state's permuted states are initial states)
            let (s, _) = self.represent(s);
            if self.add(&mut ex, &mut seen, s, None)? && stop {
                return Ok(ex);
            }
        }
        let mut k = 0;
        let mut succ = Successors::default();
        let (mut scratch, mut next) = (vec![], vec![]);
        let mut progress = crate::engine::Progress::new("finite instance");
        while k < ex.states.len() {
            progress.tick(|| format!("{} processes: {} states, {} explored", self.procs, ex.states.len(), k));
            if ex.states.len() >= cap || crate::engine::interrupted() || self.deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                return Ok(ex);
            }
            loop {
                match self.successors_into(&ex.states[k], &mut succ) {
                    Ok(()) => break,
                    Err(Stuck::Unsupported(e)) => return Err(e),
                    // the state stands for several: it becomes the first,
                    // the others are explored later (same parent)
                    Err(Stuck::Open(c)) => {
                        let mut parts = split(&ex.states[k], c, &ex.open).into_iter();
                        ex.states[k] = parts.next().expect("an open value has values");
                        for p in parts {
                            let (p, perm) = self.represent(p);
                            if seen.insert(p.clone()) {
                                ex.states.push(p);
                                ex.parents.push(self.after(&ex.parents[k], perm));
                            }
                        }
                    }
                }
            }
            for i in 0..succ.len() {
                let perm = self.canonical_into(succ.state(i), &mut scratch, &mut next);
                // most successors were seen: they are not copied
                if seen.contains(next.as_slice()) {
                    continue;
                }
                if self.add(&mut ex, &mut seen, next.as_slice().into(), Some((k, self.step_of(succ.moves[i]), perm)))? && stop {
                    return Ok(ex);
                }
            }
            k += 1;
        }
        ex.complete = all_init;
        Ok(ex)
    }

    /// Adds a state found (reached from `parent`) unless seen: its
    /// completions as far as the axioms and the unsafe cubes read open
    /// values, those satisfying the axioms. Whether an unsafe state was
    /// added (then the first one is [`Exploration::unsafe_state`]).
    fn add(&self, ex: &mut Exploration, seen: &mut HashSet<State>, st: State, parent: Option<(usize, Move, usize)>) -> Result<bool, Unsupported> {
        if !seen.insert(st.clone()) {
            return Ok(false);
        }
        // per completion: none if it violates the axioms (or they cannot
        // be evaluated on it), else whether it is unsafe
        let judge = |s: &[i64]| match self.holds_axioms(s) {
            Ok(true) => Ok(Some(self.unsafe_at(s)?.is_some())),
            Err(Stuck::Open(k)) => Err(Stuck::Open(k)),
            _ => Ok(None),
        };
        let judged = match judge(&st) {
            // (most states read no open value: no completions to make)
            Ok(j) => vec![(st.clone(), j)],
            Err(Stuck::Open(_)) => completions(st.clone(), &ex.open, judge)?,
            Err(Stuck::Unsupported(e)) => return Err(e),
        };
        let mut bad = false;
        for (s, judgement) in judged {
            let Some(unsafe_) = judgement else { continue };
            let (s, perm) = self.represent(s);
            if s != st && !seen.insert(s.clone()) {
                continue;
            }
            if unsafe_ && ex.unsafe_state.is_none() {
                ex.unsafe_state = Some(ex.states.len());
                bad = true;
            }
            ex.states.push(s);
            ex.parents.push(self.after(&parent, perm));
        }
        Ok(bad)
    }

    /// How a state was reached when it is a state reached that way (`how`)
    /// with its processes permuted by `perm` afterwards.
    fn after(&self, how: &Option<(usize, Move, usize)>, perm: usize) -> Option<(usize, Move, usize)> {
        let (parent, mv, before) = how.as_ref()?;
        let perm = self.sym.as_ref().map_or(0, |s| s.then(perm, *before));
        Some((*parent, mv.clone(), perm))
    }

    /// The first state explored that satisfies an unsafe cube (one at the
    /// fewest steps from an initial state), as a candidate trace
    /// over the instance's processes: every cube names all of them (with no
    /// literals but the last, the unsafe cube on the processes found), each
    /// edge the transition taken and its parameters' processes. Nothing in
    /// it is trusted: the caller replays it on the system.
    pub fn unsafe_trace(&self, ex: &Exploration) -> Result<Option<crate::answer::AbstractTrace>, Unsupported> {
        if let Some(k) = ex.unsafe_state {
            let Some((cube, at)) = self.unsafe_at(&ex.states[k]).map_err(|e| format!("{e:?}"))? else { return Ok(None) };
            let mut steps = vec![];
            let mut cur = k;
            while let Some((parent, mv, perm)) = &ex.parents[cur] {
                steps.push((mv.clone(), *perm));
                cur = *parent;
            }
            steps.reverse();
            // the kept states went through permutations: the path as the
            // processes were (state k of the path is the kept one with the
            // inverses of the permutations so far applied)
            let (mut frame, mut moves) = (0, vec![]);
            for ((t, params), perm) in steps {
                let image = |p: i64| self.sym.as_ref().map_or(p, |s| s.image(frame, p));
                moves.push((t, params.iter().map(|&p| image(p)).collect::<Box<[i64]>>()));
                frame = self.sym.as_ref().map_or(0, |s| s.then(frame, s.inverse(perm)));
            }
            let at: Vec<i64> = at.iter().map(|&p| self.sym.as_ref().map_or(p, |s| s.image(frame, p))).collect();
            let isort = self.sys.index_sort();
            let vars: Vec<Term> = (0..self.procs).map(|i| crate::system::cube::zvar(i, &isort)).collect();
            let q = &self.sys.unsafe_[cube];
            let m: HashMap<Term, Term> = q.vars.iter().zip(&at).map(|(v, p)| (v.clone(), vars[*p as usize].clone())).collect();
            let last = crate::system::cube::Cube::plain(vars.clone(), q.lits.iter().map(|l| crate::logic::substitute(l, &m)).collect());
            let mut cubes = vec![crate::system::cube::Cube::plain(vars.clone(), vec![]); moves.len()];
            cubes.push(last);
            let edges = moves
                .into_iter()
                .map(|(t, params)| crate::answer::Edge {
                    transition: t,
                    params: params.iter().map(|p| vars[*p as usize].clone()).collect(),
                    succ_vars: vars.clone(),
                })
                .collect();
            return Ok(Some(crate::answer::AbstractTrace { cubes, edges }));
        }
        Ok(None)
    }
}

/// One symbol per cell of an instance's state, for enumerating initial
/// states with the solver.
struct CellSymbols {
    /// The instance's processes as index literals.
    procs: Vec<Term>,
    /// The symbol of each cell, by slot.
    cells: Vec<Term>,
    /// Cells of uninterpreted sorts (numbered values, see `cell_sort`).
    data: HashSet<Term>,
    /// Scalar cells.
    scalars: HashSet<Term>,
    /// State variables and array reads at processes → their cells.
    map: HashMap<Term, Term>,
    /// Index constants → the processes they stand for (substituted first).
    named: HashMap<Term, Term>,
    /// The cells of index constants → their one value.
    fixed: HashMap<Term, i64>,
}

/// A cell's value in a state: Booleans as 0/1, integers and enumeration
/// constants as themselves; `None` for other literals.
fn cell_value(v: &Term) -> Option<i64> {
    match v.op() {
        Op::Bool(b) => Some(*b as i64),
        Op::Int(n) | Op::EnumConst(n) => Some(*n),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn system(path: &str) -> System {
        let src = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
        crate::frontend::parse_str(&src, crate::frontend::Format::Cubicle).unwrap().system
    }

    /// Every state a state with open values stands for.
    fn concrete(st: &State, open: &OpenValues) -> Vec<State> {
        let first_open = |s: &[i64]| match s.iter().find_map(|&v| super::open(v)) {
            Some(k) => Err(Stuck::Open(k)),
            None => Ok(()),
        };
        completions(st.clone(), open, first_open).unwrap().into_iter().map(|(s, _)| s).collect()
    }

    /// Process symmetry: of the states that differ by a permutation of
    /// the processes, the exploration keeps one; what it keeps is closed
    /// under steps up to the symmetries, no smaller than an orbit each, and
    /// a path to an unsafe state, rebuilt through the permutations, is a
    /// path of the instance (each step enabled in the state the previous
    /// ones led to, the last one unsafe).
    #[test]
    fn process_symmetry_keeps_one_state_of_each_orbit_and_paths_stay_real() {
        let sys = system("models/mutex_buggy.cub");
        for procs in [2, 3] {
            let inst = Instance::new(&sys, procs).unwrap();
            assert!(inst.sym.as_ref().is_some_and(|s| s.count() == (1..=procs).product::<usize>()));
            let ex = inst.reachable(100_000, false).unwrap();
            assert!(ex.complete);
            let kept: HashSet<Vec<i64>> = ex.states.iter().map(|s| s.to_vec()).collect();
            assert!(ex.parents.iter().flatten().any(|(_, _, perm)| *perm != 0), "some state was permuted");
            for st in &ex.states {
                assert_eq!(&*inst.canonical(st).0, &**st, "a kept state is its own representative");
                for (_, next) in inst.successors(st).unwrap() {
                    assert!(kept.contains(&*inst.canonical(&next).0), "successor {next:?} of {st:?} unexplored");
                }
            }
            // the path to the first unsafe state, replayed on the instance
            let ex = inst.reachable(100_000, true).unwrap();
            let t = inst.unsafe_trace(&ex).unwrap().expect("the model is buggy");
            let init = inst.enumerate_initial(16).unwrap().0;
            let mut states: Vec<State> = init;
            for e in &t.edges {
                let params: Vec<i64> = e.params.iter().map(|p| t.cubes[0].vars.iter().position(|v| v == p).unwrap() as i64).collect();
                states = states
                    .iter()
                    .flat_map(|s| inst.successors(s).unwrap())
                    .filter(|((ti, ps), _)| *ti == e.transition && **ps == *params)
                    .map(|(_, s)| s)
                    .collect();
                assert!(!states.is_empty(), "step {} of {procs} processes not enabled", sys.transitions[e.transition].name);
            }
            assert!(states.iter().any(|s| inst.unsafe_at(s).unwrap().is_some()), "the path ends unsafe");
        }
    }

    /// The control part's instance (data left out) reaches exactly the
    /// projections of the whole instance's reachable states.
    #[test]
    fn the_control_part_reaches_the_projections_of_the_reachable_states() {
        let sys = system("models/abstract_data_directory.cub");
        let whole = Instance::new(&sys, 2).unwrap();
        let control = Instance::abstracting_data(&sys, 2).expect("the model has data").unwrap();
        assert!(control.abstracts_data() && !whole.abstracts_data());
        // the whole instance's cells of each control variable
        let cells: Vec<usize> = control
            .sys
            .vars
            .iter()
            .flat_map(|v| {
                let (base, dims) = whole.slots[whole.vars[&v.term]];
                base..base + whole.procs.pow(dims as u32)
            })
            .collect();
        assert_eq!(cells.len(), control.width);
        let explore = |inst: &Instance, project: &dyn Fn(&State) -> State| -> HashSet<State> {
            let ex = inst.reachable(1_000_000, false).unwrap();
            assert!(ex.complete);
            ex.states.iter().flat_map(|s| concrete(s, &ex.open)).map(|s| project(&s)).collect()
        };
        // (both up to process symmetry)
        let projected = explore(&whole, &|s| control.canonical(&cells.iter().map(|&c| s[c]).collect::<Vec<i64>>()).0.into_owned().into_boxed_slice());
        let own = explore(&control, &|s| control.canonical(s).0.into_owned().into_boxed_slice());
        assert!(own.len() > 5, "{}", own.len());
        assert_eq!(own, projected);
        // a literal over data is not the control instance's to evaluate
        let var = |n: &str| sys.vars[sys.var(n).unwrap()].term.clone();
        let data = Term::eq(&var("Curr"), &var("Mem"));
        assert!(!control.sees(&data) && whole.sees(&data) && control.sees(&var("Exclusive")));
    }

    /// Data symmetry: the exploration keeps one of each pair of states
    /// that differ by swapping the two data values, and what it keeps is
    /// closed under steps up to that swap (every successor's representative
    /// was explored), so no reachable state is lost to the reduction.
    #[test]
    fn data_symmetry_keeps_one_state_of_each_swapped_pair() {
        let sys = system("models/data_overwrite_buggy.cub");
        let inst = Instance::new(&sys, 2).unwrap();
        assert!(!inst.data.is_empty());
        let ex = inst.reachable(100_000, false).unwrap();
        assert!(ex.complete);
        let kept: HashSet<State> = ex.states.iter().cloned().collect();
        // the concrete states the kept ones stand for (see `concrete`)
        let stands_for: HashSet<State> = ex.states.iter().flat_map(|s| concrete(s, &ex.open)).collect();
        let mut swapped_away = 0;
        for st in &ex.states {
            let first = inst.data.iter().map(|&c| st[c]).find(|v| *v == 0 || *v == 1);
            assert_ne!(first, Some(1), "a representative's first data value is 0: {st:?}");
            let mut swap = st.clone();
            inst.swap_data(&mut swap);
            swapped_away += usize::from(swap != *st && !kept.contains(&swap));
            let succs = completions(st.clone(), &ex.open, |s| inst.successors(s)).unwrap();
            for (_, next) in succs {
                for (_, t) in next {
                    for c in concrete(&t, &ex.open) {
                        assert!(stands_for.contains(&*inst.canonical(&c).0), "successor {c:?} of {st:?} unexplored");
                    }
                }
            }
        }
        assert!(swapped_away > 0, "the swapped states are not kept");
    }

    /// Exploring with open values is exact: the states the explored ones
    /// stand for are exactly those a plain exploration of every initial
    /// state reaches (here 831), while fewer are explored (687), as the
    /// data fields left free initially are only fixed where read.
    #[test]
    fn open_values_stand_for_exactly_the_reachable_states() {
        let sys = system("models/directory_data.cub");
        let inst = Instance::new(&sys, 2).unwrap();
        let ex = inst.reachable(100_000, false).unwrap();
        assert!(ex.complete && ex.unsafe_state.is_none());
        assert!(ex.states.iter().any(|s| partial(s)), "some data stays open");
        let explored: HashSet<State> = ex.states.iter().flat_map(|s| concrete(s, &ex.open)).collect();
        // the plain exploration, from every initial state
        let mut todo: Vec<State> = ex.states.iter().zip(&ex.parents).filter(|(_, p)| p.is_none()).flat_map(|(s, _)| concrete(s, &ex.open)).collect();
        // the initial states: `Curr = Mem` links two cells, which share one
        // open value (3 values; 3^4 for the free data of two caches and
        // two channels), not the 3^2 pairs of independent values
        let init: Vec<&State> = ex.states.iter().zip(&ex.parents).filter(|(_, p)| p.is_none()).map(|(s, _)| s).collect();
        assert_eq!(init.len(), 1);
        let tokens: Vec<i64> = init[0].iter().copied().filter(|&v| open(v).is_some()).collect();
        assert_eq!(tokens.iter().collect::<HashSet<_>>().len() + 1, tokens.len(), "one open value in two cells: {tokens:?}");
        assert_eq!(todo.len(), 3 * 81);
        let mut plain: HashSet<State> = HashSet::default();
        while let Some(s) = todo.pop() {
            if !plain.insert(s.clone()) {
                continue;
            }
            for (_, next) in inst.successors(&s).unwrap() {
                if inst.holds_axioms(&next).unwrap() {
                    todo.push(next);
                }
            }
        }
        // the same states up to the symmetries (every one explored, or a
        // symmetric one)
        let up_to = |set: &HashSet<State>| -> HashSet<Vec<i64>> { set.iter().map(|s| inst.canonical(s).0.into_owned()).collect() };
        assert!(explored.is_subset(&plain));
        assert_eq!(up_to(&explored), up_to(&plain));
        assert!(ex.states.len() < plain.len(), "{} explored for {} states", ex.states.len(), plain.len());
    }

    /// A bug behind values read from free fields is found: the instance
    /// splits its states where the guards and the unsafe cube read them.
    #[test]
    fn a_bug_behind_open_values_is_found() {
        let sys = system("models/directory_data_buggy.cub");
        let inst = Instance::new(&sys, 2).unwrap();
        let ex = inst.reachable(100_000, true).unwrap();
        let trace = inst.unsafe_trace(&ex).unwrap().expect("an unsafe state");
        assert_eq!(trace.edges.len(), 4);
    }

    /// Integer literals that are enumeration constants (compared with or
    /// assigned to a cell of an enumeration) are no values of the
    /// instance's integer cells: a process pointer ranges over the
    /// processes, one identifier outside them and the numbers it is
    /// compared with, not over every constant of the system.
    #[test]
    fn enumeration_constants_are_not_numbers() {
        let src = "(system
          (index nat)
          (enum cmd (subrange 1 6))
          (global c cmd)
          (global h Int)
          (local s cmd)
          (initial (forall ((x Int)) (and (= c 1) (= s[x] 1) (not (= h x)))))
          (unsafe (exists ((z1 Int)) (= s[z1] 6)))
          (transition t
            (params (x Int))
            (guard (and (= s[x] 1) (= c 1) (not (= h 7))))
            (update s (lambda ((j Int)) (ite (= j x) (ite (= c 4) 5 3) s[j])))
            (update c 3)))";
        let sys = crate::frontend::parse_str(src, crate::frontend::Format::Canonical).unwrap().system;
        let inst = Instance::new(&sys, 2).unwrap();
        assert_eq!(inst.ints, vec![0, 1, 2, 7]);
    }
}
