; expect: SAFE
; CHC-COMP format with a constant array: the array starts as all zeros,
; a loop adds 1 to a[0..n-1]; afterwards the cells of [0, n) hold 1 and
; every other cell still holds 0. Two queries.
(set-logic HORN)
(declare-fun loop (Int Int (Array Int Int)) Bool)
(declare-fun done (Int (Array Int Int)) Bool)
(assert (forall ((n Int) (a (Array Int Int)))
  (=> (and (>= n 0) (= a ((as const (Array Int Int)) 0))) (loop 0 n a))))
(assert (forall ((i Int) (n Int) (a (Array Int Int)))
  (=> (and (loop i n a) (< i n))
      (loop (+ i 1) n (store a i (+ (select a i) 1))))))
(assert (forall ((i Int) (n Int) (a (Array Int Int)))
  (=> (and (loop i n a) (not (< i n))) (done n a))))
(assert (forall ((n Int) (a (Array Int Int)) (k Int))
  (=> (and (done n a) (<= 0 k) (< k n) (distinct (select a k) 1)) false)))
(assert (forall ((n Int) (a (Array Int Int)) (k Int))
  (not (and (done n a) (or (< k 0) (>= k n)) (not (= (select a k) 0))))))
(check-sat)
(exit)
