/* The HDF5 writer (hdf5_api.h), built alone as libnsdyn_hdf5.so: the only
 * file that includes hdf5.h. Numbers are stored as IEEE float64, the
 * doubles of the run bit for bit; names and texts as UTF-8 strings. */
#define _GNU_SOURCE
#include "hdf5_api.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The innermost message of HDF5's error stack: the cause, not the API call. */
static herr_t first_message(unsigned n, const H5E_error2_t *e, void *out) {
    if (n == 0) snprintf(out, 256, "%s", e->desc ? e->desc : "");
    return 0;
}

static int fail(char *err, size_t err_len, const char *path, const char *what) {
    char why[256] = "";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, first_message, why);
    snprintf(err, err_len, "cannot write %s: HDF5 could not %s%s%s", path, what, why[0] ? ": " : "",
             why);
    return -1;
}

/* A variable-length UTF-8 string type (h5py reads it as str). */
static hid_t text_type(void) {
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

/* Attribute name on obj: n strings (a scalar when list is 0). */
static int put_texts(hid_t obj, const char *name, const char *const *v, size_t n, int list) {
    hsize_t dim = n;
    hid_t t = text_type(), sp = list ? H5Screate_simple(1, &dim, NULL) : H5Screate(H5S_SCALAR);
    hid_t a = t >= 0 && sp >= 0 ? H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT) : -1;
    int ok = a >= 0 && H5Awrite(a, t, v) >= 0;
    if (a >= 0) ok &= H5Aclose(a) >= 0;
    if (sp >= 0) H5Sclose(sp);
    if (t >= 0) H5Tclose(t);
    return ok ? 0 : -1;
}

static int put_index(hid_t obj, const char *name, size_t value) {
    unsigned long long v = value;
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = sp >= 0 ? H5Acreate2(obj, name, H5T_STD_U64LE, sp, H5P_DEFAULT, H5P_DEFAULT) : -1;
    int ok = a >= 0 && H5Awrite(a, H5T_NATIVE_ULLONG, &v) >= 0;
    if (a >= 0) ok &= H5Aclose(a) >= 0;
    if (sp >= 0) H5Sclose(sp);
    return ok ? 0 : -1;
}

/* Column c of the samples as dataset names[c] of group, through column (a
 * buffer of rows doubles): contiguous float64, little-endian. */
static int put_channel(hid_t group, const nsd_h5_samples *s, size_t c, double *column) {
    for (size_t r = 0; r < s->rows; ++r) column[r] = s->data[r * s->cols + c];
    hsize_t n = s->rows;
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t d = sp >= 0 ? H5Dcreate2(group, s->names[c], H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT,
                                   H5P_DEFAULT)
                      : -1;
    int ok = d >= 0 &&
             (n == 0 || H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, column) >= 0);
    ok = ok && put_texts(d, "unit", &s->units[c], 1, 0) == 0 && put_index(d, "column", c) == 0;
    if (d >= 0) ok &= H5Dclose(d) >= 0;
    if (sp >= 0) H5Sclose(sp);
    return ok ? 0 : -1;
}

/* A channel name HDF5 would take for something else: a path or "." . */
static const char *bad_name(const nsd_h5_samples *s) {
    for (size_t c = 0; c < s->cols; ++c)
        if (!s->names[c][0] || strchr(s->names[c], '/') || strcmp(s->names[c], ".") == 0)
            return s->names[c];
    return NULL;
}

static int write_file(hid_t f, const char *path, const nsd_h5_samples *s, const nsd_h5_text *meta,
                      size_t n_meta, char *err, size_t err_len) {
    for (size_t i = 0; i < n_meta; ++i)
        if (put_texts(f, meta[i].name, &meta[i].value, 1, 0) != 0)
            return fail(err, err_len, path, "write the run's metadata");
    hid_t g = H5Gcreate2(f, "timeseries", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return fail(err, err_len, path, "create group /timeseries");
    int rc = 0;
    if (put_texts(g, "channels", s->names, s->cols, 1) != 0 ||
        put_texts(g, "units", s->units, s->cols, 1) != 0)
        rc = fail(err, err_len, path, "write the channel list");
    double *column = rc == 0 ? malloc((s->rows ? s->rows : 1) * sizeof *column) : NULL;
    if (rc == 0 && !column) rc = -1, snprintf(err, err_len, "cannot write %s: out of memory", path);
    for (size_t c = 0; rc == 0 && c < s->cols; ++c)
        if (put_channel(g, s, c, column) != 0) {
            char what[300];
            snprintf(what, sizeof what, "write channel '%.200s' (a duplicate name?)", s->names[c]);
            rc = fail(err, err_len, path, what);
        }
    free(column);
    if (H5Gclose(g) < 0 && rc == 0) rc = fail(err, err_len, path, "close /timeseries");
    return rc;
}

/* The file's data on the disk before the rename, as nsd_commit_file does. */
static int sync_file(const char *tmp) {
    int fd = open(tmp, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd) != 0 && errno != EINVAL && errno != EROFS ? -1 : 0;
    close(fd);
    return rc;
}

static int write_samples(const char *path, const nsd_h5_samples *s, const nsd_h5_text *meta,
                         size_t n_meta, char *err, size_t err_len) {
    const char *bad = bad_name(s);
    if (bad) {
        snprintf(err, err_len,
                 "cannot write %s: channel name '%s' is not an HDF5 dataset name "
                 "(empty, \".\" or with '/')",
                 path, bad);
        return -1;
    }
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        snprintf(err, err_len, "cannot write %s: the path is too long", path);
        return -1;
    }
    if (unlink(tmp) != 0 && errno != ENOENT) {
        snprintf(err, err_len, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    /* HDF5 prints its error stack by default: the message goes in err. */
    H5E_auto2_t was_fn;
    void *was_data;
    H5Eget_auto2(H5E_DEFAULT, &was_fn, &was_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fcreate(tmp, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    int rc = f < 0 ? fail(err, err_len, tmp, "create the file")
                   : write_file(f, tmp, s, meta, n_meta, err, err_len);
    if (f >= 0 && H5Fclose(f) < 0 && rc == 0) rc = fail(err, err_len, tmp, "close the file");
    H5Eset_auto2(H5E_DEFAULT, was_fn, was_data);
    if (rc == 0 && sync_file(tmp) != 0)
        rc = -1, snprintf(err, err_len, "cannot write %s: %s", tmp, strerror(errno));
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -1, snprintf(err, err_len, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
    if (rc != 0) unlink(tmp);
    return rc;
}

/* The module's one exported symbol, its table (module/module.h; built with
 * hidden visibility). */
__attribute__((visibility("default"))) const nsd_hdf5_api nsd_module_table = {
    {"hdf5", NSD_MODULE_ABI_HDF5}, write_samples};
