{
  # The N-API addon over the CUDA driver API, written with node-addon-api (C++ wrapper classes,
  # C++ exceptions: NAPI_CPP_EXCEPTIONS, as node-addon-api's except.gypi sets it). Its headers are
  # found by an absolute path, not through its node_addon_api_except gyp target: gyp would write
  # that target's makefile next to a path relative to build/addon/build, which, where npm hoisted
  # node-addon-api beside tessera, lands outside build/. Included by /binding.gyp (the npm/node-gyp
  # entry) and by the isolated build that native/cuda/build.mjs runs. It links only libdl: the driver (libcuda.so.1 or the sim library)
  # is dlopen'ed at run time. Paths are relative to this file.
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
        "src/serve.cc",
        "src/sim_ext.cc",
        "src/stream.cc",
        "src/tensormap.cc"
      ],
      "include_dirs": ["<!(node -p \"require('path').resolve(require('node-addon-api').include_dir)\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED",
                  "NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "libraries": ["-ldl"]
    }
  ]
}
