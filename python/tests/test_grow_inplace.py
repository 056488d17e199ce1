# SPDX-License-Identifier: Apache-2.0 OR MIT
"""grow='inplace' (the library's CF_GROW with CF_GROWTH_INPLACE): one table
that doubles in place.  It grows without false negatives, keeps its FPP
under the target, deletes, and goes through bytes, files, maps and pickling
like any filter; grow=True stays the chain of tables; what it refuses says
why."""

import pickle

import pytest

import cuckoofilter as cf

N = 200_000


@pytest.fixture(scope="module")
def grown():
    f = cf.CuckooFilter(capacity=1000, fpp=0.01, grow="inplace")
    first = f.stats
    f.update(range(N))
    return f, first


def test_grows_in_place_without_false_negatives(grown):
    f, first = grown
    st = f.stats
    assert first.growth_mode == cf.GROWTH_INPLACE and first.doublings == 0
    assert st.growth_mode == cf.GROWTH_INPLACE and st.flags & cf.GROW
    # One table, doubled: its buckets a power of two, 2^doublings times the first's.
    assert st.doublings > 0 and st.num_buckets == first.num_buckets << st.doublings
    assert len(f) == N and all(f.contains_many(range(N)))
    assert all(k in f for k in range(0, N, 997))
    # The FPP stays under the target however often it doubled, and is what
    # the library expects now (within 4 binomial standard deviations).
    absent = range(10**9, 10**9 + 200_000)
    measured = sum(f.contains_many(absent)) / len(absent)
    sigma = (st.expected_fpp / len(absent)) ** 0.5
    assert abs(measured - st.expected_fpp) <= 4 * sigma, (measured, st.expected_fpp)
    assert measured <= 0.01 and st.expected_fpp <= f.fpp < 0.01


def test_chain_is_still_what_grow_true_gives():
    for grow in (True, "chain"):
        f = cf.CuckooFilter(capacity=1000, fpp=0.01, grow=grow)
        f.update(range(20_000))
        assert f.stats.growth_mode == cf.GROWTH_CHAIN and f.stats.doublings == 0
        assert f.stats.flags & cf.GROW and all(f.contains_many(range(20_000)))
    assert cf.GROWTH_CHAIN != cf.GROWTH_INPLACE
    plain = cf.CuckooFilter(capacity=1000).stats
    assert plain.growth_mode == cf.GROWTH_CHAIN and plain.doublings == 0 and plain.flags == 0


def test_bytes_files_maps_and_pickles(grown, tmp_path):
    f, _ = grown
    data = f.to_bytes()
    for g in (cf.CuckooFilter.from_bytes(data), pickle.loads(pickle.dumps(f)), f.copy()):
        assert g == f and g.stats.doublings == f.stats.doublings
        assert g.stats.growth_mode == cf.GROWTH_INPLACE
    f.save(tmp_path / "g.cf")
    assert (tmp_path / "g.cf").read_bytes() == data
    loaded = cf.CuckooFilter.load(tmp_path / "g.cf")
    assert loaded == f and all(loaded.contains_many(range(N)))
    with cf.CuckooFilter.map(tmp_path / "g.cf", verify=True) as m:
        assert m.read_only and m.stats.growth_mode == cf.GROWTH_INPLACE
        probe = range(0, 2 * N, 3)
        assert m.contains_many(probe) == f.contains_many(probe)
        with pytest.raises(cf.ReadOnlyError):
            m.add("x")
    # A loaded copy goes on growing, where the original left off.
    loaded.update(range(N, 4 * N))
    assert loaded.stats.doublings > f.stats.doublings
    assert all(loaded.contains_many(range(4 * N)))


def test_deletes():
    f = cf.CuckooFilter(capacity=1000, fpp=0.01, grow="inplace")
    f.update(range(50_000))
    for k in range(0, 50_000, 2):
        f.remove(k)
    assert len(f) == 25_000
    assert all(f.contains_many(range(1, 50_000, 2)))  # the others stay
    gone = sum(f.contains_many(range(0, 50_000, 2)))
    assert gone <= 0.01 * 25_000  # deleted keys answer as absent ones do


def test_merge():
    # Parts of different sizes: the smaller doubles, or the larger's entries go down.
    small = cf.CuckooFilter(capacity=1000, fpp=0.01, grow="inplace")
    small.update(range(2_000))
    big = cf.CuckooFilter(capacity=1000, fpp=0.01, grow="inplace")
    big.update(range(2_000, 60_000))
    assert big.stats.doublings > small.stats.doublings
    for merged in (small | big, big | small):
        assert len(merged) == 60_000
        assert merged.stats.num_buckets == big.stats.num_buckets
        assert all(merged.contains_many(range(60_000)))
        assert sum(merged.contains_many(range(10**6, 10**6 + 100_000))) < 1_000
    assert len(small) == 2_000  # f | g leaves both as they were


