/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * test_file_safety.c -- files that are not what a filter file should be, and
 * several writers: FIFOs, directories and device nodes are refused (and
 * never waited on or replaced), saves through symbolic links update the
 * target, the writers' lock excludes, survives a killed holder and a removed
 * lock file, dead writers' temporary files are cleaned, and NULL keys with a
 * length are refused by every function that takes a key.
 */
#define _GNU_SOURCE /* O_TMPFILE, makedev */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuckoofilter.h"
#include "test.h"

static char dir[256];

/* A fresh empty directory per test. */
static const char *fresh_dir(const char *name) {
    snprintf(dir, sizeof dir, "/tmp/cf_test_file_safety.%ld.%s", (long)getpid(), name);
    REQUIRE(mkdir(dir, 0700) == 0);
    return dir;
}

static const char *in_dir(char *buf, size_t cap, const char *name) {
    snprintf(buf, cap, "%s/%s", dir, name);
    return buf;
}

/* Entries in dir other than . and .., and whether `name` is one of them. */
static int entries(const char *name, bool *found) {
    DIR *d = opendir(dir);
    REQUIRE(d != NULL);
    int n = 0;
    if (found) *found = false;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        n++;
        if (found && name && strcmp(e->d_name, name) == 0) *found = true;
    }
    closedir(d);
    return n;
}

static void remove_dir(void) {
    DIR *d = opendir(dir);
    REQUIRE(d != NULL);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char p[512];
        unlink(in_dir(p, sizeof p, e->d_name));
    }
    closedir(d);
    CHECK_EQ(rmdir(dir), 0);
}

static cf_filter *filter_with(const char *key) {
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 20000;
    cf_filter *f;
    REQUIRE(cf_new(&cfg, &f) == CF_OK);
    if (key != NULL) REQUIRE(cf_insert(f, key, strlen(key)) == CF_OK);
    return f;
}

static bool file_has(const char *path, const char *key) {
    cf_filter *f = NULL;
    bool has = cf_load(path, NULL, &f) == CF_OK && cf_contains(f, key, strlen(key));
    cf_free(f);
    return has;
}

/* ---- NULL keys with a length: refused, never read */
static void test_null_keys(void) {
    cf_filter *f = filter_with("x");
    CHECK_EQ(cf_hash(f, NULL, 7), 0);
    CHECK_EQ(cf_hash(NULL, NULL, 7), 0);
    CHECK(cf_hash(f, NULL, 0) == cf_hash(f, "", 0));
    CHECK_STATUS(cf_insert(f, NULL, 7), CF_E_PARAM);
    CHECK_STATUS(cf_insert_unique(f, NULL, 7), CF_E_PARAM);
    CHECK_STATUS(cf_delete(f, NULL, 7), CF_E_PARAM);
    CHECK(!cf_contains(f, NULL, 7));
    CHECK_EQ(cf_count(f, NULL, 7), 0);
    cf_stats st;
    cf_get_stats(f, &st);
    CHECK_EQ(st.items, 1);
    CHECK_STATUS(cf_insert(f, NULL, 0), CF_OK); /* the empty key */
    CHECK(cf_contains(f, "", 0));
    cf_free(f);

    cf_bloom_config bc;
    cf_bloom_config_init(&bc);
    bc.capacity = 100;
    cf_bloom *b;
    REQUIRE(cf_bloom_new(&bc, &b) == CF_OK);
    CHECK_EQ(cf_bloom_hash(b, NULL, 7), 0);
    cf_bloom_insert(b, NULL, 7);
    CHECK(!cf_bloom_contains(b, NULL, 7));
    cf_bloom_stats bs;
    cf_bloom_get_stats(b, &bs);
    CHECK_EQ(bs.items, 0);
    cf_bloom_free(b);
}

/* A device node that is safe to offer: as root a private twin of /dev/null
 * (replacing it would harm nothing), else /dev/null itself (its directory is
 * not writable, and the check must come before any write is tried). */
