//! The visited cubes of backward search, indexed for the syntactic
//! covering test (Cubicle's cube trie, by literal shapes): is some visited
//! cube, under an injective renaming of its variables, contained in a new
//! cube?
//!
//! Each literal has a *shape*, the literal with its cube variables replaced
//! by a hole (the sides of an equality ordered as the term constructors
//! order them, which renaming does not change), and the cube variables in
//! the order the shape mentions them. A visited literal matches a new
//! literal of the same shape whose variables are its own under the
//! renaming; renamings are built in fixed arrays, no term is built. A
//! visited `x ≠ v` also holds where the new cube has `x = w`, `w` another
//! value (or another process), as in Cubicle's `trivial_is_implied`.
//! Literals whose shape cannot tell the order of their variables (an
//! equality of two sides of one shape, a conjunction or a binder inside)
//! are checked by their instance once the renaming is complete.
//!
//! Each visited cube is filed under one shape a new cube must show to be
//! covered by it, the one least often met in new cubes so far: a new cube
//! looks only at the cubes filed under its own shapes, and among those
//! only at the ones whose needed shapes it shows (a bit mask).

use crate::logic::{substitute_pairs, Op, Term};
use crate::reach::fixpoint::{others_contained, subsumes, Pattern};
use crate::system::cube::Cube;
use crate::HashMap;
use std::rc::Rc;

/// Cubes naming more processes are not indexed.
const MAX_VARS: usize = 32;
/// No image yet.
const UNSET: u8 = u8::MAX;

/// A set of shapes, by their numbers modulo 256.
#[derive(Clone, Copy, Default)]
struct Mask([u64; 4]);

impl Mask {
    fn add(&mut self, shape: u32) {
        self.0[(shape as usize >> 6) & 3] |= 1 << (shape & 63);
    }
    /// Whether every shape of `self` may be in `other`.
    fn within(&self, other: &Mask) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| a & !b == 0)
    }
}

/// What matching needs to know of a literal, computed once per literal.
struct Key {
    /// The shape's number.
    shape: u32,
    /// The cube variables, in the order the shape mentions them.
    occ: Vec<Term>,
    /// Whether the shape cannot tell the order of its variables.
    ambiguous: bool,
    /// For `x = w` and `x ≠ w`, `w` a value or a cube variable: the term `x`.
    side: Option<Side>,
}

/// The term `x` of a literal `x = w` or `x ≠ w`.
struct Side {
    /// Whether the literal is `x ≠ w`.
    neg: bool,
    /// The shape of `x`.
    shape: u32,
    /// The cube variables of `x`.
    occ: Vec<Term>,
    /// `w`.
    value: Term,
}

/// A value: a literal value, or the cube variable at a position.
#[derive(Clone)]
enum Val {
    Value(Term),
    Var(u8),
}

/// A literal of an encoded cube.
struct Item {
    shape: u32,
    /// Its variables: a range of [`Enc::occ`].
    occ: (u32, u32),
    lit: Term,
    ambiguous: bool,
    /// For `x ≠ w`: its side, in [`Enc::neqs`].
    neq: Option<u32>,
}

/// The term `x` of a literal `x = w` (a definition) or `x ≠ w`.
struct SideItem {
    shape: u32,
    occ: (u32, u32),
    val: Val,
}

/// A cube as matching sees it: variables as positions.
#[derive(Default)]
struct Enc {
    arity: usize,
    /// The literals, by shape.
    items: Vec<Item>,
    /// The terms the literals define (`x = w`), by shape.
    defs: Vec<SideItem>,
    /// The terms of the disequalities `x ≠ w`.
    neqs: Vec<SideItem>,
    /// The variables of the literals and sides, as positions.
    occ: Vec<u8>,
    /// The shapes of the literals.
    lits: Mask,
    /// For each literal, the shape another cube must show for it to hold
    /// there (its own, or for `x ≠ v` the shape of `x`).
    needs: Vec<u32>,
    /// The shapes this cube shows: its literals' and their sides'.
    shows: Vec<u32>,
    /// `needs` and `shows` as masks.
    need_mask: Mask,
    show_mask: Mask,
}

impl Enc {
    fn occ(&self, r: (u32, u32)) -> &[u8] {
        &self.occ[r.0 as usize..r.1 as usize]
    }

    /// Appends the positions of cube variables `ts` to `occ`: their range.
    fn push_occ(&mut self, cube: &Cube, ts: &[Term]) -> Option<(u32, u32)> {
        let start = self.occ.len() as u32;
        for t in ts {
            self.occ.push(position(cube, t)?);
        }
        Some((start, self.occ.len() as u32))
    }

