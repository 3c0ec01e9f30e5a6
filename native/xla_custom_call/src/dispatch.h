// From the runtime dtype pair (x, weight) to the C++ types of the templates.
#pragma once
#include "half.h"
#include "rms_problem.h"

namespace tx {

template <class T> struct Tag { using type = T; };
template <class X> struct AccumOf { using type = float; };
template <> struct AccumOf<double> { using type = double; };
template <class X> using Accum = typename AccumOf<X>::type;

template <class F>
void dispatch1(DType t, F&& f) {
  switch (t) {
    case DType::BF16: return f(Tag<bf16>{});
    case DType::F16: return f(Tag<f16>{});
    case DType::F32: return f(Tag<float>{});
    case DType::F64: return f(Tag<double>{});
  }
}

template <class F>
void dispatch2(DType a, DType b, F&& f) {
  dispatch1(a, [&](auto ta) { dispatch1(b, [&](auto tb) { f(ta, tb); }); });
}

}  // namespace tx
