/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/* status.c -- the status table's names and messages, and the version. */
#include "cuckoofilter.h"

const char *cf_strerror(cf_status s) {
    switch (s) {
#define CF_STATUS_MSG_(name, value, msg) \
    case name: return msg;
        CF_STATUS_TABLE(CF_STATUS_MSG_)
#undef CF_STATUS_MSG_
    }
    return "unknown status";
}

const char *cf_status_name(cf_status s) {
    switch (s) {
#define CF_STATUS_NAME_(name, value, msg) \
    case name: return #name;
        CF_STATUS_TABLE(CF_STATUS_NAME_)
#undef CF_STATUS_NAME_
    }
    return "CF_E_UNKNOWN";
}

const char *cf_version_string(void) {
    return CF_VERSION_STRING;
}
