// RMSNorm on the host: the same maths as the CUDA kernels (docs/xla.md), accumulation in f32 for
// bf16/f16/f32 inputs and f64 for f64, part_grad rows strided by part_grad_size.
#include <cmath>
#include <vector>

#include "dispatch.h"
#include "half.h"
#include "rms_problem.h"

namespace tx {
namespace {

template <class X, class W>
void forward(const RmsProblem& p, const RmsFwdBuffers& b) {
  using U = Accum<X>;
  const X* x = static_cast<const X*>(b.x);
  const W* w = static_cast<const W*>(b.w);
  W* out = static_cast<W*>(b.out);
  U* invvar = static_cast<U*>(b.invvar);
  for (int64_t i = 0; i < p.n1; ++i) {
    const X* row = x + i * p.n2;
    U ss = 0;
    for (int64_t j = 0; j < p.n2; ++j) { U v = U(load(row[j])); ss += v * v; }
    const U r = U(1) / std::sqrt(ss / U(p.n2) + U(p.eps));
    invvar[i] = r;
    for (int64_t j = 0; j < p.n2; ++j) out[i * p.n2 + j] = store<W>(U(load(w[j])) * (U(load(row[j])) * r));
  }
}

template <class X, class W>
void backward(const RmsProblem& p, const RmsBwdBuffers& b) {
  using U = Accum<X>;
  const W* g = static_cast<const W*>(b.g);
  const U* invvar = static_cast<const U*>(b.invvar);
  const X* x = static_cast<const X*>(b.x);
  const W* w = static_cast<const W*>(b.w);
  X* gi = static_cast<X*>(b.grad_input);
  W* gw = static_cast<W*>(b.grad_weight);
  U* part = static_cast<U*>(b.part_grad);
  std::vector<U> acc(size_t(p.part * p.n2), U(0));
  for (int64_t i = 0; i < p.n1; ++i) {
    const U r = invvar[i];
    U s = 0;
    for (int64_t j = 0; j < p.n2; ++j) s += U(load(g[i * p.n2 + j])) * U(load(w[j])) * U(load(x[i * p.n2 + j]));
    const U c = r * r * r / U(p.n2) * s;
    U* pr = &acc[size_t((i % p.part) * p.n2)];
    for (int64_t j = 0; j < p.n2; ++j) {
      const U gv = U(load(g[i * p.n2 + j])), xv = U(load(x[i * p.n2 + j]));
      gi[i * p.n2 + j] = store<X>(r * gv * U(load(w[j])) - c * xv);
      pr[j] += gv * xv * r;
    }
  }
  for (int64_t j = 0; j < p.n2; ++j) {
    U t = 0;
    for (int64_t q = 0; q < p.part; ++q) t += acc[size_t(q * p.n2 + j)];
    gw[j] = store<W>(t);
  }
  for (size_t k = 0; k < acc.size(); ++k) part[k] = acc[k];
}

}  // namespace

void rms_forward_cpu(const RmsProblem& p, const RmsFwdBuffers& b) {
  dispatch2(p.x, p.w, [&](auto xt, auto wt) { forward<typename decltype(xt)::type, typename decltype(wt)::type>(p, b); });
}
void rms_backward_cpu(const RmsProblem& p, const RmsBwdBuffers& b) {
  dispatch2(p.x, p.w, [&](auto xt, auto wt) { backward<typename decltype(xt)::type, typename decltype(wt)::type>(p, b); });
}

}  // namespace tx
