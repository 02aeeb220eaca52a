;; Exhaustive BM25 scoring of a small collection (scoring-kernel.ts): the posting lists'
;; documents (i32) and impacts (f32), and one f64 accumulator per document, all live in this
;; module's memory. `accumulate` adds one term's list, `above` finds the next document whose
;; accumulator beats a threshold (the top-k pass then offers only those to its heap), and
;; `collect` lists the documents a bucket selection lays out (select.ts). In
;; JavaScript every typed-array access of the posting loop is bounds-checked; here the loop is
;; a plain load, multiply-add and store, about four times faster; whole exhaustive searches are
;; 2.5-5x faster at top 10 (bench/bm25-strategies.mjs).
;; Compiled to postings-wasm.ts by scripts/build-wasm.mjs; edit this file, not that one.
(module
  (import "env" "memory" (memory 1 65536))

  ;; acc[docs[p]] += weight * impacts[p] for p in [start, end). Pointers are byte offsets.
  (func (export "accumulate")
    (param $docs i32) (param $impacts i32) (param $acc i32)
    (param $start i32) (param $end i32) (param $weight f64)
    (local $p i32) (local $slot i32)
    (local.set $p (local.get $start))
    (block $done
      (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
      (loop $next
        (local.set $slot
          (i32.add (local.get $acc)
            (i32.shl
              (i32.load (i32.add (local.get $docs) (i32.shl (local.get $p) (i32.const 2))))
              (i32.const 3))))
        (f64.store (local.get $slot)
          (f64.add (f64.load (local.get $slot))
            (f64.mul (local.get $weight)
              (f64.promote_f32
                (f32.load (i32.add (local.get $impacts) (i32.shl (local.get $p) (i32.const 2))))))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br_if $next (i32.lt_u (local.get $p) (local.get $end))))))

  ;; The first d in [from, n) with acc[d] > threshold, or n.
  (func (export "above")
    (param $acc i32) (param $from i32) (param $n i32) (param $threshold f64) (result i32)
    (local $d i32)
    (local.set $d (local.get $from))
    (block $done
      (br_if $done (i32.ge_u (local.get $d) (local.get $n)))
      (loop $next
        (br_if $done
          (f64.gt
            (f64.load (i32.add (local.get $acc) (i32.shl (local.get $d) (i32.const 3))))
            (local.get $threshold)))
        (local.set $d (i32.add (local.get $d) (i32.const 1)))
        (br_if $next (i32.lt_u (local.get $d) (local.get $n)))))
    (local.get $d))

  ;; Writes to out (i32s) every d in [0, n) with acc[d] * scale >= least; returns how many.
  ;; Branch-free: each d is stored, and the count moves past it only when it qualifies.
  (func (export "collect")
    (param $acc i32) (param $n i32) (param $scale f64) (param $least f64) (param $out i32)
    (result i32)
    (local $d i32) (local $m i32)
    (block $done
      (br_if $done (i32.ge_u (local.get $d) (local.get $n)))
      (loop $next
        (i32.store (i32.add (local.get $out) (i32.shl (local.get $m) (i32.const 2)))
          (local.get $d))
        (local.set $m
          (i32.add (local.get $m)
            (f64.ge
              (f64.mul
                (f64.load (i32.add (local.get $acc) (i32.shl (local.get $d) (i32.const 3))))
                (local.get $scale))
              (local.get $least))))
        (local.set $d (i32.add (local.get $d) (i32.const 1)))
        (br_if $next (i32.lt_u (local.get $d) (local.get $n)))))
    (local.get $m))
)
