#!/usr/bin/env bash
# Regenerates the foreign-PTX corpus under test/corpus/kernels: Triton 3.8 kernels (needs .venv
# with triton: `bash scripts/setup-python.sh --triton`) and CUDA C++ kernels (needs nvcc).
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=.venv/bin/python
"$PY" -c 'import triton' 2>/dev/null || { echo "corpus:regen needs triton in .venv: bash scripts/setup-python.sh --triton" >&2; exit 1; }
rm -rf test/corpus/kernels
"$PY" scripts/corpus/triton_corpus.py
"$PY" scripts/corpus/triton_corpus_sm90.py
"$PY" scripts/corpus/triton_corpus_sm100.py
"$PY" scripts/corpus/cuda_corpus.py
"$PY" scripts/corpus/cuda_corpus_sm90.py
"$PY" scripts/corpus/cuda_corpus_sm100.py
echo "corpus: $(ls test/corpus/kernels | wc -l) kernels in test/corpus/kernels"
