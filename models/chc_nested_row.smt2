; expect: SAFE
; CHC-COMP format with a two-dimensional array as SeaHorn writes one, an
; array of arrays: it starts as all zeros (a nested constant array), a
; loop sets row r to 7 cell by cell (a write into a row of the array).
; Afterwards the cells of row r below m hold 7 and the other rows still
; hold 0. Two queries.
(set-logic HORN)
(declare-fun loop (Int Int Int (Array Int (Array Int Int))) Bool)
(declare-fun done (Int Int (Array Int (Array Int Int))) Bool)
(assert (forall ((r Int) (m Int) (a (Array Int (Array Int Int))))
  (=> (and (>= r 0) (> m 0) (= a ((as const (Array Int (Array Int Int))) ((as const (Array Int Int)) 0))))
      (loop r 0 m a))))
(assert (forall ((r Int) (j Int) (m Int) (a (Array Int (Array Int Int))))
  (=> (and (loop r j m a) (< j m))
      (loop r (+ j 1) m (store a r (store (select a r) j 7))))))
(assert (forall ((r Int) (j Int) (m Int) (a (Array Int (Array Int Int))))
  (=> (and (loop r j m a) (>= j m)) (done r m a))))
(assert (forall ((r Int) (m Int) (k Int) (a (Array Int (Array Int Int))))
  (=> (and (done r m a) (<= 0 k) (< k m) (not (= (select (select a r) k) 7))) false)))
(assert (forall ((r Int) (m Int) (q Int) (k Int) (a (Array Int (Array Int Int))))
  (=> (and (done r m a) (not (= q r)) (not (= (select (select a q) k) 0))) false)))
