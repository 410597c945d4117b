//! Quantifier-free interpolation for refining backward paths, with term
//! abstraction.
//!
//! The problem: `A`, a disjunction of cubes over the current state (the
//! exact pre-image along a path suffix), and `B`, a quantifier-free formula
//! (the instantiated path prefix from the initial states), with `A ∧ B`
//! unsatisfiable. An interpolant `I` is implied by `A`, inconsistent with
//! `B`, and speaks only of the current state, rigid constants and the
//! cubes' index variables (Skolem constants, re-quantified existentially,
//! so `I` is again a disjunction of cubes).
//!
//! Two implementations behind [`Method`]:
//! - [`Method::Projection`]: each cube of `A` is projected onto the shared
//!   symbols ([`crate::logic::projection`]: substitution and Fourier–Motzkin, exact
//!   on unit coefficients, which is what model-based projection computes on
//!   a single cube), then generalised against `B` by dropping literals about
//!   abstracted terms that the unsatisfiability does not need (unsat cores
//!   by the search's solver).
//! - [`Method::Cases`]: projection after a case split of each cube on the
//!   relations between abstraction terms.
//! - [`Method::Cvc5`]: cvc5's `get_interpolant`, under a time limit.
//!
//! Term abstraction ([`abstract_terms`]): before interpolating, each term of
//! the abstraction list (loop counters, array lengths, user terms) is
//! renamed apart on the `A` side as long as `A ∧ B` stays unsatisfiable;
//! the renamed copies are not shared, so the interpolant avoids them.
//!
//! Every interpolant is checked ([`check`]) before use.

use crate::logic::{free_vars, occurs, substitute, Term};
use crate::smt::{SatResult, Solver};
use crate::system::cube::Cube;
use crate::HashMap;

/// What interpolation did, counted for the caller's statistics.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tally {
    /// Solver calls made while interpolating.
    pub calls: usize,
    /// Cubes interpolated by plain projection that [`Method::Cases`] would
    /// have split: evidence that case splits may succeed where projection
    /// did not.
    pub splittable: usize,
}

/// How interpolants are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Projection of each cube of `A` onto the shared symbols, generalised
    /// by unsat cores against `B`.
    Projection,
    /// Projection as above, each cube of `A` first split into cases on how
    /// the abstraction terms `B` needs relate to the other abstraction terms
    /// (`count ≠ n`: `count < n` or `count > n`; `count ≤ n`: `count < n` or
    /// `count = n`), so that each case abstracts on its own (the sentinel
    /// pattern: a count bounded by a size because a zero ends the loop).
    Cases,
    /// cvc5's interpolation (SyGuS-based), with a time limit.
    Cvc5,
}

/// An interpolation problem (see the module documentation).
pub struct Problem<'a> {
    /// `A`: cubes whose index variables are Skolem constants (shared).
    pub a: &'a [Cube],
    /// `B`: quantifier-free.
    pub b: &'a Term,
    /// Symbols of `A` that an interpolant must not mention (besides the
    /// renamed abstracted terms): nondeterministic values.
    pub local: &'a [Term],
    /// Symbols an interpolant may mention besides the cubes' variables.
    pub shared: &'a [Term],
    /// The terms to abstract when possible.
    pub abstracted: &'a [Term],
    /// The sort of index variables (a term of that sort may become a new
    /// quantified variable of the interpolant).
    pub index_sort: crate::logic::Sort,
}

/// Why no interpolant was produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// `A ∧ B` is satisfiable (as far as the instantiation goes).
    Satisfiable,
    /// The method could not produce one; why.
    Unknown(String),
}

/// The result of term abstraction: `A` with the accepted terms renamed
/// apart, and the fresh symbols standing for them on the `A` side.
pub struct Abstracted {
    /// The cubes of `A` with accepted terms renamed.
    pub a: Vec<Cube>,
    /// The fresh copies (not shared).
    pub copies: Vec<Term>,
    /// The accepted terms.
    pub terms: Vec<Term>,
}

fn cube_formula(c: &Cube) -> Term {
    Term::and([Term::distinct(&c.vars), c.body()])
}

fn disjunction(a: &[Cube]) -> Term {
    Term::or(a.iter().map(cube_formula))
}

fn unsat(solver: &mut dyn Solver, tally: &mut Tally, parts: &[Term]) -> Result<bool, Failure> {
    tally.calls += 1;
    solver.push();
    solver.assert(&Term::and(parts.iter().cloned()));
    let r = solver.check();
    solver.pop();
    match r {
        SatResult::Unsat => Ok(true),
        SatResult::Sat => Ok(false),
        SatResult::Unknown(why) => Err(Failure::Unknown(why)),
    }
}

