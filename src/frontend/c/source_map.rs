//! The source map of a lowered C program: where, in the C source, the
//! lowered system's locations, nondeterministic inputs, state variables and
//! error steps come from. The C front end records it while it builds the
//! automaton and lowers it ([`super::cfa`], [`super::lower`]); traces in
//! source terms and SV-COMP witnesses ([`crate::report::witness`]) read it
//! and never look at the C text themselves.

use crate::logic::Term;
use std::path::PathBuf;

/// A position in the C source: line and column (both 1-based, the column
/// in bytes) and the function whose body holds it (the callee's own name
/// for code of an inlined function).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// The line (1-based).
    pub line: usize,
    /// The column (1-based).
    pub column: usize,
    /// The enclosing C function.
    pub function: String,
}

/// A location of the lowered program counter `pc`.
#[derive(Clone, Debug)]
pub struct Location {
    /// Its name in the `loc` enumeration (`l12`, `error`, `exit`).
    pub name: String,
    /// The source line it stands for.
    pub line: usize,
    /// For the head of a loop statement: the position of its keyword
    /// (`for`, `while`, `do`), where SV-COMP's loop invariants are located.
    pub loop_head: Option<Site>,
    /// The C scalars in scope at a loop head: C name and state variable
    /// (position in [`crate::system::System::vars`]); the innermost
    /// declaration of each name.
    pub scope: Vec<(String, usize)>,
}

/// What a state variable is in C.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    /// Its C name (a struct field or pointer component with its path:
    /// `s.pos.x`, `p.offset`; an allocation site `heap12`).
    pub c_name: String,
    /// The function declaring it (`None` for globals).
    pub function: Option<String>,
    /// The line of its declaration.
    pub line: usize,
    /// The range of its C type (of the elements of an array).
    pub range: (i64, i64),
}

/// A nondeterministic input of one step: a `__VERIFIER_nondet_*` call, or
/// the arbitrary value of an uninitialised variable.
#[derive(Clone, Debug)]
pub struct Input {
    /// The transition's value symbol (`nd!12`, `x!`).
    pub symbol: Term,
    /// For a call: the called function and where the call is (its closing
    /// parenthesis, as SV-COMP's `function_return` waypoints locate it).
    pub call: Option<(String, Site)>,
    /// When the step executes it: a condition over the state at the step's
    /// start and the inputs before it.
    pub when: Term,
    /// The range of its C type.
    pub range: (i64, i64),
}

/// A way into the error location: the failing call and when it is taken.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The call of `reach_error`, `__VERIFIER_assert`, `assert`, … (its
    /// first character).
    pub site: Site,
    /// When the step reaches the error through it: a condition over the
    /// state at the step's start and the step's inputs.
    pub when: Term,
}

/// What one transition of the lowered system stands for in the source.
#[derive(Clone, Debug, Default)]
pub struct Step {
    /// The source location (position in the `loc` enumeration).
    pub from: usize,
    /// The target location.
    pub to: usize,
    /// The first and last source lines of the code the step runs.
    pub lines: (usize, usize),
    /// Every input the code after the source location may take, in the
    /// order of execution (also those this transition's path never
    /// reaches, which its `values` leave out).
    pub inputs: Vec<Input>,
    /// For a step into the error location: the failing calls.
    pub failures: Vec<Failure>,
}

/// The source map of a lowered C program (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    /// The program file, when it was read from one.
    pub program: Option<PathBuf>,
    /// The data model it was lowered under.
    pub data_model: super::DataModel,
    /// Per location of `pc` (in the order of the `loc` enumeration).
    pub locations: Vec<Location>,
    /// Per state variable of the system (`None` for `pc`).
    pub variables: Vec<Option<Variable>>,
    /// Per transition of the system, in the same order.
    pub steps: Vec<Step>,
}

impl SourceMap {
    /// The C name of state variable `v`, made unique among the state
    /// variables with the same C name by its declaration line
    /// (`i (line 12)`); the lowered name for variables without one.
    pub fn display_name(&self, v: usize, lowered: &str) -> String {
        let Some(Some(var)) = self.variables.get(v) else { return lowered.to_string() };
        let same = self.variables.iter().flatten().filter(|o| o.c_name == var.c_name).count();
        if same > 1 {
            format!("{} (line {})", var.c_name, var.line)
        } else {
            var.c_name.clone()
        }
    }

    /// A location in words: `line 9` for a loop head or the entry, `error`, `exit`.
    pub fn location_text(&self, l: usize) -> String {
        match self.locations.get(l) {
            Some(loc) if loc.name == "error" || loc.name == "exit" => loc.name.clone(),
            Some(loc) => format!("line {}", loc.line),
            None => format!("location {l}"),
        }
    }
}
