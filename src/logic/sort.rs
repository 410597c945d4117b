//! Sorts of the array-based systems: Booleans, numbers, the index sort of
//! processes, finite enumerations (subranges and named constructors),
//! uninterpreted sorts and arrays from index sorts to elements.

use std::fmt;
use std::rc::Rc;

/// The sort (type) of a term.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Sort {
    /// Truth values.
    Bool,
    /// Mathematical integers.
    Int,
    /// Rational numbers (linear real arithmetic).
    Real,
    /// Process identifiers of a protocol: only equality and the order `<`.
    Index,
    /// A finite enumerated type: an integer subrange or named constants.
    Enum(Rc<EnumDef>),
    /// A sort with no interpretation (only equality), e.g. MCMT `(define-type data)`.
    Uninterpreted(Rc<str>),
    /// A (possibly multi-dimensional) array from index sorts to an element sort.
    Array(Rc<ArraySort>),
}

/// The definition of an enumerated type.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub struct EnumDef {
    /// The type's declared name.
    pub name: Rc<str>,
    /// Its values.
    pub values: EnumValues,
}

impl std::hash::Hash for EnumDef {
    /// The name and the number of values only: hashing a sort (as every
    /// term interned with it does) stays cheap for enumerations of
    /// thousands of names (the locations of a lowered program).
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.name.hash(h);
        match &self.values {
            EnumValues::Subrange(lo, hi) => (0u8, lo, hi).hash(h),
            EnumValues::Names(ns) => (1u8, ns.len()).hash(h),
        }
    }
}

/// The values an enumerated type ranges over.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum EnumValues {
    /// The integers `lo..=hi` (an MCMT `subrange`); they mix freely with `Int`.
    Subrange(i64, i64),
    /// Named constants, numbered from 0 in declaration order (a Cubicle `type t = A | B`).
    Names(Vec<Rc<str>>),
}

/// The domain and range of an array sort.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ArraySort {
    /// The index sorts, one per dimension.
    pub index: Vec<Sort>,
    /// The element sort.
    pub elem: Sort,
}

impl Sort {
    /// An array sort from the given index sorts to `elem`.
    pub fn array(index: Vec<Sort>, elem: Sort) -> Sort {
        Sort::Array(Rc::new(ArraySort { index, elem }))
    }

    /// Whether values of this sort take part in integer arithmetic (Int and subranges).
    pub fn is_int_like(&self) -> bool {
        matches!(self, Sort::Int) || matches!(self, Sort::Enum(d) if matches!(d.values, EnumValues::Subrange(..)))
    }

    /// Whether values of this sort are numbers (Int, Real, subranges).
    pub fn is_numeric(&self) -> bool {
        self.is_int_like() || *self == Sort::Real
    }

    /// The array sort's parts, if this is an array.
    pub fn as_array(&self) -> Option<&ArraySort> {
        match self {
            Sort::Array(a) => Some(a),
            _ => None,
        }
    }

    /// Whether a term of sort `self` may stand where `other` is expected
    /// (equal sorts, or integer subranges mixed with Int).
    pub fn compatible(&self, other: &Sort) -> bool {
        self == other || (self.is_int_like() && other.is_int_like())
    }

    /// The finite range `(lo, hi)` of values, for subranges and named enumerations.
    pub fn finite_range(&self) -> Option<(i64, i64)> {
        match self {
            Sort::Enum(d) => Some(match &d.values {
                EnumValues::Subrange(lo, hi) => (*lo, *hi),
                EnumValues::Names(ns) => (0, ns.len() as i64 - 1),
            }),
            _ => None,
        }
    }
}

impl fmt::Display for Sort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sort::Bool => write!(f, "Bool"),
            Sort::Int => write!(f, "Int"),
            Sort::Real => write!(f, "Real"),
            Sort::Index => write!(f, "proc"),
            Sort::Enum(d) => write!(f, "{}", super::print::symbol(&d.name)),
            Sort::Uninterpreted(n) => write!(f, "{}", super::print::symbol(n)),
            Sort::Array(a) => {
                write!(f, "(Array")?;
                for i in &a.index {
                    write!(f, " {i}")?;
                }
                write!(f, " {})", a.elem)
            }
        }
    }
}
