//! Large-block encoding: from the control-flow automaton to an
//! array-based system over integer indices.
//!
//! The cut points are the entry of `main`, the heads of loops (targets of
//! the back edges of a depth-first search, so also `goto` targets that
//! close a cycle), the error and the exit location, plus the joins where
//! merged terms would grow too large (see [`MAX_TERM_SIZE`]). The program counter
//! `pc` ranges over an enumeration of them (`l<line>`, `error`, `exit`).
//! From every cut point the loop-free code up to the next cut points is
//! executed symbolically, merging paths where they join: the path
//! condition of a join is the common part of the incoming ones and the
//! disjunction of the rest, and variables that differ get an `ite` on the
//! first incoming path's own condition. So there is one transition per
//! pair (cut point, next cut point), named `l12-l15`, whose guard is `pc =
//! l12` and the merged path condition, and whose updates give `pc`, the
//! changed scalars and the changed arrays (`λj. ite(j = i, v, a[j])`).
//! Nondeterministic inputs are the transition's existential `values`,
//! with their type's range in the guard.

use super::cfa::{Arith, Cfa, Cmp, InitFact, Instr, LExpr, LValue, NodeId, Out};
use super::source_map::{self, Failure, Input, Site, SourceMap};
use crate::logic::{free_vars, EnumDef, EnumValues, Sort, Term};
use crate::system::{IndexKind, Quantified, StateVar, System, Transition, Update};
use crate::{HashMap, HashSet};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::rc::Rc;

/// The successors of a node.
fn successors(out: &Out) -> Vec<NodeId> {
    match out {
        Out::Stop => vec![],
        Out::Goto(n) | Out::Do(_, n) => vec![*n],
        Out::Branch(_, t, f) => vec![*t, *f],
    }
}

/// The cut points in order: entry, loop heads (by line), error, exit.
fn cut_points(cfa: &Cfa) -> Vec<NodeId> {
    // iterative depth-first search; an edge to a node on the stack is a back edge
    let n = cfa.nodes.len();
    let mut state = vec![0u8; n]; // 0 new, 1 on the stack, 2 done
    let mut heads = HashSet::default();
    let mut stack = vec![(cfa.entry, 0usize)];
    state[cfa.entry] = 1;
    while let Some((node, k)) = stack.pop() {
        let succ = successors(&cfa.nodes[node].out);
        if k < succ.len() {
            stack.push((node, k + 1));
            let m = succ[k];
            match state[m] {
                0 => {
                    state[m] = 1;
                    stack.push((m, 0));
                }
                1 => {
                    heads.insert(m);
                }
                _ => {}
            }
        } else {
            state[node] = 2;
        }
    }
    let mut heads: Vec<NodeId> = heads.into_iter().filter(|h| ![cfa.entry, cfa.error, cfa.exit].contains(h)).collect();
    heads.sort_by_key(|h| (cfa.nodes[*h].line, *h));
    let mut out = vec![cfa.entry];
    out.extend(heads);
    out.extend([cfa.error, cfa.exit]);
    out
}

/// The automaton as regions see it: the cut points, and a rank per node
/// that orders the graph without the edges into the first cut points (a
/// topological order of an acyclic graph: every cycle passes a loop head).
/// Cut points added later only remove edges, so the order stays one.
struct Graph {
    is_cut: HashSet<NodeId>,
    rank: Vec<usize>,
}

impl Graph {
    fn new(cfa: &Cfa, is_cut: HashSet<NodeId>) -> Graph {
        let n = cfa.nodes.len();
        let mut post = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        for root in 0..n {
            if seen[root] {
                continue;
            }
            seen[root] = true;
            let mut stack = vec![(root, 0usize)];
            while let Some((v, k)) = stack.pop() {
                let succ = successors(&cfa.nodes[v].out);
                if k < succ.len() {
                    stack.push((v, k + 1));
                    let m = succ[k];
                    if !is_cut.contains(&m) && !seen[m] {
                        seen[m] = true;
                        stack.push((m, 0));
                    }
                } else {
                    post.push(v);
                }
            }
        }
        let mut rank = vec![0; n];
        for (k, v) in post.iter().rev().enumerate() {
            rank[*v] = k;
        }
        Graph { is_cut, rank }
    }
}

