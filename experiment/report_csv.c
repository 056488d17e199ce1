/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * report_csv.c -- the two machine-readable forms of the report.
 *
 * CSV is "long": one value per line, so every section fits one header.
 *
 *     section,row,metric,value
 *     fill,,items,249036
 *     compare,f=12,cuckoo_fpp,0.00183
 *
 * JSON nests the same values: a section is an object, or an array of row
 * objects whose first member is the row's key ({"f": 12, ...}).
 */
#include "report.h"

#include <stdbool.h>

typedef struct csv_state {
    FILE *out;
    const char *section;
    char row[48];
} csv_state;

static void csv_section(void *ctx, const char *name, bool has_rows) {
    csv_state *s = ctx;
    (void)has_rows;
    s->section = name;
    s->row[0] = '\0';
}

static void csv_row(void *ctx, const char *key, const char *value) {
    csv_state *s = ctx;
    snprintf(s->row, sizeof s->row, "%s=%s", key, value);
}

static void csv_field(void *ctx, const char *name, const char *value, bool is_text) {
    csv_state *s = ctx;
    (void)is_text; /* our texts hold no commas or quotes */
    fprintf(s->out, "%s,%s,%s,%s\n", s->section, s->row, name, value ? value : "");
}

static void csv_end(void *ctx) {
    (void)ctx;
}

void report_write_csv(const report *r, FILE *out) {
    csv_state s = {out, "", {0}};
    report_sink sink = {csv_section, csv_row, csv_field, csv_end, &s};
    fputs("section,row,metric,value\n", out);
    report_fields(r, &sink);
}

typedef struct json_state {
    FILE *out;
    bool any_section;
    bool has_rows;
    bool in_row;
    bool first_field;
} json_state;

static void json_close_section(json_state *s) {
    if (!s->any_section) return;
    if (s->in_row) fputs("}", s->out);
    fputs(s->has_rows ? "\n  ]" : "\n  }", s->out);
}

static void json_section(void *ctx, const char *name, bool has_rows) {
    json_state *s = ctx;
    json_close_section(s);
    fprintf(s->out, "%s\n  \"%s\": %s", s->any_section ? "," : "", name, has_rows ? "[" : "{");
    s->any_section = true;
    s->has_rows = has_rows;
    s->in_row = false;
    s->first_field = true;
}

static void json_row(void *ctx, const char *key, const char *value) {
    json_state *s = ctx;
    fprintf(s->out, "%s\n    {\"%s\": %s", s->in_row ? "}," : "", key, value);
    s->in_row = true;
}

static void json_field(void *ctx, const char *name, const char *value, bool is_text) {
    json_state *s = ctx;
    const char *q = is_text && value ? "\"" : "";
    if (s->has_rows)
        fprintf(s->out, ", \"%s\": ", name);
    else
        fprintf(s->out, "%s\n    \"%s\": ", s->first_field ? "" : ",", name);
    fprintf(s->out, "%s%s%s", q, value ? value : "null", q);
    s->first_field = false;
}

static void json_end(void *ctx) {
    json_state *s = ctx;
    json_close_section(s);
    fputs("\n}\n", s->out);
}

void report_write_json(const report *r, FILE *out) {
    json_state s = {out, false, false, false, true};
    report_sink sink = {json_section, json_row, json_field, json_end, &s};
    fputs("{", out);
    report_fields(r, &sink);
}
