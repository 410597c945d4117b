; expect: SAFE
; CHC-COMP format: a loop writes 0 into a[0..n-1]; afterwards no cell of
; [0, n) holds anything else. One predicate over (i, n, a).
(set-logic HORN)
(declare-fun inv (Int Int (Array Int Int)) Bool)
(assert (forall ((i Int) (n Int) (a (Array Int Int)))
  (=> (and (= i 0) (> n 0)) (inv i n a))))
(assert (forall ((i Int) (n Int) (a (Array Int Int)) (i1 Int) (a1 (Array Int Int)))
  (let ((more (< i n)))
    (=> (and (inv i n a) more (= a1 (store a i 0)) (= i1 (+ i 1)))
        (inv i1 n a1)))))
(assert (forall ((i Int) (n Int) (a (Array Int Int)) (k Int))
  (=> (and (inv i n a) (>= i n) (<= 0 k) (< k n) (not (= (select a k) 0)))
      false)))
(check-sat)
(exit)
