/* Runs a program N times and prints the median and largest peak RSS of its runs in kB (wait4's ru_maxrss), so
 * that the footprint script needs no GNU time. Usage: rss_probe N PROGRAM [ARGS...] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int by_value(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s N PROGRAM [ARGS...]\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]);
    if (n < 1) n = 1;
    long *rss = calloc((size_t)n, sizeof *rss);
    if (!rss) return 2;
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0) { perror("fork"); return 2; }
        if (pid == 0) {
            if (!freopen("/dev/null", "w", stdout)) _exit(127);
            execv(argv[2], argv + 2);
            _exit(127);
        }
        int status = 0;
        struct rusage ru;
        if (wait4(pid, &status, 0, &ru) < 0) { perror("wait4"); return 2; }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "%s failed (status %d)\n", argv[2], status);
            return 1;
        }
        rss[i] = ru.ru_maxrss;
    }
    qsort(rss, (size_t)n, sizeof *rss, by_value);
    printf("%ld %ld\n", rss[n / 2], rss[n - 1]);
    free(rss);
    return 0;
}
