/* megaguards kernel prelude: Python semantics for C scalars.
 * Every helper that can fail sets *err (MG_ERR_*) and returns a harmless value;
 * the caller leaves the kernel at the end of the statement, and the loop is
 * re-run by CPython, which raises exactly what Python raises. */
#ifdef __CUDACC__
/* CUDA (NVRTC has no system headers): fixed-width types and the few macros used. */
typedef long long int64_t; typedef unsigned long long uint64_t; typedef int int32_t;
typedef unsigned char uint8_t;
#define INT64_MIN (-9223372036854775807LL - 1)
#define INT64_MAX 9223372036854775807LL
#define INT32_MIN (-2147483647 - 1)
#define INT32_MAX 2147483647
#define INFINITY __longlong_as_double(0x7ff0000000000000ULL)
#define NAN __longlong_as_double(0x7ff8000000000000ULL)
#define MG_INLINE __device__ __forceinline__
__device__ __forceinline__ bool mg_add_overflow(int64_t a, int64_t b, int64_t *r) {
    *r = (int64_t)((uint64_t)a + (uint64_t)b); return ((a ^ *r) & (b ^ *r)) < 0;
}
__device__ __forceinline__ bool mg_sub_overflow(int64_t a, int64_t b, int64_t *r) {
    *r = (int64_t)((uint64_t)a - (uint64_t)b); return ((a ^ b) & (a ^ *r)) < 0;
}
__device__ __forceinline__ bool mg_mul_overflow(int64_t a, int64_t b, int64_t *r) {
    __int128 p = (__int128)a * b; *r = (int64_t)p; return p != (__int128)*r;
}
/* The arithmetic goes through __dadd_rn & co., which NVRTC does not refold. */
__device__ __forceinline__ double mg_neg_f64(double x) { return -x; }
__device__ __forceinline__ float mg_neg_f32(float x) { return -x; }
/* A GPU keeps no IEEE flags: NumPy float operations compute theirs from operands and
 * result (analysis/floatstatus.py's bits: 1 overflow, 2 invalid; underflow is left to
 * the CPU).  A zero divisor leaves through the kernel's own check before this. */
template <typename T> __device__ __forceinline__ int mg_np_flags(T a, T b, T r) {
    if (isfinite(r)) return 0;
    if (isnan(r)) return isnan(a) || isnan(b) ? 0 : 2;
    return isfinite(a) && isfinite(b) ? 1 : 0;
}
#define MG_NP_OP(NAME, T, SUFFIX, EXPRESSION)                                                     \
__device__ __forceinline__ T mg_np_##NAME##_##SUFFIX(T a, T b, int *fp) {                         \
    T r = EXPRESSION; *fp |= mg_np_flags(a, b, r); return r;                                     \
}
MG_NP_OP(add, double, f64, __dadd_rn(a, b)) MG_NP_OP(sub, double, f64, __dsub_rn(a, b))
MG_NP_OP(mul, double, f64, __dmul_rn(a, b))
MG_NP_OP(add, float, f32, __fadd_rn(a, b)) MG_NP_OP(sub, float, f32, __fsub_rn(a, b))
MG_NP_OP(mul, float, f32, __fmul_rn(a, b))
__device__ __forceinline__ float mg_np_narrow(double x, int *fp) {
    float r = (float)x; if (isinf(r) && isfinite(x)) *fp |= 1; return r;
}
#else
#include <stdint.h>
#include <math.h>
#define MG_INLINE static inline __attribute__((always_inline))
#define mg_add_overflow __builtin_add_overflow
#define mg_sub_overflow __builtin_sub_overflow
#define mg_mul_overflow __builtin_mul_overflow
/* Float negation kept as written: GCC folds t + (-x) into t - x (even at -O0), and
 * (-x) * y into -(x * y), which give a NaN operand another sign than Python's; the
 * empty asm hides where the value came from. */
#if defined(__x86_64__) || defined(__i386__)
#define MG_OPAQUE(v) __asm__("" : "+x"(v))
#elif defined(__aarch64__)
#define MG_OPAQUE(v) __asm__("" : "+w"(v))
#else
#define MG_OPAQUE(v) do { volatile __typeof__(v) mg_opaque = (v); (v) = mg_opaque; } while (0)
#endif
MG_INLINE double mg_neg_f64(double x) { double v = -x; MG_OPAQUE(v); return v; }
MG_INLINE float mg_neg_f32(float x) { float v = -x; MG_OPAQUE(v); return v; }
/* -fsignaling-nans (runtime/compiler.py) stops GCC from expanding isfinite, isinf and
 * isnan inline: each was a libc call (__finite, __isinf, __isnan) in every checked float
 * operation, most of the time of a loop of float ** 2 (particlefilter's likelihood).
 * Tests of the bits are exact and raise no floating-point exception. */
