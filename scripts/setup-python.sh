#!/usr/bin/env bash
# Creates .venv with Triton 3.8.0 for `npm run bench:compile`'s comparison (works offline here:
# pip reads the machine's local package index). Optional: the benchmark runs without it.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then python3 -m venv .venv; fi
.venv/bin/pip install --retries 0 triton==3.8.0
.venv/bin/python -c 'import triton; print("triton", triton.__version__, "in .venv")'