def test_refusals_say_why():
    f = cf.CuckooFilter(capacity=1000, fpp=0.01, grow="inplace")
    for g, why in ((cf.CuckooFilter(capacity=1000, fpp=0.01, grow="chain"), "the other not"),
                   (cf.CuckooFilter(capacity=1000, fpp=0.01, grow="inplace", seed=5),
                    r"seeds differ \(0 and 5\)"),
                   (cf.CuckooFilter(capacity=1000, fpp=1e-6, grow="inplace"),
                    r"fpp differs \(0.01 and 1e-06: 15- and 32-bit slots\)"),
                   (cf.CuckooFilter(capacity=1000, fpp=0.01, grow="inplace", fingerprint_bits=32),
                    r"fingerprint_bits differ \(15- and 32-bit slots\)")):
        with pytest.raises(ValueError, match=why):
            f.merge(g)
        with pytest.raises(ValueError, match=why):
            f | g  # noqa: B018
    cases = [({"bucket_size": 2}, r"grow='inplace' needs bucket_size=4.*not 2"),
             ({"semi_sort": True}, r"grow='inplace' cannot be semi_sort=True"),
             ({"fingerprint_bits": 12},
              r"grow='inplace' takes slots of 15, 16 or 32 bits, not fingerprint_bits=12"),
             ({"fingerprint_bits": 16, "fpp": 1e-5},
              r"fingerprint_bits=16 with grow='inplace': the first table, filled, would pass"),
             ({"fpp": 1e-12}, r"fpp=1e-12 is too small for grow='inplace'.*ask for fpp=\S+ or more"),
             ({"concurrent": True}, r"concurrent=True cannot be combined with grow='inplace'")]
    for kw, message in cases:
        with pytest.raises(ValueError, match=message):
            cf.CuckooFilter(capacity=1000, grow="inplace", **kw)
    with pytest.raises(ValueError, match=r"grow='in-place': the growth mode is 'chain'.*'inplace'"):
        cf.CuckooFilter(capacity=1000, grow="in-place")
    for spelled in (b"inplace", bytearray(b"chain")):
        with pytest.raises(TypeError, match=r"the growth mode is a str"):
            cf.CuckooFilter(capacity=1000, grow=spelled)


def test_the_last_doubling_says_why():
    """A bound the doublings reach (15-bit slots held to 0.1%: two doublings)
    stops add() and update() with the reason and what to change; one key's
    copies filling its buckets keep the plain message."""
    why = (r"cannot double again: the FPP of its full table would pass fpp=0.001 with 15-bit "
           r"slots after 2 doublings \(ask for a larger fpp, or fingerprint_bits=32\)")
    f = cf.CuckooFilter(capacity=100, fpp=0.001, grow="inplace", fingerprint_bits=15)
    assert f.stats.growth_limit == cf.GROWTH_OPEN
    with pytest.raises(cf.FilterFullError, match=why):
        for i in range(100_000):
            f.add(i)
    assert f.stats.doublings == 2 and all(f.contains_many(range(len(f))))
    assert f.stats.growth_limit == cf.GROWTH_LIMIT_FPP
    for keys in (range(100_000), [str(i) for i in range(100_000)]):
        g = cf.CuckooFilter(capacity=100, fpp=0.001, grow="inplace", fingerprint_bits=15)
        with pytest.raises(cf.FilterFullError, match=why) as e:
            g.update(keys)
        assert e.value.inserted == len(g) > 0
    h = cf.CuckooFilter(capacity=100, fpp=0.01, grow="inplace")
    with pytest.raises(cf.FilterFullError) as e:
        for _ in range(20):
            h.add("same")
    assert "double" not in str(e.value)
    assert h.stats.growth_limit == cf.GROWTH_OPEN


@pytest.mark.parametrize("mode", [cf.GROWTH_INPLACE, "inplace"])
def test_growth_mode_keyword_is_cf_config_growth_mode(mode, cli, tmp_path):
    """growth_mode= (cf_config.growth_mode) reaches in-place growth as the
    C config does, implying grow=True; the filter is the one grow='inplace'
    and the cuckoo command's --grow=inplace make (the same bytes)."""
    f = cf.CuckooFilter(capacity=1000, fpp=0.01, seed=4, growth_mode=mode)
    g = cf.CuckooFilter(capacity=1000, fpp=0.01, seed=4, grow=True, growth_mode=mode)
    h = cf.CuckooFilter(capacity=1000, fpp=0.01, seed=4, grow="inplace")
    for x in (f, g, h):
        x.update(range(20_000))
        assert x.stats.growth_mode == cf.GROWTH_INPLACE and x.stats.doublings > 0
        assert all(x.contains_many(range(20_000)))
    assert f == g == h
    path = tmp_path / "cli.cf"
    cli("create", path, "--capacity", 1000, "--fpp", 0.01, "--seed", 4, "--grow=inplace")
    assert cf.CuckooFilter.load(path) == cf.CuckooFilter(capacity=1000, fpp=0.01, seed=4,
                                                         growth_mode=mode)


def test_growth_mode_chain_and_refusals():
    f = cf.CuckooFilter(capacity=100, growth_mode=cf.GROWTH_CHAIN)
    f.update(range(5_000))
    assert f.stats.growth_mode == cf.GROWTH_CHAIN and f.stats.flags & cf.GROW
    g = cf.CuckooFilter(capacity=100, grow=True)
    g.update(range(5_000))
    assert f == g  # the chain grow=True makes
    assert cf.CuckooFilter(capacity=100, growth_mode=None).stats.flags == 0  # None: no growth
    cases = [({"growth_mode": 2}, ValueError, r"growth_mode=2: give cf.GROWTH_CHAIN \(0\) or "
                                             r"cf.GROWTH_INPLACE \(1\)"),
             ({"growth_mode": "in-place"}, ValueError, r"growth_mode='in-place': give"),
             ({"growth_mode": 1.0}, TypeError, r"growth_mode must be"),
             ({"growth_mode": True}, TypeError, r"not bool"),
             ({"grow": False, "growth_mode": cf.GROWTH_INPLACE}, ValueError,
              r"with grow=False: a growth mode is for a filter that grows"),
             ({"grow": "chain", "growth_mode": "inplace"}, ValueError,
              r"growth_mode='inplace' contradicts grow='chain'"),
             ({"growth_mode": cf.GROWTH_INPLACE, "semi_sort": True}, ValueError,
              r"grow='inplace' cannot be semi_sort=True")]
    for kw, exc, message in cases:
        with pytest.raises(exc, match=message):
            cf.CuckooFilter(capacity=100, **kw)
