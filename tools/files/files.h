/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * files.h -- what the filter-file commands (cmd_create.c ... cmd_import.c,
 * one per command) share: option parsing, key streams, and opening and
 * saving a filter file with one-line error messages.
 *
 * Exit codes: 0 success (for queries: every key found), 1 a key not found,
 * 2 an error, with one line on stderr.  Modifying commands load the file
 * (validating it), change the filter in memory and replace the file
 * atomically (cf_save), so an interrupted or failed command leaves the old
 * file as it was.  Every command that writes FILE holds its lock
 * (files_lock.c) meanwhile, so concurrent writers lose nothing.  Queries
 * map the file read-only: opening is O(1) in its size and many processes
 * share one copy in the page cache.
 */
#ifndef CF_FILES_H
#define CF_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuckoofilter.h"

/* Everything a subcommand may be given; each command accepts a subset. */
typedef struct files_opts {
    const char *file;
    char **keys; /* the positionals after FILE (argv slice): keys; merge's INs,
                    export's KEY, import's STREAM */
    int nkeys;
    bool has_capacity, has_fpp, has_fbits, has_buckets;
    cf_config cfg;
    bool quiet, json, force, grow, unique, help;
    const char *keys_file; /* --keys FILE ("-": stdin), else NULL */
    bool nul;              /* -0: keys end with NUL, not newline (input and output) */
    bool summary, found_only, missing_only; /* query's --summary, --found, --missing */
    int wait_ms; /* for the writers' lock: < 0 as long as it takes (default), 0 not at all */

    bool has_expansion;     /* export's --expansion E ... */
    unsigned expansion;     /* ... 0 or a power of two up to CFR_MAX_EXPANSION */
    uint64_t chunk_bytes;   /* export's --chunk-bytes N, else 0 (the command's default) */
    const char *output;     /* export's --output OUT, else NULL (stdout) */
    const char *redis_key;  /* import's --key KEY, else NULL */
    unsigned shards;        /* export's --shards S, up to FILES_SHARDS_MAX (import's --shards:
                               1), else 0 */
    const char *output_dir; /* export --shards' --output-dir DIR, else NULL */
    bool has_routing_seed;  /* export --shards' --routing-seed N ... */
    uint64_t routing_seed;
    bool has_at; /* --at TIME: the clock of an expiring filter ... */
    uint64_t at; /* ... in seconds since 1970 (else the wall clock) */
} files_opts;

/* Which options a command accepts (bit set). */
enum {
    FILES_OPT_SHAPE = 1,         /* --capacity --fpp --fingerprint-bits --bucket-size --seed ... */
    FILES_OPT_QUIET = 2,         /* -q */
    FILES_OPT_JSON = 4,          /* --json */
    FILES_OPT_FORCE = 8,         /* --force */
    FILES_OPT_GROW = 16,         /* --grow */
    FILES_OPT_UNIQUE = 32,       /* --unique */
    FILES_OPT_KEYS = 64,         /* --keys FILE, -0 */
    FILES_OPT_ANSWERS = 128,     /* --summary --found --missing (query) */
    FILES_OPT_WAIT = 256,        /* --wait SECONDS, --no-wait */
    FILES_OPT_EXPORT = 512,      /* --expansion E, --chunk-bytes N, --output OUT (export) */
    FILES_OPT_IMPORT = 1024,     /* --key KEY (import) */
    FILES_OPT_SHARDS = 2048,     /* --shards S, --output-dir DIR, --routing-seed N (export) */
    FILES_OPT_SHARDS_DIR = 4096, /* --shards, a switch (import) */
    FILES_OPT_EXPIRE = 8192,     /* --expire DURATION (create, build) */
    FILES_OPT_AT = 16384         /* --at TIME (the commands that use an expiring filter's clock) */
};

/* Redis's default proto-max-bulk-len: no chunk the module writes, and none
 * export writes or import reads, is longer. */
#define FILES_MAX_BULK ((uint64_t)512 << 20)
/* The smallest --chunk-bytes: a chunk still carries some of the table. */
#define FILES_MIN_CHUNK 16
/* The most shards of a sharded filter (docs/REDIS.md, "Sharded filters"; the
 * Python client's MAX_SHARDS): export --shards' bound, and import's. */
#define FILES_SHARDS_MAX 1024u

/* files_opts.c: parses argv (argv[0] = command name): the one parser of every filter-file
 * command, so an option is spelled ("--name value" or "--name=value"),
 * checked and reported ("needs a value", "wants ...") the same way in each.
 * Returns true, or false after printing a one-line error.  "--" ends the
 * options. */