/// Term abstraction: renames each term of `terms` apart in `A` (a fresh
/// copy per term) while `A ∧ B` stays unsatisfiable.
pub fn abstract_terms(
    solver: &mut dyn Solver,
    tally: &mut Tally,
    a: &[Cube],
    b: &Term,
    terms: &[Term],
    index_sort: &crate::logic::Sort,
) -> Result<Abstracted, Failure> {
    let mut cur: Vec<Cube> = a.to_vec();
    let mut copies = vec![];
    let mut accepted = vec![];
    let mut guessed = false;
    for t in terms {
        if !cur.iter().any(|c| c.lits.iter().any(|l| occurs(t, l))) {
            continue;
        }
        let copy = Term::var(&format!("{}!abs", t.var_name().unwrap_or("t")), t.sort().clone());
        let map: HashMap<Term, Term> = [(t.clone(), copy.clone())].into_iter().collect();
        let renamed: Vec<Cube> = cur.iter().map(|c| Cube::plain(c.vars.clone(), c.lits.iter().map(|l| substitute(l, &map)).collect())).collect();
        // the copy must be projectable out of every cube — or, for one
        // index-sorted term, become a new quantified variable (SAFARI's
        // guess of an invariant's variable) — and A ∧ B stay unsatisfiable
        let projectable = renamed.iter().all(|c| crate::logic::projection::project_exact(&c.lits, std::slice::from_ref(&copy)).1.is_empty());
        let guess = !projectable && !guessed && t.sort() == index_sort;
        if (projectable || guess) && (!occurs(t, b) || unsat(solver, tally, &[disjunction(&renamed), b.clone()])?) {
            cur = renamed;
            copies.push(copy);
            accepted.push(t.clone());
            guessed |= guess;
        }
    }
    Ok(Abstracted { a: cur, copies, terms: accepted })
}

/// An interpolant of the problem as a disjunction of cubes.
pub fn interpolate(method: Method, solver: &mut dyn Solver, tally: &mut Tally, p: &Problem, timeout_ms: u64) -> Result<Vec<Cube>, Failure> {
    if !unsat(solver, tally, &[disjunction(p.a), p.b.clone()])? {
        return Err(Failure::Satisfiable);
    }
    match method {
        // each cube of A is inconsistent with B on its own: its terms are
        // abstracted and it is interpolated separately
        Method::Projection | Method::Cases => {
            let mut out = vec![];
            for c in p.a {
                let abs = abstract_terms(solver, tally, std::slice::from_ref(c), p.b, p.abstracted, &p.index_sort)?;
                let cases = relation_cases(p, c, &abs);
                if method == Method::Projection && cases.len() > 1 {
                    tally.splittable += 1;
                }
                if method == Method::Projection || cases.len() <= 1 {
                    out.extend(interpolate_part(method, solver, tally, p, abs, timeout_ms)?);
                    continue;
                }
                for lits in cases {
                    let case = Cube::plain(c.vars.clone(), lits);
                    if unsat(solver, tally, &[cube_formula(&case)])? {
                        continue;
                    }
                    let abs = abstract_terms(solver, tally, std::slice::from_ref(&case), p.b, p.abstracted, &p.index_sort)?;
                    out.extend(interpolate_part(method, solver, tally, p, abs, timeout_ms)?);
                }
            }
            Ok(out)
        }
        Method::Cvc5 => {
            let abs = abstract_terms(solver, tally, p.a, p.b, p.abstracted, &p.index_sort)?;
            interpolate_part(method, solver, tally, p, abs, timeout_ms)
        }
    }
}

/// The cases of cube `c` on how the abstraction terms that `B` needs
/// (those term abstraction refused in `abs`) relate to the other
/// abstraction terms: `count ≠ n` is `count < n` (where the count may be
/// abstracted) or `count > n` (where it stays), and `count ≤ n` is
/// `count < n` or `count = n` (where the count may be replaced by `n`).
/// One case (`c` itself) when nothing is split.
fn relation_cases(p: &Problem, c: &Cube, abs: &Abstracted) -> Vec<Vec<Term>> {
    let refused: Vec<Term> = p.abstracted.iter().filter(|t| !abs.terms.contains(t) && c.lits.iter().any(|l| occurs(t, l))).cloned().collect();
    crate::logic::projection::split_cases(&c.lits, &refused, 2, p.abstracted)
}

