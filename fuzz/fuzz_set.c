/* libFuzzer target: the bytes are --set lines applied to a shipped
 * config (nsd_fuzz_set).
 * Built with -DNSDYN_FUZZ=ON and clang (docs/fuzzing.md). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_entry.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    if (nsd_fuzz_init() != 0) {
        fprintf(stderr, "fuzz_set: no plugins, nothing to fuzz (build the plugins first)\n");
        exit(1);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    nsd_fuzz_set(data, size);
    return 0;
}
