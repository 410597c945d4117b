//! Checking answers before they are printed.
//!
//! SAFE: the invariant `⋀_i ∀z̄. distinct(z̄) ⇒ ¬φ_i(z̄)` is re-checked by
//! the *other* solver through obligations rebuilt from the system IR (not
//! from the search's pre-image code): initiation, consecution for every
//! transition (exact guards, universal guards, distinct parameters,
//! axioms) and exclusion of every unsafe cube. Universal quantifiers are
//! instantiated over ground index terms — first the instances the search
//! used (hints), then, if that does not suffice, every instance over the
//! obligation's index terms. An unsatisfiable instantiation proves an
//! obligation whatever instances were chosen; a satisfiable one refutes it
//! only when the instantiation is complete (order-only indices, no
//! index-valued arrays), otherwise the obligation stays unknown.
//!
//! UNSAFE (forward execution): the concrete execution is re-executed on the
//! system by [`execution`], a separate evaluator of the IR terms.
//!
//! UNSAFE (backward search): the trace is replayed on a concrete instance with every process
//! it names (plus a few spare ones), universal guards evaluated over all of
//! them; the solver proposes values, and the trace is accepted only when
//! evaluating every step on those values gives `true`. A step of an
//! accelerated loop must check only processes of the instance, and is
//! then replaced by its iterations, each guard evaluated.

pub mod execution;

use crate::system::cube::Cube;
use crate::engine::{AbstractTrace, Proof};
use crate::logic::instantiate::{all_maps, injective_maps};
use crate::logic::{substitute, Op, Sort, Term};
use crate::smt::{self, Backend, SatResult};
use crate::system::{IndexKind, Quantified, System, Transition};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

/// The status of one proof obligation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Shown unsatisfiable.
    Proved,
    /// A counter-model exists: the invariant is wrong.
    Failed,
    /// Neither (incomplete instantiation or solver gave up); why.
    Unknown(String),
}

/// One obligation and its status.
#[derive(Clone, Debug)]
pub struct Obligation {
    /// A name such as `consecution[3, t2]`.
    pub name: String,
    /// The checked formula (its unsatisfiability is the obligation).
    pub formula: Term,
    /// The outcome.
    pub status: Status,
}

/// The certification of a SAFE answer.
#[derive(Clone, Debug)]
pub struct SafeCertificate {
    /// The solver that checked the obligations.
    pub backend: Backend,
    /// Every obligation with its status.
    pub obligations: Vec<Obligation>,
}

impl SafeCertificate {
    /// Whether every obligation was proved.
    pub fn certified(&self) -> bool {
        self.obligations.iter().all(|o| o.status == Status::Proved)
    }
    /// The first obligation not proved, if any.
    pub fn first_gap(&self) -> Option<&Obligation> {
        self.obligations.iter().find(|o| o.status != Status::Proved)
    }
    /// Writes each obligation as an SMT-LIB script `NAME.smt2` into `dir`.
    pub fn write_smtlib(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        for (i, o) in self.obligations.iter().enumerate() {
            let file = dir.join(format!("{:04}-{}.smt2", i, sanitize(&o.name)));
            std::fs::write(file, smtlib_script(&o.name, &o.formula))?;
        }
        Ok(())
    }
}

fn sanitize(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect()
}

/// A self-contained SMT-LIB script asserting `f` (expected `unsat`).
pub fn smtlib_script(name: &str, f: &Term) -> String {
    let mut out = format!("; arrax proof obligation {name}: expected unsat\n(set-logic ALL)\n");
    let mut sorts = vec![];
    let mut decls = vec![];
    let mut ranges = vec![];
    for v in crate::logic::free_vars(f) {
        let s = v.sort().clone();
        collect_uninterpreted(&s, &mut sorts);
        decls.push(format!("(declare-const {} {})", v, smt_sort(&s)));
        if let Some((lo, hi)) = s.finite_range() {
            ranges.push(format!("(assert (and (<= {lo} {v}) (<= {v} {hi})))"));
        }
    }
    for s in sorts {
        let _ = writeln!(out, "(declare-sort {} 0)", crate::logic::print::symbol(&s));
    }
    for d in decls {
        let _ = writeln!(out, "{d}");
    }
    for r in ranges {
        let _ = writeln!(out, "{r}");
    }
    let body = f.to_string().replace("proc", "Int");
    let _ = writeln!(out, "(assert {body})\n(check-sat)");
    out
}