    /// Adds literal `lit` of `cube`, with its key.
    fn push(&mut self, cube: &Cube, lit: &Term, k: &Key) -> Option<()> {
        let occ = self.push_occ(cube, &k.occ)?;
        let (mut neq, mut need) = (None, k.shape);
        self.shows.push(k.shape);
        self.lits.add(k.shape);
        if let Some(s) = &k.side {
            let val = if s.value.is_value() { Val::Value(s.value.clone()) } else { Val::Var(position(cube, &s.value)?) };
            let item = SideItem { shape: s.shape, occ: self.push_occ(cube, &s.occ)?, val };
            self.shows.push(s.shape);
            if s.neg {
                need = s.shape;
                neq = Some(self.neqs.len() as u32);
                self.neqs.push(item);
            } else {
                self.defs.push(item);
            }
        }
        self.needs.push(need);
        self.items.push(Item { shape: k.shape, occ, lit: lit.clone(), ambiguous: k.ambiguous, neq });
        Some(())
    }
}

/// The position of a cube variable among the cube's.
fn position(cube: &Cube, t: &Term) -> Option<u8> {
    cube.vars.iter().position(|v| v == t).map(|p| p as u8)
}

/// The items of a slice sorted by shape that have this shape.
fn with_shape<T>(v: &[T], shape: u32, of: impl Fn(&T) -> u32) -> &[T] {
    let lo = v.partition_point(|x| of(x) < shape);
    let hi = lo + v[lo..].partition_point(|x| of(x) == shape);
    &v[lo..hi]
}

/// A visited cube in the index.
struct Slot {
    node: usize,
    cube: Cube,
    /// `None`: not indexed (too many processes, or variables not its own).
    enc: Option<Enc>,
    live: bool,
    /// The shape it is filed under (`None`: checked for every new cube).
    filed: Option<u32>,
}

/// The index over visited cubes.
#[derive(Default)]
pub struct Index {
    keys: HashMap<Term, Rc<Key>>,
    shapes: HashMap<Term, u32>,
    /// Per shape: the number of new cubes that showed it.
    freq: Vec<u32>,
    /// Per shape: the visited cubes filed under it.
    filed: Vec<Vec<u32>>,
    /// Visited cubes filed under no shape.
    always: Vec<u32>,
    slots: Vec<Slot>,
}

/// Whether a term is a cube variable (`z1`, `z2`, …).
fn is_cube_var(t: &Term) -> bool {
    t.var_name().is_some_and(|n| n.len() > 1 && n.starts_with('z') && n[1..].bytes().all(|b| b.is_ascii_digit()))
}

/// The shape of `t` (built as is, not simplified), its cube variables
/// pushed on `occ`; `ambiguous` set when the shape cannot tell their order.
fn shape(t: &Term, occ: &mut Vec<Term>, ambiguous: &mut bool) -> Term {
    if is_cube_var(t) {
        occ.push(t.clone());
        return Term::var("?", t.sort().clone());
    }
    if t.args().is_empty() {
        return t.clone();
    }
    if matches!(t.op(), Op::And | Op::Or | Op::Forall(_) | Op::Exists(_) | Op::Lambda(_)) {
        *ambiguous = true;
    }
    let mut parts: Vec<(Term, Vec<Term>)> = t
        .args()
        .iter()
        .map(|a| {
            let mut o = vec![];
            (shape(a, &mut o, ambiguous), o)
        })
        .collect();
    if let Op::Eq = t.op() {
        // Term::eq orders its sides by creation, values last
        if parts[0].0 == parts[1].0 && !parts[0].1.is_empty() {
            *ambiguous = true;
        }
        parts.sort_by_key(|(s, _)| (s.is_value(), s.id()));
    }
    let mut args = Vec::with_capacity(parts.len());
    for (s, o) in parts {
        args.push(s);
        occ.extend(o);
    }
    Term::raw(t.op().clone(), args, t.sort().clone())
}

/// `(negated, x, w)` for a literal `x = w` or `x ≠ w` with `w` a value or a
/// cube variable (the fixpoint's facts take definitions the same way).
fn side_of(lit: &Term) -> Option<(bool, Term, Term)> {
    let (neg, atom) = match lit.op() {
        Op::Not => (true, &lit.args()[0]),
        _ => (false, lit),
    };
    if !matches!(atom.op(), Op::Eq) {
        return None;
    }
    let (a, b) = (&atom.args()[0], &atom.args()[1]);
    let target = |t: &Term| t.is_value() || is_cube_var(t);
    if target(b) {
        Some((neg, a.clone(), b.clone()))
    } else if target(a) {
        Some((neg, b.clone(), a.clone()))
    } else {
        None
    }
}

