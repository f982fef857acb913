/* The functions the fuzz targets (fuzz_config.c, fuzz_set.c) and the corpus
 * replay (tests/fuzz_replay.c) call on each input: the config loader and
 * every check the CLI makes before it simulates. See docs/fuzzing.md. */
#ifndef NSD_FUZZ_ENTRY_H
#define NSD_FUZZ_ENTRY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Once per process: scan the host's plugin directory (and NSDYN_PLUGIN_PATH)
 * into a registry that every input reuses. Returns 0, or -1 when no plugin
 * was found (the checks would then stop at "no system '...'"). */
int nsd_fuzz_init(void);

/* The bytes are a config file: read it (memfd, no file written), then
 * resolve, compose, instantiate the plugins, check the graphs' channels,
 * and for [[variant]]s derive and check each, as `nsdyn run` and
 * `nsdyn compare` do before the first step. Returns the number of errors
 * reported (never crashes on purpose). */
size_t nsd_fuzz_config(const uint8_t *data, size_t size);

/* The bytes are --set arguments, one per line (backslash-newline: a newline
 * inside a value), applied to a shipped config (configs/, see bases[] in
 * fuzz_entry.c); a first line "@N" picks the config (N modulo
 * nsd_fuzz_n_bases, default 0). Then the same checks. */
size_t nsd_fuzz_set(const uint8_t *data, size_t size);

/* Where the checks' messages go (default /dev/null; replay -v: stdout). */
void nsd_fuzz_report_to(FILE *out);

extern const size_t nsd_fuzz_n_bases;
const char *nsd_fuzz_base_name(size_t i);

#endif
