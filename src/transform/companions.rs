//! Acceleration of counter loops over processes (MCMT's accelerated
//! transitions). A transition whose second parameter `y` is the process a
//! counter of the first points to (`c[x] = y`), which moves only that
//! counter by one (`c[x] := c[x] + 1`), is one iteration of a loop "for
//! each process y from c[x] on, while P(y)". Its companion runs `k ≥ 1`
//! iterations at once: `∀j. c[x] ≤ j < c[x] + k → j ≠ x ∧ P(j)`, then
//! `c[x] := c[x] + k`. Transitions that differ only in `P` (`w[y]` or
//! `b[y]`) are one loop, with the disjunction of their `P`s.
//!
//! On its own a companion over-approximates (its range may hold numbers
//! no process has); with the range required to consist of processes
//! ([`Transition::checks`], enforced when a trace is replayed on an
//! instance with processes `0…n-1`) it is exactly `k` iterations. Searches
//! use the companions freely: invariants are certified against the
//! original transitions, and a trace through a companion is answered only
//! once it replays with every checked process present.

use crate::logic::{conjuncts, substitute, Op, Sort, Term};
use crate::system::{System, Transition, Update};
use crate::HashMap;

/// One loop iteration recognised in a transition, over the canonical
/// [`looping`] and [`checked`] processes: the counter, the guard's part
/// about the looping process alone, and the condition on the checked one.
struct Iteration {
    counter: usize,
    on_x: Vec<Term>,
    check: Term,
}

/// The process whose counter loops.
fn looping() -> Term {
    Term::var("x!loop", Sort::Int)
}

/// The process an iteration checks.
fn checked() -> Term {
    Term::var("j!loop", Sort::Int)
}

/// Recognises `t` as one iteration of a counter loop.
fn iteration(sys: &System, t: &Transition) -> Option<Iteration> {
    let [x0, y0] = t.params.as_slice() else { return None };
    if t.uguard.is_some() || !t.values.is_empty() || t.updates.len() != 1 || *x0.sort() != Sort::Int {
        return None;
    }
    let u = &t.updates[0];
    let c = &sys.vars[u.var];
    if !c.is_array || c.value_sort() != Sort::Int {
        return None;
    }
    let Op::Lambda(bound) = u.value.op() else { return None };
    let (x, j) = (looping(), checked());
    let canon: HashMap<Term, Term> = [(x0.clone(), x.clone()), (y0.clone(), j.clone()), (bound.first()?.clone(), j.clone())].into_iter().collect();
    let cx = Term::select(&c.term, std::slice::from_ref(&x));
    // the update: c[x] + 1 at x, c[j] elsewhere
    let body = substitute(&u.value.args()[0], &canon);
    let at_x = substitute(&body, &[(j.clone(), x.clone())].into_iter().collect());
    let away: HashMap<Term, Term> = [(Term::eq(&j, &x), Term::ff()), (Term::eq(&x, &j), Term::ff())].into_iter().collect();
    if at_x != Term::add([cx.clone(), Term::int(1)]) || substitute(&body, &away) != Term::select(&c.term, std::slice::from_ref(&j)) {
        return None;
    }
    let mut pointer = false;
    let (mut on_x, mut on_y) = (vec![], vec![]);
    for g in conjuncts(&substitute(&t.guard, &canon)) {
        if g == Term::eq(&cx, &j) || g == Term::eq(&j, &cx) {
            pointer = true;
        } else if crate::logic::occurs(&j, &g) {
            on_y.push(g);
        } else {
            on_x.push(g);
        }
    }
    if !pointer || on_x.iter().chain(&on_y).any(|g| crate::logic::occurs(&c.term, g)) {
        return None;
    }
    on_x.sort();
    Some(Iteration { counter: u.var, on_x, check: Term::and(on_y) })
}

/// The accelerated companions of the system's counter loops (none when
/// it has none).
pub fn companions(sys: &System) -> Vec<Transition> {
    let mut loops: Vec<(Iteration, Vec<String>)> = vec![];
    for t in &sys.transitions {
        let Some(it) = iteration(sys, t) else { continue };
        match loops.iter_mut().find(|(l, _)| l.counter == it.counter && l.on_x == it.on_x) {
            Some((l, names)) => {
                l.check = Term::or([l.check.clone(), it.check]);
                names.push(t.name.clone());
            }
            None => loops.push((it, vec![t.name.clone()])),
        }
    }
    let (x, j) = (looping(), checked());
    loops
        .into_iter()
        .map(|(l, names)| {
            let c = sys.vars[l.counter].term.clone();
            let cx = Term::select(&c, std::slice::from_ref(&x));
            let k = Term::var("k!loop", Sort::Int);
            let end = Term::add([cx.clone(), k.clone()]);
            let range = Term::and([Term::le(&cx, &j), Term::lt(&j, &end)]);
            let each = Term::and([Term::eq(&j, &x).not(), l.check]);
            let moved = Term::ite(&Term::eq(&j, &x), &end, &Term::select(&c, std::slice::from_ref(&j)));
            Transition {
                name: format!("{}*", names.join("|")),
                params: vec![x.clone()],
                values: vec![k.clone()],
                guard: Term::and(l.on_x.into_iter().chain([Term::le(&Term::int(1), &k)])),
                uguard: Some((j.clone(), Term::implies(&range, &each))),
                updates: vec![Update { var: l.counter, value: Term::lambda(std::slice::from_ref(&j), &moved) }],
                checks: Some((cx.clone(), end)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_counter_loop_gets_one_companion() {
        let src = ":smt (define-type loc (subrange 0 2))\n:index nat\n:local a loc\n:local w bool\n:local b bool\n:local c nat\n\
                   :initial\n:var x\n:cnj (= a[x] 0) (= c[x] 0)\n:unsafe\n:var z1\n:cnj (= a[z1] 2)\n\
                   :transition\n:var x\n:var y\n:var j\n:guard (= a[x] 1) (= c[x] y) (= w[y] true)\n:numcases 2\n:case (= x j)\n :val a[j]\n :val w[j]\n :val b[j]\n :val (+ c[x] 1)\n:case\n :val a[j]\n :val w[j]\n :val b[j]\n :val c[j]\n\
                   :transition\n:var x\n:var y\n:var j\n:guard (= a[x] 1) (= c[x] y) (= b[y] true)\n:numcases 2\n:case (= x j)\n :val a[j]\n :val w[j]\n :val b[j]\n :val (+ c[j] 1)\n:case\n :val a[j]\n :val w[j]\n :val b[j]\n :val c[j]\n";
        let parsed = crate::frontend::parse_str(src, crate::frontend::Format::Mcmt).unwrap();
        let cs = companions(&parsed.system);
        assert_eq!(cs.len(), 1, "{cs:?}");
        assert_eq!(cs[0].params.len(), 1);
        assert_eq!(cs[0].values.len(), 1);
        let (_, body) = cs[0].uguard.as_ref().unwrap();
        let text = body.to_string();
        assert!(text.contains("w[") || text.contains("(select w"), "{text}");
        assert!(text.contains("b[") || text.contains("(select b"), "{text}");
    }
}
