; expect: UNSAFE
; CHC-COMP format: as chc_init.smt2, but the check reads one cell past the
; written range (k <= n), which holds whatever the array held.
(set-logic HORN)
(declare-fun inv (Int Int (Array Int Int)) Bool)
(assert (forall ((i Int) (n Int) (a (Array Int Int)))
  (=> (and (= i 0) (> n 0)) (inv i n a))))
(assert (forall ((i Int) (n Int) (a (Array Int Int)) (i1 Int) (a1 (Array Int Int)))
  (=> (and (inv i n a) (< i n) (= a1 (store a i 0)) (= i1 (+ i 1)))
      (inv i1 n a1))))
(assert (forall ((i Int) (n Int) (a (Array Int Int)) (k Int))
  (=> (and (inv i n a) (>= i n) (<= 0 k) (<= k n) (not (= (select a k) 0)))
      false)))
(check-sat)
(exit)