/// The reverse post-order of a depth-first search from `c` that stops at
/// cut points, as a rank per node; `None` when the search meets more than
/// [`MAX_REGION_NODES`] nodes (the region will be cut anyway).
fn local_order(nodes: &[super::cfa::Node], c: NodeId, is_cut: &HashSet<NodeId>) -> Option<HashMap<NodeId, usize>> {
    let mut post = vec![];
    let mut seen = HashSet::from_iter([c]);
    let mut stack = vec![(c, 0usize)];
    while let Some((n, k)) = stack.pop() {
        let succ = successors(&nodes[n].out);
        if k < succ.len() {
            stack.push((n, k + 1));
            let m = succ[k];
            if !is_cut.contains(&m) && seen.insert(m) {
                if seen.len() > MAX_REGION_NODES {
                    return None;
                }
                stack.push((m, 0));
            }
        } else {
            post.push(n);
        }
    }
    Some(post.iter().rev().enumerate().map(|(k, n)| (*n, k)).collect())
}

/// What executing a region gives: the state reaching each next cut point.
type Region = Vec<(NodeId, State)>;

/// A cut point's block: its region and the execution that computed it.
type Block<'c> = (NodeId, Region, Exec<'c>);

/// A symbolic state: the path condition (a list of conjuncts) and the
/// value of every program variable.
#[derive(Clone)]
struct State {
    conds: Vec<Term>,
    store: Vec<Term>,
}

impl State {
    fn assume(&mut self, c: Term) {
        match c.op() {
            crate::logic::Op::And => self.conds.extend(c.args().iter().cloned()),
            crate::logic::Op::Bool(true) => {}
            _ => self.conds.push(c),
        }
    }
    /// Whether assuming `c` makes the path condition syntactically
    /// contradictory (`c` false, or its negation already assumed).
    fn contradicts(&self, c: &Term) -> bool {
        if c.as_bool() == Some(false) {
            return true;
        }
        let parts = if matches!(c.op(), crate::logic::Op::And) { c.args() } else { std::slice::from_ref(c) };
        parts.iter().any(|p| {
            let n = p.not();
            p.as_bool() == Some(false) || self.conds.contains(&n)
        })
    }
}

/// Symbolic execution of the loop-free code after one cut point.
struct Exec<'c> {
    cfa: &'c Cfa,
    /// The program variables' symbols.
    vars: Vec<Term>,
    /// The bound index variables of array updates.
    js: Vec<Term>,
    /// The nondeterministic values created so far (for this cut point).
    values: Vec<Term>,
    /// Their range facts `lo <= v`, `v <= hi`.
    ranges: HashSet<Term>,
    taken: HashSet<String>,
    /// Whether the cut point is the entry (variables still hold their initial values).
    from_entry: bool,
    /// The variables the last instruction assigned.
    touched: Vec<usize>,
    /// The inputs created so far, with their calls and when they are taken.
    inputs: Vec<Input>,
    /// Conditions of the alternatives being evaluated (`&&`, `||`, `?:`).
    extra: Vec<Term>,
    /// The failing calls reached.
    failures: Vec<Failure>,
    /// The first and last source lines met.
    lines: (usize, usize),
}

