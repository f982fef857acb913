/* A run's samples and metadata handed to the HDF5 writer (output_hdf5.h). */
#define _GNU_SOURCE
#include "output_hdf5.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "hdf5_api.h"
#include "module.h"
#include "nsdyn_build_config.h"
#include "output.h"

int nsd_write_hdf5(const char *path, const nsd_config *cfg, const nsd_model *m,
                   const nsd_run_result *rec, const char *command_line, char *err, size_t err_len) {
    const nsd_hdf5_api *api =
        nsd_module_get("hdf5", NSD_MODULE_ABI_HDF5, "HDF5 output", err, err_len);
    if (!api) return -1;
    const nsd_series *s = &rec->series;
    const char **names = malloc((s->n_channels + 1) * sizeof *names);
    const char **units = malloc((s->n_channels + 1) * sizeof *units);
    char *record = NULL;
    size_t record_len = 0;
    FILE *mem = open_memstream(&record, &record_len);
    if (!names || !units || !mem) {
        if (mem) fclose(mem);
        free(record), free(names), free(units);
        snprintf(err, err_len, "cannot write %s: out of memory", path);
        return -1;
    }
    nsd_print_run_record(mem, cfg, m, rec, command_line);
    fclose(mem);
    for (size_t c = 0; c < s->n_channels; ++c) {
        names[c] = m->channels[c].name;
        units[c] = m->channels[c].unit;
    }
    const nsd_h5_samples samples = {s->rows, s->n_channels, s->data, names, units};
    const nsd_h5_text meta[] = {
        {"format", "nsdyn run data 1 (docs/configs.md)"},
        {"title", cfg->title ? cfg->title : ""},
        {"nsdyn_version", NSDYN_VERSION},
        {"config", cfg->path ? cfg->path : ""},
        {"command", command_line ? command_line : ""},
        {"outcome", nsd_outcome_text(rec->outcome, NSD_OUTCOME_RECORD)},
        {"message", rec->message},
        {"run_toml", record ? record : ""},
    };
    /* Debian's libhdf5 is not built thread-safe, and a sweep's --in-process
     * variants write from threads: one file at a time in a process. */
    static pthread_mutex_t one_writer = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&one_writer);
    int rc = api->write_samples(path, &samples, meta, sizeof meta / sizeof *meta, err, err_len);
    pthread_mutex_unlock(&one_writer);
    free(record);
    free(names);
    free(units);
    return rc;
}
