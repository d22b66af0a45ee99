/*
 * firstok: tiny helper for the bench scripts (no dependencies beyond libc).
 *
 *   firstok port
 *       Prints a free TCP port on 127.0.0.1 (bind to port 0, read it, close).
 *
 *   firstok wait PORT TIMEOUT_MS [PATH]
 *       Polls GET PATH (default /healthz) on 127.0.0.1:PORT until an
 *       "HTTP/1.x 200" answer; exit 0 when it came, 1 on timeout.
 *
 *   firstok start PORT TIMEOUT_MS -- CMD [ARGS...]
 *       Takes the time, fork+execs CMD (stdout/stderr inherited), then polls
 *       GET /healthz in a tight loop (a fresh connection each try, no sleep)
 *       until the first 200. Prints one line:
 *           ms=<float> pid=<pid> rss_kb=<VmRSS at that moment>
 *       and leaves the child running (the caller stops it). With
 *       FIRSTOK_STOP=1 in the environment it sends SIGTERM and reaps the child
 *       before returning. Exit 1 on timeout or if the child died first.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One try: 1 when the answer's status line is 200, 0 otherwise. */
static int try_once(int port, const char *path) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 0;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct timeval tv = {1, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int ok = 0;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
        char req[512];
        int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);
        if (write(fd, req, (size_t)n) == n) {
            char buf[64];
            size_t got = 0;
            while (got < 12) {
                ssize_t r = read(fd, buf + got, sizeof buf - 1 - got);
                if (r <= 0) break;
                got += (size_t)r;
            }
            buf[got] = 0;
            ok = got >= 12 && strncmp(buf, "HTTP/1.", 7) == 0 && strncmp(buf + 9, "200", 3) == 0;
        }
    }
    close(fd);
    return ok;
}

static long rss_kb(pid_t pid) {
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/status", (int)pid);
    FILE *f = fopen(p, "r");
    if (!f) return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmRSS:", 6) == 0) { kb = strtol(line + 6, NULL, 10); break; }
    }
    fclose(f);
    return kb;
}

static int free_port(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        perror("firstok: free port");
        exit(2);
    }
    close(fd);
    return ntohs(a.sin_port);
}

static int usage(void) {
    fprintf(stderr, "usage: firstok port | wait PORT TIMEOUT_MS [PATH] | start PORT TIMEOUT_MS -- CMD [ARGS...]\n");
    return 2;
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "port") == 0) {
        printf("%d\n", free_port());
        return 0;
    }
    if (argc >= 4 && strcmp(argv[1], "wait") == 0) {
        int port = atoi(argv[2]);
        double deadline = now_ms() + atof(argv[3]);
        const char *path = argc >= 5 ? argv[4] : "/healthz";
        while (now_ms() < deadline) {
            if (try_once(port, path)) return 0;
            usleep(2000);
        }
        return 1;
    }
    if (argc >= 6 && strcmp(argv[1], "start") == 0 && strcmp(argv[4], "--") == 0) {
        int port = atoi(argv[2]);
        double timeout = atof(argv[3]);
        double t0 = now_ms();
        pid_t pid = fork();
        if (pid < 0) { perror("fork"); return 2; }
        if (pid == 0) {
            execvp(argv[5], argv + 5);
            perror("firstok: exec");
            _exit(127);
        }
        int ok = 0;
        double t1 = t0;
        while ((t1 = now_ms()) - t0 < timeout) {
            if (try_once(port, "/healthz")) { ok = 1; t1 = now_ms(); break; }
            int st;
            if (waitpid(pid, &st, WNOHANG) == pid) {
                fprintf(stderr, "firstok: child exited before answering (status %d)\n", st);
                return 1;
            }
        }
        long rss = rss_kb(pid);
        if (ok) printf("ms=%.2f pid=%d rss_kb=%ld\n", t1 - t0, (int)pid, rss);
        else fprintf(stderr, "firstok: no 200 from 127.0.0.1:%d within %.0f ms\n", port, timeout);
        fflush(stdout);
        const char *stop = getenv("FIRSTOK_STOP");
        if (!ok || (stop && strcmp(stop, "1") == 0)) {
            kill(pid, SIGTERM);
            int st;
            waitpid(pid, &st, 0);
        }
        return ok ? 0 : 1;
    }
    return usage();
}
