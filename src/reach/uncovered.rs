//! A witness that a cube is not covered, found without a solver: an
//! assignment of the cube's cells (scalars, and array cells at the cube's
//! processes) that satisfies every literal of the cube and falsifies every
//! instance of the visited cubes. Most fixpoint tests of a backward search
//! answer "not covered"; on protocols over enumerations, Booleans and
//! process pointers such an assignment is found by a small bounded search,
//! and only when it is not does the solver decide.
//!
//! A cell is a scalar state variable or an array read whose indices are all
//! cube variables (pairwise distinct), so distinct cells never alias. An
//! atom compares a cell with a value (a literal, or a cube variable for a
//! process-valued cell) or with another cell, or is a Boolean cell. A cell
//! ranges over the values the atoms of its group (cells compared with each
//! other) mention, plus one value none of them mentions when its sort has
//! one (processes: the cube's own, the literals mentioned, and one other). A cube literal that is no atom
//! makes the search give up; an instance literal that is no atom is never
//! used to falsify that instance.

use crate::logic::{Op, Sort, Term};
use crate::HashMap;

/// A value a cell may take: one the atoms mention, or the value of its
/// group that none of them mentions (`None`).
type Value = Option<Term>;

/// An atom: cell `a` equals value or cell `b` (when `positive`), or not.
struct Atom {
    a: usize,
    b: Side,
    positive: bool,
}

/// What a cell is compared with.
enum Side {
    Value(Term),
    Cell(usize),
}

/// The most assignments tried before giving up.
const STEPS: usize = 4096;

/// The cells, their candidate values and the clauses over them.
struct Problem<'a> {
    vars: &'a [Term],
    cells: Vec<Term>,
    index: HashMap<Term, usize>,
    /// Each clause: one of its atoms must hold (the cube's literals are
    /// one-atom clauses).
    clauses: Vec<Vec<Atom>>,
}

/// Whether `cube ∧ ⋀ clauses` has a model the bounded search finds
/// (`true` is then certain; `false` says nothing). `vars` are the cube's
/// variables, pairwise distinct; each clause is the negation of an instance
/// (a conjunction of literals) or a disjunction of literals.
pub fn witness(vars: &[Term], lits: &[Term], clauses: &[Term]) -> bool {
    let mut p = Problem { vars, cells: vec![], index: HashMap::default(), clauses: vec![] };
    for l in lits {
        match p.atom(l) {
            Some(at) => p.clauses.push(vec![at]),
            None => return false,
        }
    }
    for c in clauses {
        let atoms: Vec<Atom> = disjuncts(c).iter().filter_map(|l| p.atom(l)).collect();
        if atoms.is_empty() {
            return false;
        }
        p.clauses.push(atoms);
    }
    p.solve()
}

/// The literals of a clause: the negated conjuncts of a negated
/// conjunction, the arguments of a disjunction, else the clause itself.
fn disjuncts(c: &Term) -> Vec<Term> {
    match c.op() {
        Op::Or => c.args().to_vec(),
        Op::Not if matches!(c.args()[0].op(), Op::And) => c.args()[0].args().iter().map(|l| l.not()).collect(),
        _ => vec![c.clone()],
    }
}

