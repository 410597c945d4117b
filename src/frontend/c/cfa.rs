//! The control-flow automaton of a C program: `main` with every called
//! function inlined, C objects as program variables ([`memory`]: regions,
//! places, pointers), C's integer conversions made explicit, and each
//! node's single way out (a jump, an instruction, a branch, or nothing).
//!
//! Expressions keep their side effects ([`LExpr::Assign`], nondeterministic
//! inputs); calls of program functions are lifted out of them (the body is
//! inlined before the expression, the call replaced by its result
//! variable). Everything the lowering cannot express exactly is reported
//! as `unsupported: …` at the construct. The automaton is built again while
//! a construction learns new facts ([`facts`]: constants of variables
//! assigned once, the objects pointers point into). Expressions are in
//! `cfa/value.rs` and `cfa/expr.rs`, declarations in `cfa/decl.rs`, calls
//! in `cfa/call.rs`.

use super::ast::*;
use super::source_map::Site;
use super::DataModel;
use crate::frontend::Diagnostic;
use crate::{HashMap, HashSet};
use std::time::Instant;

mod call;
mod decl;
mod expr;
pub mod facts;
mod memory;
mod value;

use expr::{as_const, assign, fold, is_pure, visit};
use facts::{Facts, LeafKey};
use memory::{Region, Val};

/// A node of the automaton.
pub type NodeId = usize;

/// A program variable (a state variable of the lowered system).
#[derive(Clone, Debug)]
pub struct Var {
    /// Its unique name.
    pub name: String,
    /// Number of array dimensions (0 for a scalar).
    pub dims: usize,
    /// Whether it is a global (zero-initialised) variable.
    pub global: bool,
    /// The value range of its C type (of the elements for arrays).
    pub range: (i64, i64),
    /// The leaf of a C object it stands for (facts are kept per leaf).
    pub key: Option<LeafKey>,
    /// Its C name (before renaming apart: `i`, `s.pos.x`, `p.offset`).
    pub c_name: String,
    /// The function declaring it (`None` for globals).
    pub function: Option<String>,
    /// The line of its declaration.
    pub line: usize,
}

/// Where an assignment stores.
#[derive(Clone, Debug)]
pub enum LValue {
    /// A scalar variable.
    Scalar(usize),
    /// An array element.
    Elem(usize, Vec<LExpr>),
}

/// Arithmetic operators of [`LExpr::Arith`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Arith {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// C division (truncating towards zero).
    Div,
    /// C remainder (with the dividend's sign).
    Rem,
    /// Floor division (`>>`, unsigned `/`: the divisor is positive, or the
    /// dividend non-negative).
    FloorDiv,
    /// Euclidean remainder (unsigned `%`).
    EuclidRem,
}

/// Comparison operators.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Cmp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

/// A resolved expression over mathematical integers, with side effects.
/// Truth values are integers (0 false, anything else true), as in C.
#[derive(Clone, Debug)]
pub enum LExpr {
    /// A constant.
    Const(i64),
    /// The current value of a scalar.
    Scalar(usize),
    /// An array element.
    Read(usize, Vec<LExpr>),
    /// An arbitrary value in `lo..=hi` (a `__VERIFIER_nondet_*` call: its
    /// position in [`Cfa::calls`]).
    Nondet(i64, i64, usize),
    /// `-e`.
    Neg(Box<LExpr>),
    /// Arithmetic.
    Arith(Arith, Box<LExpr>, Box<LExpr>),
    /// A comparison (1 or 0).
    Cmp(Cmp, Box<LExpr>, Box<LExpr>),
    /// `!e`.
    Not(Box<LExpr>),
    /// `a && b` (b evaluated only when a holds).
    And(Box<LExpr>, Box<LExpr>),
    /// `a || b`.
    Or(Box<LExpr>, Box<LExpr>),
    /// `c ? a : b`.
    Ite(Box<LExpr>, Box<LExpr>, Box<LExpr>),
    /// The value modulo `2^bits` (conversion to an unsigned type).
    Wrap(u32, Box<LExpr>),
    /// 1 if the value is non-zero, else 0 (conversion to `_Bool`).
    ToBool(Box<LExpr>),
    /// A bitwise operator on two's complement words of the C type.
    Bits(crate::logic::Bits, Box<LExpr>, Box<LExpr>),
    /// `2^(e mod w)`: the factor of a shift by `e` on a `w`-bit value (the
    /// amount taken modulo the width, as x86 processors do).
    Pow2(u32, Box<LExpr>),
    /// Stores a value; the expression's value is the new value, or the old
    /// one when `post` (`x++`). The value may read [`LExpr::Current`].
    Assign {
        /// Where.
        lv: LValue,
        /// The new value.
        value: Box<LExpr>,
        /// Whether the old value is the result.
        post: bool,
    },
    /// The value of the place being assigned (in compound assignments).
    Current,
}

