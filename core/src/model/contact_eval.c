/* The host side of nsdyn_system.contacts(): the inline definition is in
 * contact_eval.h; this is its one external definition (C99 6.7.4), for
 * callers the compiler does not inline into. */
#include "contact_eval.h"

extern inline nsdyn_status nsd_contacts_evaluate(const nsdyn_system *sys, void *inst, double t,
                                                 const double *q, const double *v,
                                                 size_t n_contacts, int want_geometry,
                                                 double *const *jacobian, nsdyn_contact_eval *out);
extern inline nsdyn_status nsd_contacts_evaluate_some(const nsdyn_system *sys, void *inst, double t,
                                                      const double *q, const double *v,
                                                      size_t n_contacts,
                                                      const unsigned char *wanted,
                                                      nsdyn_contact_eval *out);
