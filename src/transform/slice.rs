//! Cone of influence: the state variables that can affect the unsafe
//! states (through guards, universal guards, updates of relevant variables,
//! and initial or axiom constraints shared with relevant variables). The
//! others are dropped before the search; answers are still checked against
//! the whole system.

use crate::logic::{free_vars, Term};
use crate::system::{Quantified, System};
use crate::HashSet;

/// The system without the state variables that cannot influence its unsafe
/// states, and the names of those dropped.
pub fn cone_of_influence(sys: &System) -> (System, Vec<String>) {
    let mut rel: HashSet<Term> = HashSet::default();
    for q in sys.unsafe_.iter().chain(&sys.hints) {
        rel.extend(state_vars(sys, &q.body()));
    }
    for t in &sys.transitions {
        rel.extend(state_vars(sys, &t.guard));
        if let Some((_, b)) = &t.uguard {
            rel.extend(state_vars(sys, b));
        }
    }
    let rel = influencing(sys, rel);
    let dropped: Vec<String> = sys.vars.iter().filter(|v| !rel.contains(&v.term)).map(|v| v.name().to_string()).collect();
    if dropped.is_empty() {
        return (sys.clone(), dropped);
    }
    (restrict(sys, &rel), dropped)
}

/// The state variables a term reads.
pub(crate) fn state_vars(sys: &System, t: &Term) -> Vec<Term> {
    free_vars(t).into_iter().filter(|v| sys.is_state_var(v)).collect()
}

/// `rel` with every state variable whose value can flow into one of its
/// variables: read by an update of one, or related to one by a literal of
/// the initial formula or an axiom.
pub(crate) fn influencing(sys: &System, mut rel: HashSet<Term>) -> HashSet<Term> {
    loop {
        let before = rel.len();
        for t in &sys.transitions {
            for u in &t.updates {
                if rel.contains(&sys.vars[u.var].term) {
                    rel.extend(state_vars(sys, &u.value));
                }
            }
        }
        for l in sys.initial.iter().chain(&sys.axioms).flat_map(|q| &q.lits) {
            let vs = state_vars(sys, l);
            if vs.iter().any(|v| rel.contains(v)) {
                rel.extend(vs);
            }
        }
        if rel.len() == before {
            return rel;
        }
    }
}

/// The system with only the state variables in `keep`: updates of the
/// others dropped, and the literals of initial and axiom formulas that
/// mention them (those of unsafe cubes and hints are left as they are).
pub(crate) fn restrict(sys: &System, keep: &HashSet<Term>) -> System {
    let is_var = |t: &Term| sys.is_state_var(t);
    let mut out = sys.clone();
    let kept: Vec<usize> = (0..sys.vars.len()).filter(|&i| keep.contains(&sys.vars[i].term)).collect();
    let new_index = |i: usize| kept.iter().position(|&k| k == i);
    out.vars = kept.iter().map(|&i| sys.vars[i].clone()).collect();
    for t in &mut out.transitions {
        t.updates = t.updates.iter().filter_map(|u| new_index(u.var).map(|v| crate::system::Update { var: v, value: u.value.clone() })).collect();
    }
    let mentions_dropped = |l: &Term| free_vars(l).iter().any(|v| is_var(v) && !keep.contains(v));
    let prune = |qs: &[Quantified]| -> Vec<Quantified> {
        qs.iter().map(|q| Quantified { vars: q.vars.clone(), lits: q.lits.iter().filter(|l| !mentions_dropped(l)).cloned().collect() }).collect()
    };
    out.initial = prune(&sys.initial);
    out.axioms = prune(&sys.axioms);
    out
}
