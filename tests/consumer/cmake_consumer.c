/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* cmake_consumer.c -- links through find_package(cuckoofilter) and one of its
 * targets; a filter that finds what it holds proves the link works. */
#include <cuckoofilter.h>
#include <stdio.h>

int main(void) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 100;
    cf_filter *f;
    if (cf_new(&cfg, &f) != CF_OK || cf_insert(f, "key", 3) != CF_OK || !cf_contains(f, "key", 3)) {
        fprintf(stderr, "cmake_consumer: library %s does not work\n", cf_version_string());
        return 1;
    }
    cf_free(f);
    return 0;
}
