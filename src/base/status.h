/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * status.h -- early returns on a cf_status, in the spirit of zstd's
 * RETURN_ERROR_IF / FORWARD_IF_ERROR: what every layer returns with.  The
 * statuses themselves are the public header's table (status.c: their names
 * and messages).
 */
#ifndef CF_STATUS_H
#define CF_STATUS_H

#include "cuckoofilter.h"

#define CF__RETURN_IF(cond, status) \
    do {                            \
        if (cond) return (status);  \
    } while (0)
#define CF__FORWARD_IF_ERROR(expr)          \
    do {                                    \
        cf_status cf__s_ = (expr);          \
        if (cf__s_ != CF_OK) return cf__s_; \
    } while (0)

#endif /* CF_STATUS_H */
