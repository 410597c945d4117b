//! Loop invariants in C for correctness witnesses: the certified
//! invariant restricted to a loop head, as far as C can say it.
//!
//! The invariant is a conjunction of clauses `∀z̄. ¬(cube)`. At a loop
//! head `L` a clause whose cube names another location holds trivially;
//! the others are written `!(l1 && l2 …)` when C can state them exactly:
//! no quantified variable (C has no quantifiers), only scalars in scope at
//! the loop keyword under their C names (no array cells: an out-of-bounds
//! read is undefined in C; no pointer components or allocations), no
//! unsigned variables of 32 bits or more (C's conversions would change the
//! comparison), integer literals, `+`, `-`, products by small literals,
//! `==`, `<`, `<=`, `!`, `&&`, `||`. Arithmetic is done in `long long`
//! (each variable cast), where the bounds above keep it from overflowing,
//! so the C value is the mathematical one. A clause outside this is left
//! out: the conjunction of the rest is implied by the certified invariant
//! (weaker, never stronger); with nothing left the invariant is `1`.
//! Functions inlined at several calls give one loop several locations:
//! their invariants are joined by `||`.

use crate::frontend::c::source_map::{Site, SourceMap};
use crate::logic::{Op, Term};
use crate::system::cube::Cube;
use crate::system::System;
use crate::HashMap;

/// Largest literal factor of a product written in C.
const MAX_FACTOR: i64 = 1 << 16;

/// Largest number of summands written in C.
const MAX_TERMS: usize = 16;

/// How C names the scalars at one location.
struct Names<'a> {
    sys: &'a System,
    map: &'a SourceMap,
    scope: HashMap<usize, &'a str>,
}

impl Names<'_> {
    /// The C name of a state variable that a C expression may use.
    fn var(&self, t: &Term) -> Option<(String, bool)> {
        let k = self.sys.vars.iter().position(|v| v.term == *t && !v.is_array)?;
        let name = self.scope.get(&k)?;
        let var = self.map.variables.get(k)?.as_ref()?;
        let (lo, hi) = var.range;
        if lo >= 0 && hi > i32::MAX as i64 {
            return None;
        }
        let wide = lo < i32::MIN as i64 || hi > i32::MAX as i64;
        Some((name.to_string(), wide))
    }

    /// An integer term in C (`None`: not expressible exactly); `arith`:
    /// inside arithmetic, where variables are cast to `long long`.
    fn int(&self, t: &Term, arith: bool) -> Option<String> {
        let a = t.args();
        match t.op() {
            Op::Int(n) => {
                if n.unsigned_abs() > i32::MAX as u64 {
                    return None;
                }
                Some(if *n < 0 { format!("({n})") } else { n.to_string() })
            }
            Op::Var(_) => {
                let (name, wide) = self.var(t)?;
                match (arith, wide) {
                    (false, _) => Some(name),
                    (true, false) => Some(format!("(long long){name}")),
                    (true, true) => None,
                }
            }
            Op::Add if a.len() <= MAX_TERMS => {
                let parts: Option<Vec<String>> = a.iter().map(|x| self.int(x, true)).collect();
                Some(format!("({})", parts?.join(" + ")))
            }
            Op::Neg => Some(format!("(-{})", self.int(&a[0], true)?)),
            Op::Mul if a.len() == 2 => {
                let (c, x) = match (a[0].as_int(), a[1].as_int()) {
                    (Some(c), _) => (c, &a[1]),
                    (_, Some(c)) => (c, &a[0]),
                    _ => return None,
                };
                if c.unsigned_abs() > MAX_FACTOR as u64 {
                    return None;
                }
                Some(format!("({c} * {})", self.int(x, true)?))
            }
            _ => None,
        }
    }

    /// A formula in C.
    fn formula(&self, t: &Term) -> Option<String> {
        let a = t.args();
        let cmp = |op: &str| Some(format!("{} {op} {}", self.int(&a[0], false)?, self.int(&a[1], false)?));
        match t.op() {
            Op::Bool(b) => Some(if *b { "1" } else { "0" }.to_string()),
            Op::Eq if a[0].sort().is_int_like() && a[0].sort().as_array().is_none() => cmp("=="),
            Op::Lt => cmp("<"),
            Op::Le => cmp("<="),
            Op::Not => Some(format!("!({})", self.formula(&a[0])?)),
            Op::And | Op::Or => {
                let parts: Option<Vec<String>> = a.iter().map(|x| self.formula(x).map(|s| format!("({s})"))).collect();
                Some(parts?.join(if matches!(t.op(), Op::And) { " && " } else { " || " }))
            }
            _ => None,
        }
    }
}