MG_INLINE uint64_t mg_bits_f64(double x) { uint64_t b; __builtin_memcpy(&b, &x, sizeof b); return b; }
MG_INLINE uint32_t mg_bits_f32(float x) { uint32_t b; __builtin_memcpy(&b, &x, sizeof b); return b; }
MG_INLINE int mg_isfinite_f64(double x) { return (mg_bits_f64(x) & 0x7ff0000000000000ULL) != 0x7ff0000000000000ULL; }
MG_INLINE int mg_isinf_f64(double x) { return (mg_bits_f64(x) & 0x7fffffffffffffffULL) == 0x7ff0000000000000ULL; }
MG_INLINE int mg_isnan_f64(double x) { return (mg_bits_f64(x) & 0x7fffffffffffffffULL) > 0x7ff0000000000000ULL; }
MG_INLINE int mg_isfinite_f32(float x) { return (mg_bits_f32(x) & 0x7f800000u) != 0x7f800000u; }
MG_INLINE int mg_isinf_f32(float x) { return (mg_bits_f32(x) & 0x7fffffffu) == 0x7f800000u; }
MG_INLINE int mg_isnan_f32(float x) { return (mg_bits_f32(x) & 0x7fffffffu) > 0x7f800000u; }
#undef isfinite
#undef isinf
#undef isnan
#define isfinite(x) _Generic((x), float: mg_isfinite_f32, default: mg_isfinite_f64)(x)
#define isinf(x) _Generic((x), float: mg_isinf_f32, default: mg_isinf_f64)(x)
#define isnan(x) _Generic((x), float: mg_isnan_f32, default: mg_isnan_f64)(x)
#endif
#define MG_UNLIKELY(x) __builtin_expect(!!(x), 0)

enum { MG_OK = 0, MG_ERR_INDEX = 1, MG_ERR_OVERFLOW = 2, MG_ERR_ZERO = 3, MG_ERR_VALUE = 4,
       MG_ERR_TYPE = 5, MG_ERR_INTERRUPT = 6, MG_ERR_MEMORY = 7, MG_ERR_FLOAT_STATUS = 8, MG_ERR_ITEM = 9,
       MG_ERR_RAISE = 10, MG_ERR_NONE = 11, MG_ERR_KEY = 12 };
/* Iterations of a range loop between two looks at the interrupt flag (Ctrl-C): the inner
 * loop of each chunk stays free of exits, so the compiler still vectorizes it. */
#define MG_POLL_CHUNK 65536

/* Python index (negative wraps) into a dimension of n elements. */
MG_INLINE int64_t mg_index(int64_t i, int64_t n, int *err) {
    int64_t w = i < 0 ? i + n : i;
    if (MG_UNLIKELY((uint64_t)w >= (uint64_t)n)) { *err = MG_ERR_INDEX; return 0; }
    return w;
}

/* Number of values range(start, stop, step) yields (step != 0); up to 2**64 - 1. */
MG_INLINE uint64_t mg_trip_count(int64_t start, int64_t stop, int64_t step) {
    if (step > 0) return start < stop ? ((uint64_t)stop - (uint64_t)start - 1) / (uint64_t)step + 1 : 0;
    return start > stop ? ((uint64_t)start - (uint64_t)stop - 1) / (0 - (uint64_t)step) + 1 : 0;
}
/* The k-th value of the range, in modular arithmetic: exact, as it lies between start and stop. */
MG_INLINE int64_t mg_range_value(int64_t start, uint64_t k, int64_t step) {
    return (int64_t)((uint64_t)start + k * (uint64_t)step);
}

