//! Inductive generalisation of blocked cubes (IC3's MIC with
//! counterexamples to generalisation, CTG): a blocked cube shrinks to the
//! literals the refutation's unsat core used (plus those that keep it
//! apart from the initial states); then each literal is dropped in turn
//! while the smaller cube stays relatively inductive and disjoint from the
//! initial states. When a drop fails because of a predecessor, that
//! predecessor (a counterexample to generalisation) is blocked one frame
//! lower if it can be, and the drop is tried again.
//!
//! Literals are tried in the order term abstraction suggests: facts about
//! counters and sizes alone first, then the equalities tying a quantified
//! variable to a ground index term (so that lemmas become quantified),
//! then the rest, location literals last.

use super::abstraction::is_location;
use super::lemma::INFINITY;
use super::query::Relative;
use super::search::{frame, Search};
use crate::logic::{occurs, Op, Term};
use crate::system::cube::Cube;
use crate::HashSet;

/// Counterexamples to generalisation blocked per literal before the drop
/// is given up.
const MAX_CTG: usize = 3;

/// Counterexamples to induction an inductive lemma is shrunk by, at most.
const MAX_DOWN: usize = 4;

/// Nested inductive attempts for counterexamples to induction: how deep,
/// and how many for one blocked cube.
const MAX_DEPTH: usize = 8;
const MAX_NESTED: usize = 16;

/// The cube with only the literals `lits`, over the variables they mention.
pub fn keep(c: &Cube, lits: Vec<Term>) -> Cube {
    let vars = c.vars.iter().filter(|v| lits.iter().any(|l| occurs(v, l))).cloned().collect();
    Cube::plain(vars, lits)
}

impl Search<'_> {
    /// The lemma for cube `c`, blocked at `level` with the literals `core`,
    /// and the level it holds at: an inductive lemma ([`Search::inductive`])
    /// when there is one, else the core (kept apart from the initial
    /// states), quantified where that stays blocked ([`super::quantify`]),
    /// then minimised relative to the frame below.
    pub(super) fn generalize(&mut self, c: &Cube, core: &[usize], level: usize) -> (Cube, usize) {
        if let Some(g) = self.inductive(c, 0, &mut MAX_NESTED.clone()) {
            return (g, INFINITY);
        }
        let mut g = self.reduce(c, core);
        if self.opts.quantify {
            if let Some(q) = self.quantify(&g) {
                if let Relative::Blocked(core) = self.q.relative(&frame(&self.frames, level - 1), &q, true) {
                    g = self.reduce(&q, &core);
                }
            }
        }
        (self.mic(g, level - 1, self.opts.ctg), level)
    }

    /// An inductive lemma blocking `c`, relative to the lemmas of every
    /// frame: `c` quantified ([`super::quantify`]), then shrunk to the
    /// literals each counterexample to induction satisfies (Bradley's
    /// *down*: the lemma must exclude the counterexample) until it is
    /// inductive, then minimised. A counterexample to induction is first
    /// blocked by an inductive lemma of its own when there is one (nested
    /// attempts, within a budget) when it is at another location or its
    /// array literals are not the lemma's. Counters and sizes that only bound the
    /// steps taken so far cannot make such a lemma, which is what keeps
    /// them out of it (term abstraction's aim).
    fn inductive(&mut self, c: &Cube, depth: usize, budget: &mut usize) -> Option<Cube> {
        let mut a = if self.opts.quantify { self.quantify(c).unwrap_or_else(|| c.clone()) } else { c.clone() };
        tracing::debug!("  {}inductive attempt from {a}", "  ".repeat(depth));
        let mut rounds = 0;
        while rounds < MAX_DOWN {
            if a.lits.is_empty() || !matches!(self.q.initial(&a), Ok(Some(_))) || self.limit().is_some() {
                return None;
            }
            let Relative::Predecessor(p, _, holds) = (match self.q.relative(&frame(&self.frames, INFINITY), &a, true) {
                Relative::Blocked(_) => return Some(self.mic(a, INFINITY, false)),
                r => r,
            }) else {
                return None;
            };
            // a counterexample to induction blocked by an inductive lemma of
            // its own: one at another location (the lemma cannot exclude
            // it), or one whose array facts are not those of the lemma
            // (another invariant must exclude it; one with the same facts is
            // the lemma's own loop again, which down handles)
            let elsewhere = a.lits.iter().zip(&holds).any(|(l, h)| !h && is_location(l));
            let other = !templates(&a).is_subset(&templates(&p));
            if depth < MAX_DEPTH && *budget > 0 && (elsewhere || other) {
                *budget -= 1;
                if let Some(g) = self.inductive(&p, depth + 1, budget) {
                    self.learn(g, INFINITY);
                    continue;
                }
            }
            // else the lemma must exclude it (down)
            if elsewhere {
                return None;
            }
            let kept: Vec<Term> = a.lits.iter().zip(&holds).filter(|(_, h)| **h).map(|(l, _)| l.clone()).collect();
            if kept.len() == a.lits.len() {
                return None;
            }
            a = keep(&a, kept);
            rounds += 1;
            tracing::debug!("  {}down to {a}", "  ".repeat(depth));
        }
        None
    }

    /// The cube restricted to the literals at positions `core`, with those
    /// that keep `c` apart from the initial states when the restriction
    /// alone meets them.
    pub(super) fn reduce(&mut self, c: &Cube, core: &[usize]) -> Cube {
        let mut lits: Vec<Term> = core.iter().map(|&i| c.lits[i].clone()).collect();
        let g = keep(c, lits.clone());
        if matches!(self.q.initial(&g), Ok(Some(_))) {
            return g;
        }
        match self.q.initial(c) {
            Ok(Some(init)) => {
                for i in init {
                    if !lits.contains(&c.lits[i]) {
                        lits.push(c.lits[i].clone());
                    }
                }
                keep(c, lits)
            }
            _ => c.clone(),
        }
    }

    /// Drops literals of `g` one at a time while the cube stays apart from
    /// the initial states and relatively inductive with respect to frame
    /// `base` (with counterexamples to generalisation blocked there when
    /// `ctg`).
    fn mic(&mut self, mut g: Cube, base: usize, ctg: bool) -> Cube {
        let mut tried: HashSet<Term> = HashSet::default();
        while let Some(lit) = self.order(&g).into_iter().find(|l| !tried.contains(l)) {
            if self.limit().is_some() {
                break;
            }
            tried.insert(lit.clone());
            let h = keep(&g, g.lits.iter().filter(|l| **l != lit).cloned().collect());
            if h.lits.is_empty() || !matches!(self.q.initial(&h), Ok(Some(_))) {
                continue;
            }
            let mut ctgs = 0;
            loop {
                match self.q.relative(&frame(&self.frames, base), &h, true) {
                    Relative::Blocked(_) => {
                        g = h;
                        break;
                    }
                    Relative::Predecessor(p, _, _) if ctg && ctgs < MAX_CTG && base >= 1 && self.block_ctg(&p, base) => ctgs += 1,
                    _ => break,
                }
            }
        }
        g
    }

    /// Blocks a counterexample to generalisation at `level` when it is
    /// blocked there already by relative induction (its lemma: the core,
    /// minimised without further CTGs); whether it was.
    fn block_ctg(&mut self, p: &Cube, level: usize) -> bool {
        if !matches!(self.q.initial(p), Ok(Some(_))) {
            return false;
        }
        match self.q.relative(&frame(&self.frames, level - 1), p, true) {
            Relative::Blocked(core) => {
                let g = self.reduce(p, &core);
                let g = self.mic(g, level - 1, false);
                self.stats.ctgs += 1;
                self.learn(g, level);
                true
            }
            _ => false,
        }
    }

    /// The literals of `g` in the order they are tried for dropping:
    /// literals about counters and sizes alone; ties of quantified
    /// variables to ground terms; comparisons of quantified variables with
    /// numerals (so that bounds by program variables stay, which is what
    /// makes a lemma about a range); other ground literals; the rest;
    /// location literals last.
    fn order(&self, g: &Cube) -> Vec<Term> {
        let mut lits = g.lits.clone();
        lits.sort_by_key(|l| self.rank(l, &g.vars));
        lits
    }

    /// The rank of a literal of a cube over `vars` in [`Search::order`].
    fn rank(&self, l: &Term, vars: &[Term]) -> usize {
        let with_var = vars.iter().any(|v| occurs(v, l));
        if is_location(l) {
            5
        } else if !with_var && self.opts.terms.iter().any(|t| occurs(t, l)) {
            0
        } else if with_var && is_binding(l, vars) {
            1
        } else if with_var && is_numeric_bound(l, vars) {
            2
        } else if !with_var {
            3
        } else {
            4
        }
    }

    /// The level a new lemma holds at: pushed from `level` while it stays
    /// relatively inductive, up to the last frame.
    pub(super) fn learn(&mut self, g: Cube, mut level: usize) {
        while level < self.k && self.limit().is_none() {
            match self.q.relative(&frame(&self.frames, level), &g, true) {
                Relative::Blocked(_) => level += 1,
                _ => break,
            }
        }
        tracing::debug!("lemma at level {level}: ¬({g})");
        if self.frames.add(g, level) {
            self.stats.lemmas += 1;
        }
    }
}

