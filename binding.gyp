{
  "targets": [
    {
      "target_name": "faultline_kernels",
      "sources": ["native/kernels.c"],
      "cflags": ["-O3", "-ffp-contract=off", "-fno-fast-math", "-std=c11"],
      "cflags!": ["-O2"]
    }
  ]
}
