//! The C syntax tree: the subset of C that array programs use, with the
//! byte offset of every expression, statement and declaration so that
//! lowering can report `line:col` diagnostics.
//!
//! Typedef names are resolved while parsing, so every type here is a
//! [`Type`], and enumeration constants are replaced by their values;
//! struct and union types refer to their definitions in
//! [`TranslationUnit::structs`]. Constructs the lowering does not support
//! (floating point, unions, bit-fields) are still represented, and
//! rejected only where a program really uses them.

/// A byte offset into the source text.
pub type Pos = usize;

/// The rank of an integer type (its width depends on the data model).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum IntKind {
    /// `_Bool`: 0 or 1.
    Bool,
    /// `char`.
    Char,
    /// `short`.
    Short,
    /// `int`.
    Int,
    /// `long`.
    Long,
    /// `long long`.
    LongLong,
}

/// An integer type: its rank and signedness.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct IntTy {
    /// The rank.
    pub kind: IntKind,
    /// Whether it is signed (`_Bool` is unsigned).
    pub signed: bool,
}

impl IntTy {
    /// `int`.
    pub const INT: IntTy = IntTy { kind: IntKind::Int, signed: true };
    /// `unsigned int` (also `size_t` under ILP32).
    pub const UINT: IntTy = IntTy { kind: IntKind::Int, signed: false };
}

