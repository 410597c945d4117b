//! Affine equalities guessed from sampled states (the linear relations of
//! dynamic invariant detection, and of Sharma et al.'s guess-and-check): at
//! each location, the affine hull of the sampled values of the program's
//! integer scalars and of the array cells it reads at literal indices
//! (`sum = 2·i`), and, for each array and each range `[lo, hi)` of the
//! templates, the affine hull of `(z, z², scalars, cells, other arrays at
//! z, a[z])` over the positions `z` of the range
//! (`∀z ∈ [0, i). a[z] = 2·z + 2`). Every equality of a hull holds in every
//! sampled state; those that fix a value (a scalar or cell in terms of the counters before it, an
//! array element in terms of the rest) become candidates, as the cubes of
//! the states violating them, and Houdini's fixpoint keeps the inductive
//! ones. No template fixes their coefficients: they are solved for.

use super::templates::{exact_at, range_ends, Atom, Vocabulary, Words};
use crate::exec::State;
use crate::logic::{collect, Op, Term};
use crate::system::cube::{zvar, Cube};

/// Sampled states per location that hulls are built from, at most.
pub(super) const HULL_LOOKS: u64 = 64;

/// Positions at each end of a range taken as points, in one of a
/// location's first sampled states, and in the later ones (which mostly
/// confirm what the first spanned).
const WINDOW: (i64, i64) = (8, 2);

/// The sampled states of a location with the wider window.
const FIRST_LOOKS: u64 = 8;

/// Points beyond those spanning a hull before its equalities are believed.
const EVIDENCE: usize = 3;

/// A coordinate of a hull: an atom of the templates, or the square of the
/// quantified variable.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Coord {
    Atom(Atom),
    Square,
}

/// The affine hull of integer points, kept as an origin and the echelon
/// rows of the directions from it; broken when a number overflowed. A
/// coordinate is wild when some state did not fix it (a cell no step has
/// written): no equality may speak of it.
#[derive(Clone, Debug, Default)]
struct Hull {
    origin: Option<Vec<i128>>,
    rows: Vec<Vec<i128>>,
    points: usize,
    broken: bool,
    wild: Vec<bool>,
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `v` divided by the gcd of its entries.
fn primitive(v: &mut [i128]) {
    let g = v.iter().fold(0, |g, x| gcd(g, *x));
    if g > 1 {
        v.iter_mut().for_each(|x| *x /= g);
    }
}

/// `a·v - b·r`, entry by entry, unless a number overflows.
fn combine(a: i128, v: &[i128], b: i128, r: &[i128]) -> Option<Vec<i128>> {
    v.iter().zip(r).map(|(x, y)| a.checked_mul(*x)?.checked_sub(b.checked_mul(*y)?)).collect()
}

fn pivot(r: &[i128]) -> usize {
    r.iter().position(|x| *x != 0).unwrap_or(r.len())
}

impl Hull {
    /// Whether no equality can fix coordinate `target` any more: the hull
    /// is the whole space, or the coordinate went wild.
    fn done(&self, dim: usize, target: usize) -> bool {
        self.broken || self.rows.len() >= dim || self.wild.get(target).copied().unwrap_or(false)
    }

    /// Adds a point whose coordinates are known (`Some`), or marks the
    /// unknown ones wild.
    fn add(&mut self, p: &[Option<i64>]) {
        if self.broken {
            return;
        }
        if p.iter().any(|x| x.is_none()) {
            self.wild.resize(p.len(), false);
            p.iter().zip(self.wild.iter_mut()).for_each(|(x, w)| *w |= x.is_none());
            return;
        }
        let p: Vec<i64> = p.iter().flatten().copied().collect();
        self.points += 1;
        let Some(o) = &self.origin else {
            self.origin = Some(p.iter().map(|x| *x as i128).collect());
            return;
        };
        let mut v: Vec<i128> = p.iter().zip(o).map(|(x, y)| *x as i128 - y).collect();
        for r in &self.rows {
            let k = pivot(r);
            if v[k] != 0 {
                match combine(r[k], &v, v[k], r) {
                    Some(w) => v = w,
                    None => return self.broken = true,
                }
                primitive(&mut v);
            }
        }
        if v.iter().any(|x| *x != 0) {
            let k = pivot(&v);
            let at = self.rows.iter().position(|r| pivot(r) > k).unwrap_or(self.rows.len());
            self.rows.insert(at, v);
        }
    }