static const char *device_node(char *buf, size_t cap) {
    if (geteuid() != 0) return "/dev/null";
    REQUIRE(mknod(in_dir(buf, cap, "null"), S_IFCHR | 0666, makedev(1, 3)) == 0);
    return buf;
}

/* ---- FIFOs, directories, devices: refused at once, never replaced */
static void test_not_regular(void) {
    fresh_dir("notreg");
    alarm(20); /* a FIFO opened for reading would wait here forever */
    char fifo[512], dev[512], link[512];
    REQUIRE(mkfifo(in_dir(fifo, sizeof fifo, "fifo"), 0600) == 0);
    const char *device = device_node(dev, sizeof dev);
    REQUIRE(symlink(fifo, in_dir(link, sizeof link, "to-fifo")) == 0);
    cf_filter *f = filter_with("k"), *g = NULL;
    const char *refused[] = {fifo, device, link, dir};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        CHECK_STATUS(cf_load(refused[i], NULL, &g), CF_E_NOT_REGULAR);
        CHECK_STATUS(cf_map(refused[i], NULL, false, &g), CF_E_NOT_REGULAR);
        CHECK_STATUS(cf_save(f, refused[i]), CF_E_NOT_REGULAR);
        cf_file_lock *l = NULL;
        CHECK_STATUS(cf_file_lock_acquire(refused[i], 0, NULL, &l), CF_E_NOT_REGULAR);
        CHECK(l == NULL);
    }
    CHECK(g == NULL);
    alarm(0);
    struct stat st;
    CHECK(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    CHECK(stat(device, &st) == 0 && S_ISCHR(st.st_mode));
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    /* Nothing was written beside them: no temporary file, no lock file. */
    CHECK_EQ(entries(NULL, NULL), geteuid() == 0 ? 3 : 2);
    cf_free(f);
    remove_dir();
}

/* ---- a save through a link replaces the link's target, beside the target */
static void test_save_through_symlink(void) {
    fresh_dir("symlink");
    char target[512], sub[512], link[512], dangling[512];
    REQUIRE(mkdir(in_dir(sub, sizeof sub, "sub"), 0700) == 0);
    cf_filter *a = filter_with("a"), *b = filter_with("b");
    REQUIRE(cf_save(a, in_dir(target, sizeof target, "t.cf")) == CF_OK);
    REQUIRE(symlink("../t.cf", in_dir(link, sizeof link, "sub/l.cf")) == 0);
    CHECK_STATUS(cf_save(b, link), CF_OK);
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(file_has(target, "b"));
    CHECK(file_has(link, "b"));
    /* sub/ holds only the link: the temporary file went beside the target. */
    DIR *d = opendir(sub);
    REQUIRE(d != NULL);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) n += e->d_name[0] != '.';
    closedir(d);
    CHECK_EQ(n, 1);
    /* A link to nowhere: writing through it would create a file nobody named. */
    REQUIRE(symlink("nowhere.cf", in_dir(dangling, sizeof dangling, "dangling.cf")) == 0);
    CHECK_STATUS(cf_save(a, dangling), CF_E_IO);
    bool found;
    CHECK_EQ(entries("nowhere.cf", &found), 3);
    CHECK(!found);
    unlink(link);
    rmdir(sub);
    cf_free(a), cf_free(b);
    remove_dir();
}

/* Blocks until /proc/locks shows pid waiting for a flock ("-> FLOCK"). */
static void wait_until_blocked(pid_t pid) {
    char want[64];
    snprintf(want, sizeof want, "ADVISORY  WRITE %ld ", (long)pid);
    for (int tries = 0; tries < 20000; tries++) {
        FILE *fp = fopen("/proc/locks", "r");
        REQUIRE(fp != NULL);
        char line[256];
        bool blocked = false;
        while (fgets(line, sizeof line, fp))
            if (strstr(line, "-> FLOCK") && strstr(line, want)) blocked = true;
        fclose(fp);
        if (blocked) return;
        usleep(1000);
    }
    REQUIRE(!"the child never blocked on the lock");
}