/// Whether two literal values differ (an integer and a real may be equal).
fn values_differ(a: &Term, b: &Term) -> bool {
    a != b
        && match (a.op(), b.op()) {
            (Op::Int(x), Op::Real(n, d)) | (Op::Real(n, d), Op::Int(x)) => *d != 1 || n != x,
            _ => true,
        }
}

impl Index {
    /// The number of a shape.
    fn shape_id(&mut self, s: Term) -> u32 {
        let next = self.shapes.len() as u32;
        let id = *self.shapes.entry(s).or_insert(next);
        if id == next {
            self.freq.push(0);
            self.filed.push(vec![]);
        }
        id
    }

    /// What matching needs to know of a literal.
    fn key(&mut self, lit: &Term) -> Rc<Key> {
        if let Some(k) = self.keys.get(lit) {
            return k.clone();
        }
        let (mut occ, mut ambiguous) = (vec![], false);
        let s = shape(lit, &mut occ, &mut ambiguous);
        let side = if ambiguous { None } else { side_of(lit).and_then(|(neg, x, w)| self.side(neg, &x, w)) };
        let k = Rc::new(Key { shape: self.shape_id(s), occ, ambiguous, side });
        self.keys.insert(lit.clone(), k.clone());
        k
    }

    fn side(&mut self, neg: bool, x: &Term, value: Term) -> Option<Side> {
        let (mut occ, mut ambiguous) = (vec![], false);
        let s = shape(x, &mut occ, &mut ambiguous);
        (!ambiguous).then(|| Side { neg, shape: self.shape_id(s), occ, value })
    }

    /// The cube as matching sees it (`None` when it cannot be indexed).
    fn encode(&mut self, cube: &Cube) -> Option<Enc> {
        if cube.arity() > MAX_VARS {
            return None;
        }
        let keys: Vec<Rc<Key>> = cube.lits.iter().map(|l| self.key(l)).collect();
        let mut enc = Enc { arity: cube.arity(), ..Enc::default() };
        for (lit, k) in cube.lits.iter().zip(&keys) {
            enc.push(cube, lit, k)?;
        }
        enc.items.sort_by_key(|i| i.shape);
        enc.defs.sort_by_key(|d| d.shape);
        enc.shows.sort_unstable();
        enc.shows.dedup();
        enc.needs.iter().for_each(|&s| enc.need_mask.add(s));
        enc.shows.iter().for_each(|&s| enc.show_mask.add(s));
        Some(enc)
    }

    /// Adds visited node `node` with its cube.
    pub fn insert(&mut self, node: usize, cube: &Cube) {
        let enc = self.encode(cube);
        let slot = self.slots.len() as u32;
        let filed = enc.as_ref().and_then(|e| e.needs.iter().copied().min_by_key(|&s| self.freq[s as usize]));
        match filed {
            Some(s) => self.filed[s as usize].push(slot),
            None => self.always.push(slot),
        }
        self.slots.push(Slot { node, cube: cube.clone(), enc, live: true, filed });
    }

    /// A visited cube some instance of which is contained in `cube`
    /// (literal by literal, or a disequality by a definition of another
    /// value): the node and the images of its variables.
    pub fn subsumer(&mut self, cube: &Cube) -> Option<(usize, Vec<Term>)> {
        let enc = self.encode(cube)?;
        for &s in &enc.shows {
            self.freq[s as usize] += 1;
        }
        let lists = enc.shows.iter().map(|&s| &self.filed[s as usize]).chain([&self.always]);
        for &k in lists.flatten() {
            let slot = &self.slots[k as usize];
            let Some(p) = &slot.enc else { continue };
            if p.arity > enc.arity || !p.need_mask.within(&enc.show_mask) {
                continue;
            }
            if let Some(images) = Matcher::new(p, &slot.cube, &enc, cube, true).run() {
                return Some((slot.node, images));
            }
        }
        None
    }

