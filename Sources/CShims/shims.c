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
