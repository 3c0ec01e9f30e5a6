#!/usr/bin/env bash
# Creates the project's Python environment in .venv (offline here: pip reads the machine's local
# package index; --retries 0 so an unreachable index fails at once instead of retrying for minutes).
#   scripts/setup-python.sh            jax/jaxlib 0.10.2 (CPU) + numpy: the real XLA runtime the tests use,
#                                      torch 2.13 (CPU) + transformers 5.18: the reference the Llama example
#                                      (examples/llm) is checked against
#   scripts/setup-python.sh --triton   also triton 3.8.0: the peer for bench:compile and the PTX corpus generator
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then python3 -m venv .venv; fi
pkgs=(jax==0.10.2 jaxlib==0.10.2 numpy torch==2.13.0 transformers==5.18.0)
if [ "${1:-}" = "--triton" ]; then pkgs+=(triton==3.8.0 ml_dtypes); fi
.venv/bin/pip install --retries 0 -q --disable-pip-version-check "${pkgs[@]}" 2>&1 | grep -v "^WARNING: Location" || true
.venv/bin/python -c 'import jax, jaxlib; print("tessera: .venv has jax", jax.__version__, "jaxlib", jaxlib.__version__)'
.venv/bin/python -c 'import torch, transformers; print("tessera: .venv has torch", torch.__version__, "transformers", transformers.__version__)'
if [ "${1:-}" = "--triton" ]; then .venv/bin/python -c 'import triton; print("tessera: .venv has triton", triton.__version__)'; fi
# The C library's FFI declarations are checked against jaxlib's own header (ctest xla_ffi_abi_check);
# CMake looks for that header when it configures, so a build made before this .venv existed is
# configured again now to pick the check up.
if [ -f build/CMakeCache.txt ] && command -v cmake >/dev/null; then
  cmake -S . -B build >/dev/null
  cmake --build build --target xla_ffi_abi_check
  echo "tessera: built xla_ffi_abi_check against .venv's jaxlib headers"
fi
