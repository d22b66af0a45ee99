// Loading libpq at run time. The hub runs on SQLite unless a postgres://
// URL is configured, and linking libpq would map it and its dependencies
// (GnuTLS, Kerberos, LDAP, SASL, p11-kit: about 3 MB of resident pages)
// into every hub. Store calls libpq's functions by their own names; the .c
// file defines those names (hidden, so libpq never binds to them) as
// forwarders through a table filled by dlsym.
#ifndef PINGTXT_CLIBPQ_H
#define PINGTXT_CLIBPQ_H

#include <stddef.h>

/// Every libpq function the hub calls, resolved from one dlopen handle.
typedef struct pt_pq_table pt_pq_table;

/// dlopen(library, RTLD_NOW | RTLD_LOCAL) and dlsym of every function.
/// Returns the table, or NULL with the reason (NUL-terminated, truncated to
/// cap) in error; in that case nothing stays loaded.
pt_pq_table *pt_pq_open(const char *library, char *error, size_t cap);

/// Makes table the one every PQ* call goes through, unless one is already
/// installed: then table is closed instead. Either way the caller no
/// longer owns it.
void pt_pq_install(pt_pq_table *table);

/// 1 once a table is installed (it stays for the life of the process).
int pt_pq_installed(void);

/// Closes a table that was not installed.
void pt_pq_close(pt_pq_table *table);

#endif
