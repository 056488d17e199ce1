/* SPDX-License-Identifier: Apache-2.0 OR MIT */
/*
 * cuckoofilter_wrapper.h -- this library as filters of fastfilter_cpp's
 * benchmark (FastFilter/fastfilter_cpp, benchmarks/bulk-insert-and-query.cc),
 * the harness the filter papers measure in, so that our rows and the field's
 * come from the same keys, the same clock and the same process.
 *
 * Nothing of fastfilter_cpp is copied here or anywhere in this repository:
 * bench/field/run.sh copies the harness outside the repository at run time
 * and adds two lines to the copy, an #include of this file just before its
 * main() and a call of cf_field::run() just before its "Sort" section.  This
 * header is therefore C++ and uses the harness's own names, which are
 * declared by then: FilterAPI (the per-filter adapter the harness times),
 * FilterBenchmark (its timed add / find / remove loop), Statistics and its
 * row printer, samples_t and NowNanos.  Of this library it uses the public
 * API only (cuckoofilter.h and the inline lookups of cuckoofilter_inline.h).
 *
 * The filters are sized as the harness sizes its other filters: for the
 * number of keys it is about to add (capacity = N), at a target FPP whose
 * derived width is 12 bits, the paper's CF-12 (cf_config_resolve says
 * which width; the harness prints bits/item and the measured FPP).  The
 * harness's keys are random 64-bit integers, so they serve directly as
 * hashes for the _hash rows; the _u64 rows hash them with the library.
 *
 * The rows (filter ids, chosen clear of the harness's own):
 *   900 CF-lib-hash     cf_insert_hash, cf_contains_hash, cf_delete_hash
 *   901 CF-lib-u64      cf_insert_u64, cf_contains_u64, cf_delete_u64
 *   902 CF-lib-batch    cf_insert_batch over all N keys, then each lookup
 *                       set by one cf_contains_batch call (the harness has
 *                       no batched lookup: our loop, its clock and row)
 *   903 CF-lib-view     cf_insert_hash, cf_view_contains_hash (inline)
 *   904 CF-lib-view-u64 cf_insert_u64, cf_view_contains_u64 (inline)
 * Rows 900-901 remove every key after the lookups, as the harness does for
 * its cuckoo filters; the others leave the remove column at 0.
 */
#ifndef CF_FIELD_WRAPPER_H
#define CF_FIELD_WRAPPER_H

#include "cuckoofilter.h"
#include "cuckoofilter_inline.h"

#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

/* The harness marks its lookups noinline, so that every filter pays one
 * call per key; ours get the same attribute. */
#ifndef CONTAIN_ATTRIBUTES
#define CONTAIN_ATTRIBUTES __attribute__((noinline))
#endif

namespace cf_field {

/* A target FPP that derives 12-bit fingerprints with 4-slot buckets:
 * ceil(log2(2 * 4 / 0.002)) = 12. */
constexpr double kTargetFpp = 0.002;

enum class Path { Hash, U64, Batch, View, ViewU64 };

inline void check(cf_status s, const char *what) {
    if (s != CF_OK) throw std::runtime_error(std::string(what) + ": " + cf_strerror(s));
}

/* One filter of the library; Path only selects the calls FilterAPI makes. */
template <Path P> class Filter {
  public:
    explicit Filter(size_t capacity) {
        cf_config cfg;
        cf_config_init(&cfg);
        cfg.capacity = capacity;
        cfg.target_fpp = kTargetFpp;
        check(cf_new(&cfg, &f_), "cf_new");
        check(cf_view_init(&view_, f_), "cf_view_init");
    }
    Filter(Filter &&o) noexcept : f_(o.f_), view_(o.view_) {
        o.f_ = nullptr;
    }
    Filter(const Filter &) = delete;
    Filter &operator=(const Filter &) = delete;
    Filter &operator=(Filter &&) = delete;
    ~Filter() {
        cf_free(f_);
    }

    /* Everything the filter holds (handle and table), as the harness
     * counts the peers' tables. */
    size_t SizeInBytes() const {
        return cf_memory_usage(f_);
    }

    cf_filter *f_ = nullptr;
    cf_view view_; /* valid while f_ lives: a plain filter's table never moves */
};

} // namespace cf_field

