//! The control-flow automaton of a C program: `main` with every called
//! function inlined, names resolved to uniquely named program variables,
//! C's integer conversions made explicit, and each node's single way out
//! (a jump, an instruction, a branch, or nothing).
//!
//! Expressions keep their side effects ([`LExpr::Assign`], nondeterministic
//! inputs); calls of program functions are lifted out of them (the body is
//! inlined before the expression, the call replaced by its result
//! variable). Everything the lowering cannot express exactly is reported
//! as `unsupported: …` at the construct. Expressions and types are in
//! the submodule `cfa/expr.rs`.

use super::ast::*;
use super::DataModel;
use crate::frontend::Diagnostic;
use std::collections::{HashMap, HashSet};
use std::time::Instant;

mod expr;

use expr::{as_const, assign, is_pure, visit};

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
    /// An arbitrary value in `lo..=hi` (a `__VERIFIER_nondet_*` call at a line).
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
}

/// Names the lowered system uses itself (or that its printer reserves):
/// program variables with these names are renamed.
fn reserved(name: &str) -> bool {
    const WORDS: &[&str] = &[
        "pc", "error", "exit", "loc", "and", "or", "not", "ite", "div", "mod", "select", "store", "forall", "exists",
        "lambda", "true", "false", "distinct", "implies", "Int", "Bool", "Real", "proc", "Array",
    ];
    let location_like = name.strip_prefix('l').is_some_and(|r| {
        !r.is_empty() && r.split('_').all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
    });
    WORDS.contains(&name) || location_like
}

/// An array as code sees it: its variable, element type, and the sizes of
/// its dimensions when constant.
#[derive(Clone, Debug)]
struct ArrayInfo {
    var: usize,
    elem: IntTy,
    dims: Vec<Option<i64>>,
}