fn collect_uninterpreted(s: &Sort, out: &mut Vec<String>) {
    match s {
        Sort::Uninterpreted(n) if !out.contains(&n.to_string()) => out.push(n.to_string()),
        Sort::Array(a) => {
            for i in &a.index {
                collect_uninterpreted(i, out);
            }
            collect_uninterpreted(&a.elem, out);
        }
        _ => {}
    }
}

/// The SMT-LIB sort used in obligation files (Index and enumerations are Int).
fn smt_sort(s: &Sort) -> String {
    match s {
        Sort::Index | Sort::Enum(_) | Sort::Int => "Int".into(),
        Sort::Array(a) => {
            let mut t = smt_sort(&a.elem);
            for i in a.index.iter().rev() {
                t = format!("(Array {} {})", smt_sort(i), t);
            }
            t
        }
        other => other.to_string(),
    }
}

/// Whether instantiating over the ground index terms of an obligation is
/// complete (so that a satisfiable instantiation refutes it).
fn instantiation_complete(sys: &System) -> bool {
    let isort = sys.index_sort();
    sys.index_kind() == IndexKind::Order
        && !sys.vars.iter().any(|v| v.is_array && v.value_sort() == isort)
        && sys.transitions.iter().all(|t| t.values.is_empty())
}

/// An obligation before it is decided: its formula without the
/// invariant's instances, the instances the search's hints point to, and
/// the index terms to instantiate the whole invariant over if those do not
/// suffice (none: the hinted instances are already all of them).
struct Pending {
    name: String,
    base: Vec<Term>,
    hinted: Vec<Term>,
    terms: Option<Vec<Term>>,
    /// The obligation's universal facts `∀j. body` as `(j, body)`, to
    /// instantiate at the witnesses the invariant's instances introduce.
    at_witnesses: Vec<(Term, Term)>,
}

impl Pending {
    fn new(name: String, base: Vec<Term>, hinted: Vec<Term>, terms: Option<Vec<Term>>) -> Pending {
        Pending { name, base, hinted, terms, at_witnesses: vec![] }
    }
    /// The obligation with these instances of the invariant, and its
    /// universal facts at their witnesses.
    fn formula(&self, clauses: &[Term]) -> Term {
        let mut parts: Vec<Term> = self.base.iter().chain(clauses).cloned().collect();
        let mut witnesses: Vec<Term> = vec![];
        for c in clauses {
            for v in crate::logic::free_vars(c) {
                if v.var_name().is_some_and(|n| n.starts_with(WITNESS)) && !witnesses.contains(&v) {
                    witnesses.push(v);
                }
            }
        }
        for w in &witnesses {
            for (j, body) in &self.at_witnesses {
                parts.push(substitute(body, &[(j.clone(), w.clone())].into_iter().collect()));
            }
        }
        Term::and(parts)
    }
}

/// The prefix of the witnesses `∃o` of invariant clauses with conditions on
/// other processes (one Skolem constant per instance).
const WITNESS: &str = "w!o";

/// Checker of SAFE answers.
struct SafeChecker<'a> {
    sys: &'a System,
    solver: Box<dyn smt::Solver>,
    complete: bool,
    timeout_ms: u64,
    /// The Skolem witness of each instance (clause, images) of an invariant
    /// clause with conditions on other processes, numbered.
    witnesses: std::cell::RefCell<HashMap<(String, Vec<Term>), usize>>,
}

impl<'a> SafeChecker<'a> {
    /// The index terms that are state scalars or constants of index sort.
    fn index_scalars(&self) -> Vec<Term> {
        self.sys.index_scalars()
    }

