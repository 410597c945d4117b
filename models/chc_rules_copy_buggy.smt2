; expect: UNSAFE
; z3's rule format: as chc_rules_copy.smt2, but the loop starts at 1 or
; at 0 (two facts), so b[0] may never be written.
(declare-rel copy (Int Int (Array Int Int) (Array Int Int)))
(declare-rel err ())
(declare-var i Int)
(declare-var n Int)
(declare-var k Int)
(declare-var a (Array Int Int))
(declare-var b (Array Int Int))
(rule (=> (>= n 0) (copy 0 n a b)))
(rule (=> (>= n 1) (copy 1 n a b)))
(rule (=> (and (copy i n a b) (< i n))
          (copy (+ i 1) n a (store b i (select a i)))))
(rule (=> (and (copy i n a b) (>= i n) (<= 0 k) (< k n)
               (not (= (select b k) (select a k))))
          err))
(query err)
