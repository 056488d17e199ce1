/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * redis_io.h -- what `cuckoo export | import` (cmd_export.c, cmd_import.c,
 * redis_io.c) share with their sharded forms (redis_shards.c): a filter's dump as
 * CF.LOADCHUNK commands, the Redis protocol reader, and one key's import.
 */
#ifndef CF_REDIS_IO_H
#define CF_REDIS_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuckoofilter.h"
#include "files/files.h"

/* Writes f as `CF.LOADCHUNK key ...` commands (header first) of at most
 * chunk bytes to out; CLI_OK, or CLI_ERROR (a write error stays in out's
 * error flag for the caller to report). */
int redis_io_export_filter(const cf_filter *f, const char *key, uint32_t expansion, size_t chunk,
                           FILE *out);

/* Reads "<c><decimal>\r\n"; false on anything else. */
bool redis_io_read_prefixed(FILE *in, char c, uint64_t *out);

/* One bulk string ("$n\r\n" n bytes "\r\n", n up to FILES_MAX_BULK) into a
 * new NUL-terminated buffer (free it); NULL on malformed input or no
 * memory. */
uint8_t *redis_io_read_bulk(FILE *in, size_t *len);

/* Reads every command of in, keeps key's CF.LOADCHUNK chunks (key NULL: the
 * first key's, and an error if the stream holds another) and writes its
 * filter to o->file as `cuckoo import` does (validated, atomic, --force). */
int redis_io_import_key(FILE *in, const char *key, const files_opts *o);
/* The same chunks into a validated filter (*out; NULL on failure), for a
 * caller that writes it itself (import --shards). */
int redis_io_read_key(FILE *in, const char *key, cf_filter **out);

/* redis_shards.c: the sharded forms (export --shards, import --shards).
 * redis_shards_export splits f, built from the keys o gives (stdin or
 * --keys), into o->shards shard files and streams in o->output_dir;
 * redis_shards_import writes o->file (a directory) from the stream in. */
#define REDIS_SHARDS_ROUTING_SEED 0x6366726F75746531ull /* "cfroute1" */
int redis_shards_export(const files_opts *o, const cf_filter *f);
int redis_shards_import(const files_opts *o, FILE *in);

#endif /* CF_REDIS_IO_H */
