;; Asymmetric distance computation for IVF-PQ scans: out[e] = sum over j < m of
;; table[j * 256 + codes[e * m + j]], for e < n. The table holds m rows of 256 float32 (one per
;; sub-quantizer centroid); codes hold m bytes per entry. Four sub-quantizers per step in
;; independent sums, m a multiple of 4. Compiled to adc-wasm.ts by scripts/build-wasm.mjs.
(module
  (import "env" "memory" (memory 1 65536 shared))

  (func (export "adc")
    (param $table i32) (param $codes i32) (param $n i32) (param $m i32) (param $out i32)
    (local $e i32) (local $j i32) (local $c i32) (local $row i32) (local $end i32)
    (local $s0 f32) (local $s1 f32) (local $s2 f32) (local $s3 f32)
    (local.set $e (i32.const 0))
    (local.set $c (local.get $codes))
    (block $done_e
      (loop $next_e
        (br_if $done_e (i32.ge_u (local.get $e) (local.get $n)))
        (local.set $s0 (f32.const 0))
        (local.set $s1 (f32.const 0))
        (local.set $s2 (f32.const 0))
        (local.set $s3 (f32.const 0))
        (local.set $row (local.get $table))
        (local.set $end (i32.add (local.get $c) (local.get $m)))
        (block $done_j
          (loop $next_j
            (br_if $done_j (i32.ge_u (local.get $c) (local.get $end)))
            (local.set $s0 (f32.add (local.get $s0) (f32.load
              (i32.add (local.get $row) (i32.shl (i32.load8_u (local.get $c)) (i32.const 2))))))
            (local.set $s1 (f32.add (local.get $s1) (f32.load offset=1024
              (i32.add (local.get $row) (i32.shl (i32.load8_u offset=1 (local.get $c)) (i32.const 2))))))
            (local.set $s2 (f32.add (local.get $s2) (f32.load offset=2048
              (i32.add (local.get $row) (i32.shl (i32.load8_u offset=2 (local.get $c)) (i32.const 2))))))
            (local.set $s3 (f32.add (local.get $s3) (f32.load offset=3072
              (i32.add (local.get $row) (i32.shl (i32.load8_u offset=3 (local.get $c)) (i32.const 2))))))
            (local.set $row (i32.add (local.get $row) (i32.const 4096)))
            (local.set $c (i32.add (local.get $c) (i32.const 4)))
            (br $next_j)))
        (f32.store (i32.add (local.get $out) (i32.shl (local.get $e) (i32.const 2)))
          (f32.add (f32.add (local.get $s0) (local.get $s1)) (f32.add (local.get $s2) (local.get $s3))))
        (local.set $e (i32.add (local.get $e) (i32.const 1)))
        (br $next_e)))))
