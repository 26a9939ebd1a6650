"""graft.strings.to_hash_bucket_fast / to_hash_bucket_strong / to_hash_bucket: TensorFlow's
buckets (FarmHash Fingerprint64, SipHash-2-4, the legacy Hash64) on the same strings, eagerly
and in graft.function. Expected values are TensorFlow 2.21's."""
import numpy as np
import pytest

import graft

STRINGS = [b"", b"a", b"hello world", "héllo ✓".encode(), b"a\x00b", b"x" * 100,
           b"The quick brown fox jumps over the lazy dog"]
INT64_MAX = 2**63 - 1
FAST = [1936946117179621456, 3694432073954588132, 6381520714923946011, 388974397503833843, 7026922943720236280,
        6590480085648050719, 3152101869897863477]
FAST_1000 = [263, 939, 11, 650, 280, 719, 284]
STRONG_12 = [443797209252341628, 5158252350249958646, 1015233985318741639, 7837651922762377182,
             2296863193520864598, 1638981394980189463, 4761918157535839729]
STRONG_1000 = [565, 22, 514, 387, 882, 10, 133]
LEGACY = [105434511174508092, 2996632905371535868, 936430787915428848, 8598338603790106542, 9021471590436262201,
          6094197843925237000, 6299166825487821026]


def _all(x):
    return (graft.strings.to_hash_bucket_fast(x, INT64_MAX), graft.strings.to_hash_bucket_fast(x, 1000),
            graft.strings.to_hash_bucket_strong(x, INT64_MAX, [1, 2]),
            graft.strings.to_hash_bucket_strong(x, 1000, [-1, 123456789]),
            graft.strings.to_hash_bucket(x, INT64_MAX))


@pytest.mark.parametrize("traced", [False, True])
def test_buckets_match_tensorflow(traced):
    x = graft.constant(STRINGS)
    outs = graft.function(_all)(x) if traced else _all(x)
    for got, want in zip(outs, (FAST, FAST_1000, STRONG_12, STRONG_1000, LEGACY)):
        assert got.dtype == graft.int64
        np.testing.assert_array_equal(got.numpy(), want)


def test_shape_kept():
    out = graft.strings.to_hash_bucket_fast([["a", "bc"], ["", ""]], 10)
    np.testing.assert_array_equal(out.numpy(), [[9, 9], [3, 3]])


def test_errors():
    with pytest.raises((ValueError, graft.errors.InvalidArgumentError), match="num_buckets"):
        graft.strings.to_hash_bucket_fast(["a"], 0)
    with pytest.raises(graft.errors.InvalidArgumentError, match="Key must have 2 elements"):
        graft.strings.to_hash_bucket_strong(["a"], 10, [1])
