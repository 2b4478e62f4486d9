/* The smallest use of libroadsnap: print rs_version(). The footprint script times its start-up and peak RSS. */
#include <stdio.h>

#include "roadsnap.h"

int main(void) {
    printf("%s\n", rs_version());
    return 0;
}
