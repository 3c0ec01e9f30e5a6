{
  # The N-API addon over the CUDA driver API. Included by /binding.gyp (the npm/node-gyp entry) and
  # by the isolated build that native/cuda/build.mjs runs. It links only libdl: the driver
  # (libcuda.so.1 or the sim library) is dlopen'ed at run time. Paths are relative to this file.
  "targets": [
    {
      "target_name": "tessera_cuda",
      "sources": [
        "src/addon.cc",
        "src/args.cc",
        "src/async.cc",
        "src/copies.cc",
        "src/custom_call.cc",
        "src/launch_plan.cc",
        "src/driver.cc",
        "src/handles.cc",
        "src/js_error.cc",
        "src/memory.cc",
        "src/module.cc",
        "src/sim_ext.cc",
        "src/stream.cc"
      ],
      "defines": ["NAPI_VERSION=8"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "libraries": ["-ldl"]
    }
  ]
}