/// An interpolant of part of the problem's `A`, its terms abstracted as
/// `abs` says, and the problem's `B`.
fn interpolate_part(method: Method, solver: &mut dyn Solver, tally: &mut Tally, p: &Problem, abs: Abstracted, timeout_ms: u64) -> Result<Vec<Cube>, Failure> {
    tracing::trace!("abstracted: {:?}", abs.terms.iter().map(|t| t.to_string()).collect::<Vec<_>>());
    let local: Vec<Term> = p.local.iter().chain(&abs.copies).cloned().collect();
    let pieces = match method {
        Method::Projection | Method::Cases => {
            let general: Vec<Term> = p.abstracted.iter().chain(&abs.copies).cloned().collect();
            by_projection(solver, tally, &abs.a, p.b, &local, &abs.copies, &general)?
        }
        Method::Cvc5 => by_cvc5(&abs.a, p.b, timeout_ms)?,
    };
    // A (each cube, or all of it for pieces without a source) implies
    // the disjunction of its pieces
    let mut sources: Vec<Option<usize>> = pieces.iter().map(|p| p.0).collect();
    sources.dedup();
    for src in sources {
        let premise = match src {
            Some(k) => cube_formula(&abs.a[k]),
            None => disjunction(&abs.a),
        };
        let alternatives = Term::or(pieces.iter().filter(|p| p.0 == src).map(|(_, _, lits)| Term::and(lits.iter().cloned())));
        if !unsat(solver, tally, &[premise, alternatives.not()])? {
            return Err(Failure::Unknown("interpolant not implied by A".into()));
        }
    }
    let mut out = vec![];
    for (_, vars, lits) in pieces {
        // copies left in the piece are the guessed quantified variable
        let guesses: Vec<Term> = abs.copies.iter().filter(|c| lits.iter().any(|l| occurs(c, l))).cloned().collect();
        let shared: Vec<Term> = p.shared.iter().chain(&guesses).cloned().collect();
        check(solver, tally, &vars, &lits, p.b, &shared)?;
        let used: Vec<Term> = vars.iter().filter(|v| lits.iter().any(|l| occurs(v, l))).cloned().collect();
        match guesses.as_slice() {
            [] => out.extend(Cube::normalize(&used, &lits)),
            [g] => {
                // ∃-introduction: the guess is a new variable or one of the others
                let mut all = used.clone();
                all.push(g.clone());
                out.extend(Cube::normalize(&all, &lits));
                for z in &used {
                    let m: HashMap<Term, Term> = [(g.clone(), z.clone())].into_iter().collect();
                    let ls: Vec<Term> = lits.iter().map(|l| substitute(l, &m)).collect();
                    out.extend(Cube::normalize(&used, &ls));
                }
            }
            _ => return Err(Failure::Unknown("more than one guessed variable".into())),
        }
    }
    Ok(out)
}

/// A piece of an interpolant: the cube of `A` it comes from (if one), its
/// existential variables, its literals.
type Piece = (Option<usize>, Vec<Term>, Vec<Term>);

fn by_projection(
    solver: &mut dyn Solver,
    tally: &mut Tally,
    a: &[Cube],
    b: &Term,
    local: &[Term],
    guessable: &[Term],
    abstracted: &[Term],
) -> Result<Vec<Piece>, Failure> {
    let mut out = vec![];
    for (k, c) in a.iter().enumerate() {
        let present: Vec<Term> = local.iter().filter(|v| c.lits.iter().any(|l| occurs(v, l))).cloned().collect();
        // exact: disequalities on eliminated symbols split into two cases
        for (mut lits, kept) in crate::logic::projection::project_cases(&c.lits, &present, 4) {
            if let Some(v) = kept.iter().find(|v| !guessable.contains(v)) {
                return Err(Failure::Unknown(format!("cannot project {v} out")));
            }
            let dist = Term::distinct(&c.vars);
            let with_b = |ls: &[Term]| -> Vec<Term> { ls.iter().cloned().chain([dist.clone(), b.clone()]).collect() };
            if !unsat(solver, tally, &with_b(&lits))? {
                return Err(Failure::Unknown("projection too weak (dropped disequalities)".into()));
            }
            // generalise: what the cube says without its array reads (each
            // read projected out as an unknown value: `a[z] = e ∧ a[z] ≠ f`
            // gives `e ≠ f`), when that is enough against B
            let reads: Vec<Term> = {
                let mut r: Vec<Term> = lits.iter().flat_map(|l| crate::logic::collect(l, &|t: &Term| matches!(t.op(), crate::logic::Op::Select))).collect();
                r.sort();
                r.dedup();
                r
            };
            if !reads.is_empty() {
                let (scalar, kept) = crate::logic::projection::project(&lits, &reads);
                // only when eliminating the reads says something new
                let new = scalar.iter().any(|l| !lits.contains(l));
                if kept.is_empty() && new && !scalar.iter().any(reads_array) && unsat(solver, tally, &with_b(&scalar))? {
                    lits = scalar;
                }
            }
            // generalise: literals about abstracted terms go when B does not
            // need them, as long as the cube keeps saying something about
            // array contents (what the invariants are about)
            let mut i = 0;
            while i < lits.len() {
                let others_read = lits.iter().enumerate().any(|(k, l)| k != i && reads_array(l));
                // (or a relation between abstracted scalars is left: `n < count`)
                let rest = lits.iter().enumerate().filter(|(k, _)| *k != i).map(|(_, l)| l);
                let scalar_rest = rest.clone().all(|l| !c.vars.iter().chain(guessable).any(|v| occurs(v, l)))
                    && rest.clone().any(|l| abstracted.iter().filter(|t| occurs(t, l)).count() >= 2);
                if abstracted.iter().any(|t| occurs(t, &lits[i])) && (!reads_array(&lits[i]) || others_read || scalar_rest) {
                    let mut fewer = lits.clone();
                    fewer.remove(i);
                    if unsat(solver, tally, &with_b(&fewer))? {
                        lits = fewer;
                        continue;
                    }
                }
                i += 1;
            }
            out.push((Some(k), c.vars.clone(), lits));
        }
    }
    Ok(out)
}

