//! Process symmetry (Murϕ's scalarsets, Cubicle's symmetric processes):
//! when nothing in a system tells one process from another — no order on
//! processes, no process constant, no range of processes — permuting the
//! processes of a reachable state of a finite instance gives a reachable
//! state, and a cube holds on one exactly when it holds on the other under
//! the permuted assignment of its variables. The exploration then keeps one
//! state of each orbit (up to `n!` times fewer), recording which permutation
//! each kept state went through, so that paths are rebuilt in the frame of
//! the processes as they were.

use crate::logic::{collect, Op, Sort, Term};
use crate::system::System;

/// The permutations of an instance's processes and how they move cells.
pub struct Symmetry {
    /// The permutations, the identity first: `perms[k][p]` is `p`'s image.
    perms: Vec<Vec<i64>>,
    /// `compose[a][b]`: the index of `perms[a]` applied after `perms[b]`.
    compose: Vec<Vec<usize>>,
    /// `inverse[a]`: the index of `perms[a]`'s inverse.
    inverse: Vec<usize>,
    /// Per permutation, per cell: the cell its value goes to.
    dest: Vec<Vec<usize>>,
    /// Per cell: whether its value is a process (then permuted too).
    process_valued: Vec<bool>,
    /// The number of processes (a process-valued cell may hold this one more, outside the instance).
    procs: i64,
}

/// Whether nothing in `sys` tells processes apart: its indices are
/// processes (only compared for equality: no `<` between them), it has no
/// process constant or literal, and no step checks a range of processes.
pub fn symmetric(sys: &System) -> bool {
    if sys.index_sort() != Sort::Index || sys.consts.iter().any(|c| *c.sort() == Sort::Index) {
        return false;
    }
    let breaks = |t: &Term| {
        !collect(t, &|x: &Term| match x.op() {
            Op::Lt | Op::Le => x.args().iter().any(|a| *a.sort() == Sort::Index),
            Op::Int(_) => *x.sort() == Sort::Index,
            _ => false,
        })
        .is_empty()
    };
    let quantified = sys.initial.iter().chain(&sys.axioms).chain(&sys.unsafe_);
    !quantified.map(|q| q.body()).any(|b| breaks(&b))
        && sys.transitions.iter().all(|t| {
            t.checks.is_none() && !breaks(&t.guard) && !t.uguard.as_ref().is_some_and(|(_, b)| breaks(b)) && !t.updates.iter().any(|u| breaks(&u.value))
        })
}

impl Symmetry {
    /// The symmetry of an instance with `procs` processes whose cells are
    /// laid out by `slots` (per state variable: first cell, dimension, and
    /// whether its values are processes) within `width` cells (the cells
    /// after the variables' hold rigid constants, which no permutation moves).
    pub fn new(procs: usize, slots: &[(usize, usize, bool)], width: usize) -> Symmetry {
        let perms = permutations(procs);
        let at = |p: &[i64]| perms.iter().position(|q| q.as_slice() == p).expect("a permutation");
        let compose = perms.iter().map(|a| perms.iter().map(|b| at(&b.iter().map(|&x| a[x as usize]).collect::<Vec<i64>>())).collect()).collect();
        let inverse = perms
            .iter()
            .map(|a| {
                let mut inv = vec![0i64; procs];
                a.iter().enumerate().for_each(|(i, &x)| inv[x as usize] = i as i64);
                at(&inv)
            })
            .collect();
        let mut process_valued = vec![false; width];
        let dest = perms
            .iter()
            .map(|perm| {
                let mut dest: Vec<usize> = (0..width).collect();
                for &(base, dims, procs_valued) in slots {
                    for off in 0..procs.pow(dims as u32) {
                        process_valued[base + off] = procs_valued;
                        // the index tuple of cell `off`, permuted
                        let (mut rest, mut to, mut scale) = (off, 0, 1);
                        for _ in 0..dims {
                            to += perm[rest % procs] as usize * scale;
                            rest /= procs;
                            scale *= procs;
                        }
                        dest[base + off] = base + to;
                    }
                }
                dest
            })
            .collect();
        Symmetry { perms, compose, inverse, dest, process_valued, procs: procs as i64 }
    }

    /// The number of permutations.
    pub fn count(&self) -> usize {
        self.perms.len()
    }

    /// Writes `st` with its processes permuted by permutation `k` into `out`
    /// (open values and the process outside the instance stay).
    pub fn apply(&self, k: usize, st: &[i64], out: &mut [i64]) {
        let (perm, dest) = (&self.perms[k], &self.dest[k]);
        for (c, &v) in st.iter().enumerate() {
            out[dest[c]] = if self.process_valued[c] && (0..self.procs).contains(&v) { perm[v as usize] } else { v };
        }
    }

    /// The index of permutation `a` applied after `b`.
    pub fn then(&self, a: usize, b: usize) -> usize {
        self.compose[a][b]
    }

    /// The index of the inverse of permutation `a`.
    pub fn inverse(&self, a: usize) -> usize {
        self.inverse[a]
    }

    /// The image of process `p` under permutation `k`.
    pub fn image(&self, k: usize, p: i64) -> i64 {
        if (0..self.procs).contains(&p) {
            self.perms[k][p as usize]
        } else {
            p
        }
    }
}

/// Every permutation of `0..n`, the identity first.
fn permutations(n: usize) -> Vec<Vec<i64>> {
    let mut out = vec![(0..n as i64).collect::<Vec<i64>>()];
    let mut next = out[0].clone();
    // lexicographic successors
    loop {
        let Some(i) = (1..n).rev().find(|&i| next[i - 1] < next[i]) else { return out };
        let j = (i..n).rev().find(|&j| next[j] > next[i - 1]).unwrap();
        next.swap(i - 1, j);
        next[i..].reverse();
        out.push(next.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three processes: six permutations, composed and inverted like
    /// functions; a 2-dimensional array's cells move with both indices
    /// and process values are renamed.
    #[test]
    fn permutations_compose_and_move_cells() {
        // a scalar holding a process, then a 3×3 array of processes
        let s = Symmetry::new(3, &[(0, 0, true), (1, 2, true)], 10);
        assert_eq!(s.count(), 6);
        for a in 0..6 {
            assert_eq!(s.then(a, s.inverse(a)), 0);
            for b in 0..6 {
                for p in 0..3 {
                    assert_eq!(s.image(s.then(a, b), p), s.image(a, s.image(b, p)));
                }
            }
        }
        let st: Vec<i64> = vec![1, 0, 1, 2, 3, 1, 0, 2, 2, 1];
        let rot = (0..6).find(|&k| (0..3).all(|p| s.image(k, p) == (p + 1) % 3)).unwrap();
        let mut out = vec![0; 10];
        s.apply(rot, &st, &mut out);
        assert_eq!(out[0], 2, "the scalar's process renamed");
        // each index of a cell is renamed: (i, j) moves to (i+1, j+1)
        for i in 0..3 {
            for j in 0..3 {
                let v = st[1 + i + 3 * j];
                let w = out[1 + (i + 1) % 3 + 3 * ((j + 1) % 3)];
                assert_eq!(w, if (0..3).contains(&v) { (v + 1) % 3 } else { v });
            }
        }
    }
}
