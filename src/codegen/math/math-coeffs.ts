// Coefficient tables for the math sequences in math.ts. Taylor coefficients are computed here from
// their exact definitions; the erfc tables are Chebyshev interpolants computed offline in
// 192-bit fixed point by `erfcScaledChebyshev` (test/codegen/math-ref.ts) and rounded once.

/** 1/n! rounded once to double (n! is exact in a double up to 22!). */
export const invFactorial = (n: number): number => {
  let f = 1;
  for (let i = 2; i <= n; i++) f *= i;
  return 1 / f;
};

/** [1/2!, 1/3!, ..., 1/deg!]: expm1(r) = r + r^2 * P(r), P evaluated by Horner. */
export const expm1Tail = (deg: number): number[] => Array.from({ length: deg - 1 }, (_, i) => invFactorial(i + 2));

/** sin(r) = r + r^3 * S(r^2), S = [-1/3!, 1/5!, ...] up to r^deg. */
export const sinTail = (deg: number): number[] =>
  Array.from({ length: (deg - 1) / 2 }, (_, i) => (i % 2 === 0 ? -1 : 1) * invFactorial(2 * i + 3));

/** cos(r) = 1 - r^2/2 + r^4 * C(r^2), C = [1/4!, -1/6!, ...] up to r^deg. */
export const cosTail = (deg: number): number[] =>
  Array.from({ length: deg / 2 - 1 }, (_, i) => (i % 2 === 0 ? 1 : -1) * invFactorial(2 * i + 4));

/** log1p via atanh: R(z) = z * (2/3 + z*(2/5 + ...)), K terms. */
export const atanhTail = (k: number): number[] => Array.from({ length: k }, (_, i) => 2 / (2 * i + 3));

/** erf(x) = x * sum_n (-1)^n * 2/(sqrt(pi) * n! * (2n+1)) * x^{2n}, n = 0..terms-1. */
export const erfTaylor = (terms: number): number[] => {
  const twoOverSqrtPi = 1.1283791670955126; // 2/sqrt(pi)
  return Array.from({ length: terms }, (_, n) => ((n % 2 === 0 ? 1 : -1) * twoOverSqrtPi * invFactorial(n)) / (2 * n + 1));
};

// Chebyshev interpolants of erfc(a)*exp(a^2), from erfcScaledChebyshev in test/codegen/math-ref.ts.
/** erfc(a)*exp(a^2) for f32 on a in [0.875, 4], degree 13 (fit error 3e-9, 2.4e-8 after rounding to f32). */
export const ERFC_F32 = {
  lo: 0.875,
  hi: 4,
  coeffs: [
    0.2552512634888536, -0.1516888178555009, 0.04238945017632951, -0.011237872530232245,
    0.0028447023939707195, -0.0006910092442426774, 0.00016171591947855131, -0.00003658086539707823,
    0.000008019764541619855, -0.000001707926246415541, 3.5402006834571096e-7, -7.154188357225561e-8,
    1.4100568709419053e-8, -2.6285725799087228e-9,
  ],
} as const;

/** erfc(a)*exp(a^2) for f64 on a in [1, 6], degree 30 (fit error below 1e-18). */
export const ERFC_F64 = {
  lo: 1,
  hi: 6,
  coeffs: [
    0.20196598791223083, -0.147884835533987, 0.05188222158351389, -0.017525709964867527,
    0.005721802417478219, -0.0018109803028142997, 0.0005570714353927344, -0.00016689473052528832,
    0.00004878565911493746, -0.000013935932859822488, 0.000003895514595190115, -0.0000010668392337070025,
    2.865502572057316e-7, -7.555861081756622e-8, 1.957586342968354e-8, -4.987110132992565e-9,
    1.2501871239431183e-9, -3.0858852312872416e-10, 7.504484747602075e-11, -1.7990193064432053e-11,
    4.253478301220876e-12, -9.923156075376293e-13, 2.285294689026742e-13, -5.197545128776439e-14,
    1.1678402644045538e-14, -2.5933005231183116e-15, 5.693143913467755e-16, -1.2359966733061698e-16,
    2.6542847147814128e-17, -5.6306967324699184e-18, 1.135584892446982e-18,
  ],
} as const;
