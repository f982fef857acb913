/* One plugin file: the limits of what it may declare, opening it and
 * checking its descriptors (plugin_file.c), the four kinds by name. */
#ifndef NSD_PLUGIN_FILE_H
#define NSD_PLUGIN_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "nsdyn/nsdyn.h"

enum {
    NSD_MAX_DESCRIPTORS = 256, /* per shared object */
    NSD_MAX_ID_LEN = 63,       /* plugin ids and parameter names */
    NSD_MAX_PARAMS = 256,      /* parameters of one plugin */
    NSD_MAX_CHOICES = 256,     /* choices of one CHOICE parameter */
    NSD_MAX_UNIT_LEN = 63,     /* parameter units */
    NSD_MAX_TEXT_LEN = 1000    /* version, summary, help */
};

typedef struct nsd_plugin_file {
    char *path;
    char *real;                      /* realpath, to open a file reached twice only once */
    void *handle;                    /* dlopen handle once opened */
    int opened;                      /* opening was tried */
    int by_name;                     /* entered by its name nsdyn_<kind>_<id>.so (no index) */
    const nsdyn_plugin_info **descs; /* scan: every descriptor that passed the checks */
    size_t n_descs;
    int failed; /* scan: some descriptor failed a check */
} nsd_plugin_file;

const char *nsd_kind_name(nsdyn_kind kind);    /* "friction law" */
const char *nsd_kind_article(nsdyn_kind kind); /* "a" or "an" */
const char *nsd_kind_section(nsdyn_kind kind); /* "friction" */

/* The four kinds, in ABI order. */
extern const nsdyn_kind nsd_all_kinds[4];

/* A plugin id: [a-z0-9_]+, at most NSD_MAX_ID_LEN characters. */
int nsd_valid_plugin_id(const char *id);

/* Index flag: a contact law that gives the impulse at one contact alone
 * (plugin_calls.h nsd_contact_has_local_impulse). */
#define NSD_INDEX_LOCAL_IMPULSE 1u

/* The index flags a descriptor earns (NSD_INDEX_*). */
uint32_t nsd_descriptor_flags(const nsdyn_plugin_info *p);

/* One descriptor of an opened file. */
typedef struct found {
    const nsdyn_plugin_info *info; /* NULL when it failed a check */
    char id[NSD_MAX_ID_LEN + 1];   /* its id when that is valid, else "" */
    char *problem;
} found;

void nsd_free_found(found *list, size_t n);

/* Open `f` (this runs its code) and check every descriptor. Returns a
 * problem of the whole file (then *n_out = 0), or NULL and the
 * descriptors, each with its own problem or none. */
char *nsd_open_plugin_file(nsd_plugin_file *f, found **out, size_t *n_out);
/* NULL for a regular file (through links), else why it is not opened. */
char *nsd_plugin_not_regular(const char *path);

#endif
