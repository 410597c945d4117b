; expect: SAFE
; z3's rule format: b[0..n-1] := a[0..n-1] by a loop; afterwards the two
; arrays agree on [0, n). Named rules, a 0-ary error relation, one query.
(declare-rel copy (Int Int (Array Int Int) (Array Int Int)))
(declare-rel err ())
(declare-var i Int)
(declare-var n Int)
(declare-var k Int)
(declare-var a (Array Int Int))
(declare-var b (Array Int Int))
(rule (=> (>= n 0) (copy 0 n a b)) start)
(rule (=> (and (copy i n a b) (< i n))
          (copy (+ i 1) n a (store b i (select a i)))) step)
(rule (=> (and (copy i n a b) (>= i n) (<= 0 k) (< k n)
               (not (= (select b k) (select a k))))
          err) check)
(query err)
