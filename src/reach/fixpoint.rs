//! The fixpoint (covering) test: is a new cube `∃z̄.ψ` implied by the
//! disjunction of visited cubes `⋁ ∃ȳ.φ`? The negation of each visited cube
//! is instantiated on the injective maps of its variables into the new
//! cube's variables (sound; complete up to the instantiation). Cheap
//! syntactic reasoning comes first: maps are built one variable at a time
//! and abandoned as soon as an instantiated literal contradicts the new
//! cube's unit facts (that instance is irrelevant); an instance whose
//! literals all hold covers the new cube outright; only the remaining
//! instances reach the solver. A visited cube's conditions on other
//! processes are matched syntactically: the new cube must state them too.

use crate::logic::{occurs, replace, substitute, substitute_pairs, Op, Sort, Term};
use crate::system::cube::{other, resolve_distinct, Cube};
use crate::{HashMap, HashSet};

/// The new cube's facts, for evaluating instances of visited cubes.
pub struct Facts {
    /// Unit definitions `t ↦ value` (a literal value or a cube variable).
    defs: HashMap<Term, Term>,
    /// The literals themselves.
    lits: HashSet<Term>,
    /// The cube's variables (pairwise distinct).
    vars: HashSet<Term>,
    /// The cube's variables in order.
    order: Vec<Term>,
    /// For each variable `z`, the literals mentioning only `z`, with `z`
    /// replaced by the placeholder (so a template literal is looked up
    /// without building its instance).
    unary_lits: Vec<HashSet<Term>>,
    /// For each variable `z`, the definitions of terms mentioning only `z`, as templates.
    unary_defs: Vec<HashMap<Term, Term>>,
}

/// The placeholder standing for "the variable being matched" in templates.
fn hole(sort: &Sort) -> Term {
    Term::var("?", sort.clone())
}

impl Facts {
    /// The facts of a cube.
    pub fn of(cube: &Cube) -> Facts {
        let vars: HashSet<Term> = cube.vars.iter().cloned().collect();
        let mut defs = HashMap::default();
        for l in &cube.lits {
            match l.op() {
                Op::Eq => {
                    let (a, b) = (&l.args()[0], &l.args()[1]);
                    if b.is_value() || vars.contains(b) {
                        defs.insert(a.clone(), b.clone());
                    } else if a.is_value() || vars.contains(a) {
                        defs.insert(b.clone(), a.clone());
                    }
                }
                Op::Not if *l.args()[0].sort() == Sort::Bool && matches!(l.args()[0].op(), Op::Var(_) | Op::Select) => {
                    defs.insert(l.args()[0].clone(), Term::ff());
                }
                Op::Var(_) | Op::Select => {
                    defs.insert(l.clone(), Term::tt());
                }
                _ => {}
            }
        }
        let sort = cube.vars.first().map(|v| v.sort().clone()).unwrap_or(Sort::Index);
        let h = hole(&sort);
        let mut unary_lits = vec![HashSet::default(); cube.arity()];
        let mut unary_defs = vec![HashMap::default(); cube.arity()];
        let only = |t: &Term| -> Option<usize> {
            let inside: Vec<usize> = (0..cube.arity()).filter(|&i| occurs(&cube.vars[i], t)).collect();
            (inside.len() == 1).then(|| inside[0])
        };
        for l in &cube.lits {
            if let Some(i) = only(l) {
                unary_lits[i].insert(replace(l, &cube.vars[i], &h));
            }
        }
        for (t, v) in &defs {
            if let Some(i) = only(t) {
                if v.is_value() || *v == cube.vars[i] || !occurs(&cube.vars[i], v) {
                    unary_defs[i].insert(replace(t, &cube.vars[i], &h), replace(v, &cube.vars[i], &h));
                }
            }
        }
        Facts { defs, lits: cube.lits.iter().cloned().collect(), vars, order: cube.vars.clone(), unary_lits, unary_defs }
    }

    /// The value of a template term when the placeholder is variable `i`.
    fn val_at(&self, t: &Term, i: usize, h: &Term) -> Option<Term> {
        if t == h {
            return Some(self.order[i].clone());
        }
        if t.is_value() || self.vars.contains(t) {
            return Some(t.clone());
        }
        if let Some(v) = self.unary_defs[i].get(t) {
            return Some(if v == h { self.order[i].clone() } else { v.clone() });
        }
        if !occurs(h, t) {
            return self.defs.get(t).cloned();
        }
        None
    }

