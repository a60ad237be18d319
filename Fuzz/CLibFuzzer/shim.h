#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver for a program with a `main` of its own (LLVM, "libFuzzer – a library for
/// coverage-guided fuzz testing", section "Using libFuzzer as a library"). SwiftPM gives every
/// executable target its own entry point, so the harnesses call this instead of linking
/// libFuzzer's `main`; `-sanitize=fuzzer` links the library that defines it.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));
