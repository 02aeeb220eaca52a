;; One query against encoded rows (SQ8, float16, float32), for exhaustive scans of stored rows:
;; out[e] for each of `n` rows of `rowBytes` bytes from `rows`, one row after another.
;;
;; Rows are packed as stored (no padding): each pass reads 16 or 32 bytes, so a row's last pass
;; may read into the next row (and past the last one: the caller leaves 64 bytes after it). The
;; query side is zero past the row's dimensions; float rows are also ANDed with `mask` (0xff
;; for the row's own bytes, 0 after) so the next row's bits never count, even an infinity.
;;
;; - SQ8 (one byte per dimension): ip sums w_j * code_j (the caller folds the decoding
;;   min_j + (code_j + 0.5) * step_j into w and a constant); l2 sums (a_j - step_j * code_j)^2
;;   with a_j = q_j - min_j - step_j / 2. Codes widen u8 -> i16 -> i32 -> f32 in registers.
;; - float16: decoded with integer ops: (bits & 0x7fff) << 13 is the float32 with float16's
;;   exponent bias; multiplying by 2^112 rebiases it, subnormals included (exactly: a product
;;   of a power of two); exponent 31 (infinity, NaN) gets float32's all-ones exponent; then
;;   the sign bit. ip sums q_j * x_j, l2 sums (q_j - x_j)^2.
;; - float32: the same sums on the floats as stored.
;;
;; Four f32x4 sums per row (two for float32), added at the end of the row. Compiled to
;; codes-wasm.ts by scripts/build-wasm.mjs; edit this file, not that one.
(module
  (import "env" "memory" (memory 1 65536 shared))

  (func $hsum (param $v v128) (result f32)
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
      (f32.add (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))

  (func (export "sq8_ip")
    (param $w i32) (param $rows i32) (param $n i32) (param $rowBytes i32) (param $out i32)
    (local $end i32) (local $k i32) (local $p i32) (local $c v128) (local $h v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $k (i32.const 0))
        (local.set $p (local.get $w))
        (block $row_done
          (loop $chunk
            (br_if $row_done (i32.ge_u (local.get $k) (local.get $rowBytes)))
            (local.set $c (v128.load (i32.add (local.get $rows) (local.get $k))))
            (local.set $h (i16x8.extend_low_i8x16_u (local.get $c)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (local.get $p))
              (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $h))))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load offset=16 (local.get $p))
              (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $h))))))
            (local.set $h (i16x8.extend_high_i8x16_u (local.get $c)))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load offset=32 (local.get $p))
              (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $h))))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load offset=48 (local.get $p))
              (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $h))))))
            (local.set $k (i32.add (local.get $k) (i32.const 16)))
            (local.set $p (i32.add (local.get $p) (i32.const 64)))
            (br $chunk)))
        (f32.store (local.get $out) (call $hsum
          (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3)))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $rows (i32.add (local.get $rows) (local.get $rowBytes)))
        (br $row))))

  ;; `a` as above, `steps` the per-dimension step (both zero past the row's dimensions).
  (func (export "sq8_l2")
    (param $a i32) (param $steps i32) (param $rows i32) (param $n i32) (param $rowBytes i32)
    (param $out i32)
    (local $end i32) (local $k i32) (local $p i32) (local $s i32) (local $c v128) (local $h v128)
    (local $d v128) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $k (i32.const 0))
        (local.set $p (local.get $a))
        (local.set $s (local.get $steps))
        (block $row_done
          (loop $chunk
            (br_if $row_done (i32.ge_u (local.get $k) (local.get $rowBytes)))
            (local.set $c (v128.load (i32.add (local.get $rows) (local.get $k))))
            (local.set $h (i16x8.extend_low_i8x16_u (local.get $c)))
            (local.set $d (f32x4.sub (v128.load (local.get $p)) (f32x4.mul (v128.load (local.get $s))
              (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $h))))))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (local.get $d) (local.get $d))))
            (local.set $d (f32x4.sub (v128.load offset=16 (local.get $p)) (f32x4.mul (v128.load offset=16 (local.get $s))
              (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $h))))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (local.get $d) (local.get $d))))
            (local.set $h (i16x8.extend_high_i8x16_u (local.get $c)))
            (local.set $d (f32x4.sub (v128.load offset=32 (local.get $p)) (f32x4.mul (v128.load offset=32 (local.get $s))
              (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_u (local.get $h))))))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (local.get $d) (local.get $d))))
            (local.set $d (f32x4.sub (v128.load offset=48 (local.get $p)) (f32x4.mul (v128.load offset=48 (local.get $s))
              (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_u (local.get $h))))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (local.get $d) (local.get $d))))
            (local.set $k (i32.add (local.get $k) (i32.const 16)))
            (local.set $p (i32.add (local.get $p) (i32.const 64)))
            (local.set $s (i32.add (local.get $s) (i32.const 64)))
            (br $chunk)))
        (f32.store (local.get $out) (call $hsum
          (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3)))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $rows (i32.add (local.get $rows) (local.get $rowBytes)))
        (br $row))))

  ;; float16 rows: 16 bytes (8 dimensions) per pass; `l2` 0 for ip, 1 for the squared distance.
  (func (export "f16")
    (param $q i32) (param $mask i32) (param $rows i32) (param $n i32) (param $rowBytes i32)
    (param $out i32) (param $l2 i32)
    (local $end i32) (local $k i32) (local $p i32) (local $c v128) (local $x v128)
    (local $a0 v128) (local $a1 v128)
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $k (i32.const 0))
        (local.set $p (local.get $q))
        (block $row_done
          (loop $chunk
            (br_if $row_done (i32.ge_u (local.get $k) (local.get $rowBytes)))
            (local.set $c (v128.and
              (v128.load (i32.add (local.get $rows) (local.get $k)))
              (v128.load (i32.add (local.get $mask) (local.get $k)))))
            (local.set $x (i32x4.extend_low_i16x8_u (local.get $c)))
            (local.set $x (v128.or
              (v128.or
                (f32x4.mul
                  (i32x4.shl (v128.and (local.get $x) (v128.const i32x4 0x7fff 0x7fff 0x7fff 0x7fff)) (i32.const 13))
                  (v128.const f32x4 0x1p112 0x1p112 0x1p112 0x1p112))
                (v128.and
                  (i32x4.eq
                    (v128.and (local.get $x) (v128.const i32x4 0x7c00 0x7c00 0x7c00 0x7c00))
                    (v128.const i32x4 0x7c00 0x7c00 0x7c00 0x7c00))
                  (v128.const i32x4 0x7f800000 0x7f800000 0x7f800000 0x7f800000)))
              (i32x4.shl (v128.and (local.get $x) (v128.const i32x4 0x8000 0x8000 0x8000 0x8000)) (i32.const 16))))
            (if (local.get $l2)
              (then
                (local.set $x (f32x4.sub (v128.load (local.get $p)) (local.get $x)))
                (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (local.get $x) (local.get $x)))))
              (else
                (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (local.get $p)) (local.get $x))))))
            (local.set $x (i32x4.extend_high_i16x8_u (local.get $c)))
            (local.set $x (v128.or
              (v128.or
                (f32x4.mul
                  (i32x4.shl (v128.and (local.get $x) (v128.const i32x4 0x7fff 0x7fff 0x7fff 0x7fff)) (i32.const 13))
                  (v128.const f32x4 0x1p112 0x1p112 0x1p112 0x1p112))
                (v128.and
                  (i32x4.eq
                    (v128.and (local.get $x) (v128.const i32x4 0x7c00 0x7c00 0x7c00 0x7c00))
                    (v128.const i32x4 0x7c00 0x7c00 0x7c00 0x7c00))
                  (v128.const i32x4 0x7f800000 0x7f800000 0x7f800000 0x7f800000)))
              (i32x4.shl (v128.and (local.get $x) (v128.const i32x4 0x8000 0x8000 0x8000 0x8000)) (i32.const 16))))
            (if (local.get $l2)
              (then
                (local.set $x (f32x4.sub (v128.load offset=16 (local.get $p)) (local.get $x)))
                (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (local.get $x) (local.get $x)))))
              (else
                (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load offset=16 (local.get $p)) (local.get $x))))))
            (local.set $k (i32.add (local.get $k) (i32.const 16)))
            (local.set $p (i32.add (local.get $p) (i32.const 32)))
            (br $chunk)))
        (f32.store (local.get $out) (call $hsum (f32x4.add (local.get $a0) (local.get $a1))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $rows (i32.add (local.get $rows) (local.get $rowBytes)))
        (br $row))))

  ;; float32 rows: 32 bytes (8 dimensions) per pass; `l2` as for f16.
  (func (export "f32")
    (param $q i32) (param $mask i32) (param $rows i32) (param $n i32) (param $rowBytes i32)
    (param $out i32) (param $l2 i32)
    (local $end i32) (local $k i32) (local $p i32) (local $x v128)
    (local $a0 v128) (local $a1 v128)
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $k (i32.const 0))
        (local.set $p (local.get $q))
        (block $row_done
          (loop $chunk
            (br_if $row_done (i32.ge_u (local.get $k) (local.get $rowBytes)))
            (local.set $x (v128.and
              (v128.load (i32.add (local.get $rows) (local.get $k)))
              (v128.load (i32.add (local.get $mask) (local.get $k)))))
            (if (local.get $l2)
              (then
                (local.set $x (f32x4.sub (v128.load (local.get $p)) (local.get $x)))
                (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (local.get $x) (local.get $x)))))
              (else
                (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (local.get $p)) (local.get $x))))))
            (local.set $x (v128.and
              (v128.load offset=16 (i32.add (local.get $rows) (local.get $k)))
              (v128.load offset=16 (i32.add (local.get $mask) (local.get $k)))))
            (if (local.get $l2)
              (then
                (local.set $x (f32x4.sub (v128.load offset=16 (local.get $p)) (local.get $x)))
                (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (local.get $x) (local.get $x)))))
              (else
                (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load offset=16 (local.get $p)) (local.get $x))))))
            (local.set $k (i32.add (local.get $k) (i32.const 32)))
            (local.set $p (i32.add (local.get $p) (i32.const 32)))
            (br $chunk)))
        (f32.store (local.get $out) (call $hsum (f32x4.add (local.get $a0) (local.get $a1))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $rows (i32.add (local.get $rows) (local.get $rowBytes)))
        (br $row)))))