    /// The instance `distinct(images) ⇒ ¬φ(images)` of an invariant
    /// clause; with conditions `ψ` on other processes, `… ⇒ ¬φ(images) ∨
    /// (w ∉ images ∧ ¬ψ(w))` with a Skolem constant `w` for the instance.
    fn clause(&self, cube: &Cube, images: &[Term]) -> Term {
        let m: HashMap<Term, Term> = cube.vars.iter().cloned().zip(images.iter().cloned()).collect();
        let mut no = substitute(&cube.body(), &m).not();
        if !cube.others.is_empty() {
            let mut ws = self.witnesses.borrow_mut();
            let n = ws.len();
            let k = *ws.entry((cube.key(), images.to_vec())).or_insert(n);
            let w = Term::var(&format!("{WITNESS}{k}"), self.sys.index_sort());
            let apart = Term::and(images.iter().map(|t| Term::eq(&w, t).not()));
            let psi = Term::and(cube.others_at(&w).iter().map(|p| substitute(p, &m)));
            no = Term::or([no, Term::and([apart, psi.not()])]);
        }
        Term::implies(&Term::distinct(images), &no)
    }

    /// Every instance of every invariant clause over `terms`.
    fn all_clauses(&self, inv: &[Cube], terms: &[Term]) -> Vec<Term> {
        let mut out = vec![];
        for c in inv {
            for m in injective_maps(&c.vars, terms) {
                let images: Vec<Term> = c.vars.iter().map(|v| m[v].clone()).collect();
                out.push(self.clause(c, &images));
            }
        }
        out
    }

    fn forall_instances(&self, qs: &[Quantified], terms: &[Term], state: &HashMap<Term, Term>) -> Vec<Term> {
        let mut out = vec![];
        for q in qs {
            for m in all_maps(&q.vars, terms) {
                out.push(substitute(&substitute(&q.body(), &m), state));
            }
        }
        out
    }

    fn bounds(&self, terms: &[Term]) -> Vec<Term> {
        crate::reach::safety::index_bounds(self.sys, terms)
    }

    /// Decides an obligation: first with the hinted instances, then with
    /// every instance over its index terms.
    fn decide(&mut self, p: Pending, inv: &[Cube]) -> Obligation {
        let f = p.formula(&p.hinted);
        let r = self.check(&f);
        match (r, p.terms.clone()) {
            (SatResult::Unsat, _) => Obligation { name: p.name, formula: f, status: Status::Proved },
            (r, None) => self.conclude(p.name, f, r),
            (_, Some(terms)) => {
                if std::env::var_os("ARRAX_DEBUG").is_some() {
                    eprintln!("certify: {} needs every instance ({} terms)", p.name, terms.len());
                }
                let f = p.formula(&self.all_clauses(inv, &terms));
                let r = self.check(&f);
                self.conclude(p.name, f, r)
            }
        }
    }

    /// The status of an obligation from the last check of its formula.
    fn conclude(&self, name: String, f: Term, r: SatResult) -> Obligation {
        let status = match r {
            SatResult::Unsat => Status::Proved,
            SatResult::Sat if self.complete => Status::Failed,
            SatResult::Sat => Status::Unknown("satisfiable instantiation (instantiation incomplete here)".into()),
            SatResult::Unknown(why) => Status::Unknown(why),
        };
        Obligation { name, formula: f, status }
    }

    fn check(&mut self, f: &Term) -> SatResult {
        self.solver.push();
        self.solver.assert(f);
        let r = self.solver.check();
        self.solver.pop();
        r
    }

    fn initiation(&self, i: usize, cube: &Cube) -> Pending {
        let mut terms = cube.vars.clone();
        terms.extend(self.index_scalars());
        if terms.is_empty() {
            terms.push(Term::var("w!0", self.sys.index_sort()));
        }
        let id = HashMap::new();
        let mut base = vec![cube.body(), Term::distinct(&cube.vars)];
        base.extend(self.forall_instances(&self.sys.initial, &terms, &id));
        base.extend(self.forall_instances(&self.sys.axioms, &terms, &id));
        base.extend(self.bounds(&terms));
        base.extend(crate::reach::safety::others_on_scalars(self.sys, cube));
        Pending::new(format!("initiation[{i}]"), base, vec![], None)
    }

