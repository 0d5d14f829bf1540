// libFuzzer's driver, which -sanitize=fuzzer links in. SwiftPM gives every executable its own
// entry point, so the fuzz executables start libFuzzer themselves instead of using its main().
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
