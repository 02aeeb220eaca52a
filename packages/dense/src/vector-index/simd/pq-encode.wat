;; Product-quantizer encoding: for each of `n` rows and each of its `m` sub-vectors, the index
;; (one byte) of the nearest of the sub-quantizer's 256 centroids by squared distance.
;;
;; Sub-vectors sit one after another (row 0's m sub-vectors, then row 1's), `stride` bytes each
;; (a multiple of 16, zero-padded); sub-quantizer j's 256 centroids start at
;; books + j * 256 * stride, and their squared norms (float32) at norms + j * 1024. Codes go to
;; out, n * m bytes.
;;
;; The arithmetic is exactly that of the exhaustive search (dots.wat with a heap of one), so
;; codes do not depend on which of the two computed them: each lane sums products of four
;; dimensions in float32, a dot product is (l0 + l1) + (l2 + l3) of its lanes, a centroid's
;; score is 2 dot - |c|^2 in float64, and a centroid replaces the best so far when its score is
;; greater than the best's score rounded to float32 (the heap keeps float32 scores); the first
;; of equal scores wins. Four centroids per pass: their four sums are transposed so the lane
;; sums of all four take three vector adds, their scores are compared with the best in two
;; float64 pairs, and only a pass that beats the best (a few of the 64) steps through its four
;; centroids in order. A sub-vector that beats no centroid (all scores NaN) gets 255.
;; Compiled to pq-encode-wasm.ts by scripts/build-wasm.mjs; edit this file, not that one.
(module
  (import "env" "memory" (memory 1 65536 shared))

  (func (export "encode")
    (param $rows i32) (param $n i32) (param $m i32) (param $stride i32)
    (param $books i32) (param $norms i32) (param $out i32)
    (local $end i32) (local $j i32) (local $book i32) (local $nrm i32) (local $c i32)
    (local $b i32) (local $k i32) (local $p i32) (local $label i32)
    (local $best f64) (local $s f64)
    (local $x v128) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $u0 v128) (local $u1 v128) (local $u2 v128) (local $u3 v128) (local $h v128)
    (local $lo v128) (local $hi v128) (local $nv v128) (local $bv v128)
    (local.set $end (i32.add (local.get $out) (i32.mul (local.get $n) (local.get $m))))
    (local.set $j (i32.const 0))
    (block $done
      (loop $sub
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $book (i32.add (local.get $books)
          (i32.mul (i32.shl (local.get $j) (i32.const 8)) (local.get $stride))))
        (local.set $nrm (i32.add (local.get $norms) (i32.shl (local.get $j) (i32.const 10))))
        (local.set $best (f64.const -inf))
        (local.set $label (i32.const -1))
        (local.set $c (i32.const 0))
        (local.set $b (local.get $book))
        (block $groups_done
          (loop $group
            (br_if $groups_done (i32.ge_u (local.get $c) (i32.const 256)))
            (local.set $a0 (v128.const i32x4 0 0 0 0))
            (local.set $a1 (v128.const i32x4 0 0 0 0))
            (local.set $a2 (v128.const i32x4 0 0 0 0))
            (local.set $a3 (v128.const i32x4 0 0 0 0))
            (local.set $k (i32.const 0))
            (block $dims_done
              (loop $dims
                (br_if $dims_done (i32.ge_u (local.get $k) (local.get $stride)))
                (local.set $x (v128.load (i32.add (local.get $rows) (local.get $k))))
                (local.set $p (i32.add (local.get $b) (local.get $k)))
                (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (local.get $x) (v128.load (local.get $p)))))
                (local.set $p (i32.add (local.get $p) (local.get $stride)))
                (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (local.get $x) (v128.load (local.get $p)))))
                (local.set $p (i32.add (local.get $p) (local.get $stride)))
                (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (local.get $x) (v128.load (local.get $p)))))
                (local.set $p (i32.add (local.get $p) (local.get $stride)))
                (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (local.get $x) (v128.load (local.get $p)))))
                (local.set $k (i32.add (local.get $k) (i32.const 16)))
                (br $dims)))
            ;; Transpose: u0 = [a0.0 a1.0 a0.1 a1.1], u1 = [a0.2 a1.2 a0.3 a1.3] (u2, u3: a2, a3);
            ;; then h lane i = (ai.0 + ai.1) + (ai.2 + ai.3).
            (local.set $u0 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $a0) (local.get $a1)))
            (local.set $u1 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $a0) (local.get $a1)))
            (local.set $u2 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $a2) (local.get $a3)))
            (local.set $u3 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $a2) (local.get $a3)))
            (local.set $h (f32x4.add
              (f32x4.add
                (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $u0) (local.get $u2))
                (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $u0) (local.get $u2)))
              (f32x4.add
                (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $u1) (local.get $u3))
                (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $u1) (local.get $u3)))))
            ;; Scores 2 dot - |c|^2 in float64: centroids c, c+1 in lo; c+2, c+3 in hi.
            (local.set $nv (v128.load (i32.add (local.get $nrm) (i32.shl (local.get $c) (i32.const 2)))))
            (local.set $lo (f64x2.promote_low_f32x4 (local.get $h)))
            (local.set $lo (f64x2.sub (f64x2.add (local.get $lo) (local.get $lo))
              (f64x2.promote_low_f32x4 (local.get $nv))))
            (local.set $hi (f64x2.promote_low_f32x4
              (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $h) (local.get $h))))
            (local.set $hi (f64x2.sub (f64x2.add (local.get $hi) (local.get $hi))
              (f64x2.promote_low_f32x4
                (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $nv) (local.get $nv)))))
            (local.set $bv (f64x2.splat (local.get $best)))
            (if (v128.any_true (v128.or
                  (f64x2.gt (local.get $lo) (local.get $bv))
                  (f64x2.gt (local.get $hi) (local.get $bv))))
              (then
                (local.set $s (f64x2.extract_lane 0 (local.get $lo)))
                (if (f64.gt (local.get $s) (local.get $best))
                  (then
                    (local.set $best (f64.promote_f32 (f32.demote_f64 (local.get $s))))
                    (local.set $label (local.get $c))))
                (local.set $s (f64x2.extract_lane 1 (local.get $lo)))
                (if (f64.gt (local.get $s) (local.get $best))
                  (then
                    (local.set $best (f64.promote_f32 (f32.demote_f64 (local.get $s))))
                    (local.set $label (i32.add (local.get $c) (i32.const 1)))))
                (local.set $s (f64x2.extract_lane 0 (local.get $hi)))
                (if (f64.gt (local.get $s) (local.get $best))
                  (then
                    (local.set $best (f64.promote_f32 (f32.demote_f64 (local.get $s))))
                    (local.set $label (i32.add (local.get $c) (i32.const 2)))))
                (local.set $s (f64x2.extract_lane 1 (local.get $hi)))
                (if (f64.gt (local.get $s) (local.get $best))
                  (then
                    (local.set $best (f64.promote_f32 (f32.demote_f64 (local.get $s))))
                    (local.set $label (i32.add (local.get $c) (i32.const 3)))))))
            (local.set $c (i32.add (local.get $c) (i32.const 4)))
            (local.set $b (i32.add (local.get $b) (i32.shl (local.get $stride) (i32.const 2))))
            (br $group)))
        (i32.store8 (local.get $out) (local.get $label))
        (local.set $out (i32.add (local.get $out) (i32.const 1)))
        (local.set $rows (i32.add (local.get $rows) (local.get $stride)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (if (i32.eq (local.get $j) (local.get $m)) (then (local.set $j (i32.const 0))))
        (br $sub)))))
