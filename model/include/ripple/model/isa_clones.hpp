#pragma once
// RIPPLE_CLONES: compile a function for AVX-512, AVX2 and the baseline and choose at run time.
// Ripple builds without floating-point contraction (-ffp-contract=off), so every variant rounds each
// operation alike and the choice never changes a bit of a result. The "avx2" clone has no FMA:
// code that needs it (Ripple's tanh) uses vector_math.cpp's per-ISA kernels instead.
#if defined(__x86_64__)
#define RIPPLE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define RIPPLE_CLONES
#endif
