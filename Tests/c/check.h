/* Minimal assertions for the C API tests: each failed check prints file:line and is counted; main returns the
 * count so a failure fails `make test`. */
#ifndef RS_TEST_CHECK_H
#define RS_TEST_CHECK_H
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "roadsnap.h"

static int check_failures = 0;

#define CHECK(cond)                                                                                     \
    do {                                                                                                \
        if (!(cond)) {                                                                                  \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                  \
            check_failures++;                                                                           \
        }                                                                                               \
    } while (0)

/* A call's status must be `expected`; prints the status name and error message otherwise. */
#define CHECK_STATUS(call, expected)                                                                    \
    do {                                                                                                \
        rs_status check_s_ = (call);                                                                    \
        if (check_s_ != (expected)) {                                                                   \
            fprintf(stderr, "%s:%d: %s returned %s (%s), expected %s\n", __FILE__, __LINE__, #call,   \
                    rs_status_name(check_s_), rs_last_error_message(), rs_status_name(expected));      \
            check_failures++;                                                                           \
        }                                                                                               \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                           \
    do {                                                                                                \
        double check_a_ = (a), check_b_ = (b);                                                          \
        if (!(fabs(check_a_ - check_b_) <= (tol))) {                                                    \
            fprintf(stderr, "%s:%d: %s = %.9g, expected %.9g +- %g\n", __FILE__, __LINE__, #a, check_a_, \
                    check_b_, (double)(tol));                                                           \
            check_failures++;                                                                           \
        }                                                                                               \
    } while (0)

/* The last error message must contain `part`. */
#define CHECK_MESSAGE(part) CHECK(strstr(rs_last_error_message(), (part)) != NULL)

#endif
