;; Batched inner products for exact (Flat) search: out[i * nt + j] = dot(Q_i, T_j).
;;
;; Q holds nq query rows (nq a multiple of 4), T holds nt vector rows (nt a multiple of 2),
;; both with `stride` bytes per row (a multiple of 16, zero-padded). The memory is shared: the
;; vectors are searched in place by several threads, each with its own scratch area for
;; queries and scores. Each pass loads two
;; vectors and four queries per 16 bytes and keeps eight f32x4 accumulators, so every load
;; feeds two to four multiply-adds; the two vectors stay in L1 while all queries stream from
;; L2. `dot1` serves one query against four vectors per pass, for batches smaller than four.
;; Compiled to dots-wasm.ts by scripts/build-wasm.mjs; edit this file, not that one.
(module
  (import "env" "memory" (memory 1 65536 shared))

  (func $hsum (param $v v128) (result f32)
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
      (f32.add (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))

  (func (export "dots")
    (param $q i32) (param $nq i32) (param $t i32) (param $nt i32) (param $stride i32)
    (param $out i32)
    (local $i i32) (local $j i32) (local $k i32)
    (local $t0 i32) (local $t1 i32) (local $q0 i32) (local $q1 i32) (local $q2 i32)
    (local $q3 i32) (local $o i32) (local $row i32)
    (local $v0 v128) (local $v1 v128) (local $x v128)
    (local $a00 v128) (local $a01 v128) (local $a10 v128) (local $a11 v128)
    (local $a20 v128) (local $a21 v128) (local $a30 v128) (local $a31 v128)
    (local.set $row (i32.shl (local.get $nt) (i32.const 2)))
    (local.set $j (i32.const 0))
    (block $done_j
      (loop $next_j
        (br_if $done_j (i32.ge_u (local.get $j) (local.get $nt)))
        (local.set $t0 (i32.add (local.get $t) (i32.mul (local.get $j) (local.get $stride))))
        (local.set $t1 (i32.add (local.get $t0) (local.get $stride)))
        (local.set $i (i32.const 0))
        (block $done_i
          (loop $next_i
            (br_if $done_i (i32.ge_u (local.get $i) (local.get $nq)))
            (local.set $q0 (i32.add (local.get $q) (i32.mul (local.get $i) (local.get $stride))))
            (local.set $q1 (i32.add (local.get $q0) (local.get $stride)))
            (local.set $q2 (i32.add (local.get $q1) (local.get $stride)))
            (local.set $q3 (i32.add (local.get $q2) (local.get $stride)))
            (local.set $a00 (v128.const i32x4 0 0 0 0))
            (local.set $a01 (v128.const i32x4 0 0 0 0))
            (local.set $a10 (v128.const i32x4 0 0 0 0))
            (local.set $a11 (v128.const i32x4 0 0 0 0))
            (local.set $a20 (v128.const i32x4 0 0 0 0))
            (local.set $a21 (v128.const i32x4 0 0 0 0))
            (local.set $a30 (v128.const i32x4 0 0 0 0))
            (local.set $a31 (v128.const i32x4 0 0 0 0))
            (local.set $k (i32.const 0))
            (block $done_k
              (loop $next_k
                (br_if $done_k (i32.ge_u (local.get $k) (local.get $stride)))
                (local.set $v0 (v128.load (i32.add (local.get $t0) (local.get $k))))
                (local.set $v1 (v128.load (i32.add (local.get $t1) (local.get $k))))
                (local.set $x (v128.load (i32.add (local.get $q0) (local.get $k))))
                (local.set $a00 (f32x4.add (local.get $a00) (f32x4.mul (local.get $x) (local.get $v0))))
                (local.set $a01 (f32x4.add (local.get $a01) (f32x4.mul (local.get $x) (local.get $v1))))
                (local.set $x (v128.load (i32.add (local.get $q1) (local.get $k))))
                (local.set $a10 (f32x4.add (local.get $a10) (f32x4.mul (local.get $x) (local.get $v0))))
                (local.set $a11 (f32x4.add (local.get $a11) (f32x4.mul (local.get $x) (local.get $v1))))
                (local.set $x (v128.load (i32.add (local.get $q2) (local.get $k))))
                (local.set $a20 (f32x4.add (local.get $a20) (f32x4.mul (local.get $x) (local.get $v0))))
                (local.set $a21 (f32x4.add (local.get $a21) (f32x4.mul (local.get $x) (local.get $v1))))
                (local.set $x (v128.load (i32.add (local.get $q3) (local.get $k))))
                (local.set $a30 (f32x4.add (local.get $a30) (f32x4.mul (local.get $x) (local.get $v0))))
                (local.set $a31 (f32x4.add (local.get $a31) (f32x4.mul (local.get $x) (local.get $v1))))
                (local.set $k (i32.add (local.get $k) (i32.const 16)))
                (br $next_k)))
            ;; out + (i * nt + j) * 4, then one row (nt floats) per query
            (local.set $o (i32.add (local.get $out)
              (i32.shl (i32.add (i32.mul (local.get $i) (local.get $nt)) (local.get $j)) (i32.const 2))))
            (f32.store (local.get $o) (call $hsum (local.get $a00)))
            (f32.store offset=4 (local.get $o) (call $hsum (local.get $a01)))
            (local.set $o (i32.add (local.get $o) (local.get $row)))
            (f32.store (local.get $o) (call $hsum (local.get $a10)))
            (f32.store offset=4 (local.get $o) (call $hsum (local.get $a11)))
            (local.set $o (i32.add (local.get $o) (local.get $row)))
            (f32.store (local.get $o) (call $hsum (local.get $a20)))
            (f32.store offset=4 (local.get $o) (call $hsum (local.get $a21)))
            (local.set $o (i32.add (local.get $o) (local.get $row)))
            (f32.store (local.get $o) (call $hsum (local.get $a30)))
            (f32.store offset=4 (local.get $o) (call $hsum (local.get $a31)))
            (local.set $i (i32.add (local.get $i) (i32.const 4)))
            (br $next_i)))
        (local.set $j (i32.add (local.get $j) (i32.const 2)))
        (br $next_j))))

  ;; out[j] = dot(query, T_j) for j < nt (nt a multiple of 4).
  (func (export "dot1")
    (param $query i32) (param $t i32) (param $nt i32) (param $stride i32) (param $out i32)
    (local $j i32) (local $k i32) (local $t0 i32) (local $o i32) (local $x v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $j (i32.const 0))
    (block $done_j
      (loop $next_j
        (br_if $done_j (i32.ge_u (local.get $j) (local.get $nt)))
        (local.set $t0 (i32.add (local.get $t) (i32.mul (local.get $j) (local.get $stride))))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $k (i32.const 0))
        (block $done_k
          (loop $next_k
            (br_if $done_k (i32.ge_u (local.get $k) (local.get $stride)))
            (local.set $x (v128.load (i32.add (local.get $query) (local.get $k))))
            (local.set $o (i32.add (local.get $t0) (local.get $k)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (local.get $x) (v128.load (local.get $o)))))
            (local.set $o (i32.add (local.get $o) (local.get $stride)))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (local.get $x) (v128.load (local.get $o)))))
            (local.set $o (i32.add (local.get $o) (local.get $stride)))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (local.get $x) (v128.load (local.get $o)))))
            (local.set $o (i32.add (local.get $o) (local.get $stride)))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (local.get $x) (v128.load (local.get $o)))))
            (local.set $k (i32.add (local.get $k) (i32.const 16)))
            (br $next_k)))
        (local.set $o (i32.add (local.get $out) (i32.shl (local.get $j) (i32.const 2))))
        (f32.store (local.get $o) (call $hsum (local.get $a0)))
        (f32.store offset=4 (local.get $o) (call $hsum (local.get $a1)))
        (f32.store offset=8 (local.get $o) (call $hsum (local.get $a2)))
        (f32.store offset=12 (local.get $o) (call $hsum (local.get $a3)))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $next_j)))))