/// A C type, typedefs resolved.
#[derive(Clone, PartialEq, Debug)]
pub enum Type {
    /// `void`.
    Void,
    /// An integer type.
    Int(IntTy),
    /// A type the lowering does not support, with what it is
    /// ("floating point", "struct types", …).
    Unsupported(&'static str),
    /// A pointer to the given type.
    Pointer(Box<Type>),
    /// A struct or union type: its definition in [`TranslationUnit::structs`].
    Struct(usize),
    /// An array of the given element type, with its size expression
    /// (absent in `int a[]`).
    Array(Box<Type>, Option<Box<Expr>>),
    /// A function returning the first type, with its parameters and
    /// whether it is variadic.
    Function(Box<Type>, Vec<Param>, bool),
}

/// A function parameter.
#[derive(Clone, PartialEq, Debug)]
pub struct Param {
    /// Its name (absent in prototypes such as `int f(int)`).
    pub name: Option<String>,
    /// Its type as written (arrays are not yet adjusted to pointers).
    pub ty: Type,
    /// Where it is declared.
    pub pos: Pos,
}

/// Binary operators.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BinOp {
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&`
    BitAnd,
    /// `^`
    BitXor,
    /// `|`
    BitOr,
    /// `&&`
    And,
    /// `||`
    Or,
}

/// Unary operators (increments are [`ExprKind::IncDec`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum UnOp {
    /// `-e`
    Neg,
    /// `+e`
    Plus,
    /// `!e`
    Not,
    /// `~e`
    BitNot,
    /// `*e`
    Deref,
    /// `&e`
    AddrOf,
}

/// An expression with its position.
#[derive(Clone, PartialEq, Debug)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it starts.
    pub pos: Pos,
}

/// The kinds of expressions.
#[derive(Clone, PartialEq, Debug)]
pub enum ExprKind {
    /// An integer constant with its type (from its suffix and value).
    Int(i128, IntTy),
    /// A floating-point constant (unsupported by the lowering).
    Float,
    /// A string literal (its bytes, without the terminating zero).
    Str(Vec<u8>),
    /// A name.
    Ident(String),
    /// A unary operator.
    Unary(UnOp, Box<Expr>),
    /// `++e`, `--e`, `e++`, `e--`.
    IncDec {
        /// Prefix form.
        pre: bool,
        /// Increment (else decrement).
        inc: bool,
        /// The operand.
        arg: Box<Expr>,
    },
    /// A binary operator.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `l = r`, or `l op= r` with the operator.
    Assign(Option<BinOp>, Box<Expr>, Box<Expr>),
    /// `c ? a : b`.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A call.
    Call(Box<Expr>, Vec<Expr>),
    /// `a[i]`.
    Index(Box<Expr>, Box<Expr>),
    /// `s.f` (false) or `p->f` (true).
    Member(Box<Expr>, String, bool),
    /// `(type) e`.
    Cast(Type, Box<Expr>),
    /// `sizeof (type)`.
    SizeofType(Type),
    /// `sizeof e`.
    SizeofExpr(Box<Expr>),
    /// `a, b`.
    Comma(Box<Expr>, Box<Expr>),
    /// A GNU statement expression `({ … })`.
    StmtExpr(Vec<Stmt>),
}

/// A declaration's initialiser.
#[derive(Clone, PartialEq, Debug)]
pub enum Init {
    /// `= e`.
    Expr(Expr),
    /// `= { … }`.
    List(Vec<Init>, Pos),
    /// An item of a braced list with designators (`.f = e`, `[3] = e`).
    Designated(Vec<Designator>, Box<Init>, Pos),
}

/// A designator of an initialiser list item.
#[derive(Clone, PartialEq, Debug)]
pub enum Designator {
    /// `.name`
    Field(String),
    /// `[e]`
    Index(Expr),
}

/// Where a declaration's object lives.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Storage {
    /// No storage class (or `auto`, `register`).
    Plain,
    /// `static`.
    Static,
    /// `extern`.
    Extern,
    /// `typedef`.
    Typedef,
}

/// One declared name.
#[derive(Clone, PartialEq, Debug)]
pub struct Decl {
    /// The name.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Its storage class.
    pub storage: Storage,
    /// Its initialiser.
    pub init: Option<Init>,
    /// Where the name is.
    pub pos: Pos,
}

/// A statement with its position.
#[derive(Clone, PartialEq, Debug)]
pub struct Stmt {
    /// What it is.
    pub kind: StmtKind,
    /// Where it starts.
    pub pos: Pos,
}

/// The kinds of statements.
#[derive(Clone, PartialEq, Debug)]
pub enum StmtKind {
    /// `;`
    Empty,
    /// `e;`
    Expr(Expr),
    /// A declaration of one or more names.
    Decl(Vec<Decl>),
    /// `{ … }`
    Block(Vec<Stmt>),
    /// `if (c) s else s`.
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    /// `while (c) s`.
    While(Expr, Box<Stmt>),
    /// `do s while (c);`.
    DoWhile(Box<Stmt>, Expr),
    /// `for (init; cond; step) s` (the init a declaration or an expression statement).
    For(Option<Box<Stmt>>, Option<Expr>, Option<Expr>, Box<Stmt>),
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `return e;`
    Return(Option<Expr>),
    /// `goto l;`
    Goto(String),
    /// `l: s`.
    Labeled(String, Box<Stmt>),
    /// `switch (e) s`.
    Switch(Expr, Box<Stmt>),
    /// `case e: s`.
    Case(Expr, Box<Stmt>),
    /// `default: s`.
    Default(Box<Stmt>),
}

/// A function definition.
#[derive(Clone, PartialEq, Debug)]
pub struct Function {
    /// Its name.
    pub name: String,
    /// Its return type.
    pub ret: Type,
    /// Its parameters.
    pub params: Vec<Param>,
    /// Its body.
    pub body: Vec<Stmt>,
    /// Where the name is.
    pub pos: Pos,
}

/// A top-level item.
#[derive(Clone, PartialEq, Debug)]
pub enum Item {
    /// Declarations (variables, prototypes, typedefs).
    Decl(Vec<Decl>),
    /// A function definition.
    Function(Function),
}

/// A member of a struct or union.
#[derive(Clone, PartialEq, Debug)]
pub struct Field {
    /// Its name (absent for an anonymous struct or union member).
    pub name: Option<String>,
    /// Its type.
    pub ty: Type,
    /// The width of a bit-field.
    pub bits: Option<Box<Expr>>,
    /// Where it is declared.
    pub pos: Pos,
}

/// A struct or union type.
#[derive(Clone, PartialEq, Debug)]
pub struct StructDef {
    /// Its tag (`struct S`), if it has one.
    pub tag: Option<String>,
    /// Whether it is a union.
    pub union: bool,
    /// Its members (absent while only declared: `struct S;`).
    pub fields: Option<Vec<Field>>,
    /// Where it is declared.
    pub pos: Pos,
}

/// A whole file.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct TranslationUnit {
    /// Its items in order.
    pub items: Vec<Item>,
    /// The struct and union types, referred to by [`Type::Struct`].
    pub structs: Vec<StructDef>,
}
