// libpq's declarations, for its types and for CLibPQ's forwarders. Debian
// and Ubuntu install the header in /usr/include/postgresql (which
// `pkg-config --cflags libpq` names); other systems in /usr/include.
#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#include <postgresql/libpq-fe.h>
#endif