/* ---- the lock excludes, times out, follows links, dies with its holder */
static void test_lock(void) {
    fresh_dir("lock");
    char path[512], link[512];
    in_dir(path, sizeof path, "f.cf"); /* need not exist yet */
    cf_file_lock *l1 = NULL, *l2 = NULL;
    CHECK_STATUS(cf_file_lock_acquire(path, -1, NULL, &l1), CF_OK);
    CHECK_STATUS(cf_file_lock_acquire(path, 0, NULL, &l2), CF_E_LOCKED);
    CHECK(l2 == NULL);
    CHECK_STATUS(cf_file_lock_acquire(path, 30, NULL, &l2), CF_E_LOCKED);
    cf_file_lock_release(l1);
    CHECK_STATUS(cf_file_lock_acquire(path, 0, NULL, &l2), CF_OK);
    cf_file_lock_release(l2);
    cf_file_lock_release(NULL);

    /* A link and its target share one lock. */
    cf_filter *f = filter_with(NULL);
    REQUIRE(cf_save(f, path) == CF_OK);
    REQUIRE(symlink("f.cf", in_dir(link, sizeof link, "l.cf")) == 0);
    CHECK_STATUS(cf_file_lock_acquire(link, 0, NULL, &l1), CF_OK);
    CHECK_STATUS(cf_file_lock_acquire(path, 0, NULL, &l2), CF_E_LOCKED);
    cf_file_lock_release(l1);

    /* A holder killed with SIGKILL never released the lock itself. */
    int ready[2];
    REQUIRE(pipe(ready) == 0);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        cf_file_lock *held;
        char c = cf_file_lock_acquire(path, -1, NULL, &held) == CF_OK ? 'y' : 'n';
        if (write(ready[1], &c, 1) != 1) _exit(1);
        for (;;) pause();
    }
    char c = 0;
    REQUIRE(read(ready[0], &c, 1) == 1 && c == 'y');
    CHECK_STATUS(cf_file_lock_acquire(path, 0, NULL, &l1), CF_E_LOCKED);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    CHECK_STATUS(cf_file_lock_acquire(path, 0, NULL, &l1), CF_OK);

    /* The lock file is removed while a writer waits on it: when the holder
     * lets go, the waiter must lock the file now named FILE.lock (held
     * again here), not the unlinked one nobody else can see. */
    child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        cf_file_lock *got;
        char r = cf_file_lock_acquire(path, -1, NULL, &got) == CF_OK ? 'y' : 'n';
        if (write(ready[1], &r, 1) != 1) _exit(1);
        _exit(0);
    }
    wait_until_blocked(child);
    char lock_path[600];
    snprintf(lock_path, sizeof lock_path, "%s.lock", path);
    REQUIRE(unlink(lock_path) == 0);
    CHECK_STATUS(cf_file_lock_acquire(path, 0, NULL, &l2), CF_OK); /* a new FILE.lock */
    cf_file_lock_release(l1);
    wait_until_blocked(child); /* now on the new file */
    cf_file_lock_release(l2);
    CHECK(read(ready[0], &c, 1) == 1 && c == 'y');
    waitpid(child, NULL, 0);
    close(ready[0]), close(ready[1]);
    cf_free(f);
    remove_dir();
}

/* A pid that no longer runs: a child that has exited and been reaped. */
static pid_t dead_pid(void) {
    pid_t p = fork();
    REQUIRE(p >= 0);
    if (p == 0) _exit(0);
    waitpid(p, NULL, 0);
    return p;
}

static void touch(const char *name) {
    char p[512];
    int fd = open(in_dir(p, sizeof p, name), O_WRONLY | O_CREAT | O_EXCL, 0600);
    REQUIRE(fd >= 0);
    close(fd);
}

