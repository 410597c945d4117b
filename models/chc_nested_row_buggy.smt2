; expect: UNSAFE
; CHC-COMP format with a two-dimensional array as SeaHorn writes one (an
; array of arrays): a loop zeroes row r cell by cell, but the check reads
; one cell past the written range (k <= n), which holds whatever the
; array held.
(set-logic HORN)
(declare-fun inv (Int Int Int (Array Int (Array Int Int))) Bool)
(assert (forall ((i Int) (n Int) (r Int) (a (Array Int (Array Int Int))))
  (=> (and (= i 0) (> n 0)) (inv i n r a))))
(assert (forall ((i Int) (n Int) (r Int) (a (Array Int (Array Int Int))) (i1 Int) (a1 (Array Int (Array Int Int))))
  (=> (and (inv i n r a) (< i n) (= a1 (store a r (store (select a r) i 0))) (= i1 (+ i 1)))
      (inv i1 n r a1))))
(assert (forall ((i Int) (n Int) (r Int) (a (Array Int (Array Int Int))) (k Int))
  (=> (and (inv i n r a) (>= i n) (<= 0 k) (<= k n) (not (= (select (select a r) k) 0)))
      false)))
(check-sat)
(exit)