    /// The equality fixing coordinate `f` in terms of those before it, as
    /// coefficients `c` and a constant `c0` with `Σ c·x = c0` (`c[f] > 0`),
    /// if the hull has one.
    fn equality(&self, f: usize) -> Option<(Vec<i128>, i128)> {
        let origin = self.origin.as_ref()?;
        if self.broken || self.points < self.rows.len() + 1 + EVIDENCE {
            return None;
        }
        // reduced echelon form
        let mut rows = self.rows.clone();
        for i in (0..rows.len()).rev() {
            let k = pivot(&rows[i]);
            for j in 0..i {
                if rows[j][k] != 0 {
                    rows[j] = combine(rows[i][k], &rows[j], rows[j][k], &rows[i])?;
                    primitive(&mut rows[j]);
                }
            }
        }
        if rows.iter().any(|r| pivot(r) == f) {
            return None;
        }
        // the equality with c[f] = l and the other free coordinates 0: each
        // row with pivot k then says r[k]·c[k] + r[f]·l = 0
        let l = rows.iter().filter(|r| r[f] != 0).try_fold(1i128, |l, r| {
            let p = r[pivot(r)].abs();
            l.checked_mul(p / gcd(l, p))
        })?;
        let mut c = vec![0i128; origin.len()];
        c[f] = l;
        for r in rows.iter().filter(|r| r[f] != 0) {
            let k = pivot(r);
            c[k] = (-r[f]).checked_mul(l / r[k])?;
        }
        primitive(&mut c);
        if c.iter().zip(&self.wild).any(|(c, w)| *c != 0 && *w) {
            return None;
        }
        let c0 = c.iter().zip(origin).try_fold(0i128, |s, (a, b)| s.checked_add(a.checked_mul(*b)?))?;
        Some((c, c0))
    }
}

/// The hulls of a program's sampled states: at each location, one over
/// the scalars and cells, and one per range and array.
pub(super) struct Hulls {
    /// The scalar coordinates: integer scalars (counters first), then cells
    /// at literal indices.
    scalars: Vec<Coord>,
    /// Ranges `[lo, hi)` of the templates.
    ranges: Vec<(Atom, Atom)>,
    /// One-dimensional integer arrays.
    arrays: Vec<usize>,
    /// The coordinates of each array's range hulls ([`Hulls::range_coords`]).
    coords: Vec<Vec<Coord>>,
    /// By location slot: the scalar hull, and the range hulls by range then
    /// array.
    at: Vec<(Hull, Vec<Hull>)>,
}

/// The value scalars that guards compare with index scalars (the bounds
/// of loops over arrays: `i < n`), as ends of ranges.
fn bounds(voc: &Vocabulary, w: &Words) -> Vec<usize> {
    let term = |s: usize| &voc.prog.scalar_terms[s];
    let mut out = vec![];
    for t in &voc.sys.transitions {
        for atom in collect(&t.guard, &|x: &Term| matches!(x.op(), Op::Lt | Op::Le)) {
            let vs = crate::logic::free_vars(&atom);
            if w.idx.iter().any(|&i| vs.contains(term(i))) {
                for &v in &w.values {
                    if vs.contains(term(v)) && !out.contains(&v) {
                        out.push(v);
                    }
                }
            }
        }
    }
    out
}

/// The cells the program reads or writes at literal indices.
fn literal_cells(voc: &Vocabulary, arrays: &[usize]) -> Vec<Atom> {
    let mut out = vec![];
    let terms = voc.sys.transitions.iter().flat_map(|t| std::iter::once(&t.guard).chain(t.updates.iter().map(|u| &u.value)));
    for t in terms.chain(voc.sys.unsafe_.iter().flat_map(|q| q.lits.iter())) {
        for s in collect(t, &|x: &Term| matches!(x.op(), Op::Select)) {
            let (Some(k), Some(&a)) = (s.args()[1].as_int(), arrays.iter().find(|&&a| voc.array(a) == s.args()[0])) else { continue };
            let cell = Atom::Cell(a, None, k);
            if k >= 0 && s.args().len() == 2 && !out.contains(&cell) {
                out.push(cell);
            }
        }
    }
    out
}

impl Hulls {
    /// Empty hulls for `places` location slots over the vocabulary.
    pub(super) fn new(voc: &Vocabulary, places: usize) -> Hulls {
        let w = Words::of(voc);
        let mut scalars: Vec<Coord> = w.idx.iter().chain(&w.values).map(|&s| Coord::Atom(Atom::Scalar(s, 0))).collect();
        scalars.extend(literal_cells(voc, &w.arrays).into_iter().map(Coord::Atom));
        let (los, mut his) = range_ends(&w);
        his.extend(bounds(voc, &w).into_iter().map(|s| Atom::Scalar(s, 0)));
        let ranges: Vec<(Atom, Atom)> = los.iter().flat_map(|&lo| his.iter().map(move |&hi| (lo, hi))).filter(|(lo, hi)| !same_end(*lo, *hi)).collect();
        let per_loc = (Hull::default(), vec![Hull::default(); ranges.len() * w.arrays.len()]);
        let coords = w.arrays.iter().map(|&a| range_coords(&scalars, &w.arrays, a)).collect();
        Hulls { scalars, ranges, arrays: w.arrays, coords, at: vec![per_loc; places] }
    }

