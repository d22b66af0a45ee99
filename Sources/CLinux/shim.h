// Linux headers that Glibc's Swift overlay does not expose.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <netinet/tcp.h>