/* ---- int64 with overflow detection (Python ints are unbounded) ---- */
MG_INLINE int64_t mg_add_i64(int64_t a, int64_t b, int *err) {
    int64_t r; if (MG_UNLIKELY(mg_add_overflow(a, b, &r))) { *err = MG_ERR_OVERFLOW; return 0; } return r;
}
MG_INLINE int64_t mg_sub_i64(int64_t a, int64_t b, int *err) {
    int64_t r; if (MG_UNLIKELY(mg_sub_overflow(a, b, &r))) { *err = MG_ERR_OVERFLOW; return 0; } return r;
}
MG_INLINE int64_t mg_mul_i64(int64_t a, int64_t b, int *err) {
    int64_t r; if (MG_UNLIKELY(mg_mul_overflow(a, b, &r))) { *err = MG_ERR_OVERFLOW; return 0; } return r;
}
MG_INLINE int64_t mg_neg_i64(int64_t a, int *err) {
    if (MG_UNLIKELY(a == INT64_MIN)) { *err = MG_ERR_OVERFLOW; return 0; } return -a;
}
MG_INLINE int64_t mg_abs_i64(int64_t a, int *err) {
    if (MG_UNLIKELY(a == INT64_MIN)) { *err = MG_ERR_OVERFLOW; return 0; } return a < 0 ? -a : a;
}
MG_INLINE int64_t mg_floordiv_i64(int64_t a, int64_t b, int *err) {
    if (MG_UNLIKELY(b == 0)) { *err = MG_ERR_ZERO; return 0; }
    if (MG_UNLIKELY(a == INT64_MIN && b == -1)) { *err = MG_ERR_OVERFLOW; return 0; }
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}
MG_INLINE int64_t mg_mod_i64(int64_t a, int64_t b, int *err) {
    if (MG_UNLIKELY(b == 0)) { *err = MG_ERR_ZERO; return 0; }
    if (MG_UNLIKELY(b == -1)) return 0;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
MG_INLINE int64_t mg_pow_i64(int64_t base, int64_t exponent, int *err) {
    if (MG_UNLIKELY(exponent < 0)) { *err = MG_ERR_TYPE; return 0; }  /* Python gives a float */
    int64_t result = 1;
    while (exponent) {
        if (exponent & 1) { if (MG_UNLIKELY(mg_mul_overflow(result, base, &result))) { *err = MG_ERR_OVERFLOW; return 0; } }
        exponent >>= 1;
        if (exponent && MG_UNLIKELY(mg_mul_overflow(base, base, &base))) { *err = MG_ERR_OVERFLOW; return 0; }
    }
    return result;
}
MG_INLINE int64_t mg_lshift_i64(int64_t a, int64_t n, int *err) {
    if (MG_UNLIKELY(n < 0)) { *err = MG_ERR_VALUE; return 0; }
    if (a == 0) return 0;
    if (MG_UNLIKELY(n >= 63)) { *err = MG_ERR_OVERFLOW; return 0; }
    int64_t r = (int64_t)((uint64_t)a << n);
    if (MG_UNLIKELY((r >> n) != a)) { *err = MG_ERR_OVERFLOW; return 0; }
    return r;
}
MG_INLINE int64_t mg_rshift_i64(int64_t a, int64_t n, int *err) {
    if (MG_UNLIKELY(n < 0)) { *err = MG_ERR_VALUE; return 0; }
    if (n >= 64) return a < 0 ? -1 : 0;
    return a >> n;
}
/* NumPy int32 results: computed in int64, then checked. */
/* A store into an array.array or memoryview of narrower items (codegen/array_statements.py):
 * the kernel's copy holds what the item will hold; CPython raises where it cannot. */
MG_INLINE int64_t mg_store_range(int64_t a, int64_t low, int64_t high, int *err) {
    if (MG_UNLIKELY(a < low || a > high)) { *err = MG_ERR_ITEM; return 0; } return a;
}
MG_INLINE double mg_store_f32(double x, int *err) {
    float r = (float)x;
    if (MG_UNLIKELY(isinf(r) && isfinite(x))) { *err = MG_ERR_ITEM; return 0; }
    return (double)r;
}
MG_INLINE int32_t mg_to_i32(int64_t a, int *err) {
    if (MG_UNLIKELY(a < INT32_MIN || a > INT32_MAX)) { *err = MG_ERR_OVERFLOW; return 0; } return (int32_t)a;
}
/* An int taking part in float arithmetic or comparison where both Python and
 * NumPy agree only while the conversion is exact. */
MG_INLINE int64_t mg_exact_int(int64_t a, int64_t limit, int *err) {
    if (MG_UNLIKELY(a > limit || a < -limit)) { *err = MG_ERR_VALUE; return 0; } return a;
}
MG_INLINE float mg_d2f(double x, int *err) {  /* a double entering float32 arithmetic */
    float r = (float)x;
    if (MG_UNLIKELY(isinf(r) && !isinf(x))) { *err = MG_ERR_OVERFLOW; return 0; } return r;
}
/* int / int: Python rounds the exact quotient; exact operands make C do the same. */
MG_INLINE double mg_truediv_ii(int64_t a, int64_t b, int *err) {
    if (MG_UNLIKELY(b == 0)) { *err = MG_ERR_ZERO; return 0.0; }
    const int64_t limit = (int64_t)1 << 53;
    if (MG_UNLIKELY(a > limit || a < -limit || b > limit || b < -limit)) { *err = MG_ERR_VALUE; return 0.0; }
    return (double)a / (double)b;
}
/* float -> int (int(), math.floor results, stores into integer arrays): truncates. */
MG_INLINE int64_t mg_f2i(double x, int *err) {
    if (MG_UNLIKELY(!(x >= -9223372036854775808.0 && x < 9223372036854775808.0))) { *err = MG_ERR_OVERFLOW; return 0; }
    return (int64_t)x;
}
MG_INLINE int64_t mg_round_f64(double x, int *err) {
    double r = nearbyint(x);  /* round-half-even, as Python's round() */
    return mg_f2i(r, err);
}

/* ---- floats: CPython's float_div / float_floor_div / float_rem / float_pow ---- */
#define MG_FLOAT_OPS(T, SUFFIX, FMOD, FLOOR, COPYSIGN, POW, FABS)                                 \
MG_INLINE T mg_div_##SUFFIX(T a, T b, int *err) {                                               \
    if (MG_UNLIKELY(b == 0)) { *err = MG_ERR_ZERO; return 0; } return a / b;                     \
}                                                                                               \
MG_INLINE T mg_divmod_##SUFFIX(T vx, T wx, T *mod_out, int *err) {                              \
    if (MG_UNLIKELY(wx == 0)) { *err = MG_ERR_ZERO; return 0; }                                  \
    if (MG_UNLIKELY(!isfinite(vx) || !isfinite(wx))) { *err = MG_ERR_VALUE; return 0; }         \
    T mod = FMOD(vx, wx);                                                                       \
    T div = (vx - mod) / wx;                                                                    \
    if (mod) {                                                                                  \
        if ((wx < 0) != (mod < 0)) { mod += wx; div -= (T)1.0; }                                 \
    } else {                                                                                    \
        mod = COPYSIGN((T)0.0, wx);                                                             \
    }                                                                                           \
    T floordiv;                                                                                 \
    if (div) {                                                                                  \
        floordiv = FLOOR(div);                                                                  \
        if (div - floordiv > (T)0.5) floordiv += (T)1.0;                                        \
    } else {                                                                                    \
        floordiv = COPYSIGN((T)0.0, vx / wx);                                                   \
    }                                                                                           \
    *mod_out = mod;                                                                             \
    return floordiv;                                                                            \
}                                                                                               \
MG_INLINE T mg_floordiv_##SUFFIX(T a, T b, int *err) { T m; return mg_divmod_##SUFFIX(a, b, &m, err); } \
MG_INLINE T mg_mod_##SUFFIX(T a, T b, int *err) { T m = 0; mg_divmod_##SUFFIX(a, b, &m, err); return m; } \
MG_INLINE T mg_pow_##SUFFIX(T iv, T iw, int *err) {                                             \
    if (MG_UNLIKELY(!isfinite(iv) || !isfinite(iw))) { *err = MG_ERR_VALUE; return 0; }         \
    if (iw == 0) return (T)1.0;                                                                 \
    if (iv == 0) { if (MG_UNLIKELY(iw < 0)) { *err = MG_ERR_ZERO; return 0; }                    \
                   return (FMOD(FABS(iw), (T)2.0) == (T)1.0) ? iv : (T)0.0; }                  \
    int negate = 0;                                                                             \
    if (iv < 0) {                                                                               \
        if (MG_UNLIKELY(iw != FLOOR(iw))) { *err = MG_ERR_TYPE; return 0; }                     \
        iv = -iv; negate = FMOD(FABS(iw), (T)2.0) == (T)1.0;                                     \
    }                                                                                           \
    if (iv == (T)1.0) return negate ? (T)-1.0 : (T)1.0;                                         \
    T ix = POW(iv, iw);                                                                         \
    if (MG_UNLIKELY(isinf(ix))) { *err = MG_ERR_OVERFLOW; return 0; }                            \
    return negate ? -ix : ix;                                                                   \
}
MG_FLOAT_OPS(double, f64, fmod, floor, copysign, pow, fabs)
MG_FLOAT_OPS(float, f32, fmodf, floorf, copysignf, powf, fabsf)
#ifdef __CUDACC__
/* NumPy's / // % on the GPU: the checked helper, then the flags NumPy would see. */
#define MG_NP_CHECKED(NAME, T, SUFFIX)                                                            \
__device__ __forceinline__ T mg_np_##NAME##_##SUFFIX(T a, T b, int *fp, int *err) {               \
    T r = mg_##NAME##_##SUFFIX(a, b, err); *fp |= mg_np_flags(a, b, r); return r;                \
}
MG_NP_CHECKED(div, double, f64) MG_NP_CHECKED(floordiv, double, f64) MG_NP_CHECKED(mod, double, f64)
MG_NP_CHECKED(div, float, f32) MG_NP_CHECKED(floordiv, float, f32) MG_NP_CHECKED(mod, float, f32)
#endif