    /// Adds the points of the `look`-th sampled state at location slot `at`.
    pub(super) fn look(&mut self, at: usize, st: &State, look: u64) {
        let window = if look <= FIRST_LOOKS { WINDOW.0 } else { WINDOW.1 };
        let Some((scalar, ranges)) = self.at.get_mut(at) else { return };
        scalar.add(&point(&self.scalars, st, 0));
        for (r, &(lo, hi)) in self.ranges.iter().enumerate() {
            let (Some(lo), Some(hi)) = (exact_at(lo, st, 0), exact_at(hi, st, 0)) else { continue };
            for (k, coords) in self.coords.iter().enumerate() {
                let hull = &mut ranges[r * self.arrays.len() + k];
                if hull.done(coords.len(), coords.len() - 1) {
                    continue;
                }
                let mid = lo.saturating_add(window).min(hi);
                for z in (lo..mid).chain(hi.saturating_sub(window).max(mid)..hi) {
                    hull.add(&point(coords, st, z));
                }
            }
        }
    }

    /// The candidates of the hulls as cubes, at location slot `k` for the
    /// location `loc(k)` (`None` without a control variable).
    pub(super) fn cubes(&self, voc: &Vocabulary, loc: &dyn Fn(usize) -> Option<i64>) -> Vec<Cube> {
        let z = zvar(0, &voc.sys.index_sort());
        let mut out = vec![];
        for (k, (scalar, ranges)) in self.at.iter().enumerate() {
            let mut at = vec![];
            if let (Some(l), Some(pc)) = (loc(k), voc.pc) {
                let v = &voc.prog.scalar_terms[pc];
                at.push(Term::eq(v, &Term::enum_const(v.sort().clone(), l)));
            }
            for f in 0..self.scalars.len() {
                if let Some(eq) = scalar.equality(f) {
                    out.extend(violations(voc, &self.scalars, f, eq, &at, None, &z));
                }
            }
            for (r, &range) in self.ranges.iter().enumerate() {
                for (j, coords) in self.coords.iter().enumerate() {
                    if let Some(eq) = ranges[r * self.arrays.len() + j].equality(coords.len() - 1) {
                        out.extend(violations(voc, coords, coords.len() - 1, eq, &at, Some(range), &z));
                    }
                }
            }
        }
        out
    }
}

/// The coordinates of the hulls of array `a` over a range: the position
/// and its square, the scalar coordinates, the other arrays there, `a`
/// there last.
fn range_coords(scalars: &[Coord], arrays: &[usize], a: usize) -> Vec<Coord> {
    let mut cs = vec![Coord::Atom(Atom::Index(0)), Coord::Square];
    cs.extend(scalars.iter().copied());
    cs.extend(arrays.iter().filter(|&&b| b != a).map(|&b| Coord::Atom(Atom::Z(b))));
    cs.push(Coord::Atom(Atom::Z(a)));
    cs
}

/// Whether a range's ends are the same scalar, or literals in the wrong order.
fn same_end(lo: Atom, hi: Atom) -> bool {
    match (lo, hi) {
        (Atom::Scalar(a, _), Atom::Scalar(b, _)) => a == b,
        (Atom::Num(a), Atom::Num(b)) => a >= b,
        _ => false,
    }
}

/// The values of the coordinates in a state at position `z` (`None` for
/// one not fixed there).
fn point(coords: &[Coord], st: &State, z: i64) -> Vec<Option<i64>> {
    coords
        .iter()
        .map(|c| match c {
            Coord::Square => z.checked_mul(z),
            Coord::Atom(a) => exact_at(*a, st, z),
        })
        .collect()
}

/// The cubes of the states violating `Σ c·x = c0`, written as the fixed
/// coordinate `f` on the left, the rest on the right (at the location
/// literals `at`, over a range when given).
fn violations(voc: &Vocabulary, coords: &[Coord], f: usize, (c, c0): (Vec<i128>, i128), at: &[Term], range: Option<(Atom, Atom)>, z: &Term) -> Vec<Cube> {
    let num = |x: i128| i64::try_from(x).ok().map(Term::int);
    let term = |coord: &Coord| match coord {
        Coord::Square => Term::mul([z.clone(), z.clone()]),
        Coord::Atom(a) => voc.term(*a, z, z),
    };
    let Some(kf) = num(c[f]) else { return vec![] };
    let lhs = Term::mul([kf, term(&coords[f])]);
    let mut rhs = vec![];
    for (k, (coord, ck)) in coords.iter().zip(&c).enumerate() {
        if *ck == 0 || k == f {
            continue;
        }
        let Some(m) = num(-*ck) else { return vec![] };
        rhs.push(Term::mul([m, term(coord)]));
    }
    let Some(c0) = num(c0) else { return vec![] };
    rhs.push(c0);
    let mut lits = at.to_vec();
    let mut vars = vec![];
    if let Some((lo, hi)) = range {
        lits.push(Term::le(&voc.term(lo, z, z), z));
        lits.push(Term::lt(z, &voc.term(hi, z, z)));
        vars.push(z.clone());
    }
    lits.push(Term::eq(&lhs, &Term::add(rhs)).not());
    Cube::normalize(&vars, &lits)
}

#[cfg(test)]
mod tests {
    use super::Hull;

