//! Certification of SAFE answers: the invariant `⋀_i ∀z̄. distinct(z̄) ⇒
//! ¬φ_i(z̄)` re-checked by the other solver through obligations rebuilt
//! from the system IR (initiation, consecution for every transition,
//! exclusion of every unsafe cube), universal quantifiers instantiated
//! over ground index terms (see the folder's documentation).

use crate::answer::Proof;
use crate::logic::instantiate::{all_maps, injective_maps};
use crate::logic::{substitute, Term};
use crate::smt::{self, Backend, SatResult};
use crate::system::cube::Cube;
use crate::system::{IndexKind, Quantified, System, Transition};
use crate::HashMap;
use std::fmt::Write as _;
use std::path::Path;

/// The status of one proof obligation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Shown unsatisfiable.
    Proved,
    /// Unsatisfiable by the frame rule: the step writes no state variable
    /// the clause reads, so the clause after it is the clause before it,
    /// which the invariant excludes (no solver call; the formula, with
    /// that one instance, is recorded for any solver to check).
    Frame,
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
        self.first_gap().is_none()
    }
    /// The first obligation not proved, if any.
    pub fn first_gap(&self) -> Option<&Obligation> {
        self.obligations.iter().find(|o| !matches!(o.status, Status::Proved | Status::Frame))
    }
    /// The number of obligations proved by the frame rule.
    pub fn framed(&self) -> usize {
        self.obligations.iter().filter(|o| o.status == Status::Frame).count()
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
    crate::smt::smtlib::check_script(&format!("arrax proof obligation {name}: expected unsat"), f)
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
    /// The Skolem witness of each instance (clause, images) of an invariant
    /// clause with conditions on other processes, numbered.
    witnesses: std::cell::RefCell<HashMap<(String, Vec<Term>), usize>>,
    /// Whether obligations are still checked in batches: only with
    /// order-only indices (protocols), whose obligations are small
    /// propositional-like formulas; with integer indices (programs) the
    /// disjunction makes the solver's arithmetic reason across all of them
    /// and costs more than the calls it saves (measured on SV-COMP array
    /// tasks: 1.5–3 times the certification time, with either solver).
    batching: bool,
}