impl Problem<'_> {
    /// Whether `t` is a cell: a scalar of a non-array sort other than the
    /// cube's variables, or an array read at cube variables.
    fn is_cell(&self, t: &Term) -> bool {
        match t.op() {
            Op::Var(_) => !matches!(t.sort(), Sort::Array(_)) && !self.vars.contains(t),
            Op::Select => t.args()[0].is_var() && t.args()[1..].iter().all(|i| self.vars.contains(i)),
            _ => false,
        }
    }

    /// Whether `v` is a value a cell of sort `s` may take here.
    fn is_value(&self, v: &Term, s: &Sort) -> bool {
        v.is_value() || (*s == Sort::Index && self.vars.contains(v))
    }

    fn cell(&mut self, t: &Term) -> usize {
        if let Some(&k) = self.index.get(t) {
            return k;
        }
        self.cells.push(t.clone());
        self.index.insert(t.clone(), self.cells.len() - 1);
        self.cells.len() - 1
    }

    /// The literal as an atom, if it is one.
    fn atom(&mut self, l: &Term) -> Option<Atom> {
        let (t, positive) = match l.op() {
            Op::Not => (&l.args()[0], false),
            _ => (l, true),
        };
        if *t.sort() == Sort::Bool && self.is_cell(t) {
            return Some(Atom { a: self.cell(t), b: Side::Value(Term::tt()), positive });
        }
        if !matches!(t.op(), Op::Eq) {
            return None;
        }
        let (x, y) = (&t.args()[0], &t.args()[1]);
        let (x, y) = if self.is_cell(x) { (x, y) } else { (y, x) };
        if !self.is_cell(x) {
            return None;
        }
        let b = if self.is_cell(y) {
            Side::Cell(self.cell(y))
        } else if self.is_value(y, x.sort()) {
            Side::Value(y.clone())
        } else {
            return None;
        };
        Some(Atom { a: self.cell(x), b, positive })
    }

    /// The candidate values of each cell: those its group's atoms mention,
    /// and the unmentioned one when the sort has one.
    fn candidates(&self) -> Vec<Vec<Value>> {
        let n = self.cells.len();
        let mut group: Vec<usize> = (0..n).collect();
        fn root(g: &mut [usize], mut k: usize) -> usize {
            while g[k] != k {
                g[k] = g[g[k]];
                k = g[k];
            }
            k
        }
        for at in self.clauses.iter().flatten() {
            if let Side::Cell(b) = at.b {
                let (ra, rb) = (root(&mut group, at.a), root(&mut group, b));
                group[ra] = rb;
            }
        }
        let mut mentioned: HashMap<usize, Vec<Term>> = HashMap::default();
        for at in self.clauses.iter().flatten() {
            if let Side::Value(v) = &at.b {
                let vs = mentioned.entry(root(&mut group, at.a)).or_default();
                if !vs.contains(v) {
                    vs.push(v.clone());
                }
            }
        }
        (0..n)
            .map(|k| {
                let sort = self.cells[k].sort();
                let mut vs: Vec<Value> = match sort {
                    Sort::Bool => vec![Some(Term::tt()), Some(Term::ff())],
                    Sort::Index => {
                        let others = mentioned.get(&root(&mut group, k)).into_iter().flatten().filter(|v| !self.vars.contains(v));
                        self.vars.iter().chain(others).cloned().map(Some).collect()
                    }
                    _ => mentioned.get(&root(&mut group, k)).into_iter().flatten().cloned().map(Some).collect(),
                };
                let size = sort.finite_range().map(|(lo, hi)| (hi - lo + 1).max(0) as usize);
                if *sort != Sort::Bool && size.is_none_or(|s| s > vs.len()) {
                    vs.push(None);
                }
                vs
            })
            .collect()
    }

    /// Searches for an assignment making every clause true, cell by cell
    /// (at most [`STEPS`] tries).
    fn solve(&self) -> bool {
        let cands = self.candidates();
        let mut watch: Vec<Vec<usize>> = vec![vec![]; self.cells.len()];
        for (c, atoms) in self.clauses.iter().enumerate() {
            for at in atoms {
                watch[at.a].push(c);
                if let Side::Cell(b) = at.b {
                    watch[b].push(c);
                }
            }
        }
        let mut vals: Vec<Option<Value>> = vec![None; self.cells.len()];
        self.extend(0, &cands, &watch, &mut vals, &mut 0)
    }

    fn extend(&self, k: usize, cands: &[Vec<Value>], watch: &[Vec<usize>], vals: &mut Vec<Option<Value>>, steps: &mut usize) -> bool {
        if k == self.cells.len() {
            return true;
        }
        for v in &cands[k] {
            *steps += 1;
            if *steps > STEPS {
                return false;
            }
            vals[k] = Some(v.clone());
            if watch[k].iter().all(|&c| self.possible(&self.clauses[c], vals)) && self.extend(k + 1, cands, watch, vals, steps) {
                return true;
            }
        }
        vals[k] = None;
        false
    }

    /// Whether a clause is true or may still become true.
    fn possible(&self, atoms: &[Atom], vals: &[Option<Value>]) -> bool {
        atoms.iter().any(|at| {
            let Some(a) = &vals[at.a] else { return true };
            let eq = match &at.b {
                Side::Value(v) => a.as_ref() == Some(v),
                Side::Cell(b) => match &vals[*b] {
                    None => return true,
                    Some(b) => a == b,
                },
            };
            eq == at.positive
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::{EnumDef, EnumValues};
    use std::rc::Rc;

    fn setup() -> (Vec<Term>, Term, Term, Vec<Term>) {
        let e = Sort::Enum(Rc::new(EnumDef { name: "S".into(), values: EnumValues::Names(vec!["I".into(), "S".into(), "E".into()]) }));
        let arr = Term::var("A", Sort::array(vec![Sort::Index], e.clone()));
        let z: Vec<Term> = (1..=2).map(|k| Term::var(&format!("z{k}"), Sort::Index)).collect();
        let vals = (0..3).map(|k| Term::raw(Op::EnumConst(k), vec![], e.clone())).collect();
        let flag = Term::var("f", Sort::Bool);
        (z, arr, flag, vals)
    }

    #[test]
    fn a_model_falsifies_every_instance() {
        let (z, a, f, v) = setup();
        let (a1, a2) = (Term::select(&a, std::slice::from_ref(&z[0])), Term::select(&a, std::slice::from_ref(&z[1])));
        let cube = vec![Term::eq(&a1, &v[2])];
        // ¬(A[z1]=E ∧ A[z2]=E) and ¬(A[z1]=E ∧ f): A[z2] ≠ E and ¬f
        let clauses = vec![Term::and([Term::eq(&a1, &v[2]), Term::eq(&a2, &v[2])]).not(), Term::and([Term::eq(&a1, &v[2]), f.clone()]).not()];
        assert!(witness(&z, &cube, &clauses));
    }

    #[test]
    fn no_model_when_the_instances_cover_every_value() {
        let (z, a, _, v) = setup();
        let (a1, a2) = (Term::select(&a, std::slice::from_ref(&z[0])), Term::select(&a, std::slice::from_ref(&z[1])));
        let cube = vec![Term::eq(&a1, &v[2])];
        // A[z2] must avoid all three values
        let clauses: Vec<Term> = v.iter().map(|x| Term::and([Term::eq(&a1, &v[2]), Term::eq(&a2, x)]).not()).collect();
        assert!(!witness(&z, &cube, &clauses));
        // a cube contradicting an instance outright
        assert!(!witness(&z, &cube, &[Term::eq(&a1, &v[2]).not()]));
    }

    #[test]
    fn a_literal_it_cannot_read_in_the_cube_gives_up() {
        let (z, _, _, _) = setup();
        let x = Term::var("x", Sort::Int);
        assert!(!witness(&z, &[Term::lt(&x, &Term::int(3))], &[]));
    }

    #[test]
    fn cells_compared_with_cells_share_their_values() {
        let (z, a, _, v) = setup();
        let (a1, a2) = (Term::select(&a, std::slice::from_ref(&z[0])), Term::select(&a, std::slice::from_ref(&z[1])));
        let cube = vec![Term::eq(&a1, &v[2])];
        // A[z2] ≠ A[z1] = E and A[z2] ≠ I: A[z2] = S
        let mut clauses = vec![Term::eq(&a1, &a2), Term::eq(&a2, &v[0])].into_iter().map(|l| l.not()).collect::<Vec<_>>();
        assert!(witness(&z, &cube, &clauses));
        clauses.push(Term::eq(&a2, &v[1]).not());
        assert!(!witness(&z, &cube, &clauses));
    }

    #[test]
    fn a_process_cell_takes_the_cubes_processes_or_another() {
        let (z, _, _, _) = setup();
        let owner = Term::var("Owner", Sort::Index);
        let cube = vec![Term::eq(&owner, &z[0]).not()];
        // Owner is neither z1 nor z2: some third process
        assert!(witness(&z, &cube, &[Term::eq(&owner, &z[1]).not()]));
        let cube = vec![Term::eq(&owner, &z[0])];
        assert!(!witness(&z, &cube, &[Term::eq(&owner, &z[0]).not()]));
    }
}