/* ---- math module: CPython's error rules around the C library's results ---- */
MG_INLINE double mg_math1(double result, double x, int *err) {
    if (MG_UNLIKELY((isnan(result) && !isnan(x)) || (isinf(result) && isfinite(x)))) *err = MG_ERR_VALUE;
    return result;
}
MG_INLINE double mg_sqrt(double x, int *err) {
    if (MG_UNLIKELY(x < 0)) { *err = MG_ERR_VALUE; return 0.0; } return sqrt(x);
}
#define MG_LOG(NAME, FN) MG_INLINE double NAME(double x, int *err) {                              \
    if (MG_UNLIKELY(!(x > 0) && !isnan(x))) { *err = MG_ERR_VALUE; return 0.0; } return FN(x); }
MG_LOG(mg_log, log)
MG_LOG(mg_log10, log10)
MG_LOG(mg_log2, log2)
MG_INLINE double mg_atan2(double y, double x, int *err) {
    if (MG_UNLIKELY(!isfinite(x) || !isfinite(y))) { *err = MG_ERR_VALUE; return 0.0; } return atan2(y, x);
}
MG_INLINE double mg_fmod(double x, double y, int *err) {
    if (MG_UNLIKELY(!isfinite(x) || !isfinite(y) || y == 0)) { *err = MG_ERR_VALUE; return 0.0; }
    return fmod(x, y);
}
MG_INLINE double mg_math_pow(double x, double y, int *err) {
    if (MG_UNLIKELY(!isfinite(x) || !isfinite(y))) { *err = MG_ERR_VALUE; return 0.0; }
    if (MG_UNLIKELY(x == 0 && y < 0)) { *err = MG_ERR_VALUE; return 0.0; }
    if (MG_UNLIKELY(x < 0 && y != floor(y))) { *err = MG_ERR_VALUE; return 0.0; }
    double r = pow(x, y);
    if (MG_UNLIKELY(isinf(r))) { *err = MG_ERR_OVERFLOW; return 0.0; }
    return r;
}
#define MG_MATH1(NAME, FN) MG_INLINE double NAME(double x, int *err) { return mg_math1(FN(x), x, err); }
MG_MATH1(mg_exp, exp) MG_MATH1(mg_sin, sin) MG_MATH1(mg_cos, cos) MG_MATH1(mg_tan, tan)
MG_MATH1(mg_asin, asin) MG_MATH1(mg_acos, acos) MG_MATH1(mg_atan, atan)
MG_MATH1(mg_sinh, sinh) MG_MATH1(mg_cosh, cosh) MG_MATH1(mg_tanh, tanh)
/* Python's max(a, b) / min(a, b): the first argument unless the second compares beyond it. */
typedef int64_t mg_char;   /* a character of a str: its code point (unboxed as the str's ints) */
#define MG_EXTREMES(T, SUFFIX) \
MG_INLINE T mg_max_##SUFFIX(T a, T b) { return b > a ? b : a; } \
MG_INLINE T mg_min_##SUFFIX(T a, T b) { return b < a ? b : a; }
MG_EXTREMES(int64_t, int64_t) MG_EXTREMES(int32_t, int32_t) MG_EXTREMES(int, int)
MG_EXTREMES(double, double) MG_EXTREMES(float, float) MG_EXTREMES(mg_char, mg_char)