bool files_parse(int argc, char **argv, unsigned accepted, files_opts *o);

/* Calls fn for each key: the command-line keys if any, else each line (or
 * with -0 each NUL-terminated record) of --keys FILE or stdin; the rules for
 * blank lines and "\r" are in files_keys.c.  Stops early when fn returns
 * false; a later call goes on with the rest of the stream.  Returns false on
 * a read error (after printing it).  Shows progress on a terminal. */
typedef bool (*files_key_fn)(void *ctx, const char *key, size_t len);
bool files_for_each_key(const files_opts *o, files_key_fn fn, void *ctx);

/* Ends the progress line, if one was shown, and closes --keys FILE. */
void files_keys_done(void);

/* Keys in batches, for the commands that take many (build, add, query;
 * files_batch.c).  key[i] (len[i] bytes, not NUL-terminated) is the key of
 * line or record pos[i] (argument pos[i] for command-line keys), and
 * hash[i] = cf_hash(f, key[i], len[i]).  Valid during the call only. */
enum { FILES_BATCH_KEYS = 8192 };
typedef struct files_batch {
    size_t n;
    const char *key[FILES_BATCH_KEYS];
    size_t len[FILES_BATCH_KEYS];
    uint64_t hash[FILES_BATCH_KEYS];
    uint64_t pos[FILES_BATCH_KEYS];
} files_batch;
typedef bool (*files_batch_fn)(void *ctx, const files_batch *b);

/* As files_for_each_key (the same keys, the same rules), a batch at a time:
 * a stream is read, split and hashed by a second thread while fn works on
 * the batch before, so parsing overlaps with inserting or looking up.
 * Shows progress (keys, rate, ETA) on stderr when it is a terminal and the
 * input takes more than a second.  f must stay valid and unchanged in its
 * hash (cf_hash) for the whole call. */
bool files_for_each_batch(const files_opts *o, const cf_filter *f, files_batch_fn fn, void *ctx);

/* files_add.c: add's and build's inserts, a batch at a time
 * (files_for_each_batch with files_add_batch and a files_adder). */
typedef struct files_adder {
    cf_filter *f;
    bool unique;
    uint64_t seen, inserted, skipped;
    cf_status failure;    /* first error, CF_OK while all goes well */
    bool drain;           /* after a failure, keep counting the stream */
    bool too_many_copies; /* a key already fills both its buckets: growing cannot help */
    char where[160];      /* the failed key, for the message (files_key_where) */
} files_adder;
bool files_add_batch(void *ctx, const files_batch *b);
/* The message for a failed add or build: which key, why, what to do;
 * outcome says what became of the file ("file unchanged"). */
int files_add_failed(const files_adder *a, const char *file, const char *outcome);

/* files_answer.c: query's (with_counts false) and count's answers to every
 * key, and their exit code. */
int files_answer_all(const files_opts *o, bool with_counts);

/* files_key_where for the key at line/record (or argument) position. */
void files_key_where_at(uint64_t position, const char *key, size_t len, char *buf, size_t cap);

/* files_keys.c's stream (stdin or --keys FILE), opened once; *size is a
 * regular file's size, else 0.  NULL after printing the error. */
FILE *files_keys_stream(const files_opts *o, long long *size);
/* Prints "reading keys from ... failed: <err>". */
void files_keys_stream_error(const files_opts *o, int err);

/* Writes "line 42299 (key 'abc...')" for the key being handled: where it
 * came from and the key, shortened and escaped, for messages. */
void files_key_where(const char *key, size_t len, char *buf, size_t cap);

/* "is a directory", "is a character device", ... when path exists and is
 * not a regular file (so cannot be a filter file); NULL otherwise. */
const char *files_not_regular(const char *path);

/* cf_new for o's shape options.  On failure prints why (naming the option
 * and the numbers) and returns NULL; warns on stderr when an explicit
 * --fingerprint-bits is too narrow for the table (files_shape.c). */
cf_filter *files_new(const files_opts *o);

/* An expiring filter's clock for this command: --at TIME, else the wall
 * clock (seconds since 1970); files_util.c. */
uint64_t files_clock(const files_opts *o);
/* Sets f's clock to files_clock(o) when f expires (its items older than
 * the window are removed then); true, or false after a message when the
 * clock would run backwards (the file was written later), or when --at is
 * given for a filter that does not expire. */