    /// Removes the visited cubes the new cube of `newp` subsumes
    /// ([`subsumes`]: literals contained, no facts): each node with the
    /// images of the new cube's variables among its own.
    pub fn remove_subsumed(&mut self, newp: &Pattern) -> Vec<(usize, Vec<Term>)> {
        let enc = self.encode(&newp.cube);
        let mut out = vec![];
        for k in 0..self.slots.len() {
            let slot = &self.slots[k];
            if !slot.live {
                continue;
            }
            let images = match (&enc, &slot.enc) {
                (Some(p), Some(t)) if p.arity > t.arity || p.items.len() > t.items.len() || !p.lits.within(&t.lits) => None,
                (Some(p), Some(t)) => Matcher::new(p, &newp.cube, t, &slot.cube, false).run(),
                _ => subsumes(newp, &slot.cube),
            };
            if let Some(images) = images {
                out.push((slot.node, images));
                self.remove(k);
            }
        }
        out
    }

    /// Removes visited node `node` (no longer a subsumer).
    pub fn withdraw(&mut self, node: usize) {
        if let Some(k) = self.slots.iter().position(|s| s.live && s.node == node) {
            self.remove(k);
        }
    }

    fn remove(&mut self, k: usize) {
        let slot = &mut self.slots[k];
        slot.live = false;
        let list = match slot.filed {
            Some(s) => &mut self.filed[s as usize],
            None => &mut self.always,
        };
        list.retain(|&x| x as usize != k);
    }
}

/// The search for a renaming of a pattern cube's variables under which its
/// literals are among a target cube's.
struct Matcher<'a> {
    p: &'a Enc,
    pcube: &'a Cube,
    t: &'a Enc,
    tcube: &'a Cube,
    /// Whether `x ≠ v` may hold by a definition `x = w`.
    neq: bool,
    /// The image of each pattern variable (a position in the target).
    sigma: [u8; MAX_VARS],
    /// The target variables that are images.
    used: [bool; MAX_VARS],
    /// The pattern variables bound, in order (for undoing).
    trail: Vec<u8>,
}

impl<'a> Matcher<'a> {
    fn new(p: &'a Enc, pcube: &'a Cube, t: &'a Enc, tcube: &'a Cube, neq: bool) -> Self {
        Matcher { p, pcube, t, tcube, neq, sigma: [UNSET; MAX_VARS], used: [false; MAX_VARS], trail: vec![] }
    }

    /// The images of the pattern's variables in a match, if there is one.
    fn run(mut self) -> Option<Vec<Term>> {
        self.items(0).then(|| self.images())
    }

    fn images(&self) -> Vec<Term> {
        (0..self.p.arity).map(|k| self.tcube.vars[self.sigma[k] as usize].clone()).collect()
    }

    /// Binds pattern variables `from` to target variables `to`, position by
    /// position; false on a conflict (the bindings made stay on the trail).
    fn bind(&mut self, from: &[u8], to: &[u8]) -> bool {
        if from.len() != to.len() {
            return false;
        }
        for (&a, &b) in from.iter().zip(to) {
            let (a, b) = (a as usize, b);
            if self.sigma[a] == UNSET {
                if self.used[b as usize] {
                    return false;
                }
                self.sigma[a] = b;
                self.used[b as usize] = true;
                self.trail.push(a as u8);
            } else if self.sigma[a] != b {
                return false;
            }
        }
        true
    }

    fn undo(&mut self, mark: usize) {
        while self.trail.len() > mark {
            let a = self.trail.pop().unwrap() as usize;
            self.used[self.sigma[a] as usize] = false;
            self.sigma[a] = UNSET;
        }
    }

    /// Matches the pattern's literals from the `j`-th on.
    fn items(&mut self, j: usize) -> bool {
        let (p, t) = (self.p, self.t);
        let Some(item) = p.items.get(j) else { return self.rest(0) };
        if item.ambiguous {
            return self.items(j + 1);
        }
        for cand in with_shape(&t.items, item.shape, |i| i.shape) {
            let mark = self.trail.len();
            if self.bind(p.occ(item.occ), t.occ(cand.occ)) && self.items(j + 1) {
                return true;
            }
            self.undo(mark);
        }
        let Some(n) = item.neq.filter(|_| self.neq) else { return false };
        let side = &p.neqs[n as usize];
        for def in with_shape(&t.defs, side.shape, |d| d.shape) {
            let mark = self.trail.len();
            if self.bind(p.occ(side.occ), t.occ(def.occ)) && self.differ(&side.val, &def.val) && self.items(j + 1) {
                return true;
            }
            self.undo(mark);
        }
        false
    }