impl<'c> Exec<'c> {
    /// A symbolic execution from cut point `c`, nothing created yet.
    fn new(cfa: &'c Cfa, vars: &[Term], js: &[Term], c: NodeId) -> Exec<'c> {
        Exec {
            cfa,
            vars: vars.to_vec(),
            js: js.to_vec(),
            values: vec![],
            ranges: HashSet::default(),
            taken: HashSet::default(),
            from_entry: c == cfa.entry,
            touched: vec![],
            inputs: vec![],
            extra: vec![],
            failures: vec![],
            lines: (cfa.nodes[c].line, cfa.nodes[c].line),
        }
    }

    fn fresh(&mut self, base: &str, lo: i64, hi: i64, s: &mut State, call: Option<(String, Site)>) -> Term {
        let mut name = base.to_string();
        let mut k = 2;
        while !self.taken.insert(name.clone()) {
            name = format!("{base}_{k}");
            k += 1;
        }
        let v = Term::var(&name, Sort::Int);
        self.values.push(v.clone());
        let when = Term::and(s.conds.iter().chain(&self.extra).cloned());
        self.inputs.push(Input { symbol: v.clone(), call, when, range: (lo, hi) });
        for fact in range_facts(&v, lo, hi) {
            self.ranges.insert(fact.clone());
            s.assume(fact);
        }
        v
    }

    /// `λj. ite(j = idx, v, a[j])`.
    fn write(&self, a: &Term, idx: &[Term], v: &Term) -> Term {
        let js = &self.js[..idx.len()];
        let hit = Term::and(js.iter().zip(idx).map(|(j, i)| Term::eq(j, i)));
        Term::lambda(js, &Term::ite(&hit, v, &Term::select(a, js)))
    }

    /// `ite(c, a, b)` for values of any sort (arrays pointwise).
    fn choose(&self, c: &Term, a: &Term, b: &Term) -> Term {
        if a == b {
            return a.clone();
        }
        match a.sort().as_array() {
            Some(s) => {
                let js = &self.js[..s.index.len()];
                Term::lambda(js, &Term::ite(c, &Term::select(a, js), &Term::select(b, js)))
            }
            None => Term::ite(c, a, b),
        }
    }

    /// Joins two states reaching the same node.
    fn merge(&self, a: State, b: State) -> State {
        let in_b: HashSet<&Term> = b.conds.iter().collect();
        let in_a: HashSet<&Term> = a.conds.iter().collect();
        let common: Vec<Term> = a.conds.iter().filter(|c| in_b.contains(c)).cloned().collect();
        let ra = Term::and(a.conds.iter().filter(|c| !in_b.contains(c)).cloned());
        let rb = Term::and(b.conds.iter().filter(|c| !in_a.contains(c)).cloned());
        let store = a.store.iter().zip(&b.store).map(|(x, y)| self.choose(&ra, x, y)).collect();
        let mut s = State { conds: common, store };
        s.assume(Term::or([ra, rb]));
        s
    }

    /// Evaluates two alternatives from `s` and joins them under `c`.
    fn branch(&mut self, s: &mut State, c: &Term, a: &LExpr, b: &LExpr, cur: Option<&Term>, as_bool: bool) -> Term {
        let (mut sa, mut sb) = (s.clone(), s.clone());
        self.extra.push(c.clone());
        let va = if as_bool { self.boolean(&mut sa, a, cur) } else { self.int(&mut sa, a, cur) };
        self.extra.pop();
        self.extra.push(c.not());
        let vb = if as_bool { self.boolean(&mut sb, b, cur) } else { self.int(&mut sb, b, cur) };
        self.extra.pop();
        let known: HashSet<Term> = s.conds.iter().cloned().collect();
        s.store = sa.store.iter().zip(&sb.store).map(|(x, y)| self.choose(c, x, y)).collect();
        // only range facts of fresh inputs are added while evaluating
        for t in sa.conds.into_iter().chain(sb.conds) {
            if !known.contains(&t) {
                s.conds.push(t);
            }
        }
        Term::ite(c, &va, &vb)
    }

    /// The truth value of an expression.
    fn boolean(&mut self, s: &mut State, e: &LExpr, cur: Option<&Term>) -> Term {
        match e {
            LExpr::Cmp(op, a, b) => {
                let (x, y) = (self.int(s, a, cur), self.int(s, b, cur));
                match op {
                    Cmp::Lt => Term::lt(&x, &y),
                    Cmp::Le => Term::le(&x, &y),
                    Cmp::Eq => Term::eq(&x, &y),
                    Cmp::Ne => Term::eq(&x, &y).not(),
                }
            }
            LExpr::Not(a) => self.boolean(s, a, cur).not(),
            LExpr::ToBool(a) => self.boolean(s, a, cur),
            LExpr::And(a, b) => {
                let x = self.boolean(s, a, cur);
                self.branch(s, &x, b, &LExpr::Const(0), cur, true)
            }
            LExpr::Or(a, b) => {
                let x = self.boolean(s, a, cur);
                self.branch(s, &x, &LExpr::Const(1), b, cur, true)
            }
            LExpr::Const(c) => Term::bool(*c != 0),
            _ => Term::eq(&self.int(s, e, cur), &Term::int(0)).not(),
        }
    }

    /// The integer value of an expression; side effects change `s`.
    fn int(&mut self, s: &mut State, e: &LExpr, cur: Option<&Term>) -> Term {
        match e {
            LExpr::Const(c) => Term::int(*c),
            LExpr::Scalar(v) => s.store[*v].clone(),
            LExpr::Current => cur.expect("a compound assignment's place").clone(),
            LExpr::Read(v, idx) => {
                let idx: Vec<Term> = idx.iter().map(|i| self.int(s, i, cur)).collect();
                Term::select(&s.store[*v], &idx)
            }
            LExpr::Nondet(lo, hi, k) => {
                let call = self.cfa.calls[*k].clone();
                self.fresh(&format!("nd!{}", call.1.line), *lo, *hi, s, Some(call))
            }
            LExpr::Neg(a) => self.int(s, a, cur).neg(),
            LExpr::Arith(op, a, b) => {
                let (x, y) = (self.int(s, a, cur), self.int(s, b, cur));
                match op {
                    Arith::Add => Term::add([x, y]),
                    Arith::Sub => Term::sub(&x, &y),
                    Arith::Mul => Term::mul([x, y]),
                    Arith::FloorDiv => Term::div(&x, &y),
                    Arith::EuclidRem => Term::modulo(&x, &y),
                    Arith::Div | Arith::Rem => c_division(*op == Arith::Div, &x, &y),
                }
            }
            LExpr::Bits(op, a, b) => {
                let (x, y) = (self.int(s, a, cur), self.int(s, b, cur));
                Term::bits(*op, &x, &y)
            }
            LExpr::Pow2(w, a) => {
                // 2^(k mod w) as a choice among the w powers
                let k = Term::modulo(&self.int(s, a, cur), &Term::int(*w as i64));
                (0..(*w).min(63) as i64)
                    .rev()
                    .fold(Term::int(1i64 << (*w).min(63).saturating_sub(1)), |acc, e| Term::ite(&Term::eq(&k, &Term::int(e)), &Term::int(1i64 << e), &acc))
            }
            LExpr::Wrap(bits, a) => Term::modulo(&self.int(s, a, cur), &Term::int(1i64 << bits)),
            LExpr::Ite(c, a, b) => {
                let c = self.boolean(s, c, cur);
                self.branch(s, &c, a, b, cur, false)
            }
            LExpr::Cmp(..) | LExpr::Not(_) | LExpr::ToBool(_) | LExpr::And(..) | LExpr::Or(..) => {
                let b = self.boolean(s, e, cur);
                Term::ite(&b, &Term::int(1), &Term::int(0))
            }
            LExpr::Assign { lv, value, post } => match lv {
                LValue::Scalar(v) => {
                    let old = s.store[*v].clone();
                    let new = self.int(s, value, Some(&old));
                    s.store[*v] = new.clone();
                    self.touched.push(*v);
                    if *post {
                        old
                    } else {
                        new
                    }
                }
                LValue::Elem(v, idx) => {
                    let idx: Vec<Term> = idx.iter().map(|i| self.int(s, i, cur)).collect();
                    // the old value only when it is needed (a read of a λ-term substitutes)
                    let old = (*post || uses_current(value)).then(|| Term::select(&s.store[*v], &idx));
                    let new = self.int(s, value, old.as_ref());
                    s.store[*v] = self.write(&s.store[*v], &idx, &new);
                    self.touched.push(*v);
                    match old {
                        Some(old) if *post => old,
                        _ => new,
                    }
                }
            },
        }
    }

    fn exec(&mut self, s: &mut State, i: &Instr) {
        match i {
            Instr::Eval(e) => {
                self.int(s, e, None);
            }
            Instr::Havoc(v) => {
                if !(self.from_entry && s.store[*v] == self.vars[*v]) {
                    let var = &self.cfa.vars[*v];
                    let (lo, hi) = var.range;
                    s.store[*v] = self.fresh(&format!("{}!", var.name), lo, hi, s, None);
                    self.touched.push(*v);
                }
            }
            Instr::InitArray(v, vals, size) => {
                let vals: Vec<Term> = vals.iter().map(|e| self.int(s, e, None)).collect();
                let j = &self.js[0];
                let old = Term::select(&s.store[*v], std::slice::from_ref(j));
                let mut body = match size {
                    Some(n) => {
                        let inside = Term::and([Term::le(&Term::int(0), j), Term::lt(j, &Term::int(*n))]);
                        Term::ite(&inside, &Term::int(0), &old)
                    }
                    None => old,
                };
                for (k, val) in vals.iter().enumerate().rev() {
                    body = Term::ite(&Term::eq(j, &Term::int(k as i64)), val, &body);
                }
                s.store[*v] = Term::lambda(std::slice::from_ref(j), &body);
                self.touched.push(*v);
            }
            Instr::Fill(v, prefix, value) => {
                let prefix: Vec<Term> = prefix.iter().map(|e| self.int(s, e, None)).collect();
                let value = self.int(s, value, None);
                let dims = self.cfa.vars[*v].dims;
                s.store[*v] = if dims == 0 {
                    value
                } else {
                    let js = &self.js[..dims];
                    let hit = Term::and(js.iter().zip(&prefix).map(|(j, p)| Term::eq(j, p)));
                    Term::lambda(js, &Term::ite(&hit, &value, &Term::select(&s.store[*v], js)))
                };
                self.touched.push(*v);
            }
        }
    }
}

/// The largest size (as a tree) of a merged term before the join becomes
/// a cut point of its own: sequences of branches would otherwise give
/// updates exponentially large when printed.
pub const MAX_TERM_SIZE: u64 = 4000;

/// The most nodes of the automaton one region covers before a node of it
/// becomes a cut point (long straight-line code is split into blocks of
/// bounded size, so lowering takes time linear in the program).
pub const MAX_REGION_NODES: usize = 3000;

/// The size of a term as a tree (saturating), memoised on its DAG.
fn tree_size(t: &Term, memo: &mut HashMap<Term, u64>) -> u64 {
    if let Some(n) = memo.get(t) {
        return *n;
    }
    let n = t.args().iter().fold(1u64, |acc, a| acc.saturating_add(tree_size(a, memo)));
    memo.insert(t.clone(), n);
    n
}

/// Lowers the automaton into a system (see the module documentation), with
/// its source map (the program file and data model left for the caller).
pub fn lower(cfa: &Cfa, deadline: Option<std::time::Instant>) -> Result<(System, SourceMap), crate::frontend::Diagnostic> {
    let vars: Vec<Term> = cfa
        .vars
        .iter()
        .map(|v| match v.dims {
            0 => Term::var(&v.name, Sort::Int),
            d => Term::var(&v.name, Sort::array(vec![Sort::Int; d], Sort::Int)),
        })
        .collect();
    let dims = cfa.vars.iter().map(|v| v.dims).max().unwrap_or(0).max(2);
    let js = bound_vars(&["j!", "k!"], "j", dims);
    let mut cuts = cut_points(cfa);
    let blocks = blocks(cfa, &mut cuts, &vars, &js, deadline)?;
    let locs = Locations::new(cfa, cuts);
    let mut sys = System { index: Some(IndexKind::Int), enums: vec![locs.def.clone()], ..System::default() };
    sys.vars.push(StateVar { term: locs.pc.clone(), is_array: false });
    for (t, v) in vars.iter().zip(&cfa.vars) {
        sys.vars.push(StateVar { term: t.clone(), is_array: v.dims > 0 });
    }
    sys.initial.extend(initial_states(cfa, &vars, Term::eq(&locs.pc, &locs.at(cfa.entry)), dims));
    sys.unsafe_.push(Quantified { vars: vec![], lits: vec![Term::eq(&locs.pc, &locs.at(cfa.error))] });
    let mut map = source_map(cfa, &locs);
    transitions(cfa, &vars, &locs, blocks, &mut sys, &mut map);
    Ok((sys, map))
}

/// Executes the region of every cut point but the error and the exit. A
/// join whose terms grow too large (or a node far into a long region)
/// becomes a cut point (added to `cuts` among the loop heads, which stay
/// ordered by line), and only the region that met it is computed again
/// (regions computed before may pass through the new cut point: their
/// transitions still stand for exactly their paths). The blocks come in
/// the order of `cuts`.
fn blocks<'c>(
    cfa: &'c Cfa,
    cuts: &mut Vec<NodeId>,
    vars: &[Term],
    js: &[Term],
    deadline: Option<std::time::Instant>,
) -> Result<Vec<Block<'c>>, crate::frontend::Diagnostic> {
    let mut g = Graph::new(cfa, cuts.iter().copied().collect());
    let mut todo: Vec<NodeId> = cuts.iter().rev().copied().filter(|c| *c != cfa.error && *c != cfa.exit).collect();
    let mut blocks: HashMap<NodeId, (Region, Exec)> = HashMap::default();
    let mut memo = HashMap::default();
    while let Some(c) = todo.pop() {
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            return Err(crate::frontend::Diagnostic::timeout());
        }
        let mut ex = Exec::new(cfa, vars, js, c);
        match ex.region(c, &g, &mut memo) {
            Ok(targets) => {
                blocks.insert(c, (targets, ex));
            }
            Err(join) => {
                g.is_cut.insert(join);
                let at = cuts.len() - 2;
                cuts.insert(at, join);
                todo.push(join);
                todo.push(c);
            }
        }
    }
    let inner = cuts.len() - 2;
    cuts[1..inner].sort_by_key(|h| (cfa.nodes[*h].line, *h));
    Ok(cuts.iter().filter_map(|c| blocks.remove(c).map(|(t, ex)| (*c, t, ex))).collect())
}