bool files_set_clock(cf_filter *f, const files_opts *o, const char *shown);
/* o->file for reading answers (query, count): mapped, or, for an expiring
 * filter (whose mapping keeps the file's clock), loaded and its clock set
 * (files_set_clock: the items expired by now removed in memory). */
cf_filter *files_open_now(const files_opts *o);
/* create's and build's check: --capacity or --buckets is given; else prints
 * the error and returns false. */
bool files_check_shape(const files_opts *o);

/* Loads (writable) or maps (read-only) o->file; prints the error and
 * returns NULL on failure. */
cf_filter *files_load(const char *path);
cf_filter *files_map(const char *path);

/* Maps path, verifying the checksum and the table (cf_map with verify), and
 * sets *verified to the outcome: a file that verifies is mapped once, and
 * everything about it is asked of that handle; one that fails is mapped
 * again with the header checks alone, so that it can still be described.
 * NULL, after the error is printed, when it cannot be mapped at all. */
cf_filter *files_map_checked(const char *path, cf_status *verified);

/* Saves atomically; prints the error and returns false on failure. */
bool files_save(const cf_filter *f, const char *path);

/* Under a lock (files_lock): load and save the one file the lock resolved
 * (cf_file_lock_path), never the name again, so a symbolic link retargeted
 * meanwhile cannot redirect the save to a file whose lock is not held.  The
 * save re-checks the lock before its rename (cf_save_locked).  Messages
 * name shown (the user's spelling).  As files_load and files_save. */
cf_filter *files_load_locked(const cf_file_lock *l, const char *shown);
bool files_save_locked(const cf_filter *f, const cf_file_lock *l, const char *shown);

/* files_lock.c: commands that write a file take its lock (cf_file_lock_acquire)
 * first, so concurrent writers lose nothing; a read-modify-write (add,
 * delete) holds it from before the load until after the save (files_parse
 * reads --wait / --no-wait into wait_ms).  files_lock (for a FILE that must
 * exist: add, delete) prints the error and returns NULL on failure. */
cf_file_lock *files_lock(const char *path, int wait_ms);
/* The same for a file that may not exist yet (a writer creating it). */
cf_file_lock *files_lock_target(const char *path, int wait_ms);
void files_unlock(cf_file_lock *l);

/* True if create or build may write path: absent, or a regular file and
 * force.  Never a FIFO, device or directory.  Prints why not. */
bool files_may_replace(const char *path, bool force);
/* The same for path, with messages naming shown (the user's spelling of a
 * path a lock resolved). */
bool files_may_replace_as(const char *path, const char *shown, bool force);

/* For commands that write FILE without reading it (create, build): takes
 * the lock, checks files_may_replace again under it, saves, releases. */
bool files_replace(const cf_filter *f, const files_opts *o);

/* files_set.c: several files written all or nothing (import --shards,
 * export --shards, export --output).  Name every target first
 * (files_set_add: new contents; files_set_remove: a file that must be gone
 * afterwards), then files_set_lock takes every target's writers' lock, in
 * name order, and checks each may be replaced (force); then write each new
 * file to its temporary name (files_set_save for a filter, files_set_open
 * and files_set_close for a stream), and files_set_commit puts them all in
 * place, or, if one rename fails, puts every old file back.  files_set_free
 * removes what was not committed and releases the locks.  Each function
 * prints its error and returns false (or NULL, or -1) on failure. */
typedef struct files_set files_set;
files_set *files_set_new(bool force, int wait_ms);
int files_set_add(files_set *s, const char *path); /* its index, or -1 */
/* A target no lock of its own guards: a stream that only commands holding
 * another target of the set write (export's shard-K.resp, under meta.resp's
 * lock), so it gets no FILE.lock beside it; links are replaced, not followed. */
int files_set_add_stream(files_set *s, const char *path);
bool files_set_remove(files_set *s, const char *path);
bool files_set_lock(files_set *s);
bool files_set_save(const files_set *s, int i, const cf_filter *f);
FILE *files_set_open(const files_set *s, int i);
bool files_set_close(const files_set *s, int i, FILE *out);
bool files_set_commit(files_set *s);
void files_set_free(files_set *s);

/* After a file is mapped: SIGBUS (the file truncated in place by another
 * program) prints a one-line error and exits 2 instead of crashing. */
void files_guard_mapping(const char *path);

/* Prints s as a JSON string literal. */
void files_json_string(FILE *out, const char *s);

/* Prints len bytes as a JSON string literal (a key may hold any byte: NUL
 * and control bytes are escaped, other bytes are copied). */
void files_json_bytes(FILE *out, const char *s, size_t len);

#endif /* CF_FILES_H */
