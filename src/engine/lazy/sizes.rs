//! Symbolic sizes for lazy abstraction: large literals (loop bounds,
//! array sizes) made rigid symbolic constants, so that a proof for every
//! size, instantiated, is a candidate proof of the program as written.

use crate::logic::{collect, Op, Sort, Term};
use crate::reach::dataflow::is_type_bound;
use crate::system::System;

/// Symbolic sizes: the system with every large integer literal (a loop
/// bound or array size such as `100000`) replaced by a rigid symbolic
/// constant, literals close to one (`99999`) by that constant plus an
/// offset, and the constants with their values. The generalised system has
/// the original as the instance where each constant takes its value, so an
/// invariant of it, with the values put back, is a candidate invariant of
/// the original (which the certifier checks). `None` when there are no such
/// literals. Type-range
/// bounds (±2⁷, 2⁸, 2¹⁵, 2¹⁶, 2³¹ and beyond) are left alone.
pub fn symbolic_constants(sys: &System) -> Option<(System, Vec<(Term, i64)>)> {
    use crate::HashMap;
    use std::collections::BTreeSet;
    let mut values: BTreeSet<i64> = BTreeSet::new();
    let mut visit = |t: &Term| {
        for l in collect(t, &|x: &Term| matches!(x.op(), Op::Int(_))) {
            let v = l.as_int().unwrap();
            // type-range bounds of char, short and int stay as they are
            if v.abs() >= 100 && !is_type_bound(v) {
                values.insert(v);
            }
        }
    };
    for t in &sys.transitions {
        visit(&t.guard);
        t.updates.iter().for_each(|u| visit(&u.value));
    }
    for q in sys.initial.iter().chain(&sys.unsafe_).chain(&sys.axioms) {
        q.lits.iter().for_each(&mut visit);
    }
    if values.is_empty() {
        return None;
    }
    let mut bases: Vec<(Term, i64)> = vec![];
    let mut map: HashMap<Term, Term> = HashMap::default();
    for v in values.into_iter().rev() {
        let base = bases.iter().find(|(_, b)| (b - v).abs() <= 16).cloned();
        let (k, b) = base.unwrap_or_else(|| {
            let k = Term::var(&format!("K{}", v.to_string().replace('-', "m")), Sort::Int);
            bases.push((k.clone(), v));
            (k, v)
        });
        map.insert(Term::int(v), Term::add([k, Term::int(v - b)]));
    }
    let mut g = sys.clone();
    let sub = |t: &Term| crate::logic::substitute(t, &map);
    for t in &mut g.transitions {
        t.guard = sub(&t.guard);
        for u in &mut t.updates {
            u.value = sub(&u.value);
        }
    }
    for q in g.initial.iter_mut().chain(g.unsafe_.iter_mut()).chain(g.axioms.iter_mut()) {
        q.lits = q.lits.iter().map(sub).collect();
    }
    g.consts.extend(bases.iter().map(|(k, _)| k.clone()));
    Some((g, bases))
}
