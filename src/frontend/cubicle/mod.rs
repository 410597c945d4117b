//! The Cubicle input language (`.cub`), as the benchmark files write it
//! (see `bench/NOTES.md`), lowered into the [`System`] IR.
//!
//! Reading happens in three steps: a `nom` lexer (identifiers, numbers,
//! process constants `#n`, punctuation, nested `(* … *)` comments), a
//! recursive-descent parser into a small located syntax tree, and an
//! elaborator that type-checks every formula and builds the system.
//!
//! Semantics decided here (each checked against Cubicle's own sources):
//! - `type t = A | B` is an enumeration whose constructors are global
//!   constants; `type t` alone is an uninterpreted sort; `bool`, `int`,
//!   `real`, `proc` are built in; `True`/`False` (and `true`/`false`) are
//!   the Boolean values.
//! - `var X : t` is a scalar, `array A[proc] : t` (or `A[proc, proc]`) an
//!   array over processes, `const C : t` a rigid constant
//!   ([`System::consts`]).
//! - `number_procs N` bounds the system to at most `N` processes, as
//!   Cubicle's search drops every cube over more than `N` processes: an
//!   axiom states that any `N + 1 − m` processes (`m` process constants
//!   named) include a named one or two equal ones, so a configuration of
//!   fewer processes still counts. Over more than four variables the
//!   axiom is not stated and a warning says that every number of
//!   processes is checked. `number_procs 0` bounds nothing, as in
//!   Cubicle. The process constants are `#1 … #N`; the bound is also kept
//!   as an option.
//! - `#n` is the rigid constant `#n` of the index sort, added to
//!   [`System::consts`]; when there are several, one axiom with no
//!   quantified variables states that they are pairwise distinct.
//! - `init (x y) { φ }` is `∀x y. φ` over *all* pairs (no distinctness
//!   premise: Cubicle instantiates the variables of `init` with every
//!   mapping, injective or not). Universal quantifiers in the body are
//!   pulled out into more variables of the same kind. `forall x <> y. φ`
//!   is `∀x y. x = y ∨ φ` here as everywhere: its variables are distinct.
//!   (Cubicle 1.2 drops that distinctness in `init` only, reading the
//!   variables like those of `init (x y)`; arrax reads what the formula
//!   says, see `models/cub_forall_distinct_init.cub`.)
//! - `unsafe (z1 z2) { φ }` and `invariant (…) { φ }` are existential
//!   cubes over pairwise distinct variables, those `φ` names: as in
//!   Cubicle, whose cubes are over the processes they name, a listed
//!   variable `φ` does not mention asks for no process of its own; an
//!   `invariant` is a *negated* cube to be proven, never assumed
//!   ([`System::hints`]). Existential quantifiers in the body (`not
//!   forall x <> y. …` from an inlined predicate) become cube variables:
//!   each one is either one of the variables already there or a new one
//!   (one cube per choice), so the distinctness of cube variables loses
//!   nothing. Disjunctions that contain quantifiers split the formula
//!   into several cubes.
//! - `predicate p(a, b) { φ }` is a macro: a call `p(t, u)` is `φ` with `a`,
//!   `b` standing for `t`, `u` (its bound variables renamed apart).
//! - `transition t (x y) requires { g } { actions }`: the parameters are
//!   pairwise distinct. In the guard, `forall_other j. φ` is the universal
//!   guard `∀j. j = x ∨ j = y ∨ φ`; `forall j. φ` is `∀j. φ` (every `j`);
//!   several universals merge into one ([`Transition::uguard`]), and a
//!   universal over a conjunction is split into one per conjunct.
//!   `exists_other k. φ` adds a parameter `k` (distinct from the others);
//!   `exists k. φ` adds one that is either an existing parameter or a new
//!   one (one transition per choice). A disjunction that contains a
//!   quantifier splits the transition (named `t.1`, `t.2`, …);
//!   quantifier-free disjunctions stay inside the guard.
//! - Actions are simultaneous. `X := e`; `X := case | c : e | _ : e'`
//!   (first matching case); `A[j] := case …` is `λj. ite(…)` with `j` a
//!   new name; `A[x] := e` is `λj. ite(j = x, e, A[j])`; `let x = e in`
//!   names a term. A scalar's case list may end without the default
//!   `| _ :` (Cubicle's grammar allows it): where no case applies the new
//!   value is arbitrary, as in Cubicle's pre-image (each literal on the
//!   value becomes `ite(c1, …, ite(cn, …, true))`), so it is chosen like
//!   `X := .`. An array's case list without a default (arbitrary values
//!   per element) is refused at its last condition.
//! - `X := .` (or `?`) chooses a value nondeterministically: for an index
//!   (`proc`) variable the value is a new transition parameter that is
//!   either an existing parameter or a new process (one transition per
//!   choice, as for `exists`); for any other sort it is an entry `X?` of
//!   [`Transition::values`].
//! - Types, predicates, transitions and process variables are separate
//!   namespaces, as in Cubicle: a parameter, a bound variable or a
//!   variable of `init`/`unsafe` may share its name with a type or a
//!   predicate (it is renamed inside when it must be); only state
//!   variables, constants and constructors cannot be shadowed.
//! - A lower-case name that is an operator of arrax's canonical form
//!   (`mod`, `select`, `and`, `store`, `ite`, …: Cubicle's types,
//!   transitions, parameters and variables may use them) keeps its
//!   meaning: a type `mod` is the sort `mod?` inside, a variable gets a
//!   fresh name (`and1`); predicates and `let` names never reach the IR.
//!   Only names of arrax's extension (lower-case state variables,
//!   constants, constructors) are refused as reserved.
//! - Cubicle accepts two transitions with the same name (flash, german.ctc
//!   variants); the later ones get a suffix `_2`, `_3`, … and a warning.
//! - The legacy syntax of `german_subtype.cub` (`require`, `assign { … }`,
//!   `{| … |}`, whole-array assignment), which Cubicle 1.2 rejects as well,
//!   is reported as an error naming the construct.
//!
//! Beyond Cubicle 1.2, arrax also reads: names of any case (Cubicle wants
//! capitals for variables, constants and constructors, lower case for
//! types, parameters and bound variables), declarations in any order,
//! `#n` without `number_procs`, any linear arithmetic (Cubicle: a
//! variable plus or minus constants, `k * C` of a constant `C`),
//! parentheses around terms, a Boolean variable as a formula, `true` and
//! `false` as values, an integer literal where a real is expected, `if`
//! on values, `let` (which Cubicle 1.2's typing refuses: "unknown
//! name"), `exists`/`exists_other` in guards and several universal
//! guards in one (on which Cubicle 1.2 fails an assertion), and
//! processes held by variables as array indices. Cubicle 1.2 accepts but
//! arrax refuses, each at its position: order comparisons on an
//! enumeration, an abstract type or `bool` (Cubicle's typing lets them
//! through and its solver leaves their meaning open), an element-wise
//! case list without the default (below), and a variable both assigned
//! and chosen (`X := e; X := .`, whose assignment Cubicle's pre-image
//! ignores), and a predicate defined twice (Cubicle's later definition
//! shadows the earlier one).
//!
//! Quantifiers the IR cannot express are errors, never approximations:
//! `forall x <> y.` (two variables) in a guard, quantifiers nested inside a
//! guard's quantifier, existentials in `init`, universals left in a cube,
//! quantifiers in case conditions or values.

