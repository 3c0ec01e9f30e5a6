// Plain-JS RMSNorm (f64 arithmetic) with the C targets' maths: the reference the kernels and the
// targets are checked against.
export function rmsNormFwdRef(x: ArrayLike<number>, w: ArrayLike<number>, n1: number, n2: number, eps: number): { out: Float64Array; invvar: Float64Array } {
  const out = new Float64Array(n1 * n2);
  const invvar = new Float64Array(n1);
  for (let i = 0; i < n1; i++) {
    let ss = 0;
    for (let j = 0; j < n2; j++) ss += x[i * n2 + j]! ** 2;
    const u = 1 / Math.sqrt(ss / n2 + eps);
    invvar[i] = u;
    for (let j = 0; j < n2; j++) out[i * n2 + j] = w[j]! * (x[i * n2 + j]! * u);
  }
  return { out, invvar };
}

export function rmsNormBwdRef(
  g: ArrayLike<number>, invvar: ArrayLike<number>, x: ArrayLike<number>, w: ArrayLike<number>, n1: number, n2: number, partGradSize: number,
): { gradInput: Float64Array; gradWeight: Float64Array; partGrad: Float64Array } {
  const gradInput = new Float64Array(n1 * n2);
  const partGrad = new Float64Array(partGradSize * n2);
  for (let i = 0; i < n1; i++) {
    const u = invvar[i]!;
    let s = 0;
    for (let j = 0; j < n2; j++) s += g[i * n2 + j]! * w[j]! * x[i * n2 + j]!;
    for (let j = 0; j < n2; j++) {
      const k = i * n2 + j;
      gradInput[k] = u * g[k]! * w[j]! - (u ** 3 / n2) * x[k]! * s;
      partGrad[(i % partGradSize) * n2 + j]! += g[k]! * x[k]! * u;
    }
  }
  const gradWeight = new Float64Array(n2);
  for (let p = 0; p < partGradSize; p++) for (let j = 0; j < n2; j++) gradWeight[j]! += partGrad[p * n2 + j]!;
  return { gradInput, gradWeight, partGrad };
}