/* ---- the lock removes dead writers' temporary files, and only those */
static void test_dead_temps(void) {
    fresh_dir("temps");
    char path[512], name[128];
    cf_filter *f = filter_with("k");
    REQUIRE(cf_save(f, in_dir(path, sizeof path, "t.cf")) == CF_OK);
    pid_t dead = dead_pid();
    snprintf(name, sizeof name, "t.cf.%ld.0.tmp", (long)dead);
    touch(name);
    snprintf(name, sizeof name, "t.cf.%ld.17.tmp", (long)dead);
    touch(name);
    const char *kept[] = {"t.cf.1.tmp", "t.cf.x.0.tmp", "t.cf..0.tmp", "t.cf.1.0.tmpx",
                          "tt.cf.1.0.tmp"};
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) touch(kept[i]);
    snprintf(name, sizeof name, "t.cf.%ld.0.tmp", (long)getpid()); /* a live writer's */
    touch(name);
    snprintf(name, sizeof name, "u.cf.%ld.0.tmp", (long)dead); /* another file's */
    touch(name);
    CHECK_EQ(entries(NULL, NULL), 10);
    cf_file_lock *l;
    CHECK_STATUS(cf_file_lock_acquire(path, 0, NULL, &l), CF_OK);
    cf_file_lock_release(l);
    bool found;
    CHECK_EQ(entries(NULL, NULL), 9); /* two removed, t.cf.lock added */
    snprintf(name, sizeof name, "t.cf.%ld.0.tmp", (long)dead);
    entries(name, &found);
    CHECK(!found);
    snprintf(name, sizeof name, "t.cf.%ld.0.tmp", (long)getpid());
    entries(name, &found);
    CHECK(found);
    CHECK(file_has(path, "k"));
    cf_free(f);
    remove_dir();
}

/* ---- a writer killed mid-save (SIGXFSZ past a file-size limit) leaves
 * the old file, and nothing the next locked writer does not clean */
static void test_killed_save(void) {
    fresh_dir("killed");
    char path[512];
    cf_filter *old = filter_with("old"), *new = filter_with("new");
    REQUIRE(cf_save(old, in_dir(path, sizeof path, "k.cf")) == CF_OK);
    /* Half the file's size as the limit: the new save goes past it. */
    struct stat st;
    REQUIRE(stat(path, &st) == 0);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        struct rlimit lim = {(rlim_t)st.st_size / 2, (rlim_t)st.st_size / 2};
        if (setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(3);
        cf_save(new, path); /* SIGXFSZ's default action kills the child here */
        _exit(4);
    }
    int status;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ);
    CHECK(file_has(path, "old"));
    /* An unnamed temporary file (O_TMPFILE) vanished with the writer. */
    int probe = open(dir, O_TMPFILE | O_WRONLY, 0600);
    if (probe >= 0 && access("/proc/self/fd", X_OK) == 0) CHECK_EQ(entries(NULL, NULL), 1);
    if (probe >= 0) close(probe);
    cf_file_lock *l;
    CHECK_STATUS(cf_file_lock_acquire(path, 0, NULL, &l), CF_OK);
    cf_file_lock_release(l);
    CHECK_EQ(entries(NULL, NULL), 2); /* k.cf and k.cf.lock */
    cf_free(old), cf_free(new);
    remove_dir();
}

/* ---- the lock resolves the file once, and a holder whose lock file was
 * removed or replaced cannot overwrite what the new holder saves */