/// The `pc` enumeration: the cut points in order, their names (`l<line>`,
/// `error`, `exit`; a name met again numbered `_2`, `_3`, …) and the
/// program counter ranging over them.
struct Locations {
    cuts: Vec<NodeId>,
    names: Vec<String>,
    /// The position of each cut point in `cuts`.
    index: HashMap<NodeId, usize>,
    def: Rc<EnumDef>,
    pc: Term,
}

impl Locations {
    fn new(cfa: &Cfa, cuts: Vec<NodeId>) -> Locations {
        let mut names: Vec<String> = vec![];
        let mut used: HashMap<String, usize> = HashMap::default();
        for &c in &cuts {
            let base = if c == cfa.error {
                "error".to_string()
            } else if c == cfa.exit {
                "exit".to_string()
            } else {
                format!("l{}", cfa.nodes[c].line)
            };
            let k = used.entry(base.clone()).or_insert(0);
            *k += 1;
            names.push(if *k == 1 { base } else { format!("{base}_{k}") });
        }
        let def = Rc::new(EnumDef { name: "loc".into(), values: EnumValues::Names(names.iter().map(|n| n.as_str().into()).collect()) });
        let index = cuts.iter().enumerate().map(|(k, c)| (*c, k)).collect();
        let pc = Term::var("pc", Sort::Enum(def.clone()));
        Locations { cuts, names, index, def, pc }
    }

