;; Block upper bounds of a query from the dense block-max rows (bmp/bound-matrix.ts): for every
;; block b, out[b] = sum over the query's dense terms i of mults[i] * rows[i][b], where rows[i]
;; is term i's row of one u8 (its rounded-up block maximum) per block and mults[i] a u16
;; multiplier splatted over eight lanes (16 bytes per term). Sums are exact u32 (the caller
;; keeps 255 * sum of multipliers below 2^31). Blocks go 32 at a time (pairs of 16-byte
;; groups): the 32 bytes of a row widen to u16 and multiply into eight u32x4 sums kept in
;; registers over all terms, so each output is written once and each row is read 32 bytes a
;; step (two loads in flight per term). Only groups [first, end) are summed (their outputs at
;; out + 128 * first), so threads can share one query's blocks; the memory is shared for them.
;; Returns the largest sum of those groups. Compiled to
;; block-bounds-wasm.ts by scripts/build-wasm.mjs; edit this file, not that one.
(module
  (import "env" "memory" (memory 1 65536 shared))

  (func $max4 (param $a v128) (param $b v128) (param $c v128) (param $d v128) (result v128)
    (i32x4.max_u (i32x4.max_u (local.get $a) (local.get $b)) (i32x4.max_u (local.get $c) (local.get $d))))

  (func (export "sum")
    (param $rows i32) (param $mults i32) (param $terms i32) (param $first i32) (param $end i32)
    (param $out i32)
    (result i32)
    (local $g i32) (local $i i32) (local $at i32) (local $o i32) (local $row i32)
    (local $v0 v128) (local $v1 v128) (local $l0 v128) (local $h0 v128) (local $l1 v128)
    (local $h1 v128) (local $m v128) (local $max v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $a4 v128) (local $a5 v128) (local $a6 v128) (local $a7 v128)
    (local.set $max (v128.const i32x4 0 0 0 0))
    (local.set $g (local.get $first))
    (local.set $at (i32.shl (local.get $first) (i32.const 5)))
    (local.set $o (i32.add (local.get $out) (i32.shl (local.get $first) (i32.const 7))))
    (block $done_g
      (loop $next_g
        (br_if $done_g (i32.ge_u (local.get $g) (local.get $end)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $a4 (v128.const i32x4 0 0 0 0))
        (local.set $a5 (v128.const i32x4 0 0 0 0))
        (local.set $a6 (v128.const i32x4 0 0 0 0))
        (local.set $a7 (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (block $done_i
          (loop $next_i
            (br_if $done_i (i32.ge_u (local.get $i) (local.get $terms)))
            (local.set $row (i32.add (i32.load (i32.add (local.get $rows) (i32.shl (local.get $i) (i32.const 2))))
              (local.get $at)))
            (local.set $v0 (v128.load (local.get $row)))
            (local.set $v1 (v128.load offset=16 (local.get $row)))
            (local.set $m (v128.load (i32.add (local.get $mults) (i32.shl (local.get $i) (i32.const 4)))))
            (local.set $l0 (i16x8.extend_low_i8x16_u (local.get $v0)))
            (local.set $h0 (i16x8.extend_high_i8x16_u (local.get $v0)))
            (local.set $l1 (i16x8.extend_low_i8x16_u (local.get $v1)))
            (local.set $h1 (i16x8.extend_high_i8x16_u (local.get $v1)))
            (local.set $a0 (i32x4.add (local.get $a0) (i32x4.extmul_low_i16x8_u (local.get $l0) (local.get $m))))
            (local.set $a1 (i32x4.add (local.get $a1) (i32x4.extmul_high_i16x8_u (local.get $l0) (local.get $m))))
            (local.set $a2 (i32x4.add (local.get $a2) (i32x4.extmul_low_i16x8_u (local.get $h0) (local.get $m))))
            (local.set $a3 (i32x4.add (local.get $a3) (i32x4.extmul_high_i16x8_u (local.get $h0) (local.get $m))))
            (local.set $a4 (i32x4.add (local.get $a4) (i32x4.extmul_low_i16x8_u (local.get $l1) (local.get $m))))
            (local.set $a5 (i32x4.add (local.get $a5) (i32x4.extmul_high_i16x8_u (local.get $l1) (local.get $m))))
            (local.set $a6 (i32x4.add (local.get $a6) (i32x4.extmul_low_i16x8_u (local.get $h1) (local.get $m))))
            (local.set $a7 (i32x4.add (local.get $a7) (i32x4.extmul_high_i16x8_u (local.get $h1) (local.get $m))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $next_i)))
        (v128.store (local.get $o) (local.get $a0))
        (v128.store offset=16 (local.get $o) (local.get $a1))
        (v128.store offset=32 (local.get $o) (local.get $a2))
        (v128.store offset=48 (local.get $o) (local.get $a3))
        (v128.store offset=64 (local.get $o) (local.get $a4))
        (v128.store offset=80 (local.get $o) (local.get $a5))
        (v128.store offset=96 (local.get $o) (local.get $a6))
        (v128.store offset=112 (local.get $o) (local.get $a7))
        (local.set $max (i32x4.max_u (local.get $max)
          (i32x4.max_u (call $max4 (local.get $a0) (local.get $a1) (local.get $a2) (local.get $a3))
            (call $max4 (local.get $a4) (local.get $a5) (local.get $a6) (local.get $a7)))))
        (local.set $o (i32.add (local.get $o) (i32.const 128)))
        (local.set $at (i32.add (local.get $at) (i32.const 32)))
        (local.set $g (i32.add (local.get $g) (i32.const 1)))
        (br $next_g)))
    (local.set $max (i32x4.max_u (local.get $max) (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7
      (local.get $max) (local.get $max))))
    (local.set $max (i32x4.max_u (local.get $max) (i8x16.shuffle 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3
      (local.get $max) (local.get $max))))
    (i32x4.extract_lane 0 (local.get $max))))