/// An instruction on an edge.
#[derive(Clone, Debug)]
pub enum Instr {
    /// Evaluate for the side effects.
    Eval(LExpr),
    /// Give a scalar an arbitrary value of its type (an uninitialised declaration).
    Havoc(usize),
    /// Initialise a one-dimensional array: the listed values at 0, 1, …,
    /// zero up to the size (when known), the rest unchanged.
    InitArray(usize, Vec<LExpr>, Option<i64>),
    /// Set every cell whose indices start with the given ones to a value.
    Fill(usize, Vec<LExpr>, LExpr),
}

/// The way out of a node.
#[derive(Clone, Debug)]
pub enum Out {
    /// Not linked: dead code, or a sink such as the error location.
    Stop,
    /// Go on to the node.
    Goto(NodeId),
    /// Execute, then go on.
    Do(Instr, NodeId),
    /// Go to the first node if the value is non-zero, else to the second.
    Branch(LExpr, NodeId, NodeId),
}

/// A node: the source line it stands for and its way out.
#[derive(Clone, Debug)]
pub struct Node {
    /// The source line.
    pub line: usize,
    /// Its way out.
    pub out: Out,
}

/// What a variable starts with (besides its type's range).
#[derive(Clone, Debug)]
pub enum InitFact {
    /// A global scalar's initial value.
    Scalar(usize, i64),
    /// A global array: the listed values at 0, 1, …, zero elsewhere.
    Array(usize, Vec<i64>),
    /// A global array of any dimensions: the listed cells, zero elsewhere.
    Cells(usize, Vec<(Vec<i64>, i64)>),
}

/// The automaton of a whole program.
#[derive(Clone, Debug)]
pub struct Cfa {
    /// The program variables.
    pub vars: Vec<Var>,
    /// The nodes.
    pub nodes: Vec<Node>,
    /// Where `main` starts.
    pub entry: NodeId,
    /// The error location (a failed assertion, `reach_error()`).
    pub error: NodeId,
    /// The end of the run (end of `main`, `abort()`, `exit()`).
    pub exit: NodeId,
    /// Initial values of global variables.
    pub initial: Vec<InitFact>,
    /// The `__VERIFIER_nondet_*` calls: the function called and where.
    pub calls: Vec<(String, Site)>,
    /// The heads of loop statements: the keyword's position and the C
    /// scalars in scope there (C name, variable).
    pub heads: HashMap<NodeId, (Site, Vec<(String, usize)>)>,
    /// Nodes standing for a failing call (`reach_error()`, an assertion),
    /// each going on to [`Cfa::error`]: the call's position.
    pub failures: HashMap<NodeId, Site>,
}

/// Names the lowered system uses itself (or that its printer reserves):
/// program variables with these names are renamed.
fn reserved(name: &str) -> bool {
    const WORDS: &[&str] = &[
        "pc", "error", "exit", "loc", "and", "or", "not", "ite", "div", "mod", "select", "store", "forall", "exists", "lambda", "true", "false", "distinct",
        "implies", "Int", "Bool", "Real", "proc", "Array",
    ];
    let location_like = name.strip_prefix('l').is_some_and(|r| !r.is_empty() && r.split('_').all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit())));
    WORDS.contains(&name) || location_like
}