/* ---- int-or-float values (ir.types PY_INT_OR_FLOAT): a double and its class ----
 * f == 0.0: a Python int, exact in v while |v| < 2**53 (past that CPython's int stays exact
 * and a double would not: the loop goes back to CPython); f == 1.0: a Python float.  Each
 * operation gives the class CPython's would: int op int an int, a float on either side a float
 * (an int converted to float exactly). */
typedef struct { double v; double f; } mg_num;
#define MG_NUM_EXACT 9007199254740992.0   /* 2**53 */
MG_INLINE mg_num mg_num_make(double v, double f) { mg_num r; r.v = v; r.f = f; return r; }
/* An int's result: exact below 2**53 in magnitude (a larger exact result rounds to at least
 * 2**53); "+ 0.0" turns the -0.0 of 0 * -3 into the int's 0. */
MG_INLINE mg_num mg_num_int(double v, int *err) {
    if (MG_UNLIKELY(!(fabs(v) < MG_NUM_EXACT))) *err = MG_ERR_OVERFLOW;
    return mg_num_make(v + 0.0, 0.0);
}
MG_INLINE mg_num mg_num_of_i64(int64_t i, int *err) {
    if (MG_UNLIKELY(i >= 9007199254740992LL || i <= -9007199254740992LL)) *err = MG_ERR_OVERFLOW;
    return mg_num_make((double)i, 0.0);
}
MG_INLINE mg_num mg_num_add(mg_num a, mg_num b, int *err) {
    return a.f != 0.0 || b.f != 0.0 ? mg_num_make(a.v + b.v, 1.0) : mg_num_int(a.v + b.v, err);
}
MG_INLINE mg_num mg_num_sub(mg_num a, mg_num b, int *err) {
    return a.f != 0.0 || b.f != 0.0 ? mg_num_make(a.v - b.v, 1.0) : mg_num_int(a.v - b.v, err);
}
MG_INLINE mg_num mg_num_mul(mg_num a, mg_num b, int *err) {
    return a.f != 0.0 || b.f != 0.0 ? mg_num_make(a.v * b.v, 1.0) : mg_num_int(a.v * b.v, err);
}
MG_INLINE mg_num mg_num_floordiv(mg_num a, mg_num b, int *err) {
    if (a.f != 0.0 || b.f != 0.0) return mg_num_make(mg_floordiv_f64(a.v, b.v, err), 1.0);
    return mg_num_make((double)mg_floordiv_i64((int64_t)a.v, (int64_t)b.v, err), 0.0);
}
MG_INLINE mg_num mg_num_mod(mg_num a, mg_num b, int *err) {
    if (a.f != 0.0 || b.f != 0.0) return mg_num_make(mg_mod_f64(a.v, b.v, err), 1.0);
    return mg_num_make((double)mg_mod_i64((int64_t)a.v, (int64_t)b.v, err), 0.0);
}
MG_INLINE mg_num mg_num_neg(mg_num a) { return mg_num_make(a.f != 0.0 ? -a.v : -a.v + 0.0, a.f); }
MG_INLINE mg_num mg_num_abs(mg_num a) { return mg_num_make(fabs(a.v), a.f); }
MG_INLINE mg_num mg_max_mg_num(mg_num a, mg_num b) { return b.v > a.v ? b : a; }
MG_INLINE mg_num mg_min_mg_num(mg_num a, mg_num b) { return b.v < a.v ? b : a; }
/* Stored into a list of floats (of ints): an int (a float) would change the list's class. */
MG_INLINE double mg_num_as_f64(mg_num a, int *err) {
    if (MG_UNLIKELY(a.f == 0.0)) *err = MG_ERR_TYPE;
    return a.v;
}
MG_INLINE int64_t mg_num_as_i64(mg_num a, int *err) {
    if (MG_UNLIKELY(a.f != 0.0)) { *err = MG_ERR_TYPE; return 0; }
    return (int64_t)a.v;
}
/* math.hypot(x, y) of CPython 3.10/3.11 (Modules/mathmodule.c vector_norm, n == 2):
 * Veltkamp splitting and compensated sums, not the C library's hypot.  Never raises. */