/// What a clause says at location `l`: `None` when it holds there
/// trivially or cannot be written; otherwise the C text (`0` for a clause
/// false there: the location is unreachable).
fn clause_at(c: &Cube, l: usize, pc: &Term, names: &Names) -> Option<String> {
    if !c.vars.is_empty() || !c.others.is_empty() {
        return None;
    }
    let mut lits = vec![];
    for lit in &c.lits {
        let free = crate::logic::free_vars(lit);
        if free.contains(pc) {
            if free.len() != 1 {
                return None;
            }
            match eval_pc(lit, pc, l)? {
                true => continue,
                false => return None,
            }
        }
        lits.push(names.formula(lit)?);
    }
    if lits.is_empty() {
        return Some("0".into());
    }
    if lits.len() == 1 {
        return Some(format!("!({})", lits[0]));
    }
    Some(format!("!({})", lits.iter().map(|s| format!("({s})")).collect::<Vec<_>>().join(" && ")))
}

/// The truth of a literal over `pc` alone at location `l`.
fn eval_pc(lit: &Term, pc: &Term, l: usize) -> Option<bool> {
    let a = lit.args();
    match lit.op() {
        Op::Not => eval_pc(&a[0], pc, l).map(|b| !b),
        Op::Eq if a[0] == *pc => Some(matches!(a[1].op(), Op::EnumConst(k) if *k as usize == l)),
        Op::Eq if a[1] == *pc => Some(matches!(a[0].op(), Op::EnumConst(k) if *k as usize == l)),
        Op::Or => {
            let vs: Option<Vec<bool>> = a.iter().map(|x| eval_pc(x, pc, l)).collect();
            vs.map(|v| v.into_iter().any(|b| b))
        }
        Op::And => {
            let vs: Option<Vec<bool>> = a.iter().map(|x| eval_pc(x, pc, l)).collect();
            vs.map(|v| v.into_iter().all(|b| b))
        }
        _ => None,
    }
}

/// The loop invariants of a certified invariant: one per loop statement
/// whose head is a location of the system, with its keyword's position
/// (see the module documentation for what is written).
pub fn loop_invariants(sys: &System, map: &SourceMap, invariant: &[Cube]) -> Vec<(Site, String)> {
    let pc = sys.vars.first().map(|v| v.term.clone());
    let mut by_site: Vec<(Site, Vec<String>)> = vec![];
    for (l, loc) in map.locations.iter().enumerate() {
        let Some(site) = &loc.loop_head else { continue };
        let names = Names { sys, map, scope: loc.scope.iter().map(|(n, v)| (*v, n.as_str())).collect() };
        let parts: Vec<String> = match &pc {
            Some(pc) => invariant.iter().filter_map(|c| clause_at(c, l, pc, &names)).collect(),
            None => vec![],
        };
        let text = if parts.iter().any(|p| p == "0") {
            "0".to_string()
        } else if parts.is_empty() {
            "1".to_string()
        } else {
            parts.join(" && ")
        };
        match by_site.iter_mut().find(|(s, _)| s == site) {
            Some((_, texts)) => texts.push(text),
            None => by_site.push((site.clone(), vec![text])),
        }
    }
    by_site
        .into_iter()
        .map(|(site, texts)| {
            let text = if texts.iter().any(|t| t == "1") {
                "1".to_string()
            } else if texts.len() == 1 {
                texts.into_iter().next().unwrap_or_default()
            } else {
                texts.iter().map(|t| format!("({t})")).collect::<Vec<_>>().join(" || ")
            };
            (site, text)
        })
        .collect()
}