    /// The value of `pc` at cut point `c`.
    fn at(&self, c: NodeId) -> Term {
        Term::enum_const(Sort::Enum(self.def.clone()), self.index[&c] as i64)
    }
}

/// The initial states: `pc` at the entry (`at_entry`), the initial values
/// of scalars and of array cells (the others 0), the range facts of the
/// local scalars.
fn initial_states(cfa: &Cfa, vars: &[Term], at_entry: Term, dims: usize) -> Vec<Quantified> {
    let mut lits = vec![at_entry];
    let x = bound_vars(&["x!", "y!"], "x", dims);
    let mut quantified = vec![];
    for f in &cfa.initial {
        match f {
            InitFact::Scalar(v, c) => lits.push(Term::eq(&vars[*v], &Term::int(*c))),
            InitFact::Array(v, values) => {
                let xs = &x[..cfa.vars[*v].dims];
                let cell = Term::select(&vars[*v], xs);
                let mut qlits = vec![];
                for (k, c) in values.iter().enumerate() {
                    qlits.push(Term::or([Term::eq(&xs[0], &Term::int(k as i64)).not(), Term::eq(&cell, &Term::int(*c))]));
                }
                let listed = (0..values.len()).map(|k| Term::eq(&xs[0], &Term::int(k as i64)));
                qlits.push(Term::or(listed.chain([Term::eq(&cell, &Term::int(0))])));
                quantified.push(Quantified { vars: xs.to_vec(), lits: qlits });
            }
            InitFact::Cells(v, cells) => {
                let xs = &x[..cfa.vars[*v].dims];
                let cell = Term::select(&vars[*v], xs);
                let at = |idx: &[i64]| Term::and(xs.iter().zip(idx).map(|(x, k)| Term::eq(x, &Term::int(*k))));
                let mut qlits: Vec<Term> = cells.iter().map(|(idx, c)| Term::or([at(idx).not(), Term::eq(&cell, &Term::int(*c))])).collect();
                qlits.push(Term::or(cells.iter().map(|(idx, _)| at(idx)).chain([Term::eq(&cell, &Term::int(0))])));
                quantified.push(Quantified { vars: xs.to_vec(), lits: qlits });
            }
        }
    }
    for (i, v) in cfa.vars.iter().enumerate() {
        if v.dims == 0 && !v.global {
            lits.extend(range_facts(&vars[i], v.range.0, v.range.1));
        }
    }
    std::iter::once(Quantified { vars: vec![], lits }).chain(quantified).collect()
}