MG_INLINE double mg_hypot(double x, double y) {
    const double T27 = 134217729.0;  /* 2**27 + 1 */
    double vec[2] = {fabs(x), fabs(y)};
    double max = 0.0;  /* NaNs never compare greater */
    if (vec[0] > max) max = vec[0];
    if (vec[1] > max) max = vec[1];
    if (isinf(max)) return max;
    if (isnan(vec[0]) || isnan(vec[1])) return NAN;
    if (max == 0.0) return max;
    double t, hi, lo, h, v, old, csum = 1.0, frac1 = 0.0, frac2 = 0.0, frac3 = 0.0;
    int max_e;
    frexp(max, &max_e);
    if (max_e >= -1023) {
        double scale = ldexp(1.0, -max_e);
        for (int i = 0; i < 2; i++) {
            v = vec[i] * scale;
            t = v * T27; hi = t - (t - v); lo = v - hi;
            v = hi * hi; old = csum; csum += v; frac1 += (old - csum) + v;
            v = 2.0 * hi * lo; old = csum; csum += v; frac2 += (old - csum) + v;
            frac3 += lo * lo;
        }
        h = sqrt(csum - 1.0 + (frac1 + frac2 + frac3));
        t = h * T27; hi = t - (t - h); lo = h - hi;
        v = -hi * hi; old = csum; csum += v; frac1 += (old - csum) + v;
        v = -2.0 * hi * lo; old = csum; csum += v; frac2 += (old - csum) + v;
        v = -lo * lo; old = csum; csum += v; frac3 += (old - csum) + v;
        v = csum - 1.0 + (frac1 + frac2 + frac3);
        return (h + v / (2.0 * h)) / scale;
    }
    for (int i = 0; i < 2; i++) {  /* subnormal max: ldexp would overflow, divide instead */
        v = vec[i] / max; v = v * v;
        old = csum; csum += v; frac1 += (old - csum) + v;
    }
    return max * sqrt(csum - 1.0 + frac1);
}
MG_INLINE int64_t mg_f2i_floor(double x, int *err) { return mg_f2i(floor(x), err); }
MG_INLINE int64_t mg_f2i_ceil(double x, int *err) { return mg_f2i(ceil(x), err); }
MG_INLINE int64_t mg_f2i_trunc(double x, int *err) { return mg_f2i(trunc(x), err); }

/* ---- complex: a pair of doubles, with CPython's formulas (Objects/complexobject.c).
 * A real operand enters as (x, +0.0), exactly as CPython's to_complex() makes it. ---- */