    fn exclusion(&self, k: usize, u: &Quantified, inv: &[Cube]) -> Pending {
        let mut terms = u.vars.clone();
        terms.extend(self.index_scalars());
        let id = HashMap::new();
        let mut base = vec![u.body(), Term::distinct(&u.vars)];
        base.extend(self.forall_instances(&self.sys.axioms, &terms, &id));
        base.extend(self.bounds(&terms));
        let clauses = self.all_clauses(inv, &terms);
        Pending::new(format!("exclusion[{k}]"), base, clauses, None)
    }

    fn consecution(&self, i: usize, ti: usize, inv: &[Cube], hints: &[crate::engine::Hint]) -> Pending {
        let sys = self.sys;
        let t: &Transition = &sys.transitions[ti];
        let cube = &inv[i];
        // Skolem constants: the cube's variables and the parameters.
        let xs: Vec<Term> = t.params.iter().enumerate().map(|(p, v)| Term::var(&format!("x!{}", p + 1), v.sort().clone())).collect();
        let pmap: HashMap<Term, Term> = t.params.iter().cloned().zip(xs.iter().cloned()).collect();
        let next: HashMap<Term, Term> =
            (0..sys.vars.len()).map(|v| (sys.vars[v].term.clone(), substitute(&sys.next_value(t, v), &pmap))).collect();
        let mut terms: Vec<Term> = cube.vars.iter().chain(&xs).cloned().collect();
        for s in self.index_scalars() {
            terms.push(s.clone());
            let n = substitute(&s, &next);
            if !terms.contains(&n) {
                terms.push(n);
            }
        }
        let id = HashMap::new();
        let mut base = vec![
            Term::distinct(&cube.vars),
            Term::distinct(&xs),
            substitute(&t.guard, &pmap),
            substitute(&cube.body(), &next),
        ];
        // integer indices: the index terms read in the obligation too (the
        // instantiation set of the array property fragment)
        if sys.index_kind() != crate::system::IndexKind::Order {
            for x in crate::reach::path::index_terms(sys, &Term::and(base.iter().cloned())) {
                if !terms.contains(&x) {
                    terms.push(x);
                }
            }
        }
        // universal facts: the universal guard, and the cube's conditions
        // on the processes it does not name (after the step)
        let mut universal: Vec<(Term, Term)> = vec![];
        if let Some((j, body)) = &t.uguard {
            universal.push((j.clone(), substitute(body, &pmap)));
        }
        if let Some((o, body)) = cube.outside_condition() {
            universal.push((o, substitute(&body, &next)));
        }
        for (j, body) in &universal {
            for v in &terms {
                base.push(substitute(body, &[(j.clone(), v.clone())].into_iter().collect()));
            }
        }
        base.extend(self.forall_instances(&sys.axioms, &terms, &id));
        base.extend(self.forall_instances(&sys.axioms, &terms, &next));
        base.extend(self.bounds(&terms));
        // hinted instances, translated from the pre-image's variables
        let mut hinted = vec![];
        for h in hints.iter().filter(|h| h.edge.transition == ti) {
            let mut tr: HashMap<Term, Term> = HashMap::new();
            for (q, v) in h.edge.succ_vars.iter().enumerate() {
                tr.insert(v.clone(), cube.vars[q].clone());
            }
            for (p, v) in h.edge.params.iter().enumerate() {
                tr.entry(v.clone()).or_insert_with(|| xs[p].clone());
            }
            for (k, images) in &h.instances {
                if let Some(imgs) = images.iter().map(|v| tr.get(v).cloned()).collect::<Option<Vec<Term>>>() {
                    hinted.push(self.clause(&inv[k.to_owned()], &imgs));
                }
            }
        }
        Pending { name: format!("consecution[{i}, {}]", t.name), base, hinted, terms: Some(terms), at_witnesses: universal }
    }
}

