/* SHA-256 (FIPS 180-4, section 6.2), written from the specification: the
 * run record names each plugin's shared object by its hash, so a record
 * says which build of a plugin made the run. */
#ifndef NSD_SHA256_H
#define NSD_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct nsd_sha256 {
    uint32_t h[8]; /* the hash value H(i) */
    uint64_t bits; /* message length so far, in bits */
    unsigned char block[64];
    size_t fill; /* bytes waiting in block */
} nsd_sha256;

void nsd_sha256_init(nsd_sha256 *c);
void nsd_sha256_update(nsd_sha256 *c, const void *data, size_t len);
void nsd_sha256_final(nsd_sha256 *c, unsigned char digest[32]);

/* The digest of `len` bytes as 64 lowercase hex digits and a NUL. */
void nsd_sha256_hex(const void *data, size_t len, char hex[65]);
/* The digest of a file's contents as hex; 0, or -1 (errno set). */
int nsd_sha256_file(const char *path, char hex[65]);

#endif