mod elab;
mod lex;
mod normalize;
mod parse;
mod syntax;

use crate::frontend::{Diagnostic, Parsed};
use elab::*;
use lex::*;
use normalize::*;
use parse::*;
use syntax::*;

/// Reads a Cubicle file into a system.
pub fn parse(src: &str) -> Result<Parsed, Diagnostic> {
    let tokens = lex(src)?;
    let items = Parser { src, toks: &tokens, i: 0, depth: 0 }.file()?;
    Elab::new(src).system(&items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::{Sort, Term};

    #[test]
    fn lexes_comments_numbers_and_punctuation() {
        let toks = lex("(* a (* nested *) comment *) X := 1.50 + #2; A[i] <> B").unwrap();
        let kinds: Vec<Tok> = toks.into_iter().map(|t| t.tok).collect();
        assert_eq!(
            kinds,
            vec![
                Tok::Ident("X".into()),
                Tok::Punct(":="),
                Tok::Real(150, 100),
                Tok::Punct("+"),
                Tok::Proc(2),
                Tok::Punct(";"),
                Tok::Ident("A".into()),
                Tok::Punct("["),
                Tok::Ident("i".into()),
                Tok::Punct("]"),
                Tok::Punct("<>"),
                Tok::Ident("B".into()),
            ]
        );
        assert!(lex("(* open").unwrap_err().message.contains("unterminated comment"));
    }

    #[test]
    fn identifications_count_every_choice() {
        let v = |n: &str| Term::var(n, Sort::Index);
        // one new variable, two old ones: equal to either, or new
        assert_eq!(identifications(&[v("k")], &[v("x"), v("y")]).len(), 3);
        // two new variables, no old ones: equal or distinct
        assert_eq!(identifications(&[v("k"), v("l")], &[]).len(), 2);
    }
}