/// Re-checks a SAFE answer with the given backend (normally the one the
/// search did not use); `timeout_ms` bounds each solver call.
pub fn certify_safe(sys: &System, proof: &Proof, backend: Backend, timeout_ms: u64) -> SafeCertificate {
    let mut solver = smt::checker(backend);
    solver.set_timeout_ms(timeout_ms);
    let complete = instantiation_complete(sys) && proof.invariant.iter().all(|c| c.others.is_empty());
    let mut ck = SafeChecker { sys, solver, complete, timeout_ms, witnesses: Default::default() };
    let _ = ck.timeout_ms;
    let inv = &proof.invariant;
    let mut obligations = vec![];
    for (k, u) in sys.unsafe_.iter().enumerate() {
        let p = ck.exclusion(k, u, inv);
        obligations.push(ck.decide(p, inv));
    }
    for (i, c) in inv.iter().enumerate() {
        let p = ck.initiation(i, c);
        obligations.push(ck.decide(p, inv));
    }
    for i in 0..inv.len() {
        for ti in 0..sys.transitions.len() {
            let p = ck.consecution(i, ti, inv, &proof.hints[i]);
            obligations.push(ck.decide(p, inv));
        }
    }
    SafeCertificate { backend, obligations }
}

/// A concrete counterexample: process count, the states and the steps.
#[derive(Clone, Debug)]
pub struct ConcreteTrace {
    /// The number of processes of the instance (named 0..n-1 ... printed as #1..#n).
    pub procs: usize,
    /// The states, from an initial one to an unsafe one: for each state
    /// variable, its value (arrays: one value per process or tuple).
    pub states: Vec<Vec<Value>>,
    /// The steps: transition index and its parameters' processes.
    pub steps: Vec<(usize, Vec<usize>)>,
}

/// The value of a state variable in a concrete state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A scalar's value.
    Scalar(Term),
    /// An array's values, per index tuple (in lexicographic order of processes).
    Array(Vec<(Vec<usize>, Term)>),
}

fn proc_lit(p: usize, isort: &Sort) -> Term {
    Term::raw(Op::Int(p as i64), vec![], isort.clone())
}

/// A literal as a term of the given sort (model values come back as Int for
/// Int-encoded sorts).
fn as_sort(v: &Term, s: &Sort) -> Term {
    match (v.op(), s) {
        (Op::Int(n), Sort::Index) => proc_lit(*n as usize, s),
        _ => v.clone(),
    }
}

/// The finite-instance encoding of a trace: states as copies of the state
/// variables, one constraint list per part.
struct Unrolling {
    /// The state variables' copies at each state.
    states: Vec<HashMap<Term, Term>>,
    /// The symbols of the processes the trace names.
    named: Vec<Term>,
    /// Every constraint.
    constraints: Vec<Term>,
}

/// The symbol standing for the `i`-th process named by the trace (its
/// number among `0..procs` is chosen by the solver, so that order
/// constraints between the trace's processes can be met).
fn named_proc(i: usize, isort: &Sort) -> Term {
    Term::var(&format!("p!{}", i + 1), isort.clone())
}

