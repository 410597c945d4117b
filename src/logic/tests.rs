use super::*;

#[test]
fn hash_consing_shares_nodes() {
    let x = Term::var("x", Sort::Int);
    let a = Term::add([x.clone(), Term::int(1)]);
    let b = Term::add([x.clone(), Term::int(1)]);
    assert_eq!(a, b);
    assert_eq!(a.id(), b.id());
}

#[test]
fn simplification_folds_constants() {
    let x = Term::var("x", Sort::Int);
    assert_eq!(Term::add([Term::int(2), Term::int(3)]), Term::int(5));
    assert_eq!(Term::lt(&Term::int(2), &Term::int(3)), Term::tt());
    assert_eq!(Term::eq(&x, &x), Term::tt());
    assert_eq!(Term::eq(&Term::int(1), &Term::int(2)), Term::ff());
    let p = Term::var("p", Sort::Bool);
    assert_eq!(Term::and([p.clone(), p.not()]), Term::ff());
    assert_eq!(Term::or([p.clone(), Term::tt()]), Term::tt());
    assert_eq!(Term::eq(&p, &Term::ff()), p.not());
    assert_eq!(Term::ite(&p, &Term::tt(), &Term::ff()), p);
    assert_eq!(Term::ite(&p.not(), &x, &Term::int(0)), Term::ite(&p, &Term::int(0), &x));
}

#[test]
fn select_reads_through_lambda_and_store() {
    let j = Term::var("j", Sort::Index);
    let x = Term::var("x", Sort::Index);
    let a = Term::var("a", Sort::array(vec![Sort::Index], Sort::Int));
    let lam = Term::lambda(std::slice::from_ref(&j), &Term::ite(&Term::eq(&j, &x), &Term::int(1), &Term::select(&a, std::slice::from_ref(&j))));
    assert_eq!(Term::select(&lam, std::slice::from_ref(&x)), Term::int(1));
    let st = Term::store(&a, &[Term::int(3)], &Term::int(7));
    assert_eq!(Term::select(&st, &[Term::int(3)]), Term::int(7));
    assert_eq!(Term::select(&st, &[Term::int(4)]), Term::select(&a, &[Term::int(4)]));
}

#[test]
fn substitution_respects_binders() {
    let x = Term::var("x", Sort::Int);
    let y = Term::var("y", Sort::Int);
    let f = Term::and([Term::lt(&x, &y), Term::forall(std::slice::from_ref(&x), &Term::le(&x, &y))]);
    let map = [(x.clone(), Term::int(0))].into_iter().collect();
    let g = substitute(&f, &map);
    assert_eq!(g, Term::and([Term::lt(&Term::int(0), &y), Term::forall(std::slice::from_ref(&x), &Term::le(&x, &y))]));
    assert_eq!(free_vars(&f), vec![x, y]);
}

#[test]
fn printing_quotes_odd_symbols() {
    assert_eq!(print::symbol("a`b"), "|a`b|");
    assert_eq!(print::symbol("ok!1"), "ok!1");
    assert_eq!(Term::int(-3).to_string(), "(- 3)");
    assert_eq!(Term::real(1, 2).to_string(), "(/ 1.0 2.0)");
}

/// `any_small` finds a subterm, says when there is none, gives up (`None`)
/// past its budget, and does not look inside binders.
#[test]
fn any_small_searches_within_its_budget() {
    let x = Term::var("x", Sort::Int);
    let y = Term::var("y", Sort::Int);
    let is_y = |t: &Term| *t == y;
    let f = Term::lt(&Term::add([x.clone(), Term::int(1)]), &y);
    assert_eq!(any_small(&f, &is_y, &mut 64), Some(true));
    assert_eq!(any_small(&f, &|t: &Term| *t == Term::int(7), &mut 64), Some(false));
    // five nodes: a budget of three cannot tell
    assert_eq!(any_small(&f, &|t: &Term| *t == Term::int(7), &mut 3), None);
    let bound = Term::forall(std::slice::from_ref(&y), &Term::lt(&x, &y));
    assert_eq!(any_small(&bound, &is_y, &mut 64), Some(false));
}