impl<'a> SafeChecker<'a> {
    /// The index scalars that are processes, at which quantifiers are
    /// instantiated ([`System::process_scalars`]).
    fn index_scalars(&self) -> Vec<Term> {
        self.sys.process_scalars()
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

    /// Decides an obligation whose formula with the hinted instances is
    /// `f` and checked `r`: if that is not unsatisfiable, again with every
    /// instance over its index terms.
    fn decide(&mut self, p: Pending, f: Term, r: SatResult, inv: &[Cube]) -> Obligation {
        match (r, p.terms.clone()) {
            (SatResult::Unsat, _) => Obligation { name: p.name, formula: f, status: Status::Proved },
            (r, None) => self.conclude(p.name, f, r),
            (_, Some(terms)) => {
                tracing::debug!("certify: {} needs every instance ({} terms)", p.name, terms.len());
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

    /// The result of checking each of `fs`, found by checking their
    /// disjunction first: it is unsatisfiable exactly when each of them
    /// is (their free symbols are existential), and one call spares the
    /// solver's set-up of many (most obligations of a right invariant are
    /// small and unsatisfiable). A satisfiable disjunction is split in
    /// halves, down to single formulas, whose own result is returned; after
    /// a disjunction the solver gave up on, or one that took longer than
    /// [`BATCH_SLOW`], each formula is checked alone (then batching saves
    /// little and could waste a whole time limit).
    fn check_each(&mut self, fs: &[Term]) -> Vec<SatResult> {
        if fs.len() == 1 || !self.batching {
            return fs.iter().map(|f| self.check(f)).collect();
        }
        let t0 = std::time::Instant::now();
        let r = self.check(&Term::or(fs.iter().cloned()));
        if t0.elapsed() > BATCH_SLOW {
            self.batching = false;
        }
        match r {
            SatResult::Unsat => vec![SatResult::Unsat; fs.len()],
            SatResult::Sat => {
                let (a, b) = fs.split_at(fs.len() / 2);
                let mut r = self.check_each(a);
                r.extend(self.check_each(b));
                r
            }
            SatResult::Unknown(_) => {
                self.batching = false;
                self.check_each(fs)
            }
        }
    }

    fn initiation(&self, i: usize, cube: &Cube) -> Pending {
        let mut terms = cube.vars.clone();
        terms.extend(self.index_scalars());
        if terms.is_empty() {
            terms.push(Term::var("w!0", self.sys.index_sort()));
        }
        let id = HashMap::default();
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
        let id = HashMap::default();
        let mut base = vec![u.body(), Term::distinct(&u.vars)];
        base.extend(self.forall_instances(&self.sys.axioms, &terms, &id));
        base.extend(self.bounds(&terms));
        let clauses = self.all_clauses(inv, &terms);
        Pending::new(format!("exclusion[{k}]"), base, clauses, None)
    }

    fn consecution(&self, i: usize, ti: usize, inv: &[Cube], hints: &[crate::answer::Hint]) -> Pending {
        let sys = self.sys;
        let t: &Transition = &sys.transitions[ti];
        let cube = &inv[i];
        // Skolem constants: the cube's variables and the parameters.
        let xs: Vec<Term> = t.params.iter().enumerate().map(|(p, v)| Term::var(&format!("x!{}", p + 1), v.sort().clone())).collect();
        let pmap: HashMap<Term, Term> = t.params.iter().cloned().zip(xs.iter().cloned()).collect();
        let next: HashMap<Term, Term> = (0..sys.vars.len()).map(|v| (sys.vars[v].term.clone(), substitute(&sys.next_value(t, v), &pmap))).collect();
        let mut terms: Vec<Term> = cube.vars.iter().chain(&xs).cloned().collect();
        for s in self.index_scalars() {
            terms.push(s.clone());
            let n = substitute(&s, &next);
            if !terms.contains(&n) {
                terms.push(n);
            }
        }
        let id = HashMap::default();
        let mut base = vec![Term::distinct(&cube.vars), Term::distinct(&xs), substitute(&t.guard, &pmap), substitute(&cube.body(), &next)];
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
            let mut tr: HashMap<Term, Term> = HashMap::default();
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

/// How many obligations one solver call checks at most (see
/// [`SafeChecker::check_each`]).
const BATCH: usize = 128;

/// A batch of obligations whose check takes longer than this ends
/// batching (see [`SafeChecker::check_each`]).
const BATCH_SLOW: std::time::Duration = std::time::Duration::from_millis(500);

/// Re-checks a SAFE answer with the given backend (normally the one the
/// search did not use); `timeout_ms` bounds each solver call.
pub fn certify_safe(sys: &System, proof: &Proof, backend: Backend, timeout_ms: u64) -> SafeCertificate {
    let mut solver = smt::checker(backend);
    solver.set_timeout_ms(timeout_ms);
    let complete = instantiation_complete(sys) && proof.invariant.iter().all(|c| c.others.is_empty());
    let mut ck = SafeChecker { sys, solver, complete, witnesses: Default::default(), batching: sys.index_kind() == IndexKind::Order };
    let inv = &proof.invariant;
    // the obligations in order: those settled by the frame rule at once,
    // the others (`pending`, with their place) checked in batches below
    let mut slots: Vec<Option<Obligation>> = vec![];
    let mut pending: Vec<(usize, Pending)> = vec![];
    let mut wait = |p: Pending, slots: &mut Vec<Option<Obligation>>| {
        pending.push((slots.len(), p));
        slots.push(None);
    };
    for (k, u) in sys.unsafe_.iter().enumerate() {
        wait(ck.exclusion(k, u, inv), &mut slots);
    }
    for (i, c) in inv.iter().enumerate() {
        wait(ck.initiation(i, c), &mut slots);
    }
    for i in 0..inv.len() {
        let read = inv[i].reads();
        for ti in 0..sys.transitions.len() {
            let p = ck.consecution(i, ti, inv, &proof.hints[i]);
            if framed(sys, &sys.transitions[ti], &read) {
                let f = p.formula(&[ck.clause(&inv[i], &inv[i].vars)]);
                slots.push(Some(Obligation { name: p.name, formula: f, status: Status::Frame }));
            } else {
                wait(p, &mut slots);
            }
        }
    }
    let mut pending = pending.into_iter().peekable();
    while pending.peek().is_some() {
        let batch: Vec<(usize, Pending)> = pending.by_ref().take(BATCH).collect();
        let fs: Vec<Term> = batch.iter().map(|(_, p)| p.formula(&p.hinted)).collect();
        let results = ck.check_each(&fs);
        for (((k, p), f), r) in batch.into_iter().zip(fs).zip(results) {
            slots[k] = Some(ck.decide(p, f, r, inv));
        }
    }
    let obligations = slots.into_iter().flatten().collect();
    SafeCertificate { backend, obligations }
}

/// Whether transition `t` writes none of the state variables `read`.
fn framed(sys: &System, t: &Transition, read: &[Term]) -> bool {
    t.updates.iter().all(|u| !read.contains(&sys.vars[u.var].term) || u.value == sys.vars[u.var].term)
}

/// The invariant as an SMT-LIB script defining `invariant` over the state
/// variables and constants (in the solvers' encoding, see
/// [`crate::smt::smtlib`]).
pub fn invariant_smtlib(sys: &System, inv: &[Cube]) -> String {
    let mut out = String::from("; inductive invariant found by arrax: the conjunction of the negated cubes\n");
    let symbols: Vec<Term> = sys.vars.iter().map(|v| v.term.clone()).chain(sys.consts.iter().cloned()).collect();
    out.push_str(&crate::smt::smtlib::declarations(&symbols));
    let _ = writeln!(out, "(define-fun invariant () Bool (and");
    for c in inv {
        let _ = writeln!(out, "  {}", crate::smt::smtlib::term(&c.negation()));
    }
    out.push_str("  true))\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A step that writes none of a clause's variables is framed; one
    /// writing any of them (or a condition on other processes' cells) is not.
    #[test]
    fn frame_rule_needs_every_read_variable_unwritten() {
        let src = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("models/directory_data.cub")).unwrap();
        let sys = crate::frontend::parse_str(&src, crate::frontend::Format::Cubicle).unwrap().system;
        let var = |n: &str| sys.vars.iter().find(|v| v.name() == n).unwrap().term.clone();
        let step = |n: &str| sys.transitions.iter().find(|t| t.name == n).unwrap();
        let z = crate::system::cube::zvar(0, &sys.index_sort());
        let memory = Cube::plain(vec![], vec![Term::eq(&var("Mem"), &var("Curr")).not(), var("Exclusive").not()]);
        // `Cache[z] = E` (the third constant of `I | S | E`)
        let e = Term::enum_const(sys.vars.iter().find(|v| v.name() == "Cache").unwrap().value_sort(), 2);
        let cached = Cube::plain(vec![z.clone()], vec![Term::eq(&Term::select(&var("Cache"), std::slice::from_ref(&z)), &e)]);
        assert!(framed(&sys, step("evict_shared"), &memory.reads()));
        assert!(!framed(&sys, step("write_back"), &memory.reads()));
        assert!(!framed(&sys, step("evict_shared"), &cached.reads()));
        assert!(framed(&sys, step("grant_shared"), &cached.reads()));
    }
}