fn unroll(sys: &System, trace: &AbstractTrace, procs: usize) -> Option<(Unrolling, Vec<(usize, Vec<usize>)>)> {
    let isort = sys.index_sort();
    let ps: Vec<Term> = (0..procs).map(|p| proc_lit(p, &isort)).collect();
    let n0 = trace.cubes[0].arity();
    let named: Vec<Term> = (0..n0).map(|i| named_proc(i, &isort)).collect();
    let k = trace.edges.len();
    let states: Vec<HashMap<Term, Term>> = (0..=k)
        .map(|s| sys.vars.iter().map(|v| (v.term.clone(), Term::var(&format!("{}@{}", v.name(), s), v.term.sort().clone()))).collect())
        .collect();
    let mut cs = vec![Term::distinct(&named)];
    for p in &named {
        cs.push(Term::le(&ps[0], p));
        cs.push(Term::lt(p, &proc_lit(procs, &isort)));
    }
    // which named process each variable of the current cube is
    let mut assign: Vec<usize> = (0..n0).collect();
    let mut steps = vec![];
    for s in 0..=k {
        let st = &states[s];
        for q in &sys.axioms {
            for m in all_maps(&q.vars, &ps) {
                cs.push(substitute(&substitute(&q.body(), &m), st));
            }
        }
        // index-valued state must name an existing process
        for v in &sys.vars {
            if v.value_sort() == isort {
                for cell in cells(sys, v.is_array, &v.term, &ps) {
                    let c = substitute(&cell, st);
                    cs.push(Term::le(&ps[0], &c));
                    cs.push(Term::lt(&c, &proc_lit(procs, &isort)));
                }
            }
        }
        if s == 0 {
            for q in &sys.initial {
                for m in all_maps(&q.vars, &ps) {
                    cs.push(substitute(&substitute(&q.body(), &m), st));
                }
            }
        }
        let cube = &trace.cubes[s];
        if s == k {
            let m: HashMap<Term, Term> = cube.vars.iter().zip(&assign).map(|(v, p)| (v.clone(), named[*p].clone())).collect();
            cs.push(substitute(&substitute(&cube.body(), &m), st));
            break;
        }
        let e = &trace.edges[s];
        let pos = |v: &Term| cube.vars.iter().position(|w| w == v);
        let params: Vec<usize> = e.params.iter().map(|v| pos(v).map(|i| assign[i])).collect::<Option<_>>()?;
        let t: &Transition = &sys.transitions[e.transition];
        let mut pm: HashMap<Term, Term> = t.params.iter().cloned().zip(params.iter().map(|p| named[*p].clone())).collect();
        for (vi, v) in t.values.iter().enumerate() {
            pm.insert(v.clone(), Term::var(&format!("{}@{}!{}", v.var_name().unwrap_or("v"), s, vi), v.sort().clone()));
        }
        cs.push(substitute(&substitute(&t.guard, &pm), st));
        // a step standing for loop iterations: every process it checks exists
        if let Some((lo, hi)) = &t.checks {
            cs.push(Term::le(&ps[0], &substitute(&substitute(lo, &pm), st)));
            cs.push(Term::le(&substitute(&substitute(hi, &pm), st), &proc_lit(procs, &isort)));
        }
        if let Some((j, body)) = &t.uguard {
            for p in &ps {
                let mut m = pm.clone();
                m.insert(j.clone(), p.clone());
                cs.push(substitute(&substitute(body, &m), st));
            }
        }
        let nx = &states[s + 1];
        for (vi, v) in sys.vars.iter().enumerate() {
            let val = substitute(&substitute(&sys.next_value(t, vi), &pm), st);
            if v.is_array {
                for cell in cells(sys, true, &v.term, &ps) {
                    let idx = &cell.args()[1..];
                    cs.push(Term::eq(&substitute(&cell, nx), &Term::select(&val, idx)));
                }
            } else {
                cs.push(Term::eq(&nx[&v.term], &val));
            }
        }
        steps.push((e.transition, params.clone()));
        assign = e.succ_vars.iter().map(|v| pos(v).map(|i| assign[i])).collect::<Option<_>>()?;
    }
    Some((Unrolling { states, named, constraints: cs }, steps))
}

/// The cells of a state variable over the processes: the variable itself
/// for a scalar, its reads at every index tuple for an array.
fn cells(sys: &System, is_array: bool, v: &Term, ps: &[Term]) -> Vec<Term> {
    if !is_array {
        return vec![v.clone()];
    }
    let dims = v.sort().as_array().map(|a| a.index.len()).unwrap_or(1);
    let isort = sys.index_sort();
    let dummy: Vec<Term> = (0..dims).map(|d| Term::var(&format!("d!{d}"), isort.clone())).collect();
    all_maps(&dummy, ps)
        .into_iter()
        .map(|m| Term::select(v, &dummy.iter().map(|d| m[d].clone()).collect::<Vec<_>>()))
        .collect()
}