/// The source map's locations (with the loop heads' keywords and scopes)
/// and variables; the steps come with the transitions.
fn source_map(cfa: &Cfa, locs: &Locations) -> SourceMap {
    SourceMap {
        locations: locs
            .cuts
            .iter()
            .zip(&locs.names)
            .map(|(c, name)| {
                let head = cfa.heads.get(c);
                source_map::Location {
                    name: name.clone(),
                    line: cfa.nodes[*c].line,
                    loop_head: head.map(|h| h.0.clone()),
                    scope: head.map(|h| h.1.iter().map(|(n, v)| (n.clone(), v + 1)).collect()).unwrap_or_default(),
                }
            })
            .collect(),
        variables: std::iter::once(None)
            .chain(cfa.vars.iter().map(|v| Some(source_map::Variable { c_name: v.c_name.clone(), function: v.function.clone(), line: v.line, range: v.range })))
            .collect(),
        ..SourceMap::default()
    }
}

/// One transition per block and target (`l12-l15`), with its source-map
/// step: guarded by `pc` at the block's cut point and the path condition
/// (without the ranges of inputs nothing uses; none when that is false),
/// updating `pc` when it moves and the variables that changed (none into
/// the error or the exit), with the inputs that occur as its values.
fn transitions(cfa: &Cfa, vars: &[Term], locs: &Locations, blocks: Vec<Block>, sys: &mut System, map: &mut SourceMap) {
    for (c, targets, ex) in blocks {
        let ci = locs.index[&c];
        for (t, s) in targets {
            let ti = locs.index[&t];
            let mut updates = vec![];
            if t != c {
                updates.push(Update { var: 0, value: locs.at(t) });
            }
            if t != cfa.error && t != cfa.exit {
                for (i, v) in s.store.iter().enumerate() {
                    if *v != vars[i] {
                        updates.push(Update { var: i + 1, value: v.clone() });
                    }
                }
            }
            let conds = drop_unused_inputs(s.conds, &updates, &ex.ranges);
            let guard = Term::and(std::iter::once(Term::eq(&locs.pc, &locs.at(c))).chain(conds));
            if guard.as_bool() == Some(false) {
                continue;
            }
            let mut occurring: HashSet<Term> = free_vars(&guard).into_iter().collect();
            for u in &updates {
                occurring.extend(free_vars(&u.value));
            }
            let values = ex.values.iter().filter(|v| occurring.contains(v)).cloned().collect();
            map.steps.push(source_map::Step {
                from: ci,
                to: ti,
                lines: ex.lines,
                inputs: ex.inputs.clone(),
                failures: if t == cfa.error { ex.failures.clone() } else { vec![] },
            });
            sys.transitions.push(Transition {
                name: format!("{}-{}", locs.names[ci], locs.names[ti]),
                params: vec![],
                values,
                guard,
                uguard: None,
                updates,
                checks: None,
            });
        }
    }
}

