// libpq through dlopen: see include/CLibPQ.h for why.
//
// The system headers are included before the visibility pragma so that
// only libpq's declarations become hidden: a hidden declaration of a libc
// function would make the compiler expect its definition in this binary.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CLibPQ.h"

// Hidden: the definitions below share libpq's names, and an exported one
// would interpose on libpq's calls to itself once it is loaded.
#pragma GCC visibility push(hidden)
#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#include <postgresql/libpq-fe.h>  // Debian's place (Sources/CPostgres/shim.h)
#endif

// The functions Store and the test support call. PQenterPipelineMode and
// friends appeared in libpq 14; an older library fails here, at load time.
#define PT_PQ_FUNCTIONS(X) \
    X(PQconnectdb) X(PQconnectdbParams) X(PQfinish) X(PQreset) X(PQstatus) \
    X(PQtransactionStatus) X(PQerrorMessage) X(PQsocket) X(PQsetNoticeProcessor) \
    X(PQexec) X(PQprepare) X(PQexecPrepared) X(PQdescribePrepared) \
    X(PQsendQueryPrepared) X(PQgetResult) X(PQconsumeInput) X(PQnotifies) X(PQfreemem) \
    X(PQenterPipelineMode) X(PQexitPipelineMode) X(PQpipelineSync) \
    X(PQresultStatus) X(PQresultErrorMessage) X(PQresultErrorField) X(PQclear) \
    X(PQcmdStatus) X(PQcmdTuples) X(PQntuples) X(PQnfields) X(PQnparams) \
    X(PQfname) X(PQftype) X(PQgetvalue) X(PQgetlength) X(PQgetisnull)

struct pt_pq_table {
    void *handle;
#define PT_PQ_FIELD(name) __typeof__(name) *name;
    PT_PQ_FUNCTIONS(PT_PQ_FIELD)
#undef PT_PQ_FIELD
};

static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static pt_pq_table *installed;

