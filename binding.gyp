{
  # Tessera's N-API addon (build/Release/tessera_cuda.node); the target lives in
  # native/cuda/addon.gypi. Build with `node native/cuda/build.mjs` (offline, keeps build/ intact).
  "includes": ["native/cuda/addon.gypi"]
}
