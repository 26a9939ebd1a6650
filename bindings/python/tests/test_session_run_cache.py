"""Session.run keeps what a fetch structure and a feed key resolve to between calls; repeated
calls must still give each call's own values, structures and errors."""
import numpy as np
import pytest

import graft


def test_repeated_runs_with_the_same_fetches_and_feeds():
    g = graft.Graph()
    with g.as_default():
        x = graft.compat.v1.placeholder(graft.float32, [None])
        y = x * 2.0
        z = graft.reduce_sum(x)
        with graft.compat.v1.Session(graph=g) as s:
            fetches = [y, z]
            for n in (1, 3, 5):
                got_y, got_z = s.run(fetches, {x: np.arange(n, dtype=np.float32)})
                np.testing.assert_allclose(got_y, 2 * np.arange(n))
                assert got_z == pytest.approx(sum(range(n)))
            # Another structure over the same tensors, and a tuple and a dict.
            assert isinstance(s.run((y, z), {x: [1.0]}), tuple)
            d = s.run({"y": y, "z": z}, {x: [1.0, 2.0]})
            assert set(d) == {"y", "z"} and d["z"] == pytest.approx(3.0)
            # A cached feed key still checks every value.
            with pytest.raises(ValueError, match="Cannot feed value of shape"):
                s.run(y, {x: np.zeros((2, 2), np.float32)})
            with pytest.raises(ValueError, match="Cannot feed value"):
                s.run(y, {graft.compat.v1.placeholder(graft.int32, []): 1.5})
            np.testing.assert_allclose(s.run(y, {x: [3.0]}), [6.0])
            # Ints and bools fed to a float placeholder, and a list of a target and a tensor.
            np.testing.assert_allclose(s.run(y, {x: [1, 2]}), [2.0, 4.0])
            out = s.run([y.op, y], {x: [1.0]})
            assert out[0] is None
            np.testing.assert_allclose(out[1], [2.0])