/// What a name stands for.
#[derive(Clone, Debug)]
enum Binding {
    /// A C object.
    Region(usize),
    /// A declared object of a type the lowering does not support.
    Unsupported(&'static str),
}

/// One inlined function activation.
struct Frame {
    name: String,
    /// The region of the result.
    ret: Option<usize>,
    ret_node: NodeId,
    scopes: Vec<HashMap<String, Binding>>,
    labels: HashMap<String, (NodeId, bool)>,
    /// Targets of `break` and `continue` (None: `continue` goes to the enclosing loop).
    jumps: Vec<(NodeId, Option<NodeId>)>,
    /// Cases of the enclosing `switch` statements.
    switches: Vec<Vec<(Option<i64>, NodeId)>>,
}

struct Builder<'a> {
    src: &'a str,
    tu: &'a TranslationUnit,
    /// Where each line starts (for the line of a position).
    line_starts: &'a [usize],
    deadline: Option<Instant>,
    /// Statements built so far (the deadline is checked every so often).
    steps: usize,
    model: DataModel,
    funcs: HashMap<&'a str, &'a Function>,
    declared: HashSet<&'a str>,
    globals: HashMap<String, Binding>,
    /// The regions of static locals, one per declaration (shared by every inlined call).
    statics: HashMap<*const Decl, Binding>,
    frames: Vec<Frame>,
    vars: Vec<Var>,
    names: HashSet<String>,
    /// The names taken, in order (undone after a dry run).
    name_log: Vec<String>,
    regions: Vec<Region>,
    nodes: Vec<Node>,
    cur: NodeId,
    line: usize,
    loop_depth: usize,
    error: NodeId,
    exit: NodeId,
    initial: Vec<InitFact>,
    /// What the previous construction learnt.
    facts: &'a Facts,
    /// Whether there was none.
    first_walk: bool,
    /// What this construction learns.
    facts_out: Facts,
    /// The first use of a pointer whose object this construction did not know.
    unknown: Option<Diagnostic>,
    /// Whether what is built is thrown away (`sizeof`, constant expressions).
    dry: bool,
    /// Whether a dry run met a pointer whose object is not known (its
    /// value is then not a constant).
    dry_unknown: bool,
    /// While a global's initialiser is read: the cells it sets (variable,
    /// indices, value) instead of instructions.
    recording: Option<Vec<(usize, Vec<i64>, i64)>>,
    /// The source map's parts (see [`Cfa`]).
    calls: Vec<(String, Site)>,
    heads: HashMap<NodeId, (Site, Vec<(String, usize)>)>,
    failures: HashMap<NodeId, Site>,
}

type R<T> = Result<T, Diagnostic>;

/// The most constructions of the automaton before its facts must settle.
const MAX_WALKS: usize = 6;

/// Builds the automaton of `main`, functions inlined: again while a
/// construction learns facts the previous one did not have.
pub fn build(src: &str, tu: &TranslationUnit, model: DataModel, deadline: Option<Instant>) -> R<Cfa> {
    let line_starts: Vec<usize> = std::iter::once(0).chain(src.match_indices('\n').map(|(k, _)| k + 1)).collect();
    let mut facts = Facts::default();
    for walk in 0..MAX_WALKS {
        let (cfa, learnt, unknown) = build_once(src, tu, model, deadline, &line_starts, &facts, walk == 0)?;
        if learnt == facts {
            if let Some(d) = unknown {
                return Err(d);
            }
            return Ok(cfa);
        }
        facts = learnt;
    }
    // an automaton built on facts its own walk did not confirm could be wrong
    Err(Diagnostic::new(1, 1, format!("unsupported: the facts about constants and pointers did not settle after {MAX_WALKS} constructions")))
}

type Built = (Cfa, Facts, Option<Diagnostic>);