/// What a name stands for.
#[derive(Clone, Debug)]
enum Binding {
    Scalar(usize, IntTy),
    Array(ArrayInfo),
    /// A declared object of a type the lowering does not support.
    Unsupported(&'static str),
}

/// One inlined function activation.
struct Frame {
    name: String,
    ret: Option<(usize, IntTy)>,
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
    /// Where each line starts (for the line of a position).
    line_starts: Vec<usize>,
    deadline: Option<Instant>,
    /// Statements built so far (the deadline is checked every so often).
    steps: usize,
    model: DataModel,
    funcs: HashMap<&'a str, &'a Function>,
    declared: HashSet<&'a str>,
    globals: HashMap<String, Binding>,
    /// The variables of static locals, one per declaration (shared by every inlined call).
    statics: HashMap<*const Decl, Binding>,
    frames: Vec<Frame>,
    vars: Vec<Var>,
    names: HashSet<String>,
    nodes: Vec<Node>,
    cur: NodeId,
    line: usize,
    loop_depth: usize,
    error: NodeId,
    exit: NodeId,
    initial: Vec<InitFact>,
}

type R<T> = Result<T, Diagnostic>;

/// Builds the automaton of `main`, functions inlined.
pub fn build(src: &str, tu: &TranslationUnit, model: DataModel, deadline: Option<Instant>) -> R<Cfa> {
    let mut b = Builder {
        src,
        line_starts: std::iter::once(0).chain(src.match_indices('\n').map(|(k, _)| k + 1)).collect(),
        deadline,
        steps: 0,
        model,
        funcs: HashMap::new(),
        declared: HashSet::new(),
        globals: HashMap::new(),
        statics: HashMap::new(),
        frames: vec![],
        vars: vec![],
        names: HashSet::new(),
        nodes: vec![],
        cur: 0,
        line: 1,
        loop_depth: 0,
        error: 0,
        exit: 0,
        initial: vec![],
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
        scopes: vec![HashMap::new()],
        labels: HashMap::new(),
        jumps: vec![],
        switches: vec![],
    });
    for p in &main.params {
        if let Some(n) = &p.name {
            let bnd = match &p.ty {
                Type::Int(t) => {
                    let v = b.new_var(n, 0, false, *t, p.pos)?;
                    Binding::Scalar(v, *t)
                }
                _ => Binding::Unsupported("parameters of main other than integers"),
            };
            b.bind(n, bnd);
        }
    }
    b.stmts(&main.body)?;
    b.finish_function(main.pos)?;
    b.goto(b.exit);
    Ok(Cfa { vars: b.vars, nodes: b.nodes, entry, error: b.error, exit: b.exit, initial: b.initial })
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
        name
    }
    fn new_var(&mut self, base: &str, dims: usize, global: bool, ty: IntTy, pos: Pos) -> R<usize> {
        let range = self.range(ty, pos)?;
        let name = self.fresh_name(base);
        self.vars.push(Var { name, dims, global, range });
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

    /// The element type and dimension sizes of an array type.
    fn array_shape(&mut self, t: &'a Type, pos: Pos) -> R<(IntTy, Vec<Option<i64>>)> {
        let mut dims = vec![];
        let mut t = t;
        while let Type::Array(elem, n) = t {
            let size = match n {
                Some(n) => self.try_const(n),
                None => None,
            };
            dims.push(size);
            t = elem;
        }
        let elem = match t {
            Type::Int(i) => *i,
            Type::Pointer(_) => return Err(self.unsupported(pos, "arrays of pointers")),
            Type::Unsupported(what) => return Err(self.unsupported(pos, format!("arrays of {what}"))),
            _ => return Err(self.unsupported(pos, "arrays of this element type")),
        };
        if dims.len() > 2 {
            return Err(self.unsupported(pos, "arrays of more than two dimensions"));
        }
        Ok((elem, dims))
    }

    /// The value of an integer constant expression (sizes, case labels, global initialisers).
    fn const_int(&mut self, e: &'a Expr) -> R<i64> {
        self.try_const(e).ok_or_else(|| self.unsupported(e.pos, "this expression must be an integer constant"))
    }
    fn try_const(&mut self, e: &'a Expr) -> Option<i64> {
        let saved = (self.nodes.len(), self.cur);
        let r = self.rvalue(e).ok().and_then(|(l, _)| as_const(&l));
        // a constant expression emits nothing; drop anything a failed attempt created
        if self.nodes.len() != saved.0 {
            self.nodes.truncate(saved.0);
            self.cur = saved.1;
            self.nodes[self.cur].out = Out::Stop;
            return None;
        }
        r
    }

    fn global_decl(&mut self, d: &'a Decl) -> R<()> {
        match (&d.ty, d.storage) {
            (_, Storage::Typedef) => {}
            (Type::Function(..), _) => {
                self.declared.insert(d.name.as_str());
            }
            (Type::Int(t), _) => {
                let v = self.new_var(&d.name, 0, true, *t, d.pos)?;
                let value = match &d.init {
                    None => 0,
                    Some(Init::Expr(e)) => {
                        let c = self.const_int(e)?;
                        self.wrap_const(c, *t, e.pos)?
                    }
                    Some(Init::List(_, pos)) => return Err(self.unsupported(*pos, "a braced initialiser for a scalar")),
                };
                self.initial.push(InitFact::Scalar(v, value));
                self.globals.insert(d.name.clone(), Binding::Scalar(v, *t));
            }
            (Type::Array(..), _) => {
                let (elem, dims) = self.array_shape(&d.ty, d.pos)?;
                let v = self.new_var(&d.name, dims.len(), true, elem, d.pos)?;
                let values = match &d.init {
                    None => vec![],
                    Some(init) => {
                        let items = self.init_items(init, elem, dims.len())?;
                        let mut out = vec![];
                        for e in items {
                            let c = self.const_int(e)?;
                            out.push(self.wrap_const(c, elem, e.pos)?);
                        }
                        out
                    }
                };
                self.initial.push(InitFact::Array(v, values));
                self.globals.insert(d.name.clone(), Binding::Array(ArrayInfo { var: v, elem, dims }));
            }
            (Type::Pointer(_), _) => {
                self.globals.insert(d.name.clone(), Binding::Unsupported("pointers"));
            }
            (Type::Unsupported(what), _) => {
                self.globals.insert(d.name.clone(), Binding::Unsupported(what));
            }
            (Type::Void, _) => return Err(self.err(d.pos, format!("variable '{}' declared void", d.name))),
        }
        Ok(())
    }

    fn wrap_const(&self, c: i64, t: IntTy, pos: Pos) -> R<i64> {
        let e = self.convert(LExpr::Const(c), IntTy { kind: IntKind::LongLong, signed: true }, t, pos)?;
        Ok(as_const(&e).unwrap_or(c))
    }

    /// The element expressions of an array initialiser (strings for char arrays).
    fn init_items<'i>(&self, init: &'i Init, elem: IntTy, dims: usize) -> R<Vec<&'i Expr>> {
        match init {
            Init::List(items, pos) => {
                if dims != 1 {
                    return Err(self.unsupported(*pos, "initialisers of two-dimensional arrays"));
                }
                items
                    .iter()
                    .map(|i| match i {
                        Init::Expr(e) => Ok(e),
                        Init::List(_, p) => Err(self.unsupported(*p, "nested braced initialisers")),
                    })
                    .collect()
            }
            Init::Expr(e) => {
                if matches!(e.kind, ExprKind::Str(_)) && elem.kind == IntKind::Char {
                    Err(self.unsupported(e.pos, "string initialisers (write the characters in braces)"))
                } else {
                    Err(self.unsupported(e.pos, "initialising an array from an expression"))
                }
            }
        }
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
    fn place(&mut self, node: NodeId) {
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
        self.frame().scopes.push(HashMap::new());
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
            StmtKind::If(c, t, e) => {
                let (tn, en, join) = (self.new_node(self.line), self.new_node(self.line), self.new_node(self.line));
                self.cond(c, tn, en)?;
                self.cur = tn;
                self.scoped(|b| b.stmt(t))?;
                self.goto(join);
                self.cur = en;
                if let Some(e) = e {
                    self.scoped(|b| b.stmt(e))?;
                }
                self.place(join);
            }
            StmtKind::While(c, body) => {
                let head = self.new_node(self.line);
                self.place(head);
                let (bn, out) = (self.new_node(self.line), self.new_node(self.line));
                self.cond(c, bn, out)?;
                self.cur = bn;
                self.loop_body(body, out, head)?;
                self.goto(head);
                self.cur = out;
            }
            StmtKind::DoWhile(body, c) => {
                let head = self.new_node(self.line);
                self.place(head);
                let (cont, out) = (self.new_node(self.line), self.new_node(self.line));
                self.loop_body(body, out, cont)?;
                self.place(cont);
                self.line = self.line_of(c.pos);
                self.cond(c, head, out)?;
                self.cur = out;
            }
            StmtKind::For(init, c, step, body) => {
                let line = self.line;
                self.scoped(|b| {
                    if let Some(i) = init {
                        b.stmt(i)?;
                    }
                    b.line = line;
                    let head = b.new_node(line);
                    b.place(head);
                    let (bn, out, cont) = (b.new_node(line), b.new_node(line), b.new_node(line));
                    match c {
                        Some(c) => b.cond(c, bn, out)?,
                        None => b.place(bn),
                    }
                    b.cur = bn;
                    b.loop_body(body, out, cont)?;
                    b.place(cont);
                    b.line = line;
                    if let Some(st) = step {
                        b.effect(st)?;
                    }
                    b.goto(head);
                    b.cur = out;
                    Ok(())
                })?;
            }
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
            StmtKind::Return(e) => {
                if let Some(e) = e {
                    match self.frame().ret {
                        Some((v, t)) => {
                            let (val, vt) = self.rvalue(e)?;
                            let val = self.convert(val, vt, t, e.pos)?;
                            self.emit(Instr::Eval(assign(LValue::Scalar(v), val)));
                        }
                        None => self.effect(e)?,
                    }
                }
                let target = self.frame().ret_node;
                self.goto(target);
            }
            StmtKind::Goto(l) => {
                let n = self.label(l);
                self.goto(n);
            }
            StmtKind::Labeled(l, body) => {
                let n = self.define_label(l, s.pos)?;
                self.place(n);
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
            let v = self.new_var("switch", 0, false, t, e.pos)?;
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
        self.place(out);
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
        self.place(n);
        Ok(())
    }

    fn local_decl(&mut self, d: &'a Decl) -> R<()> {
        match (&d.ty, d.storage) {
            (_, Storage::Typedef) | (Type::Function(..), _) => Ok(()),
            (_, Storage::Extern) => Err(self.unsupported(d.pos, "extern declarations inside functions")),
            (_, Storage::Static) => {
                // a static local is a global with a local name, one per declaration
                if let Some(b) = self.statics.get(&(d as *const Decl)).cloned() {
                    self.bind(&d.name, b);
                    return Ok(());
                }
                let frames = std::mem::take(&mut self.frames);
                let shadowed = self.globals.remove(&d.name);
                let r = self.global_decl(d);
                self.frames = frames;
                r?;
                let b = self.globals.remove(&d.name).expect("just declared");
                if let Some(g) = shadowed {
                    self.globals.insert(d.name.clone(), g);
                }
                self.statics.insert(d as *const Decl, b.clone());
                self.bind(&d.name, b);
                Ok(())
            }
            (Type::Int(t), _) => {
                let t = *t;
                let v = self.new_var(&d.name, 0, false, t, d.pos)?;
                match &d.init {
                    None => {
                        self.bind(&d.name, Binding::Scalar(v, t));
                        self.emit(Instr::Havoc(v));
                    }
                    Some(Init::Expr(e)) => {
                        // the initialiser sees the enclosing binding of the name
                        let (val, vt) = self.rvalue(e)?;
                        let val = self.convert(val, vt, t, e.pos)?;
                        self.bind(&d.name, Binding::Scalar(v, t));
                        self.emit(Instr::Eval(assign(LValue::Scalar(v), val)));
                    }
                    Some(Init::List(_, pos)) => return Err(self.unsupported(*pos, "a braced initialiser for a scalar")),
                }
                Ok(())
            }
            (Type::Array(..), _) => {
                let (elem, dims) = self.array_shape(&d.ty, d.pos)?;
                let v = self.new_var(&d.name, dims.len(), false, elem, d.pos)?;
                self.bind(&d.name, Binding::Array(ArrayInfo { var: v, elem, dims: dims.clone() }));
                match &d.init {
                    None if self.loop_depth > 0 => Err(self.unsupported(
                        d.pos,
                        "an uninitialised array declared inside a loop (its contents would be re-chosen at every iteration)",
                    )),
                    None => Ok(()),
                    Some(init) => {
                        let items = self.init_items(init, elem, dims.len())?;
                        let mut vals = vec![];
                        for e in items {
                            let (val, vt) = self.rvalue(e)?;
                            vals.push(self.convert(val, vt, elem, e.pos)?);
                        }
                        self.emit(Instr::InitArray(v, vals, dims[0]));
                        Ok(())
                    }
                }
            }
            (Type::Pointer(_), _) => Err(self.unsupported(d.pos, "pointer variables (only arrays are supported)")),
            (Type::Unsupported(what), _) => Err(self.unsupported(d.pos, what)),
            (Type::Void, _) => Err(self.err(d.pos, format!("variable '{}' declared void", d.name))),
        }
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
    /// control flow when their operands call program functions.
    fn cond(&mut self, e: &'a Expr, t: NodeId, f: NodeId) -> R<()> {
        if self.calls_program_function(e) {
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
        let (c, _) = self.rvalue(e)?;
        self.end(Out::Branch(c, t, f));
        Ok(())
    }

    /// Whether evaluating `e` may call a function with a body (or a control builtin).
    fn calls_program_function(&self, e: &Expr) -> bool {
        let mut found = false;
        visit(e, &mut |x| {
            if let ExprKind::Call(f, _) = &x.kind {
                match &f.kind {
                    ExprKind::Ident(n) if n.starts_with("__VERIFIER_nondet_") && !self.funcs.contains_key(n.as_str()) => {}
                    _ => found = true,
                }
            }
        });
        found
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
                let (v, _) = self.call(f, args, e.pos, true)?;
                if !is_pure(&v) {
                    self.emit(Instr::Eval(v));
                }
                Ok(())
            }
            ExprKind::Cond(c, a, b) if self.calls_program_function(a) || self.calls_program_function(b) => {
                let (tn, en, join) = (self.new_node(self.line), self.new_node(self.line), self.new_node(self.line));
                self.cond(c, tn, en)?;
                self.cur = tn;
                self.effect(a)?;
                self.goto(join);
                self.cur = en;
                self.effect(b)?;
                self.place(join);
                Ok(())
            }
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) if self.calls_program_function(b) => {
                let (tn, join) = (self.new_node(self.line), self.new_node(self.line));
                if *op == BinOp::And {
                    self.cond(a, tn, join)?;
                } else {
                    self.cond(a, join, tn)?;
                }
                self.cur = tn;
                self.effect(b)?;
                self.place(join);
                Ok(())
            }
            _ => {
                let (v, _) = self.rvalue(e)?;
                if !is_pure(&v) {
                    self.emit(Instr::Eval(v));
                }
                Ok(())
            }
        }
    }

    /// Calls with a fixed meaning for verification (when the program does
    /// not define them, or always for the error functions and assertions).
    /// Returns whether `name` was one.
    fn control_builtin(&mut self, name: &str, args: &'a [Expr], pos: Pos) -> R<bool> {
        match name {
            "reach_error" | "__VERIFIER_error" | "__assert_fail" | "__assert" | "__assert_perror_fail" => {
                self.goto(self.error);
            }
            "__VERIFIER_assert" | "assert" => {
                let [c] = args else { return Err(self.err(pos, format!("'{name}' takes one argument"))) };
                let next = self.new_node(self.line);
                self.cond(c, next, self.error)?;
                self.cur = next;
            }
            "__VERIFIER_assume" | "assume_abort_if_not" => {
                let [c] = args else { return Err(self.err(pos, format!("'{name}' takes one argument"))) };
                let (next, dead) = (self.new_node(self.line), self.new_node(self.line));
                self.cond(c, next, dead)?;
                self.cur = next;
            }
            "abort" | "exit" | "_Exit" if !self.funcs.contains_key(name) => {
                self.goto(self.exit);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// A call in an expression: a nondeterministic input, or an inlined
    /// program function whose result variable stands for the call.
    fn call(&mut self, f: &'a Expr, args: &'a [Expr], pos: Pos, for_effect: bool) -> R<(LExpr, IntTy)> {
        let ExprKind::Ident(name) = &f.kind else {
            return Err(self.unsupported(f.pos, "calls through function pointers"));
        };
        if self.lookup(name).is_some() {
            return Err(self.unsupported(f.pos, format!("calling '{name}', which is not a function")));
        }
        if self.control_builtin(name, args, pos)? {
            return Ok((LExpr::Const(0), IntTy::INT));
        }
        if let Some(func) = self.funcs.get(name.as_str()).copied() {
            return self.inline(func, args, pos, for_effect);
        }
        if let Some(suffix) = name.strip_prefix("__VERIFIER_nondet_") {
            let t = self.nondet_type(suffix, f.pos)?;
            let (lo, hi) = self.range(t, f.pos)?;
            return Ok((LExpr::Nondet(lo, hi, self.line_of(pos)), t));
        }
        match name.as_str() {
            "malloc" | "calloc" | "realloc" | "alloca" | "free" => Err(self.unsupported(pos, format!("dynamic memory ('{name}')"))),
            _ if self.declared.contains(name.as_str()) => {
                Err(self.unsupported(pos, format!("calling '{name}', which is declared but has no body")))
            }
            _ => Err(self.err(f.pos, format!("call to undeclared function '{name}'"))),
        }
    }

    fn nondet_type(&self, suffix: &str, pos: Pos) -> R<IntTy> {
        let t = |kind, signed| IntTy { kind, signed };
        Ok(match suffix {
            "int" => IntTy::INT,
            "uint" | "unsigned" | "u32" => IntTy::UINT,
            "char" => t(IntKind::Char, true),
            "uchar" | "u8" => t(IntKind::Char, false),
            "short" => t(IntKind::Short, true),
            "ushort" | "u16" => t(IntKind::Short, false),
            "long" => t(IntKind::Long, true),
            "ulong" => t(IntKind::Long, false),
            "longlong" => t(IntKind::LongLong, true),
            "ulonglong" => t(IntKind::LongLong, false),
            "bool" | "_Bool" => t(IntKind::Bool, false),
            "size_t" => self.size_t(),
            _ => return Err(self.unsupported(pos, format!("__VERIFIER_nondet_{suffix} (not an integer type)"))),
        })
    }

    /// Inlines a call of `func`: parameters assigned (arrays by reference),
    /// the body lowered in a new frame, the result in a fresh variable.
    fn inline(&mut self, func: &'a Function, args: &'a [Expr], pos: Pos, for_effect: bool) -> R<(LExpr, IntTy)> {
        if self.frames.iter().any(|f| f.name == func.name) {
            return Err(self.unsupported(pos, format!("recursive call to '{}'", func.name)));
        }
        if args.len() != func.params.len() {
            return Err(self.err(pos, format!("'{}' takes {} argument(s), {} given", func.name, func.params.len(), args.len())));
        }
        // arguments, in the caller's scope
        let mut bindings = vec![];
        let mut assigns = vec![];
        for (p, a) in func.params.iter().zip(args) {
            let name = p.name.clone().unwrap_or_default();
            match &p.ty {
                Type::Array(..) | Type::Pointer(_) => {
                    let arr = match &a.kind {
                        ExprKind::Ident(n) => match self.lookup(n) {
                            Some(Binding::Array(info)) => info.clone(),
                            _ => return Err(self.unsupported(a.pos, "passing something other than an array to an array or pointer parameter")),
                        },
                        _ => return Err(self.unsupported(a.pos, "passing something other than an array name to an array or pointer parameter")),
                    };
                    let want = match &p.ty {
                        Type::Pointer(t) => 1 + matches!(**t, Type::Array(..)) as usize,
                        t => self.array_shape(t, p.pos)?.1.len(),
                    };
                    if want != arr.dims.len() {
                        return Err(self.unsupported(a.pos, "an array argument whose dimensions differ from the parameter's"));
                    }
                    bindings.push((name, Binding::Array(arr)));
                }
                Type::Int(t) => {
                    let (v, vt) = self.rvalue(a)?;
                    let v = self.convert(v, vt, *t, a.pos)?;
                    let var = self.new_var(&name, 0, false, *t, p.pos)?;
                    assigns.push(Instr::Eval(assign(LValue::Scalar(var), v)));
                    bindings.push((name, Binding::Scalar(var, *t)));
                }
                other => {
                    let _ = self.int_type(other, p.pos)?;
                }
            }
        }
        for a in assigns {
            self.emit(a);
        }
        let ret = match &func.ret {
            Type::Void => None,
            t => {
                let t = self.int_type(t, func.pos)?;
                Some((self.new_var(&format!("{}_result", func.name), 0, false, t, func.pos)?, t))
            }
        };
        if ret.is_none() && !for_effect {
            return Err(self.err(pos, format!("the void function '{}' is used as a value", func.name)));
        }
        let ret_node = self.new_node(self.line);
        self.frames.push(Frame {
            name: func.name.clone(),
            ret,
            ret_node,
            scopes: vec![bindings.into_iter().collect()],
            labels: HashMap::new(),
            jumps: vec![],
            switches: vec![],
        });
        let saved_line = self.line;
        let r = self.stmts(&func.body).and_then(|_| self.finish_function(func.pos));
        self.frames.pop();
        r?;
        self.line = saved_line;
        self.place(ret_node);
        Ok(match ret {
            Some((v, t)) => (LExpr::Scalar(v), t),
            None => (LExpr::Const(0), IntTy::INT),
        })
    }

}
