//! The Cubicle syntax tree, each node located in the source.

/// A name with the offset where it is written.
pub(super) type Name = (String, usize);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Quant {
    Forall,
    Exists,
    ForallOther,
    ExistsOther,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum BinOp {
    And,
    Or,
    Imp,
    Equiv,
    Eq,
    Neq,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
}

#[derive(Clone, Debug)]
pub(super) struct Expr {
    pub(super) kind: ExprKind,
    pub(super) pos: usize,
}

#[derive(Clone, Debug)]
pub(super) enum ExprKind {
    Name(String),
    Proc(i64),
    Int(i64),
    Real(i64, i64),
    Bool(bool),
    Read(String, Vec<Expr>),
    Call(String, Vec<Expr>),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Ite(Box<Expr>, Box<Expr>, Box<Expr>),
    Quant(Quant, Vec<Name>, Box<Expr>),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Section {
    Init,
    Invariant,
    Unsafe,
}

pub(super) enum Rhs {
    Term(Expr),
    /// `(condition or None for '_', value)`.
    Case(Vec<(Option<Expr>, Expr)>),
    Nondet,
}

pub(super) struct Action {
    pub(super) target: Name,
    /// The indices of `A[…] :=`.
    pub(super) index: Option<Vec<Expr>>,
    pub(super) rhs: Rhs,
}

pub(super) struct TransitionAst {
    pub(super) name: Name,
    pub(super) params: Vec<Name>,
    pub(super) guard: Option<Expr>,
    pub(super) lets: Vec<(Name, Expr)>,
    pub(super) actions: Vec<Action>,
}

pub(super) enum Item {
    NumberProcs(i64, usize),
    Type(Name, Option<Vec<Name>>),
    Var { name: Name, ty: Name, rigid: bool },
    Array { name: Name, dims: Vec<Name>, ty: Name },
    Formula { section: Section, pos: usize, vars: Vec<Name>, body: Expr },
    Predicate { name: Name, params: Vec<Name>, body: Expr },
    Transition(TransitionAst),
}
