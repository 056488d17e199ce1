/*
 * redis_io.h -- what `cuckoo export | import` (cmd_redis_io.c) shares with
 * their sharded forms (cmd_redis_shards.c): a filter's dump as
 * CF.LOADCHUNK commands, the Redis protocol reader, and one key's import.
 */
#ifndef CF_REDIS_IO_H
#define CF_REDIS_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuckoofilter.h"
#include "files.h"

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

/* Reads every command of in, keeps key's CF.LOADCHUNK chunks and writes its
 * filter to o->file as `cuckoo import` does (validated, atomic, --force). */
int redis_io_import_key(FILE *in, const char *key, const files_opts *o);

/* cmd_redis_shards.c: true when argv holds --shards (export) or --shards
 * (import): the sharded forms take over the command. */
bool redis_io_has_shards(int argc, char **argv);
int cli_cmd_export_shards(int argc, char **argv);
int cli_cmd_import_shards(int argc, char **argv);

#endif /* CF_REDIS_IO_H */