typedef struct { double re, im; } mg_complex;
MG_INLINE mg_complex mg_cmake(double re, double im) { mg_complex z; z.re = re; z.im = im; return z; }
MG_INLINE mg_complex mg_cadd(mg_complex a, mg_complex b) { return mg_cmake(a.re + b.re, a.im + b.im); }
MG_INLINE mg_complex mg_csub(mg_complex a, mg_complex b) { return mg_cmake(a.re - b.re, a.im - b.im); }
MG_INLINE mg_complex mg_cneg(mg_complex a) { return mg_cmake(-a.re, -a.im); }
MG_INLINE mg_complex mg_cmul(mg_complex a, mg_complex b) {  /* _Py_c_prod */
    return mg_cmake(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
/* _Py_c_quot: Smith's algorithm; 0j divisor -> ZeroDivisionError("complex division by zero"). */
MG_INLINE mg_complex mg_cquot(mg_complex a, mg_complex b, int *zero) {
    const double abs_breal = b.re < 0 ? -b.re : b.re;
    const double abs_bimag = b.im < 0 ? -b.im : b.im;
    if (abs_breal >= abs_bimag) {
        if (abs_breal == 0.0) { *zero = 1; return mg_cmake(0.0, 0.0); }
        const double ratio = b.im / b.re;
        const double denom = b.re + b.im * ratio;
        return mg_cmake((a.re + a.im * ratio) / denom, (a.im - a.re * ratio) / denom);
    }
    if (abs_bimag >= abs_breal) {
        const double ratio = b.re / b.im;
        const double denom = b.re * ratio + b.im;
        return mg_cmake((a.re * ratio + a.im) / denom, (a.im * ratio - a.re) / denom);
    }
    return mg_cmake(NAN, NAN);  /* a NaN in the divisor */
}
MG_INLINE mg_complex mg_cdiv(mg_complex a, mg_complex b, int *err) {
    int zero = 0;
    mg_complex r = mg_cquot(a, b, &zero);
    if (MG_UNLIKELY(zero)) *err = MG_ERR_ZERO;
    return r;
}
MG_INLINE int mg_ceq(mg_complex a, mg_complex b) { return a.re == b.re && a.im == b.im; }
MG_INLINE int mg_ctruth(mg_complex a) { return a.re != 0.0 || a.im != 0.0; }
/* abs(z): _Py_c_abs (the C library's hypot); OverflowError when it overflows. */
MG_INLINE double mg_cabs(mg_complex z, int *err) {
    if (!isfinite(z.re) || !isfinite(z.im)) {
        if (isinf(z.re)) return fabs(z.re);
        if (isinf(z.im)) return fabs(z.im);
        return NAN;
    }
    double r = hypot(z.re, z.im);
    if (MG_UNLIKELY(!isfinite(r))) *err = MG_ERR_OVERFLOW;
    return r;
}
/* z ** w: complex_pow -- c_powi for small integral exponents, else _Py_c_pow; the
 * errors (0 to a negative or complex power, an infinite part) raise in CPython. */
MG_INLINE mg_complex mg_cpowu(mg_complex x, long n) {
    mg_complex r = mg_cmake(1.0, 0.0), p = x;
    long mask = 1;
    while (mask > 0 && n >= mask) {
        if (n & mask) r = mg_cmul(r, p);
        mask <<= 1;
        p = mg_cmul(p, p);
    }
    return r;
}
MG_INLINE mg_complex mg_cpow(mg_complex a, mg_complex b, int *err) {
    mg_complex p;
    int domain = 0;
    if (b.im == 0.0 && b.re == floor(b.re) && fabs(b.re) <= 100.0) {
        long n = (long)b.re;
        p = n > 0 ? mg_cpowu(a, n) : mg_cquot(mg_cmake(1.0, 0.0), mg_cpowu(a, -n), &domain);
    } else if (b.re == 0.0 && b.im == 0.0) {
        p = mg_cmake(1.0, 0.0);
    } else if (a.re == 0.0 && a.im == 0.0) {
        domain = b.im != 0.0 || b.re < 0.0;  /* 1: ZeroDivisionError */
        p = mg_cmake(0.0, 0.0);
    } else {
        double vabs = hypot(a.re, a.im), len = pow(vabs, b.re), at = atan2(a.im, a.re), phase = at * b.re;
        if (b.im != 0.0) {
            len /= exp(at * b.im);
            phase += b.im * log(vabs);
        }
        /* CPython reads errno here (cos(inf) sets EDOM): any non-finite step goes back to it */
        if (MG_UNLIKELY(!isfinite(vabs) || !isfinite(len) || !isfinite(phase))) domain = 2;
        p = mg_cmake(len * cos(phase), len * sin(phase));
    }
    if (MG_UNLIKELY(domain)) *err = domain == 1 ? MG_ERR_ZERO : MG_ERR_VALUE;
    else if (MG_UNLIKELY(isinf(p.re) || isinf(p.im))) *err = MG_ERR_OVERFLOW;
    return p;
}

/* ---- hoisted checks (kernel prologue) and the check-free loop ---- */
#define MG_FAIL(k) do { mg_fast = 0; if (mg_failed < 0) mg_failed = (k); } while (0)
MG_INLINE int mg_fits(__int128 lo, __int128 hi) { return lo >= INT64_MIN && hi <= INT64_MAX; }
MG_INLINE __int128 mg_min4(__int128 a, __int128 b, __int128 c, __int128 d) {
    __int128 m = a < b ? a : b; m = m < c ? m : c; return m < d ? m : d;
}
MG_INLINE __int128 mg_max4(__int128 a, __int128 b, __int128 c, __int128 d) {
    __int128 m = a > b ? a : b; m = m > c ? m : c; return m > d ? m : d;
}
MG_INLINE __int128 mg_min128(__int128 a, __int128 b) { return a < b ? a : b; }
MG_INLINE __int128 mg_max128(__int128 a, __int128 b) { return a > b ? a : b; }
MG_INLINE __int128 mg_fdiv128(__int128 a, __int128 c) { __int128 q = a / c; return q - ((a % c != 0) && ((a < 0) != (c < 0))); }
MG_INLINE __int128 mg_mod128(__int128 a, __int128 c) { return a - mg_fdiv128(a, c) * c; }
MG_INLINE __int128 mg_mod128_lo(__int128 lo, __int128 hi, __int128 c) {
    return mg_fdiv128(lo, c) == mg_fdiv128(hi, c) ? mg_mod128(lo, c) : 0;
}
MG_INLINE __int128 mg_mod128_hi(__int128 lo, __int128 hi, __int128 c) {
    return mg_fdiv128(lo, c) == mg_fdiv128(hi, c) ? mg_mod128(hi, c) : c - 1;
}
/* Python's index wrap where the prologue proved -n <= i < n: no error path. */
MG_INLINE int64_t mg_wrap(int64_t i, int64_t n) { return i + (i < 0 ? n : 0); }
/* Floor division and modulo by a positive constant (proven: no zero, no overflow). */
MG_INLINE int64_t mg_fdiv_pos(int64_t a, int64_t c) { int64_t q = a / c; return q - ((a % c) < 0); }
MG_INLINE int64_t mg_fmod_pos(int64_t a, int64_t c) { int64_t r = a % c; return r + (r < 0 ? c : 0); }

#ifndef __CUDACC__
/* Copy a strided NumPy array into a C-contiguous shadow (written when writing in
 * place could leave a partial result behind a flag). */
static void mg_copy_strided(char *dst, const char *src, int rank, const int64_t *shape,
                            const int64_t *strides, int64_t itemsize) {
    int64_t index[8] = {0}, total = 1, dense = 1;
    int contiguous = 1;   /* C order already (the usual case, and NumPy's arrays under numpy.seterr's
                             default watch, which always go through a shadow): one memcpy */
    for (int d = rank - 1; d >= 0; d--) {
        if (shape[d] != 1 && strides[d] != dense) contiguous = 0;
        dense *= shape[d];
    }
    for (int d = 0; d < rank; d++) total *= shape[d];
    if (contiguous) { if (total) __builtin_memcpy(dst, src, (__SIZE_TYPE__)(total * itemsize)); return; }
    for (int64_t n = 0; n < total; n++) {
        int64_t offset = 0;
        for (int d = 0; d < rank; d++) offset += index[d] * strides[d];
        __builtin_memcpy(dst + n * itemsize, src + offset * itemsize, (__SIZE_TYPE__)itemsize);
        for (int d = rank - 1; d >= 0; d--) { if (++index[d] < shape[d]) break; index[d] = 0; }
    }
}
#include <stdlib.h>
#include <fenv.h>
/* The IEEE flags raised, as analysis/floatstatus.py's bits of numpy.seterr's categories. */
MG_INLINE int mg_numpy_categories(int raised) {
    return (raised & FE_OVERFLOW ? 1 : 0) | (raised & FE_INVALID ? 2 : 0) | (raised & FE_DIVBYZERO ? 4 : 0)
         | (raised & FE_UNDERFLOW ? 8 : 0);
}
/* The operands a thread keeps for an ordered fold (codegen/targets/openmp.py): doubled when
 * full; 0 when memory ran out (the loop then runs in CPython). */
static int mg_fold_grow(double **log, int64_t *capacity) {
    int64_t wanted = *capacity ? 2 * *capacity : 4096;
    double *grown = (double *)realloc(*log, (size_t)wanted * sizeof(double));
    if (!grown) return 0;
    *log = grown; *capacity = wanted; return 1;
}
/* A list the loop appends to (ir.Append): the values, in order, in a buffer that doubles when
 * full; marshal.c appends them to the list after a clean run and frees the buffer.  The address
 * of the next value's slot, or NULL (memory ran out: the loop then runs in CPython). */
typedef struct { char *data; int64_t length, capacity; } mg_growing;
static void *mg_grow(mg_growing *g, int64_t size, int *err) {
    if (g->length == g->capacity) {
        int64_t capacity = g->capacity ? 2 * g->capacity : 256;
        char *data = (char *)realloc(g->data, (size_t)(capacity * size));
        if (data == NULL) { *err = MG_ERR_MEMORY; return NULL; }
        g->data = data;
        g->capacity = capacity;
    }
    return g->data + size * g->length++;
}
/* A list grown in place (a loop that appends to it and indexes it): the buffer starts with
 * the list's own elements, so that an index past them finds the values appended; at a clean
 * end ``mg_grow_unseed`` gives the elements back to the list's buffer and keeps the values
 * appended, as for any list appended to.  0: memory ran out. */
static int mg_grow_seed(mg_growing *g, const char *items, int64_t count, int64_t size) {
    int64_t capacity = 256;
    while (capacity <= count) capacity *= 2;
    char *data = (char *)realloc(g->data, (size_t)(capacity * size));
    if (data == NULL) return 0;
    if (count) __builtin_memcpy(data, items, (__SIZE_TYPE__)(count * size));
    g->data = data; g->length = count; g->capacity = capacity;
    return 1;
}
static void mg_grow_unseed(mg_growing *g, char *items, int64_t count, int64_t size, int written) {
    if (written && count) __builtin_memcpy(items, g->data, (__SIZE_TYPE__)(count * size));
    __builtin_memmove(g->data, g->data + count * size, (__SIZE_TYPE__)((g->length - count) * size));
    g->length -= count;
}
/* The order of a table's rows (ir.RowSwap): row r of the table is row map[r] of its buffer,
 * the identity at entry; marshal.c puts the list's rows in this order after a clean run.
 * 0: memory ran out. */
static int mg_grow_rows(mg_growing *g, int64_t rows) {
    char *data = (char *)realloc(g->data, (size_t)((rows ? rows : 1) * (int64_t)sizeof(int64_t)));
    if (data == NULL) return 0;
    for (int64_t r = 0; r < rows; r++) ((int64_t *)data)[r] = r;
    g->data = data; g->length = g->capacity = rows;
    return 1;
}
/* A parallel loop's thread's values (``from``, freed) joined to the kernel's buffer, threads in
 * order: the iteration order.  ``shift`` is added to each int64 item (where a built row ends,
 * past the values joined before).  0: memory ran out. */
static int mg_grow_join(mg_growing *to, mg_growing *from, int64_t size, int64_t shift) {
    int ok = 1;
    if (from->length) {
        int64_t capacity = to->capacity ? to->capacity : 256;
        while (capacity < to->length + from->length) capacity *= 2;
        char *data = capacity == to->capacity ? to->data : (char *)realloc(to->data, (size_t)(capacity * size));
        if (data == NULL) {
            ok = 0;
        } else {
            char *at = data + size * to->length;
            __builtin_memcpy(at, from->data, (__SIZE_TYPE__)(from->length * size));
            for (int64_t i = 0; shift && i < from->length; i++) ((int64_t *)at)[i] += shift;
            to->data = data;
            to->capacity = capacity;
            to->length += from->length;
        }
    }
    free(from->data);
    from->data = NULL;
    from->length = from->capacity = 0;
    return ok;
}
#endif