fn reads_array(l: &Term) -> bool {
    !crate::logic::collect(l, &|t: &Term| matches!(t.op(), crate::logic::Op::Select)).is_empty()
}

fn by_cvc5(a: &[Cube], b: &Term, timeout_ms: u64) -> Result<Vec<Piece>, Failure> {
    let mut cvc5 = crate::smt::cvc5::Cvc5Solver::new();
    let i = match cvc5.interpolant(&disjunction(a), b, timeout_ms) {
        Ok(Some(i)) => i,
        Ok(None) => return Err(Failure::Unknown("cvc5 found no interpolant in time".into())),
        Err(e) => return Err(Failure::Unknown(format!("cvc5: {e}"))),
    };
    let vars: Vec<Term> = {
        let mut vs: Vec<Term> = a.iter().flat_map(|c| c.vars.clone()).collect();
        vs.sort();
        vs.dedup();
        vs
    };
    Ok(vec![(None, vars, vec![i])])
}

/// Checks a piece of an interpolant (that `A` implies the pieces is
/// checked by the caller): inconsistent with `B`, and over shared symbols
/// and its own existential variables only.
fn check(solver: &mut dyn Solver, tally: &mut Tally, vars: &[Term], lits: &[Term], b: &Term, shared: &[Term]) -> Result<(), Failure> {
    let body = Term::and(lits.iter().cloned());
    for v in free_vars(&body) {
        if !vars.contains(&v) && !shared.contains(&v) {
            return Err(Failure::Unknown(format!("interpolant mentions {v}, which is not shared")));
        }
    }
    // the piece's variables are pairwise distinct (its cube's, or all of A's for cvc5)
    let mut own: Vec<Term> = vars.to_vec();
    own.sort();
    own.dedup();
    let dist = Term::distinct(&own);
    if !unsat(solver, tally, &[body, dist, b.clone()])? {
        return Err(Failure::Unknown("interpolant consistent with B".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::Sort;

    /// `A = i ≥ n ∧ 0 ≤ z < n ∧ a[z] ≠ 0`, `B = (i = 0)`: abstracting `n`
    /// gives SAFARI's interpolant `0 ≤ z < i ∧ a[z] ≠ 0`.
    #[test]
    fn term_abstraction_steers_the_interpolant() {
        let (i, n, z) = (Term::var("i", Sort::Int), Term::var("n", Sort::Int), Term::var("z1", Sort::Int));
        let arr = Term::var("a", Sort::array(vec![Sort::Int], Sort::Int));
        let lits =
            vec![Term::le(&n, &i), Term::le(&Term::int(0), &z), Term::lt(&z, &n), Term::eq(&Term::select(&arr, std::slice::from_ref(&z)), &Term::int(0)).not()];
        let a = Cube::normalize(std::slice::from_ref(&z), &lits);
        let b = Term::eq(&i, &Term::int(0));
        let shared = [i.clone(), n.clone(), arr.clone()];
        let p = Problem { a: &a, b: &b, local: &[], shared: &shared, abstracted: &[n.clone(), i.clone()], index_sort: Sort::Int };
        let mut s = crate::smt::solver(crate::smt::Backend::Z3);
        let itp = interpolate(Method::Projection, s.as_mut(), &mut Tally::default(), &p, 1000).unwrap();
        assert_eq!(itp.len(), 1);
        assert!(!itp[0].lits.iter().any(|l| occurs(&n, l)), "{:?}", itp);
        assert!(itp[0].lits.iter().any(|l| occurs(&arr, l)), "{:?}", itp);
        // a satisfiable problem has no interpolant
        let sat = Term::eq(&i, &Term::int(7));
        let p2 = Problem { b: &sat, ..p };
        assert_eq!(interpolate(Method::Projection, s.as_mut(), &mut Tally::default(), &p2, 1000).unwrap_err(), Failure::Satisfiable);
    }
}
