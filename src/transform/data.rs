//! Data abstraction (Cubicle's abstract types): the state variables of
//! uninterpreted sorts whose values never decide a step — no guard,
//! universal guard or axiom reads them, nor any variable of another sort
//! they flow into — are left out, with the unsafe cubes and hints that
//! mention them. What is left, the *control part*, is exact: its reachable
//! states are the projections of the system's. It serves finite instances
//! (an oracle as small as the control graph), never a verdict.

use super::slice::{influencing, restrict, state_vars};
use crate::logic::{occurs, Sort, Term};
use crate::system::{Quantified, System};
use crate::HashSet;

/// The control part of `sys` and the data variables left out; `None` when
/// every variable may decide a step.
pub fn abstract_data(sys: &System) -> Option<(System, Vec<Term>)> {
    let control = control_vars(sys);
    let hidden: Vec<Term> = sys.vars.iter().map(|v| v.term.clone()).filter(|v| !control.contains(v)).collect();
    if hidden.is_empty() {
        return None;
    }
    let mut out = restrict(sys, &control);
    let sees = |q: &Quantified| !hidden.iter().any(|h| occurs(h, &q.body()));
    out.unsafe_.retain(sees);
    out.hints.retain(sees);
    // nondeterministic values only data read (`TempData := .`) are not chosen
    for t in &mut out.transitions {
        let used = |v: &Term| occurs(v, &t.guard) || t.uguard.as_ref().is_some_and(|(_, b)| occurs(v, b)) || t.updates.iter().any(|u| occurs(v, &u.value));
        let values = std::mem::take(&mut t.values);
        t.values = values.into_iter().filter(|v| used(v)).collect();
    }
    Some((out, hidden))
}

/// The state variables that may decide a step: those of sorts other than
/// uninterpreted ones, those guards, universal guards and axioms read, and
/// those whose values flow into them (by updates, or by initial literals
/// relating them).
fn control_vars(sys: &System) -> HashSet<Term> {
    let mut rel: HashSet<Term> = sys.vars.iter().filter(|v| !matches!(v.value_sort(), Sort::Uninterpreted(_))).map(|v| v.term.clone()).collect();
    for t in &sys.transitions {
        rel.extend(state_vars(sys, &t.guard));
        if let Some((_, b)) = &t.uguard {
            rel.extend(state_vars(sys, b));
        }
    }
    for q in &sys.axioms {
        rel.extend(state_vars(sys, &q.body()));
    }
    influencing(sys, rel)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::{parse_str, Format};

    fn model(name: &str) -> System {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models").join(name);
        parse_str(&std::fs::read_to_string(path).unwrap(), Format::Cubicle).unwrap().system
    }

    fn names(sys: &System) -> Vec<&str> {
        sys.vars.iter().map(|v| v.name()).collect()
    }

    /// The data (abstract type, never deciding a step) are left out with the
    /// unsafe cubes naming them and the fresh value only data read; the
    /// control stays, transitions keep their positions.
    #[test]
    fn data_that_decide_no_step_are_left_out() {
        let sys = model("abstract_data_directory.cub");
        let (control, hidden) = abstract_data(&sys).expect("the model has data");
        let hidden: Vec<&str> = hidden.iter().map(|h| h.var_name().unwrap()).collect();
        assert_eq!(hidden, ["Mem", "Curr", "Fresh", "WbData", "CData", "ChanData"]);
        assert_eq!(names(&control), ["Exclusive", "WbBusy", "Cache", "Chan", "Sharer"]);
        assert_eq!(control.unsafe_.len(), 1, "only the cube over the control stays");
        assert_eq!(control.transitions.len(), sys.transitions.len());
        let write = control.transitions.iter().find(|t| t.name == "write").unwrap();
        assert!(write.values.is_empty() && write.updates.is_empty(), "{write:?}");
        // the initial `Curr = Mem` relates data only: dropped with them
        assert!(control.initial.iter().all(|q| q.lits.iter().all(|l| !occurs(&sys.vars[sys.var("Mem").unwrap()].term, l))));
    }

    /// A guard reading data makes them control, with every variable whose
    /// value flows into them; enumerated values are never data.
    #[test]
    fn data_read_by_a_guard_are_control() {
        let src = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/abstract_data_directory.cub")).unwrap();
        let src = src.replace("requires { Cache[p] = S }", "requires { Cache[p] = S && CData[p] = Mem }");
        let sys = parse_str(&src, Format::Cubicle).unwrap().system;
        // CData ← ChanData ← Mem ← WbData ← CData, CData ← Fresh, and the
        // initial `Curr = Mem` relates Curr to them
        assert!(abstract_data(&sys).is_none());
        let src = src.replace("&& CData[p] = Mem", "&& WbData = Mem");
        let sys = parse_str(&src, Format::Cubicle).unwrap().system;
        // WbData ← CData ← ChanData ← Mem ← WbData, CData ← Fresh, Curr = Mem
        assert!(abstract_data(&sys).is_none());
        assert!(abstract_data(&model("directory_data.cub")).is_none(), "enumerated data decide nothing here, but are not abstract");
    }
}