pt_pq_table *pt_pq_open(const char *library, char *error, size_t cap) {
    pt_pq_table *t = calloc(1, sizeof *t);
    if (t == NULL) {
        snprintf(error, cap, "out of memory");
        return NULL;
    }
    t->handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (t->handle == NULL) {
        const char *why = dlerror();
        snprintf(error, cap, "%s", why != NULL ? why : library);
        free(t);
        return NULL;
    }
    // dlsym returns void *; POSIX guarantees it converts to a function pointer.
#define PT_PQ_RESOLVE(name) \
    t->name = (__typeof__(t->name))dlsym(t->handle, #name); \
    if (t->name == NULL) { \
        snprintf(error, cap, "%s has no %s", library, #name); \
        pt_pq_close(t); \
        return NULL; \
    }
    PT_PQ_FUNCTIONS(PT_PQ_RESOLVE)
#undef PT_PQ_RESOLVE
    return t;
}

void pt_pq_close(pt_pq_table *table) {
    if (table == NULL) return;
    dlclose(table->handle);
    free(table);
}

void pt_pq_install(pt_pq_table *table) {
    pthread_mutex_lock(&install_lock);
    if (__atomic_load_n(&installed, __ATOMIC_ACQUIRE) == NULL) {
        __atomic_store_n(&installed, table, __ATOMIC_RELEASE);
        table = NULL;
    }
    pthread_mutex_unlock(&install_lock);
    pt_pq_close(table);
}

int pt_pq_installed(void) {
    return __atomic_load_n(&installed, __ATOMIC_ACQUIRE) != NULL;
}

// Store loads the library before its first connection, so every call
// finds the table; a path that forgot would otherwise jump through NULL.
static __attribute__((noreturn, cold)) void not_loaded(const char *name) {
    fprintf(stderr, "pingtxt: %s called before libpq was loaded\n", name);
    abort();
}

static inline const pt_pq_table *api(const char *name) {
    const pt_pq_table *t = __atomic_load_n(&installed, __ATOMIC_ACQUIRE);
    if (__builtin_expect(t == NULL, 0)) not_loaded(name);
    return t;
}

// The forwarders: same names and prototypes as libpq-fe.h (the compiler
// checks them against it).
PGconn *PQconnectdb(const char *conninfo) {
    return api(__func__)->PQconnectdb(conninfo);
}
PGconn *PQconnectdbParams(const char *const *keywords, const char *const *values, int expand_dbname) {
    return api(__func__)->PQconnectdbParams(keywords, values, expand_dbname);
}
void PQfinish(PGconn *conn) { api(__func__)->PQfinish(conn); }
void PQreset(PGconn *conn) { api(__func__)->PQreset(conn); }
ConnStatusType PQstatus(const PGconn *conn) { return api(__func__)->PQstatus(conn); }
PGTransactionStatusType PQtransactionStatus(const PGconn *conn) {
    return api(__func__)->PQtransactionStatus(conn);
}
char *PQerrorMessage(const PGconn *conn) { return api(__func__)->PQerrorMessage(conn); }
int PQsocket(const PGconn *conn) { return api(__func__)->PQsocket(conn); }
PQnoticeProcessor PQsetNoticeProcessor(PGconn *conn, PQnoticeProcessor proc, void *arg) {
    return api(__func__)->PQsetNoticeProcessor(conn, proc, arg);
}
PGresult *PQexec(PGconn *conn, const char *query) { return api(__func__)->PQexec(conn, query); }
PGresult *PQprepare(PGconn *conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes) {
    return api(__func__)->PQprepare(conn, stmtName, query, nParams, paramTypes);
}
PGresult *PQexecPrepared(PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues,
                         const int *paramLengths, const int *paramFormats, int resultFormat) {
    return api(__func__)->PQexecPrepared(conn, stmtName, nParams, paramValues, paramLengths, paramFormats,
                                         resultFormat);
}
PGresult *PQdescribePrepared(PGconn *conn, const char *stmt) {
    return api(__func__)->PQdescribePrepared(conn, stmt);
}
int PQsendQueryPrepared(PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues,
                        const int *paramLengths, const int *paramFormats, int resultFormat) {
    return api(__func__)->PQsendQueryPrepared(conn, stmtName, nParams, paramValues, paramLengths, paramFormats,
                                              resultFormat);
}
PGresult *PQgetResult(PGconn *conn) { return api(__func__)->PQgetResult(conn); }
int PQconsumeInput(PGconn *conn) { return api(__func__)->PQconsumeInput(conn); }
PGnotify *PQnotifies(PGconn *conn) { return api(__func__)->PQnotifies(conn); }
void PQfreemem(void *ptr) { api(__func__)->PQfreemem(ptr); }
int PQenterPipelineMode(PGconn *conn) { return api(__func__)->PQenterPipelineMode(conn); }
int PQexitPipelineMode(PGconn *conn) { return api(__func__)->PQexitPipelineMode(conn); }
int PQpipelineSync(PGconn *conn) { return api(__func__)->PQpipelineSync(conn); }
ExecStatusType PQresultStatus(const PGresult *res) { return api(__func__)->PQresultStatus(res); }
char *PQresultErrorMessage(const PGresult *res) { return api(__func__)->PQresultErrorMessage(res); }
char *PQresultErrorField(const PGresult *res, int fieldcode) {
    return api(__func__)->PQresultErrorField(res, fieldcode);
}
void PQclear(PGresult *res) { api(__func__)->PQclear(res); }
char *PQcmdStatus(PGresult *res) { return api(__func__)->PQcmdStatus(res); }
char *PQcmdTuples(PGresult *res) { return api(__func__)->PQcmdTuples(res); }
int PQntuples(const PGresult *res) { return api(__func__)->PQntuples(res); }
int PQnfields(const PGresult *res) { return api(__func__)->PQnfields(res); }
int PQnparams(const PGresult *res) { return api(__func__)->PQnparams(res); }
char *PQfname(const PGresult *res, int field_num) { return api(__func__)->PQfname(res, field_num); }
Oid PQftype(const PGresult *res, int field_num) { return api(__func__)->PQftype(res, field_num); }
char *PQgetvalue(const PGresult *res, int tup_num, int field_num) {
    return api(__func__)->PQgetvalue(res, tup_num, field_num);
}
int PQgetlength(const PGresult *res, int tup_num, int field_num) {
    return api(__func__)->PQgetlength(res, tup_num, field_num);
}
int PQgetisnull(const PGresult *res, int tup_num, int field_num) {
    return api(__func__)->PQgetisnull(res, tup_num, field_num);
}

#pragma GCC visibility pop