/// The cube's array literals with every index replaced by one placeholder:
/// what they say, wherever they say it.
fn templates(c: &Cube) -> HashSet<Term> {
    let mut out = HashSet::default();
    for l in &c.lits {
        let reads = crate::logic::collect(l, &|t: &Term| matches!(t.op(), Op::Select));
        if reads.is_empty() {
            continue;
        }
        let map: crate::HashMap<Term, Term> = reads
            .into_iter()
            .map(|r| {
                let hole: Vec<Term> = r.args()[1..].iter().map(|i| Term::var("?", i.sort().clone())).collect();
                let t = Term::select(&r.args()[0], &hole);
                (r, t)
            })
            .collect();
        out.insert(crate::logic::substitute(l, &map));
    }
    out
}

/// Whether a literal compares a cube variable with a numeral (`z ≤ 0`).
fn is_numeric_bound(l: &Term, vars: &[Term]) -> bool {
    let atom = if matches!(l.op(), Op::Not) { &l.args()[0] } else { l };
    matches!(atom.op(), Op::Lt | Op::Le | Op::Eq) && {
        let (a, b) = (&atom.args()[0], &atom.args()[1]);
        (vars.contains(a) && b.as_int().is_some()) || (vars.contains(b) && a.as_int().is_some())
    }
}

/// Whether a literal ties a cube variable to a term without cube
/// variables (`z = i`).
fn is_binding(l: &Term, vars: &[Term]) -> bool {
    matches!(l.op(), Op::Eq) && {
        let (a, b) = (&l.args()[0], &l.args()[1]);
        let ground = |t: &Term| !vars.iter().any(|v| occurs(v, t));
        (vars.contains(a) && ground(b)) || (vars.contains(b) && ground(a))
    }
}
