/* Hidden-Markov matcher: the one validation of its parameters (rsc_match_params_check), used by rsc_matcher_run and,
 * through MatchParameters.validate, by the Swift API, the CLI and the C API. */
#include "cshims_match_internal.h"

#include <stdio.h>

/* One range: lo < v (lo_open) or lo <= v, and v <= hi; NaN fails. */
static int rsc_param_bad(double v, double lo, int lo_open, double hi) {
    if (v != v) return 1;
    if (lo_open ? !(v > lo) : !(v >= lo)) return 1;
    return !(v <= hi);
}

int rsc_match_params_check(const rsc_match_params *p, char *message, size_t size) {
    if (!p) {
        if (message && size) snprintf(message, size, "no matching parameters given");
        return RSC_EINVAL;
    }
#define RSC_RANGE(V, NAME, LO, LO_OPEN, HI, UNIT)                                                                    \
    do {                                                                                                         \
        double v_ = (V);                                                                                         \
        if (rsc_param_bad(v_, (LO), (LO_OPEN), (HI))) {                                                          \
            if (message && size)                                                                                 \
                snprintf(message, size, "%s must be in %s%g, %g] %s, got %g", NAME, (LO_OPEN) ? "(" : "[",         \
                         (double)(LO), (double)(HI), UNIT, v_);                                                  \
            return RSC_EINVAL;                                                                                   \
        }                                                                                                        \
    } while (0)
    RSC_RANGE(p->sigma, "sigma", 0, 1, 1000, "metres");
    RSC_RANGE(p->huber, "huber", 0, 0, 100, "sigmas");
    RSC_RANGE(p->beta, "beta", 0, 1, 10000, "metres");
    RSC_RANGE(p->radius, "radius", 0, 1, 10000, "metres");
    RSC_RANGE(p->max_candidates, "candidates", 1, 0, 256, "roads");
    RSC_RANGE(p->distance_factor, "distance factor", 1, 0, 100, "times the straight distance");
    RSC_RANGE(p->search_floor, "search floor", 0, 0, 100000, "metres");
    RSC_RANGE(p->max_speed, "max speed", 0, 0, 1000, "m/s");
    RSC_RANGE(p->max_gap, "max gap", 0, 0, 1e7, "seconds");
    RSC_RANGE(p->gap_min_speed, "gap speed", 0, 0, 1000, "m/s");
    RSC_RANGE(p->uturn_penalty, "U-turn penalty", 0, 0, 100000, "metres");
    RSC_RANGE(p->backward_tolerance, "backward tolerance", 0, 0, 10000, "metres");
    RSC_RANGE(p->heading_sigma, "heading sigma", 0, 1, 360, "degrees");
    RSC_RANGE(p->min_heading_speed, "heading speed", 0, 0, 1000, "m/s");
    RSC_RANGE(p->beam, "beam", 0, 1, 10000, "log units");
    RSC_RANGE(p->beta_per_second, "beta per second", 0, 0, 10000, "metres");
    RSC_RANGE(p->max_outliers, "max outliers", 0, 0, 100000, "fixes");
    RSC_RANGE(p->disconnect_margin, "disconnect margin", 0, 1, 10000, "sigmas");
    RSC_RANGE(p->min_fix_distance, "minimum fix distance", 0, 0, 100000, "metres");
    RSC_RANGE(p->joint_interval, "joint search interval", 0, 0, INFINITY, "seconds");
    RSC_RANGE(p->joint_beam, "joint search beam", 0, 1, 10000, "log units");
    RSC_RANGE(p->recovery_radius, "recovery radius", 0, 0, 10000, "metres");
    RSC_RANGE(p->outlier_penalty, "outlier penalty", 0, 0, 10000, "log units");
    RSC_RANGE(p->outlier_window, "outlier window", 0, 0, 3600, "seconds");
    RSC_RANGE(p->turn_cost, "turn cost", 0, 0, 1000, "metres per 180 degrees");
    RSC_RANGE(p->off_road, "off-road distance", 0, 0, 1000, "sigmas");
#undef RSC_RANGE
    return RSC_OK;
}