/// Integer variables `names[0]`, `names[1]`, then `{more}3!`, `{more}4!`, …
/// up to `n` of them (the bound variables of arrays of `n` dimensions).
fn bound_vars(names: &[&str], more: &str, n: usize) -> Vec<Term> {
    (0..n).map(|k| Term::var(&names.get(k).map_or(format!("{more}{}!", k + 1), |s| s.to_string()), Sort::Int)).collect()
}

/// `lo <= v` and `v <= hi`; a lower bound `-2^63` (of 64-bit types) is
/// left out, as arrax's terms do not negate that literal (the
/// over-approximation adds only values no replayed trace can take).
fn range_facts(v: &Term, lo: i64, hi: i64) -> Vec<Term> {
    let mut out = vec![Term::le(v, &Term::int(hi))];
    if lo != i64::MIN {
        out.insert(0, Term::le(&Term::int(lo), v));
    }
    out
}

/// C's division (truncating towards zero) or remainder (with the
/// dividend's sign) of `x` by `y`, from SMT-LIB's Euclidean `div` and `mod`
/// of their absolute values (a divisor 0 is undefined in C: the term's
/// value is then whatever `div` by 0 is).
fn c_division(quotient: bool, x: &Term, y: &Term) -> Term {
    let zero = Term::int(0);
    if let Some(c) = y.as_int() {
        let k = Term::int(c.abs());
        let nonneg = Term::le(&zero, x);
        if !quotient {
            return Term::ite(&nonneg, &Term::modulo(x, &k), &Term::modulo(&x.neg(), &k).neg());
        }
        let q = Term::ite(&nonneg, &Term::div(x, &k), &Term::div(&x.neg(), &k).neg());
        return if c < 0 { q.neg() } else { q };
    }
    let abs = |t: &Term| match t.as_int() {
        Some(c) => Term::int(c.abs()),
        None => Term::ite(&Term::le(&zero, t), t, &t.neg()),
    };
    let (x_nonneg, y_nonneg) = (Term::le(&zero, x), Term::le(&zero, y));
    let (ax, ay) = (abs(x), abs(y));
    if quotient {
        let q = Term::div(&ax, &ay);
        let same_sign = Term::or([Term::and([x_nonneg.clone(), y_nonneg.clone()]), Term::and([x_nonneg.not(), y_nonneg.not()])]);
        Term::ite(&same_sign, &q, &q.neg())
    } else {
        let r = Term::modulo(&ax, &ay);
        Term::ite(&x_nonneg, &r, &r.neg())
    }
}

/// Whether an expression reads the place being assigned ([`LExpr::Current`]).
fn uses_current(e: &LExpr) -> bool {
    match e {
        LExpr::Current => true,
        LExpr::Const(_) | LExpr::Scalar(_) | LExpr::Nondet(..) => false,
        LExpr::Read(_, idx) => idx.iter().any(uses_current),
        LExpr::Neg(a) | LExpr::Not(a) | LExpr::Wrap(_, a) | LExpr::ToBool(a) | LExpr::Pow2(_, a) => uses_current(a),
        LExpr::Arith(_, a, b) | LExpr::Cmp(_, a, b) | LExpr::And(a, b) | LExpr::Or(a, b) | LExpr::Bits(_, a, b) => uses_current(a) || uses_current(b),
        LExpr::Ite(a, b, c) => uses_current(a) || uses_current(b) || uses_current(c),
        LExpr::Assign { lv, value, .. } => uses_current(value) || matches!(lv, LValue::Elem(_, idx) if idx.iter().any(uses_current)),
    }
}

