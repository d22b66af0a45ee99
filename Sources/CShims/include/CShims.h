// Wrappers for C macros and GNU-only calls that Swift cannot import directly.
// This header only declares functions; the .c file defines _GNU_SOURCE so the
// module maps never disagree about glibc's types.
#ifndef PINGTXT_CSHIMS_H
#define PINGTXT_CSHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;
typedef void (*pt_sqlite_destructor)(void *);

/// accept4(2) with flags (SOCK_NONBLOCK | SOCK_CLOEXEC).
int pt_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);

/// Names the calling thread (visible in top/ps); truncated to 15 bytes.
void pt_set_thread_name(const char *name);

/// The calling thread's id, for log lines.
long pt_gettid(void);

/// SQLITE_TRANSIENT: SQLite copies the bound buffer before returning.
pt_sqlite_destructor pt_sqlite_transient(void);

/// Before SQLite's first use: no page-cache block allocated up front for
/// each connection (SQLITE_CONFIG_PAGECACHE with no buffer and N = 0), so
/// pages are allocated as they are read. sqlite3_config is variadic.
int pt_sqlite_no_page_prealloc(void);

/// SSL_set_tlsext_host_name (a macro): sets SNI.
long pt_ssl_set_tlsext_host_name(SSL *ssl, const char *name);

/// SSL_CTX_set_min_proto_version (a macro).
long pt_ssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version);

/// OPENSSL_free (a macro).
void pt_openssl_free(void *ptr);

/// Blocks SIGINT, SIGTERM, SIGHUP and SIGPIPE in the calling thread (threads
/// created afterwards inherit the mask), so only sigwait sees them.
int pt_block_signals(void);

/// Waits for SIGINT, SIGTERM or SIGHUP; returns the signal number.
int pt_wait_signal(void);

/// Ignores SIGPIPE process-wide (writes to closed sockets return EPIPE).
void pt_ignore_sigpipe(void);

// ---- Net: outbound client (append-only) ----
typedef struct x509_st X509;

/// Client SSL_CTX set-up (macros): TLS >= 1.2, partial writes, moving write
/// buffers, no compression, unexpected EOF treated as a clean close.
/// Returns 1 on success.
int pt_ssl_ctx_configure_client(SSL_CTX *ctx);

/// A certificate's subject (which = 0) or issuer (which = 1) as RFC 2253
/// text into buf (NUL-terminated, truncated to cap); returns the length.
int pt_x509_name_text(X509 *cert, int which, char *buf, int cap);

/// The certificate's subjectAltName DNS entries, newline-separated into buf
/// (NUL-terminated, truncated to cap); returns the length.
int pt_x509_san_dns_names(X509 *cert, char *buf, int cap);

/// notBefore (which = 0) or notAfter (which = 1) as Unix seconds; 0 if unreadable.
long long pt_x509_time(X509 *cert, int which);

#endif