/// Replays a candidate trace on concrete instances with as many processes
/// as it names, then one and two more; the concrete trace if one checks out.
pub fn replay(sys: &System, trace: &AbstractTrace, backend: Backend, timeout_ms: u64) -> Result<Option<ConcreteTrace>, String> {
    let n0 = trace.cubes[0].arity().max(1);
    for procs in n0..=n0 + 2 {
        let Some((u, steps)) = unroll(sys, trace, procs) else {
            return Err("trace does not name its processes consistently".into());
        };
        let mut solver = smt::solver(backend);
        solver.set_timeout_ms(timeout_ms);
        solver.assert(&Term::and(u.constraints.iter().cloned()));
        match solver.check() {
            SatResult::Unsat => {
                if std::env::var_os("ARRAX_DEBUG").is_some() {
                    // the shortest infeasible prefix, for diagnosis
                    for k in 0..=trace.edges.len() {
                        let prefix = AbstractTrace { cubes: trace.cubes[..=k].to_vec(), edges: trace.edges[..k].to_vec() };
                        if let Some((u, _)) = unroll(sys, &prefix, procs) {
                            let mut s2 = smt::solver(backend);
                            s2.assert(&Term::and(u.constraints.iter().cloned()));
                            if s2.check() == SatResult::Unsat {
                                eprintln!("replay with {procs} processes: infeasible after {k} of {} steps", trace.edges.len());
                                break;
                            }
                        }
                    }
                }
                continue;
            }
            SatResult::Unknown(why) => return Err(format!("replay undecided: {why}")),
            SatResult::Sat => {}
        }
        let isort = sys.index_sort();
        let ps: Vec<Term> = (0..procs).map(|p| proc_lit(p, &isort)).collect();
        // read the concrete states off the model
        let mut vals: HashMap<Term, Term> = HashMap::new();
        let mut numbers = vec![];
        for p in &u.named {
            let v = solver.value(p).ok_or("no model value for a process")?;
            numbers.push(v.as_int().ok_or("a process is not a number")? as usize);
            vals.insert(p.clone(), as_sort(&v, &isort));
        }
        let steps: Vec<(usize, Vec<usize>)> =
            steps.into_iter().map(|(t, ps)| (t, ps.into_iter().map(|i| numbers[i]).collect())).collect();
        let mut states = vec![];
        for st in &u.states {
            let mut row = vec![];
            for v in &sys.vars {
                let copy = &st[&v.term];
                if v.is_array {
                    let mut cellsv = vec![];
                    for cell in cells(sys, true, copy, &ps) {
                        let val = solver.value(&cell).ok_or("no model value")?;
                        let val = as_sort(&val, cell.sort());
                        vals.insert(cell.clone(), val.clone());
                        let idx: Vec<usize> = cell.args()[1..].iter().map(|a| a.as_int().unwrap_or_else(|| match a.op() { Op::Int(n) => *n, _ => 0 }) as usize).collect();
                        cellsv.push((idx, val));
                    }
                    row.push(Value::Array(cellsv));
                } else {
                    let val = solver.value(copy).ok_or("no model value")?;
                    let val = as_sort(&val, copy.sort());
                    vals.insert(copy.clone(), val.clone());
                    row.push(Value::Scalar(val));
                }
            }
            states.push(row);
        }
        // existential values of transitions
        for c in &u.constraints {
            for v in crate::logic::free_vars(c) {
                if !vals.contains_key(&v) && v.sort().as_array().is_none() {
                    if let Some(val) = solver.value(&v) {
                        vals.insert(v.clone(), as_sort(&val, v.sort()));
                    }
                }
            }
        }
        // evaluate every constraint on the concrete values
        for c in &u.constraints {
            let e = evaluate(c, &vals);
            if e != Term::tt() {
                return Err(format!("replay: the solver's values do not satisfy {c} (evaluates to {e})"));
            }
        }
        let trace = ConcreteTrace { procs, states, steps };
        return expand_loops(sys, trace).map(Some);
    }
    Ok(None)
}