/// One construction of the automaton with the facts of the previous one.
fn build_once(
    src: &str,
    tu: &TranslationUnit,
    model: DataModel,
    deadline: Option<Instant>,
    line_starts: &[usize],
    facts: &Facts,
    first_walk: bool,
) -> R<Built> {
    let mut b = Builder {
        src,
        tu,
        line_starts,
        deadline,
        steps: 0,
        model,
        funcs: HashMap::default(),
        declared: HashSet::default(),
        globals: HashMap::default(),
        statics: HashMap::default(),
        frames: vec![],
        vars: vec![],
        names: HashSet::default(),
        name_log: vec![],
        regions: vec![],
        nodes: vec![],
        cur: 0,
        line: 1,
        loop_depth: 0,
        error: 0,
        exit: 0,
        initial: vec![],
        facts,
        first_walk,
        facts_out: Facts::default(),
        unknown: None,
        dry: false,
        dry_unknown: false,
        recording: None,
        calls: vec![],
        heads: HashMap::default(),
        failures: HashMap::default(),
    };
    b.error = b.new_node(1);
    b.exit = b.new_node(1);
    for item in &tu.items {
        match item {
            Item::Function(f) => {
                if b.funcs.insert(f.name.as_str(), f).is_some() {
                    return Err(b.err(f.pos, format!("function '{}' is defined twice", f.name)));
                }
            }
            Item::Decl(ds) => {
                for d in ds {
                    b.global_decl(d)?;
                }
            }
        }
    }
    let Some(main) = b.funcs.get("main").copied() else {
        return Err(Diagnostic::new(1, 1, "the program has no 'main' function"));
    };
    b.line = b.line_of(main.pos);
    let entry = b.new_node(b.line);
    b.cur = entry;
    let ret_node = b.exit;
    b.frames.push(Frame {
        name: "main".into(),
        ret: None,
        ret_node,
        scopes: vec![HashMap::default()],
        labels: HashMap::default(),
        jumps: vec![],
        switches: vec![],
    });
    for p in &main.params {
        if let Some(n) = &p.name {
            let bnd = match &p.ty {
                Type::Int(_) => Binding::Region(b.new_region(n, p.ty.clone(), false, false, false, p.pos)?),
                _ => Binding::Unsupported("parameters of main other than integers"),
            };
            b.bind(n, bnd);
        }
    }
    b.stmts(&main.body)?;
    b.finish_function(main.pos)?;
    b.goto(b.exit);
    let cfa =
        Cfa { vars: b.vars, nodes: b.nodes, entry, error: b.error, exit: b.exit, initial: b.initial, calls: b.calls, heads: b.heads, failures: b.failures };
    Ok((cfa, b.facts_out, b.unknown))
}