    fn hull(points: &[&[Option<i64>]]) -> Hull {
        let mut h = Hull::default();
        for p in points {
            h.add(p);
        }
        h
    }

    #[test]
    fn a_total_in_terms_of_its_counter() {
        // (i, n, total) with total = 3·i, n varying
        let pts: Vec<Vec<Option<i64>>> = (0..8).map(|k| vec![Some(k), Some(10 + k % 3), Some(3 * k)]).collect();
        let h = hull(&pts.iter().map(|p| p.as_slice()).collect::<Vec<_>>());
        // total - 3·i = 0
        assert_eq!(h.equality(2), Some((vec![-3, 0, 1], 0)));
        // n is free of the others: nothing fixes it
        assert_eq!(h.equality(1), None);
    }

    #[test]
    fn too_few_points_or_a_wild_coordinate_give_nothing() {
        let few = hull(&[&[Some(0), Some(1)], &[Some(1), Some(3)]]);
        assert_eq!(few.equality(1), None);
        let mut pts: Vec<Vec<Option<i64>>> = (0..8).map(|k| vec![Some(k), Some(2 * k + 1)]).collect();
        let h = hull(&pts.iter().map(|p| p.as_slice()).collect::<Vec<_>>());
        assert_eq!(h.equality(1), Some((vec![-2, 1], 1)));
        pts.push(vec![Some(9), None]);
        let h = hull(&pts.iter().map(|p| p.as_slice()).collect::<Vec<_>>());
        assert_eq!(h.equality(1), None);
    }

    #[test]
    fn overflow_breaks_the_hull() {
        let big = i64::MAX / 2;
        let pts: Vec<Vec<Option<i64>>> = (0..6).map(|k| vec![Some(k * big), Some(-k * big + k), Some(k)]).collect();
        let h = hull(&pts.iter().map(|p| p.as_slice()).collect::<Vec<_>>());
        // whatever it says must be exact: either nothing or a true equality
        if let Some((c, c0)) = h.equality(2) {
            for p in &pts {
                let s: i128 = c.iter().zip(p).map(|(a, b)| a * b.unwrap() as i128).sum();
                assert_eq!(s, c0);
            }
        }
    }
}