    /// Whether a pattern value and a target value differ under the renaming.
    fn differ(&self, a: &Val, b: &Val) -> bool {
        match (a, b) {
            (Val::Value(x), Val::Value(y)) => values_differ(x, y),
            (Val::Var(i), Val::Var(j)) => self.sigma[*i as usize] != UNSET && self.sigma[*i as usize] != *j,
            _ => false,
        }
    }

    /// Gives the pattern variables no literal bound (from the `v`-th on)
    /// images, then checks the rest.
    fn rest(&mut self, v: usize) -> bool {
        if v == self.p.arity {
            return self.complete();
        }
        if self.sigma[v] != UNSET {
            return self.rest(v + 1);
        }
        for i in 0..self.t.arity {
            if !self.used[i] {
                self.sigma[v] = i as u8;
                self.used[i] = true;
                if self.rest(v + 1) {
                    return true;
                }
                self.used[i] = false;
            }
        }
        self.sigma[v] = UNSET;
        false
    }

    /// With every image chosen: the ambiguous literals' instances and the
    /// conditions on other processes.
    fn complete(&self) -> bool {
        let ambiguous = self.p.items.iter().any(|i| i.ambiguous);
        if !ambiguous && self.pcube.others.is_empty() {
            return true;
        }
        let images = self.images();
        let lits_hold = self.p.items.iter().filter(|i| i.ambiguous).all(|i| self.tcube.lits.contains(&substitute_pairs(&i.lit, &self.pcube.vars, &images)));
        lits_hold && others_contained(self.pcube, self.tcube, &images, &self.used[..self.t.arity])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::Sort;
    use crate::system::cube::zvar;

    fn sel(a: &Term, z: &Term) -> Term {
        Term::select(a, std::slice::from_ref(z))
    }

    #[test]
    fn finds_a_renamed_subset_and_a_disequality_by_a_definition() {
        let z: Vec<Term> = (0..3).map(|i| zvar(i, &Sort::Index)).collect();
        let a = Term::var("a", Sort::array(vec![Sort::Index], Sort::Int));
        let b = Term::var("b", Sort::array(vec![Sort::Index], Sort::Int));
        // visited: a[z1] = 1 ∧ b[z2] ≠ 2
        let old = Cube::plain(z[..2].to_vec(), vec![Term::eq(&sel(&a, &z[0]), &Term::int(1)), Term::eq(&sel(&b, &z[1]), &Term::int(2)).not()]);
        let mut index = Index::default();
        index.insert(7, &old);
        // new: a[z3] = 1 ∧ b[z1] = 5 ∧ a[z2] = 0
        let lits = vec![Term::eq(&sel(&a, &z[2]), &Term::int(1)), Term::eq(&sel(&b, &z[0]), &Term::int(5)), Term::eq(&sel(&a, &z[1]), &Term::int(0))];
        let new = Cube::plain(z.clone(), lits);
        assert_eq!(index.subsumer(&new), Some((7, vec![z[2].clone(), z[0].clone()])));
        // but b[z1] = 2 is not covered
        let lits = vec![Term::eq(&sel(&a, &z[2]), &Term::int(1)), Term::eq(&sel(&b, &z[0]), &Term::int(2))];
        assert_eq!(index.subsumer(&Cube::plain(z.clone(), lits)), None);
    }

    #[test]
    fn equalities_of_one_shape_are_matched_by_their_instance() {
        let z: Vec<Term> = (0..3).map(|i| zvar(i, &Sort::Index)).collect();
        let a = Term::var("a", Sort::array(vec![Sort::Index], Sort::Int));
        let old = Cube::plain(z[..2].to_vec(), vec![Term::eq(&sel(&a, &z[0]), &sel(&a, &z[1]))]);
        let new = Cube::plain(z.clone(), vec![Term::eq(&sel(&a, &z[2]), &sel(&a, &z[0]))]);
        let mut index = Index::default();
        index.insert(0, &old);
        let (node, images) = index.subsumer(&new).unwrap();
        assert_eq!(node, 0);
        let m: HashMap<Term, Term> = old.vars.iter().cloned().zip(images).collect();
        assert!(new.lits.contains(&crate::logic::substitute(&old.lits[0], &m)));
        // deletion: a cube with the same literal subsumes it
        let removed = index.remove_subsumed(&Pattern::new(Cube::plain(z[..2].to_vec(), vec![Term::eq(&sel(&a, &z[1]), &sel(&a, &z[0]))])));
        assert_eq!(removed.len(), 1);
        assert_eq!(index.subsumer(&new), None);
    }
}