/// Drops the range facts of inputs that nothing else mentions (an
/// uninitialised variable overwritten before use): a value in range exists,
/// so they do not restrict the transition.
fn drop_unused_inputs(conds: Vec<Term>, updates: &[Update], ranges: &HashSet<Term>) -> Vec<Term> {
    let mut used: HashSet<Term> = updates.iter().flat_map(|u| free_vars(&u.value)).collect();
    for c in conds.iter().filter(|c| !ranges.contains(c)) {
        used.extend(free_vars(c));
    }
    conds.into_iter().filter(|c| !ranges.contains(c) || free_vars(c).iter().any(|v| used.contains(v))).collect()
}

impl Exec<'_> {
    /// Executes everything reachable from cut point `c` up to the next cut
    /// points; returns the state reaching each of them, in order of arrival,
    /// or a join node where the merged terms grow beyond [`MAX_TERM_SIZE`].
    fn region(&mut self, c: NodeId, g: &Graph, memo: &mut HashMap<Term, u64>) -> Result<Region, NodeId> {
        let cfa = self.cfa;
        let nodes = &cfa.nodes;
        let is_cut = &g.is_cut;
        // the region's nodes in topological order (cut points end it, so it
        // has no cycle): a depth-first search's when the region is small,
        // else the whole graph's
        let local = local_order(nodes, c, is_cut);
        let rank = |n: NodeId| local.as_ref().map_or(g.rank[n], |l| l[&n]);
        let mut queue = BinaryHeap::from([Reverse((rank(c), c))]);
        let start = State { conds: vec![], store: self.vars.clone() };
        let mut states: HashMap<NodeId, State> = HashMap::from_iter([(c, start)]);
        let mut targets: Vec<(NodeId, State)> = vec![];
        let mut k = 0;
        while let Some(Reverse((_, n))) = queue.pop() {
            let Some(s) = states.remove(&n) else { continue };
            k += 1;
            let line = nodes[n].line;
            self.lines = (self.lines.0.min(line), self.lines.1.max(line));
            if k > MAX_REGION_NODES {
                return Err(n);
            }
            let mut s = s;
            let outs: Vec<(NodeId, State)> = match &nodes[n].out {
                Out::Stop => vec![],
                Out::Goto(m) => vec![(*m, s)],
                Out::Do(i, m) => {
                    self.touched.clear();
                    self.exec(&mut s, i);
                    // straight-line code whose terms grow too large is cut too
                    if !is_cut.contains(m) && self.touched.iter().any(|v| tree_size(&s.store[*v], memo) > MAX_TERM_SIZE) {
                        return Err(*m);
                    }
                    vec![(*m, s)]
                }
                Out::Branch(e, t, f) => {
                    let cond = self.boolean(&mut s, e, None);
                    let mut out = vec![];
                    if !s.contradicts(&cond) {
                        let mut st = s.clone();
                        st.assume(cond.clone());
                        out.push((*t, st));
                    }
                    if !s.contradicts(&cond.not()) {
                        s.assume(cond.not());
                        out.push((*f, s));
                    }
                    out
                }
            };
            for (m, s2) in outs {
                if m == cfa.error {
                    if let Some(site) = cfa.failures.get(&n) {
                        self.failures.push(Failure { site: site.clone(), when: Term::and(s2.conds.iter().cloned()) });
                    }
                }
                let slot = if is_cut.contains(&m) {
                    match targets.iter().position(|(t, _)| *t == m) {
                        Some(k) => &mut targets[k].1,
                        None => {
                            targets.push((m, s2));
                            continue;
                        }
                    }
                } else {
                    match states.get_mut(&m) {
                        Some(old) => old,
                        None => {
                            states.insert(m, s2);
                            queue.push(Reverse((rank(m), m)));
                            continue;
                        }
                    }
                };
                let old = std::mem::replace(slot, State { conds: vec![], store: vec![] });
                *slot = self.merge(old, s2);
                if !is_cut.contains(&m) {
                    let size = slot.store.iter().chain(&slot.conds).map(|t| tree_size(t, memo)).max().unwrap_or(0);
                    if size > MAX_TERM_SIZE {
                        return Err(m);
                    }
                }
            }
        }
        Ok(targets)
    }
}
