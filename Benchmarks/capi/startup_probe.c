/* Start-up probe for the footprint script: runs each given program N times, interleaved round by round (so that
 * a load change on a shared machine hits every program alike), and prints per program the median wall time (ms),
 * median user+system CPU time (ms) and median peak RSS (kB, wait4's ru_maxrss).
 * Usage: startup_probe N PROGRAM... (programs take no arguments; their output goes to /dev/null) */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s N PROGRAM...\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]), programs = argc - 2;
    if (n < 1) n = 1;
    double *wall = calloc((size_t)(n * programs), sizeof *wall);
    double *cpu = calloc((size_t)(n * programs), sizeof *cpu);
    double *rss = calloc((size_t)(n * programs), sizeof *rss);
    if (!wall || !cpu || !rss) return 2;
    for (int round = -3; round < n; round++) { /* three warm-up rounds */
        for (int p = 0; p < programs; p++) {
            double start = now_ms();
            pid_t pid = fork();
            if (pid < 0) { perror("fork"); return 2; }
            if (pid == 0) {
                if (!freopen("/dev/null", "w", stdout)) _exit(127);
                execl(argv[2 + p], argv[2 + p], (char *)NULL);
                _exit(127);
            }
            int status = 0;
            struct rusage ru;
            if (wait4(pid, &status, 0, &ru) < 0) { perror("wait4"); return 2; }
            double elapsed = now_ms() - start;
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                fprintf(stderr, "%s failed (status %d)\n", argv[2 + p], status);
                return 1;
            }
            if (round < 0) continue;
            wall[p * n + round] = elapsed;
            cpu[p * n + round] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
                                 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
            rss[p * n + round] = (double)ru.ru_maxrss;
        }
    }
    for (int p = 0; p < programs; p++)
        printf("%s %.3f %.3f %.0f\n", argv[2 + p], median(wall + p * n, n), median(cpu + p * n, n),
               median(rss + p * n, n));
    return 0;
}
