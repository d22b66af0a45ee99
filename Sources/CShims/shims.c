#define _GNU_SOURCE
#include "CShims.h"

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sqlite3.h>
#include <openssl/ssl.h>
#include <openssl/crypto.h>

int pt_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
    return accept4(fd, addr, len, flags);
}

void pt_set_thread_name(const char *name) {
    char buf[16];
    size_t i = 0;
    for (; name[i] && i < 15; i++) buf[i] = name[i];
    buf[i] = 0;
    pthread_setname_np(pthread_self(), buf);
}

long pt_gettid(void) { return (long)syscall(SYS_gettid); }

pt_sqlite_destructor pt_sqlite_transient(void) { return SQLITE_TRANSIENT; }

int pt_sqlite_no_page_prealloc(void) { return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0); }

long pt_ssl_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

long pt_ssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}

void pt_openssl_free(void *ptr) { OPENSSL_free(ptr); }

static void pt_fill_set(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

int pt_block_signals(void) {
    sigset_t set;
    pt_fill_set(&set);
    return pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int pt_wait_signal(void) {
    sigset_t set;
    pt_fill_set(&set);
    int sig = 0;
    if (sigwait(&set, &sig) != 0) return -1;
    return sig;
}

void pt_ignore_sigpipe(void) { signal(SIGPIPE, SIG_IGN); }

// ---- Net: outbound client (append-only) ----
#include <string.h>
#include <time.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/bio.h>

int pt_ssl_ctx_configure_client(SSL_CTX *ctx) {
    if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) return 0;
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_IGNORE_UNEXPECTED_EOF);
    return 1;
}

int pt_x509_name_text(X509 *cert, int which, char *buf, int cap) {
    if (cap <= 0) return 0;
    buf[0] = 0;
    const X509_NAME *name = which == 0 ? X509_get_subject_name(cert) : X509_get_issuer_name(cert);
    if (!name) return 0;
    BIO *bio = BIO_new(BIO_s_mem());
    if (!bio) return 0;
    X509_NAME_print_ex(bio, name, 0, XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB);
    int n = BIO_read(bio, buf, cap - 1);
    if (n < 0) n = 0;
    buf[n] = 0;
    BIO_free(bio);
    return n;
}

int pt_x509_san_dns_names(X509 *cert, char *buf, int cap) {
    if (cap <= 0) return 0;
    buf[0] = 0;
    GENERAL_NAMES *names = X509_get_ext_d2i(cert, NID_subject_alt_name, NULL, NULL);
    if (!names) return 0;
    int used = 0;
    int count = sk_GENERAL_NAME_num(names);
    for (int i = 0; i < count; i++) {
        const GENERAL_NAME *gn = sk_GENERAL_NAME_value(names, i);
        if (gn->type != GEN_DNS) continue;
        const unsigned char *data = ASN1_STRING_get0_data(gn->d.dNSName);
        int len = ASN1_STRING_length(gn->d.dNSName);
        if (used + len + 2 > cap) break;
        if (used > 0) buf[used++] = '\n';
        memcpy(buf + used, data, (size_t)len);
        used += len;
    }
    buf[used] = 0;
    GENERAL_NAMES_free(names);
    return used;
}

long long pt_x509_time(X509 *cert, int which) {
    const ASN1_TIME *t = which == 0 ? X509_get0_notBefore(cert) : X509_get0_notAfter(cert);
    if (!t) return 0;
    struct tm parts;
    memset(&parts, 0, sizeof parts);
    if (ASN1_TIME_to_tm(t, &parts) != 1) return 0;
    return (long long)timegm(&parts);
}