    /// A template literal (one mentioning only the placeholder) under the
    /// facts, the placeholder standing for variable `i`.
    fn eval_unary(&self, lit: &Term, i: usize, h: &Term) -> (Option<bool>, Option<Term>) {
        let lits = &self.unary_lits[i];
        if lits.contains(lit) {
            return (Some(true), None);
        }
        let (pos, atom) = match lit.op() {
            Op::Not => (false, &lit.args()[0]),
            _ => (true, lit),
        };
        if lits.contains(atom) {
            return (Some(pos), None);
        }
        if !pos && lits.contains(&atom.not()) {
            return (Some(true), None);
        }
        let fast = match atom.op() {
            Op::Eq => match (self.val_at(&atom.args()[0], i, h), self.val_at(&atom.args()[1], i, h)) {
                (Some(a), Some(b)) => self.same(&a, &b),
                _ if simple(&atom.args()[0]) && simple(&atom.args()[1]) => return (None, None),
                _ => None,
            },
            Op::Var(_) | Op::Select if *atom.sort() == Sort::Bool => match self.unary_defs[i].get(atom) {
                Some(v) => v.as_bool(),
                None => return (None, None),
            },
            _ => None,
        };
        match fast {
            Some(b) => (Some(b == pos), None),
            None => {
                let (r, l) = self.eval(&replace(lit, h, &self.order[i]));
                (r, Some(l))
            }
        }
    }

    /// The known value of a term: itself if a value or cube variable, else its definition.
    fn val(&self, t: &Term) -> Option<Term> {
        if t.is_value() || self.vars.contains(t) {
            Some(t.clone())
        } else {
            self.defs.get(t).cloned()
        }
    }

    /// Whether two known values are equal (distinct cube variables differ;
    /// a variable and a literal are incomparable).
    fn same(&self, a: &Term, b: &Term) -> Option<bool> {
        if a == b {
            return Some(true);
        }
        if a.is_value() && b.is_value() {
            return Term::eq(a, b).as_bool();
        }
        if self.vars.contains(a) && self.vars.contains(b) {
            return Some(false);
        }
        None
    }

    /// A literal under the facts: `Some(true)` if implied syntactically,
    /// `Some(false)` if contradicted, else `None`; with the literal in the
    /// form to give the solver.
    pub fn eval(&self, lit: &Term) -> (Option<bool>, Term) {
        if let Some(b) = lit.as_bool() {
            return (Some(b), lit.clone());
        }
        if self.lits.contains(lit) {
            return (Some(true), lit.clone());
        }
        let (pos, atom) = match lit.op() {
            Op::Not => (false, &lit.args()[0]),
            _ => (true, lit),
        };
        if self.lits.contains(atom) {
            return (Some(pos), lit.clone());
        }
        if !pos && self.lits.contains(&atom.not()) {
            return (Some(true), lit.clone());
        }
        let fast = match atom.op() {
            Op::Eq => match (self.val(&atom.args()[0]), self.val(&atom.args()[1])) {
                (Some(a), Some(b)) => self.same(&a, &b),
                _ => None,
            },
            Op::Var(_) | Op::Select if *atom.sort() == Sort::Bool => self.defs.get(atom).and_then(|v| v.as_bool()),
            _ => None,
        };
        if let Some(b) = fast {
            return (Some(b == pos), lit.clone());
        }
        // general case: rewrite with the definitions
        let l = resolve_distinct(&substitute(lit, &self.defs), &self.vars);
        if let Some(b) = l.as_bool() {
            return (Some(b), l);
        }
        if self.lits.contains(&l) {
            return (Some(true), l);
        }
        if self.lits.contains(&l.not()) {
            return (Some(false), l);
        }
        (None, l)
    }
}

/// Whether the definitions decide everything about a term (a value, a
/// variable, or a read of a variable at variables).
fn simple(t: &Term) -> bool {
    match t.op() {
        Op::Var(_) | Op::Int(_) | Op::Bool(_) | Op::EnumConst(_) | Op::Real(..) => true,
        Op::Select => t.args().iter().all(|a| a.is_var()),
        _ => false,
    }
}

/// The outcome of matching one visited cube against a new one.
pub enum Match {
    /// Some instance is contained in the new cube: covered, no solver
    /// needed; the images of the old cube's variables.
    Subsumed(Vec<Term>),
    /// The instances that the solver must consider: images of the old
    /// cube's variables, and the conjunction of the literals not decided by
    /// the facts.
    Instances(Vec<(Vec<Term>, Term)>),
}

