; expect: SAFE
; CHC-COMP format with Booleans, ite, div and mod: x counts by steps of 2
; from an even start, a flag remembers whether the last step crossed a
; multiple of 4 (ite), and a Boolean array marks the visited halves.
(set-logic HORN)
(declare-fun run (Int Bool (Array Int Bool)) Bool)
(assert (forall ((x Int) (f Bool) (m (Array Int Bool)))
  (=> (and (= (mod x 2) 0) (>= x 0) (not f) (= m ((as const (Array Int Bool)) false)))
      (run x f m))))
(assert (forall ((x Int) (f Bool) (m (Array Int Bool)) (y Int) (g Bool))
  (=> (and (run x f m) (= y (+ x 2)) (= g (ite (= (mod y 4) 0) true false)))
      (run y g (store m (div y 2) true)))))
(assert (forall ((x Int) (f Bool) (m (Array Int Bool)))
  (=> (and (run x f m) (= (mod x 2) 1)) false)))
(assert (forall ((x Int) (f Bool) (m (Array Int Bool)))
  (=> (and (run x f m) f (not (= (mod x 4) 0))) false)))
(check-sat)
(exit)