static void test_save_locked(void) {
    fresh_dir("locked");
    char v1[512], v2[512], link[512], lock_path[600];
    cf_filter *a = filter_with("in-v1"), *b = filter_with("in-v2");
    REQUIRE(cf_save(a, in_dir(v1, sizeof v1, "v1.cf")) == CF_OK);
    REQUIRE(cf_save(b, in_dir(v2, sizeof v2, "v2.cf")) == CF_OK);
    REQUIRE(symlink("v1.cf", in_dir(link, sizeof link, "cur.cf")) == 0);
    cf_file_lock *l1 = NULL, *l2 = NULL;
    CHECK_STATUS(cf_file_lock_acquire(link, 0, NULL, &l1), CF_OK);
    CHECK(strcmp(strrchr(cf_file_lock_path(l1), '/'), "/v1.cf") == 0);
    /* The link flips while held: the save still goes to v1, v2 untouched. */
    REQUIRE(unlink(link) == 0 && symlink("v2.cf", link) == 0);
    REQUIRE(cf_insert(a, "saved", 5) == CF_OK);
    CHECK_STATUS(cf_save_locked(a, l1), CF_OK);
    CHECK(file_has(v1, "saved") && !file_has(v2, "saved") && file_has(v2, "in-v2"));
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));

    /* The lock file is removed while l1 holds it: l2 locks a new one, and
     * l1's save is refused, leaving l2's. */
    snprintf(lock_path, sizeof lock_path, "%s.lock", v1);
    REQUIRE(unlink(lock_path) == 0);
    CHECK_STATUS(cf_file_lock_acquire(v1, 0, NULL, &l2), CF_OK);
    cf_filter *c = filter_with("second");
    CHECK_STATUS(cf_save_locked(c, l2), CF_OK);
    REQUIRE(cf_insert(a, "first", 5) == CF_OK);
    CHECK_STATUS(cf_save_locked(a, l1), CF_E_LOCKED);
    CHECK(file_has(v1, "second") && !file_has(v1, "first"));
    /* A concurrent filter saves through the same check. */
    cf_config cfg;
    cf_config_init(&cfg);
    cfg.capacity = 1000;
    cfg.flags = CF_CONCURRENT;
    cf_filter *cc;
    REQUIRE(cf_new(&cfg, &cc) == CF_OK);
    CHECK_STATUS(cf_save_locked(cc, l1), CF_E_LOCKED);
    CHECK_STATUS(cf_save_locked(cc, l2), CF_OK);
    CHECK_STATUS(cf_save_locked(NULL, l2), CF_E_PARAM);
    CHECK_STATUS(cf_save_locked(cc, NULL), CF_E_PARAM);
    CHECK(cf_file_lock_path(NULL) == NULL);
    cf_file_lock_release(l1), cf_file_lock_release(l2);
    CHECK_EQ(entries(NULL, NULL), 4); /* v1, v2, cur.cf, v1.cf.lock: no temp */

    /* A lock taken for a file never written leaves no lock file. */
    char never[512];
    CHECK_STATUS(cf_file_lock_acquire(in_dir(never, sizeof never, "never.cf"), 0, NULL, &l1),
                 CF_OK);
    cf_file_lock_release(l1);
    CHECK_EQ(entries(NULL, NULL), 4);
    cf_free(a), cf_free(b), cf_free(c), cf_free(cc);
    remove_dir();
}

/* ---- a directory where the lock file cannot be created: EACCES, not the
 * ENOENT of the read-only retry (as root, in a child that drops to nobody) */
static void test_lock_read_only_dir(void) {
    fresh_dir("rodir");
    char path[512];
    cf_filter *f = filter_with("k");
    REQUIRE(cf_save(f, in_dir(path, sizeof path, "r.cf")) == CF_OK);
    REQUIRE(chmod(dir, 0555) == 0);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        cf_free(f); /* the parent's copy; valgrind follows the fork */
        if (getuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(3);
        cf_file_lock *l = NULL;
        errno = 0;
        cf_status s = cf_file_lock_acquire(path, 0, NULL, &l);
        _exit(s == CF_E_IO && errno == EACCES ? 0 : 4);
    }
    int status;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 0);
    REQUIRE(chmod(dir, 0700) == 0);
    cf_free(f);
    remove_dir();
}

TEST_MAIN(TEST(test_null_keys), TEST(test_not_regular), TEST(test_save_through_symlink),
          TEST(test_lock), TEST(test_dead_temps), TEST(test_killed_save), TEST(test_save_locked),
          TEST(test_lock_read_only_dir))