/// A visited cube prepared for matching: its literals grouped by the last
/// of its variables they mention (in variable order), ground ones first.
pub struct Pattern {
    /// The cube.
    pub cube: Cube,
    /// Literals mentioning no variable.
    ground: Vec<Term>,
    /// `unary[k]`: literals mentioning only `vars[k]`, as templates.
    unary: Vec<Vec<Term>>,
    /// `multi[k]`: literals whose last variable is `vars[k]` and that mention others too.
    multi: Vec<Vec<Term>>,
    /// The placeholder.
    hole: Term,
}

impl Pattern {
    /// Prepares a cube for matching.
    pub fn new(cube: Cube) -> Pattern {
        let mut ground = vec![];
        let mut unary = vec![vec![]; cube.arity()];
        let mut multi = vec![vec![]; cube.arity()];
        let hole = hole(&cube.vars.first().map(|v| v.sort().clone()).unwrap_or(Sort::Index));
        for l in &cube.lits {
            let inside: Vec<usize> = (0..cube.arity()).filter(|&k| occurs(&cube.vars[k], l)).collect();
            match inside.last() {
                Some(&k) => {
                    if inside.len() == 1 {
                        unary[k].push(replace(l, &cube.vars[k], &hole));
                    } else {
                        multi[k].push(l.clone());
                    }
                }
                None => ground.push(l.clone()),
            }
        }
        Pattern { cube, ground, unary, multi, hole }
    }
}

/// Matches visited cube `old` against the new cube: all instances of `old`
/// over injective maps into the new cube's variables, minus those the new
/// cube's facts contradict.
pub fn match_cube(old: &Pattern, new: &Cube, facts: &Facts) -> Match {
    let n = old.cube.arity();
    if n > new.arity() {
        return Match::Instances(vec![]);
    }
    let mut rest = vec![];
    for l in &old.ground {
        match facts.eval(l) {
            (Some(true), _) => {}
            (Some(false), _) => return Match::Instances(vec![]),
            (None, l2) => rest.push(l2),
        }
    }
    let mut out = vec![];
    let mut images: Vec<Term> = vec![];
    let mut used = vec![false; new.arity()];
    if let Some(images) = search(old, new, facts, 0, &mut images, &mut used, &mut rest, &mut out) {
        return Match::Subsumed(images);
    }
    Match::Instances(out)
}

/// Depth-first construction of the maps (`images`: those of `old`'s first
/// `k` variables); returns the images of a subsuming instance if one is
/// found.
#[allow(clippy::too_many_arguments)]
fn search(
    old: &Pattern,
    new: &Cube,
    facts: &Facts,
    k: usize,
    images: &mut Vec<Term>,
    used: &mut Vec<bool>,
    rest: &mut Vec<Term>,
    out: &mut Vec<(Vec<Term>, Term)>,
) -> Option<Vec<Term>> {
    if k == old.cube.arity() {
        let mark = rest.len();
        let found = if !others_hold(old, new, facts, images, used, rest) {
            None
        } else if rest.is_empty() {
            Some(images.clone())
        } else {
            out.push((images.clone(), Term::and(rest.iter().cloned())));
            None
        };
        rest.truncate(mark);
        return found;
    }
    for i in 0..new.arity() {
        if used[i] {
            continue;
        }
        let z = &new.vars[i];
        images.push(z.clone());
        let mark = rest.len();
        if instance_lits(old, facts, k, i, images, rest) {
            used[i] = true;
            let found = search(old, new, facts, k + 1, images, used, rest, out);
            used[i] = false;
            if found.is_some() {
                return found;
            }
        }
        images.pop();
        rest.truncate(mark);
    }
    None
}

/// The literals of `old` whose last variable is its `k`-th, mapped to the
/// new cube's `i`-th (`images`: the images of its first `k + 1`
/// variables), under the facts: false if one is contradicted, else the
/// undecided ones pushed on `rest`.
fn instance_lits(old: &Pattern, facts: &Facts, k: usize, i: usize, images: &[Term], rest: &mut Vec<Term>) -> bool {
    for l in &old.unary[k] {
        match facts.eval_unary(l, i, &old.hole) {
            (Some(true), _) => {}
            (Some(false), _) => return false,
            (None, l2) => rest.push(l2.unwrap_or_else(|| replace(l, &old.hole, &images[k]))),
        }
    }
    let vars = &old.cube.vars[..=k];
    for l in &old.multi[k] {
        match facts.eval(&substitute_pairs(l, vars, images)) {
            (Some(true), _) => {}
            (Some(false), _) => return false,
            (None, l2) => rest.push(l2),
        }
    }
    true
}