/// The concrete trace with each step of an accelerated loop (a transition
/// with [`Transition::checks`], named `t1|t2*` after the iterations it
/// stands for) replaced by those iterations, one per checked process, each
/// iteration's guard evaluated on its state: a trace of the transitions as
/// written. An error if no iteration fits or the iterations do not reach
/// the step's successor.
fn expand_loops(sys: &System, t: ConcreteTrace) -> Result<ConcreteTrace, String> {
    if t.steps.iter().all(|(ti, _)| sys.transitions[*ti].checks.is_none()) {
        return Ok(t);
    }
    let mut states = vec![t.states[0].clone()];
    let mut steps = vec![];
    for (k, (ti, params)) in t.steps.iter().enumerate() {
        let tr = &sys.transitions[*ti];
        if tr.checks.is_none() {
            steps.push((*ti, params.clone()));
            states.push(t.states[k + 1].clone());
            continue;
        }
        let names: Vec<&str> = tr.name.trim_end_matches('*').split('|').collect();
        let loops: Vec<usize> = (0..sys.transitions.len()).filter(|&i| names.contains(&sys.transitions[i].name.as_str()) && sys.transitions[i].checks.is_none()).collect();
        let counter = tr.updates[0].var;
        let x = params[0];
        let cell = |st: &[Value]| -> Option<i64> {
            match &st[counter] {
                Value::Array(cells) => cells.iter().find(|(idx, _)| idx == &[x]).and_then(|(_, v)| v.as_int()),
                Value::Scalar(_) => None,
            }
        };
        let (from, to) = (cell(&t.states[k]).ok_or("accelerated loop: no counter")?, cell(&t.states[k + 1]).ok_or("accelerated loop: no counter")?);
        let mut cur = t.states[k].clone();
        for y in from..to {
            let y = usize::try_from(y).map_err(|_| "accelerated loop: a negative process")?;
            let it = loops
                .iter()
                .copied()
                .find(|&i| holds(sys, &sys.transitions[i].guard, &sys.transitions[i].params, &[x, y], &cur))
                .ok_or_else(|| format!("accelerated loop {}: no iteration at process #{}", tr.name, y + 1))?;
            if let Value::Array(cells) = &mut cur[counter] {
                for (idx, v) in cells.iter_mut() {
                    if idx == &[x] {
                        *v = Term::raw(Op::Int(y as i64 + 1), vec![], v.sort().clone());
                    }
                }
            }
            steps.push((it, vec![x, y]));
            // the state between iterations satisfies the system's axioms
            let ps: Vec<usize> = (0..t.procs).collect();
            for q in &sys.axioms {
                for m in all_maps(&q.vars, &ps.iter().map(|p| proc_lit(*p, &sys.index_sort())).collect::<Vec<_>>()) {
                    let at: Vec<usize> = q.vars.iter().map(|v| m[v].as_int().unwrap_or(0) as usize).collect();
                    if !holds(sys, &q.body(), &q.vars, &at, &cur) {
                        return Err(format!("accelerated loop {}: an axiom fails between iterations", tr.name));
                    }
                }
            }
            states.push(cur.clone());
        }
        if cur != t.states[k + 1] {
            return Err(format!("accelerated loop {}: its iterations do not reach the step's successor", tr.name));
        }
    }
    Ok(ConcreteTrace { procs: t.procs, states, steps })
}

/// Whether a transition's guard holds with these parameters in a concrete state.
fn holds(sys: &System, guard: &Term, params: &[Term], procs: &[usize], st: &[Value]) -> bool {
    let isort = sys.index_sort();
    let mut m: HashMap<Term, Term> = params.iter().cloned().zip(procs.iter().map(|p| proc_lit(*p, &isort))).collect();
    for (v, val) in sys.vars.iter().zip(st) {
        match val {
            Value::Scalar(c) => {
                m.insert(v.term.clone(), c.clone());
            }
            Value::Array(cells) => {
                for (idx, c) in cells {
                    let at: Vec<Term> = idx.iter().map(|p| proc_lit(*p, &isort)).collect();
                    m.insert(Term::select(&v.term, &at), c.clone());
                }
            }
        }
    }
    evaluate(guard, &m) == Term::tt()
}

/// A formula evaluated on concrete values (symbols and cells to values),
/// substituting until nothing changes.
fn evaluate(f: &Term, values: &HashMap<Term, Term>) -> Term {
    let mut e = f.clone();
    for _ in 0..8 {
        let e2 = substitute(&e, values);
        if e2 == e {
            break;
        }
        e = e2;
    }
    e
}