impl<'a> Builder<'a> {
    fn err(&self, pos: Pos, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.src, pos, msg)
    }
    fn unsupported(&self, pos: Pos, what: impl std::fmt::Display) -> Diagnostic {
        self.err(pos, format!("unsupported: {what}"))
    }
    fn line_of(&self, pos: Pos) -> usize {
        self.line_starts.partition_point(|s| *s <= pos)
    }
    /// The position of a byte offset in the current function.
    fn site(&self, pos: Pos) -> Site {
        let line = self.line_of(pos);
        let start = self.line_starts.get(line.wrapping_sub(1)).copied().unwrap_or(0);
        let function = self.frames.last().map_or_else(String::new, |f| f.name.clone());
        Site { line, column: pos.saturating_sub(start) + 1, function }
    }
    /// The offset of the closing parenthesis of the call whose name starts at `pos`.
    fn call_end(&self, pos: Pos) -> Pos {
        let b = self.src.as_bytes();
        let mut depth = 0usize;
        let mut k = pos;
        while k < b.len() {
            match b[k] {
                b'(' => depth += 1,
                b')' if depth <= 1 => return k,
                b')' => depth -= 1,
                _ => {}
            }
            k += 1;
        }
        pos
    }
    /// Records the head of a loop statement at `pos`.
    fn loop_head(&mut self, head: NodeId, pos: Pos) {
        let site = self.site(pos);
        let scope = self.visible_scalars();
        self.heads.insert(head, (site, scope));
    }
    /// The integer scalars whose names are in scope (innermost declaration).
    fn visible_scalars(&self) -> Vec<(String, usize)> {
        let mut seen: HashMap<&str, &Binding> = HashMap::default();
        if let Some(f) = self.frames.last() {
            for s in f.scopes.iter().rev() {
                for (n, b) in s {
                    seen.entry(n.as_str()).or_insert(b);
                }
            }
        }
        for (n, b) in &self.globals {
            seen.entry(n.as_str()).or_insert(b);
        }
        let mut out: Vec<(String, usize)> = seen
            .into_iter()
            .filter_map(|(n, b)| match b {
                Binding::Region(r) => {
                    let reg = self.regions.get(*r)?;
                    if reg.dims != 0 || reg.counter.is_some() || reg.leaves.len() != 1 {
                        return None;
                    }
                    let leaf = reg.leaves.get(&vec![])?;
                    match (&leaf.ty, leaf.dims, leaf.vars.as_slice()) {
                        (memory::LeafTy::Int(_), 0, [Some(v)]) => Some((n.to_string(), *v)),
                        _ => None,
                    }
                }
                Binding::Unsupported(_) => None,
            })
            .collect();
        out.sort();
        out
    }

    // ----- variables and scopes -----

    fn fresh_name(&mut self, base: &str) -> String {
        let base = if reserved(base) { format!("{base}_v") } else { base.to_string() };
        let mut name = base.clone();
        let mut k = 2;
        while self.names.contains(&name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        self.names.insert(name.clone());
        self.name_log.push(name.clone());
        name
    }
    /// A new program variable with its C type's range, standing for a
    /// leaf of a C object (`key`) or for a value of the lowering.
    fn new_var(&mut self, base: &str, dims: usize, global: bool, ty: IntTy, pos: Pos, key: Option<LeafKey>) -> R<usize> {
        let range = self.range(ty, pos)?;
        self.new_var_range(base, dims, global, range, key)
    }
    fn new_var_range(&mut self, base: &str, dims: usize, global: bool, range: (i64, i64), key: Option<LeafKey>) -> R<usize> {
        let name = self.fresh_name(base);
        let function = if self.frames.is_empty() { None } else { self.frames.last().map(|f| f.name.clone()) };
        self.vars.push(Var { name, dims, global, range, key, c_name: base.to_string(), function, line: self.line });
        Ok(self.vars.len() - 1)
    }
    fn bind(&mut self, name: &str, b: Binding) {
        match self.frames.last_mut() {
            Some(f) => {
                f.scopes.last_mut().expect("a scope").insert(name.to_string(), b);
            }
            None => {
                self.globals.insert(name.to_string(), b);
            }
        }
    }
    fn lookup(&self, name: &str) -> Option<&Binding> {
        if let Some(f) = self.frames.last() {
            for s in f.scopes.iter().rev() {
                if let Some(b) = s.get(name) {
                    return Some(b);
                }
            }
        }
        self.globals.get(name)
    }
    fn frame(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("inside a function")
    }

    // ----- nodes -----

    fn new_node(&mut self, line: usize) -> NodeId {
        self.nodes.push(Node { line, out: Out::Stop });
        self.nodes.len() - 1
    }
    /// Ends the current node with `out`; code after it is dead until a label.
    fn end(&mut self, out: Out) {
        self.nodes[self.cur].out = out;
        self.cur = self.new_node(self.line);
    }
    fn goto(&mut self, target: NodeId) {
        self.end(Out::Goto(target));
    }
    /// Continues at `node` (falling through into it).
    fn fall_into(&mut self, node: NodeId) {
        self.nodes[self.cur].out = Out::Goto(node);
        self.cur = node;
    }
    fn emit(&mut self, instr: Instr) {
        let next = self.new_node(self.line);
        self.nodes[self.cur].out = Out::Do(instr, next);
        self.cur = next;
    }

    // ----- statements -----

    fn stmts(&mut self, ss: &'a [Stmt]) -> R<()> {
        for s in ss {
            self.stmt(s)?;
        }
        Ok(())
    }

    fn scoped(&mut self, f: impl FnOnce(&mut Self) -> R<()>) -> R<()> {
        self.frame().scopes.push(HashMap::default());
        let r = f(self);
        self.frame().scopes.pop();
        r
    }

    fn stmt(&mut self, s: &'a Stmt) -> R<()> {
        self.line = self.line_of(s.pos);
        self.steps += 1;
        if self.steps.is_multiple_of(1024) && self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Diagnostic::timeout());
        }
        match &s.kind {
            StmtKind::Empty => {}
            StmtKind::Expr(e) => self.effect(e)?,
            StmtKind::Decl(ds) => {
                for d in ds {
                    self.local_decl(d)?;
                }
            }
            StmtKind::Block(ss) => self.scoped(|b| b.stmts(ss))?,
            StmtKind::If(c, t, e) => self.if_else(c, t, e.as_deref())?,
            StmtKind::While(c, body) => self.while_loop(s.pos, c, body)?,
            StmtKind::DoWhile(body, c) => self.do_while(body, c)?,
            StmtKind::For(init, c, step, body) => self.for_loop(s.pos, init.as_deref(), c.as_ref(), step.as_ref(), body)?,
            StmtKind::Break => {
                let Some(&(target, _)) = self.frame().jumps.last() else {
                    return Err(self.err(s.pos, "'break' outside a loop or switch"));
                };
                self.goto(target);
            }
            StmtKind::Continue => {
                let target = self.frame().jumps.iter().rev().find_map(|j| j.1);
                let Some(target) = target else {
                    return Err(self.err(s.pos, "'continue' outside a loop"));
                };
                self.goto(target);
            }
            StmtKind::Return(e) => self.return_stmt(e.as_ref())?,
            StmtKind::Goto(l) => {
                let n = self.label(l);
                self.goto(n);
            }
            StmtKind::Labeled(l, body) => {
                let n = self.define_label(l, s.pos)?;
                self.fall_into(n);
                self.stmt(body)?;
            }
            StmtKind::Switch(e, body) => self.switch(e, body)?,
            StmtKind::Case(e, body) => {
                let v = self.const_int(e)?;
                self.case(Some(v), s.pos)?;
                self.stmt(body)?;
            }
            StmtKind::Default(body) => {
                self.case(None, s.pos)?;
                self.stmt(body)?;
            }
        }
        Ok(())
    }

    /// `if (c) t else e`: each branch in a scope of its own, joining after.
    fn if_else(&mut self, c: &'a Expr, t: &'a Stmt, e: Option<&'a Stmt>) -> R<()> {
        let (tn, en, join) = (self.new_node(self.line), self.new_node(self.line), self.new_node(self.line));
        self.cond(c, tn, en)?;
        self.cur = tn;
        self.scoped(|b| b.stmt(t))?;
        self.goto(join);
        self.cur = en;
        if let Some(e) = e {
            self.scoped(|b| b.stmt(e))?;
        }
        self.fall_into(join);
        Ok(())
    }

    /// `while (c) body`: a loop head (at the keyword `pos`) testing `c`.
    fn while_loop(&mut self, pos: Pos, c: &'a Expr, body: &'a Stmt) -> R<()> {
        let head = self.new_node(self.line);
        self.loop_head(head, pos);
        self.fall_into(head);
        let (bn, out) = (self.new_node(self.line), self.new_node(self.line));
        self.cond(c, bn, out)?;
        self.cur = bn;
        self.loop_body(body, out, head)?;
        self.goto(head);
        self.cur = out;
        Ok(())
    }

    /// `do body while (c);`: not a loop head for invariants, as the
    /// condition is not evaluated before the first iteration.
    fn do_while(&mut self, body: &'a Stmt, c: &'a Expr) -> R<()> {
        let head = self.new_node(self.line);
        self.fall_into(head);
        let (cont, out) = (self.new_node(self.line), self.new_node(self.line));
        self.loop_body(body, out, cont)?;
        self.fall_into(cont);
        self.line = self.line_of(c.pos);
        self.cond(c, head, out)?;
        self.cur = out;
        Ok(())
    }

    /// `for (init; c; step) body`, in a scope of its own: a loop head (at
    /// the keyword `pos`) after the initialisation; `continue` goes to the
    /// step.
    fn for_loop(&mut self, pos: Pos, init: Option<&'a Stmt>, c: Option<&'a Expr>, step: Option<&'a Expr>, body: &'a Stmt) -> R<()> {
        let line = self.line;
        self.scoped(|b| {
            if let Some(i) = init {
                b.stmt(i)?;
            }
            b.line = line;
            let head = b.new_node(line);
            b.loop_head(head, pos);
            b.fall_into(head);
            let (bn, out, cont) = (b.new_node(line), b.new_node(line), b.new_node(line));
            match c {
                Some(c) => b.cond(c, bn, out)?,
                None => b.fall_into(bn),
            }
            b.cur = bn;
            b.loop_body(body, out, cont)?;
            b.fall_into(cont);
            b.line = line;
            if let Some(st) = step {
                b.effect(st)?;
            }
            b.goto(head);
            b.cur = out;
            Ok(())
        })
    }

    /// `return e;`: the value stored in the function's result (or `e`
    /// evaluated for its effects), then on to the function's return node.
    fn return_stmt(&mut self, e: Option<&'a Expr>) -> R<()> {
        if let Some(e) = e {
            match self.frame().ret {
                Some(r) => {
                    let v = self.value(e)?;
                    let place = self.whole(r);
                    self.store(&place, v, false, e.pos)?;
                }
                None => self.effect(e)?,
            }
        }
        let target = self.frame().ret_node;
        self.goto(target);
        Ok(())
    }

    fn loop_body(&mut self, body: &'a Stmt, brk: NodeId, cont: NodeId) -> R<()> {
        self.frame().jumps.push((brk, Some(cont)));
        self.loop_depth += 1;
        let r = self.scoped(|b| b.stmt(body));
        self.loop_depth -= 1;
        self.frame().jumps.pop();
        r
    }

    /// The node of a label (created at its first mention).
    fn label(&mut self, name: &str) -> NodeId {
        if let Some(&(n, _)) = self.frame().labels.get(name) {
            return n;
        }
        let n = self.new_node(self.line);
        self.frame().labels.insert(name.to_string(), (n, false));
        n
    }

    /// The node of a label being defined here.
    fn define_label(&mut self, name: &str, pos: Pos) -> R<NodeId> {
        let n = self.label(name);
        let line = self.line;
        let entry = self.frame().labels.get_mut(name).expect("just created");
        if entry.1 {
            return Err(self.err(pos, format!("label '{name}' is defined twice")));
        }
        entry.1 = true;
        self.nodes[n].line = line;
        Ok(n)
    }

    fn switch(&mut self, e: &'a Expr, body: &'a Stmt) -> R<()> {
        let (val, t) = self.rvalue(e)?;
        let t = self.promote(t);
        // a value with side effects is computed once, into a variable
        let val = if is_pure(&val) {
            val
        } else {
            let v = self.new_var("switch", 0, false, t, e.pos, None)?;
            self.emit(Instr::Eval(assign(LValue::Scalar(v), val)));
            LExpr::Scalar(v)
        };
        let dispatch = self.cur;
        self.cur = self.new_node(self.line);
        let out = self.new_node(self.line);
        self.frame().switches.push(vec![]);
        self.frame().jumps.push((out, None));
        let r = self.scoped(|b| b.stmt(body));
        self.frame().jumps.pop();
        let cases = self.frame().switches.pop().expect("the switch's cases");
        r?;
        self.fall_into(out);
        // the dispatch: a chain of tests
        let default = cases.iter().find(|c| c.0.is_none()).map(|c| c.1).unwrap_or(out);
        let mut at = dispatch;
        for (v, n) in cases.iter().filter_map(|(v, n)| v.map(|v| (v, *n))) {
            let next = self.new_node(self.line);
            let test = LExpr::Cmp(Cmp::Eq, Box::new(val.clone()), Box::new(LExpr::Const(v)));
            self.nodes[at].out = Out::Branch(test, n, next);
            at = next;
        }
        self.nodes[at].out = Out::Goto(default);
        Ok(())
    }

    fn case(&mut self, v: Option<i64>, pos: Pos) -> R<()> {
        let n = self.new_node(self.line);
        let Some(cases) = self.frame().switches.last_mut() else {
            return Err(self.err(pos, "'case' or 'default' outside a switch"));
        };
        if cases.iter().any(|c| c.0 == v) {
            return Err(self.err(pos, "duplicate case label"));
        }
        cases.push((v, n));
        self.fall_into(n);
        Ok(())
    }

    /// Checks the labels of the function being left.
    fn finish_function(&mut self, pos: Pos) -> R<()> {
        let f = self.frames.last().expect("a frame");
        if let Some((l, _)) = f.labels.iter().filter(|(_, (_, def))| !def).min_by_key(|(l, _)| l.as_str()) {
            return Err(self.err(pos, format!("label '{l}' is used in '{}' but not defined", f.name)));
        }
        Ok(())
    }

    // ----- conditions and effects -----

    /// Branches to `t` if `e` holds, else to `f`; `&&`, `||` and `!` become
    /// control flow when their operands need it ([`Builder::needs_control`]).
    fn cond(&mut self, e: &'a Expr, t: NodeId, f: NodeId) -> R<()> {
        if self.needs_control(e) {
            match &e.kind {
                ExprKind::Binary(BinOp::And, a, b) => {
                    let mid = self.new_node(self.line);
                    self.cond(a, mid, f)?;
                    self.cur = mid;
                    return self.cond(b, t, f);
                }
                ExprKind::Binary(BinOp::Or, a, b) => {
                    let mid = self.new_node(self.line);
                    self.cond(a, t, mid)?;
                    self.cur = mid;
                    return self.cond(b, t, f);
                }
                ExprKind::Unary(UnOp::Not, a) => return self.cond(a, f, t),
                _ => {}
            }
        }
        let c = self.truth(e)?;
        self.end(Out::Branch(c, t, f));
        Ok(())
    }

    /// Lowers an expression evaluated for its effects only.
    fn effect(&mut self, e: &'a Expr) -> R<()> {
        match &e.kind {
            ExprKind::Comma(a, b) => {
                self.effect(a)?;
                self.effect(b)
            }
            ExprKind::Cast(Type::Void, a) => self.effect(a),
            ExprKind::StmtExpr(ss) => self.scoped(|b| b.stmts(ss)),
            ExprKind::SizeofExpr(_) | ExprKind::SizeofType(_) | ExprKind::Int(..) | ExprKind::Str(_) => Ok(()),
            ExprKind::Call(f, args) => {
                if let ExprKind::Ident(n) = &f.kind {
                    if self.control_builtin(n, args, e.pos)? {
                        return Ok(());
                    }
                }
                let v = self.call(f, args, e.pos, true)?;
                self.eval_effects(v);
                Ok(())
            }
            ExprKind::Cond(c, a, b) if self.needs_control(a) || self.needs_control(b) => {
                let (tn, en, join) = (self.new_node(self.line), self.new_node(self.line), self.new_node(self.line));
                self.cond(c, tn, en)?;
                self.cur = tn;
                self.effect(a)?;
                self.goto(join);
                self.cur = en;
                self.effect(b)?;
                self.fall_into(join);
                Ok(())
            }
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) if self.needs_control(b) => {
                let (tn, join) = (self.new_node(self.line), self.new_node(self.line));
                if *op == BinOp::And {
                    self.cond(a, tn, join)?;
                } else {
                    self.cond(a, join, tn)?;
                }
                self.cur = tn;
                self.effect(b)?;
                self.fall_into(join);
                Ok(())
            }
            _ => {
                let v = self.value(e)?;
                self.eval_effects(v);
                Ok(())
            }
        }
    }

    /// Evaluates the parts of a value that have effects (`p++;`, `x = 1;`).
    fn eval_effects(&mut self, v: Val) {
        let parts = match v {
            Val::Int(x, _) => vec![x],
            Val::Ptr(p) => std::iter::once(p.flag).chain(p.at.into_iter().flat_map(|a| a.idx)).collect(),
            Val::Obj(p) => p.idx,
            Val::Alloc(_) => vec![],
        };
        for x in parts {
            if !is_pure(&x) {
                self.emit(Instr::Eval(x));
            }
        }
    }
}