/// Whether the instance of `old` at `images` can hold of `new` as far as
/// `old`'s conditions on other processes go: each must be one of `new`'s
/// (then it holds of the processes `new` does not name), and at each of
/// `new`'s processes outside the instance it must not contradict the facts
/// (the undecided ones join `rest`, for the solver).
fn others_hold(old: &Pattern, new: &Cube, facts: &Facts, images: &[Term], used: &[bool], rest: &mut Vec<Term>) -> bool {
    let Some(at_outside) = others_outside(&old.cube, new, images, used) else { return false };
    for l in at_outside {
        match facts.eval(&l) {
            (Some(true), _) => {}
            (Some(false), _) => return false,
            (None, l) => rest.push(l),
        }
    }
    true
}

/// `old`'s conditions on other processes under the instance at `images`:
/// `None` if one is not among `new`'s, else their instances at `new`'s
/// processes outside the instance (`used` marks those inside).
fn others_outside(old: &Cube, new: &Cube, images: &[Term], used: &[bool]) -> Option<Vec<Term>> {
    if old.others.is_empty() {
        return Some(vec![]);
    }
    if !old.others.iter().all(|p| new.others.contains(&substitute_pairs(p, &old.vars, images))) {
        return None;
    }
    let mut from = old.vars.clone();
    from.push(other(old.vars.first().map(|v| v.sort()).unwrap_or(&Sort::Index)));
    let mut to = images.to_vec();
    let mut out = vec![];
    for z in new.vars.iter().enumerate().filter(|(i, _)| !used[*i]).map(|(_, z)| z) {
        to.truncate(images.len());
        to.push(z.clone());
        out.extend(old.others.iter().map(|p| substitute_pairs(p, &from, &to)));
    }
    Some(out)
}

/// Whether `old`'s conditions on other processes, in the instance at
/// `images` (`used` marks them among `new`'s variables), are among `new`'s
/// and among its literals at its processes outside the instance.
pub fn others_contained(old: &Cube, new: &Cube, images: &[Term], used: &[bool]) -> bool {
    others_outside(old, new, images, used).is_some_and(|ls| ls.iter().all(|l| new.lits.contains(l)))
}

/// Whether `old` syntactically subsumes `new` (some instance of `old`'s
/// literals is contained in `new`, so `new ⊨ old`): the images of `old`'s
/// variables in that instance.
pub fn subsumes(old: &Pattern, new: &Cube) -> Option<Vec<Term>> {
    if old.cube.arity() > new.arity() || old.cube.lits.len() > new.lits.len() {
        return None;
    }
    let lits: HashSet<&Term> = new.lits.iter().collect();
    if !old.ground.iter().all(|l| lits.contains(l)) {
        return None;
    }
    let mut used = vec![false; new.arity()];
    let mut images = vec![];
    subsume_rec(old, new, &lits, 0, &mut used, &mut images)
}

fn subsume_rec(old: &Pattern, new: &Cube, lits: &HashSet<&Term>, k: usize, used: &mut Vec<bool>, images: &mut Vec<Term>) -> Option<Vec<Term>> {
    if k == old.cube.arity() {
        // old's conditions on other processes: among new's, and among its
        // literals at new's processes outside the instance
        let contained = others_outside(&old.cube, new, images, used).is_some_and(|ls| ls.iter().all(|l| lits.contains(l)));
        return contained.then(|| images.clone());
    }
    let vars = &old.cube.vars[..=k];
    for i in 0..new.arity() {
        if used[i] {
            continue;
        }
        images.push(new.vars[i].clone());
        let ok = old.unary[k].iter().all(|l| lits.contains(&replace(l, &old.hole, &new.vars[i])))
            && old.multi[k].iter().all(|l| lits.contains(&substitute_pairs(l, vars, images)));
        if ok {
            used[i] = true;
            let r = subsume_rec(old, new, lits, k + 1, used, images);
            used[i] = false;
            if r.is_some() {
                return r;
            }
        }
        images.pop();
    }
    None
}