template <cf_field::Path P> struct FilterAPI<cf_field::Filter<P>> {
    using Table = cf_field::Filter<P>;
    static constexpr bool kU64 = P == cf_field::Path::U64 || P == cf_field::Path::ViewU64;

    static Table ConstructFromAddCount(size_t add_count) {
        return Table(add_count);
    }
    static void Add(uint64_t key, Table *t) {
        cf_status s = kU64 ? cf_insert_u64(t->f_, key) : cf_insert_hash(t->f_, key);
        if (s != CF_OK) throw std::logic_error(std::string("insert: ") + cf_strerror(s));
    }
    static void AddAll(const std::vector<uint64_t> &keys, size_t start, size_t end, Table *t) {
        if (P == cf_field::Path::Batch) {
            size_t done = 0;
            cf_status s = cf_insert_batch(t->f_, keys.data() + start, end - start, &done);
            if (s != CF_OK)
                throw std::logic_error(std::string("cf_insert_batch: ") + cf_strerror(s));
            return;
        }
        for (size_t i = start; i < end; i++) Add(keys[i], t);
    }
    static void Remove(uint64_t key, Table *t) {
        if (kU64)
            cf_delete_u64(t->f_, key);
        else
            cf_delete_hash(t->f_, key);
    }
    CONTAIN_ATTRIBUTES static bool Contain(uint64_t key, const Table *t) {
        switch (P) {
        case cf_field::Path::View: return cf_view_contains_hash(&t->view_, key);
        case cf_field::Path::ViewU64: return cf_view_contains_u64(&t->view_, key);
        case cf_field::Path::U64: return cf_contains_u64(t->f_, key);
        default: return cf_contains_hash(t->f_, key);
        }
    }
};

namespace cf_field {

/* Row 902: cf_insert_batch for the adds (the harness's own loop, as its
 * "batched add" filters), then cf_contains_batch over each lookup set in
 * one call, timed by the harness's clock; the FPP as the harness computes
 * it from the 0% set (found minus the keys that set shares with the added
 * ones). */
template <typename Samples>
Statistics batch_benchmark(size_t add_count, const std::vector<uint64_t> &to_add,
                           size_t intersectionsize, const std::vector<Samples> &mixed_sets) {
    using Table = Filter<Path::Batch>;
    Table filter = FilterAPI<Table>::ConstructFromAddCount(add_count);
    Statistics result;
    auto start = NowNanos();
    FilterAPI<Table>::AddAll(to_add, 0, add_count, &filter);
    auto time = NowNanos() - start;
    result.add_count = add_count;
    result.nanos_per_add = static_cast<double>(time) / add_count;
    result.nanos_per_remove = 0;
    result.bits_per_item = 8.0 * filter.SizeInBytes() / add_count;
    result.false_positive_probabilty = 0;
    for (const auto &t : mixed_sets) {
        const std::vector<uint64_t> &keys = t.to_lookup_mixed;
        start = NowNanos();
        size_t found = cf_contains_batch(filter.f_, keys.data(), keys.size(), nullptr);
        time = NowNanos() - start;
        if (found < t.true_match)
            std::cerr << "ERROR: CF-lib-batch found " << found << " of " << t.true_match << "\n";
        result.nanos_per_finds[static_cast<int>(100 * t.found_probability)] =
            static_cast<double>(time) / t.actual_sample_size;
        if (t.found_probability == 0.0)
            result.false_positive_probabilty = static_cast<double>(found - intersectionsize) /
                                               static_cast<double>(keys.size() - intersectionsize);
    }
    return result;
}

/* Runs the rows selected on the harness's command line (by id, as its
 * other filters; not part of its default set) and prints them in its
 * table.  Called from the harness's main() with its own variables. */
template <typename Samples>
void run(int algorithmId, const std::set<int> &algos, size_t add_count,
         const std::vector<uint64_t> &to_add, size_t intersectionsize,
         const std::vector<Samples> &mixed_sets, int name_width) {
    auto selected = [&](int id) { return algorithmId == id || algos.count(id) != 0; };
    auto print = [&](const char *name, const Statistics &s) {
        std::cout << std::setw(name_width) << name << s << std::endl;
    };
    if (selected(900) || selected(901) || selected(902) || selected(903) || selected(904)) {
        cf_config cfg;
        cf_config_init(&cfg);
        cfg.capacity = add_count;
        cfg.target_fpp = kTargetFpp;
        cf_shape shape;
        check(cf_config_resolve(&cfg, &shape), "cf_config_resolve");
        std::cout << "# CF-lib " << cf_version_string() << ": " << shape.num_buckets
                  << " buckets of " << shape.bucket_size << ", " << shape.fingerprint_bits
                  << "-bit fingerprints, FPP at full load " << shape.fpp_at_max_load << std::endl;
    }
    if (selected(900))
        print("CF-lib-hash", FilterBenchmark<Filter<Path::Hash>>(
                                 add_count, to_add, intersectionsize, mixed_sets, false, true));
    if (selected(901))
        print("CF-lib-u64", FilterBenchmark<Filter<Path::U64>>(add_count, to_add, intersectionsize,
                                                               mixed_sets, false, true));
    if (selected(902))
        print("CF-lib-batch", batch_benchmark(add_count, to_add, intersectionsize, mixed_sets));
    if (selected(903))
        print("CF-lib-view", FilterBenchmark<Filter<Path::View>>(
                                 add_count, to_add, intersectionsize, mixed_sets, false, false));
    if (selected(904))
        print("CF-lib-view-u64",
              FilterBenchmark<Filter<Path::ViewU64>>(add_count, to_add, intersectionsize,
                                                     mixed_sets, false, false));
}

} // namespace cf_field

#endif /* CF_FIELD_WRAPPER_H */
