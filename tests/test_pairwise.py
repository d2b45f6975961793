"""all_pairs (tests/pairwise.py): every pair of values of two axes is covered, by fewer cases."""

import itertools

from pairwise import all_pairs


def _covers_every_pair(axes, cases):
    for (i, a), (j, b) in itertools.combinations(list(enumerate(axes)), 2):
        seen = {(case[i], case[j]) for case in cases}
        assert seen == set(itertools.product(a, b))


def test_three_axes_are_covered_pairwise_by_fewer_cases():
    axes = [list(range(9)), ["cuda", "sycl", "opencl", "openacc"], ["vertex", "binned", "edges"]]
    cases = all_pairs(*axes)
    _covers_every_pair(axes, cases)
    assert len(cases) < 9 * 4 * 3 and len(cases) >= 9 * 4
    assert cases == all_pairs(*axes)          # deterministic: stable ids across workers


def test_two_axes_are_their_product_and_an_empty_axis_gives_nothing():
    assert all_pairs("ab", [1, 2]) == [("a", 1), ("a", 2), ("b", 1), ("b", 2)]
    assert all_pairs("ab", [], "cd") == []
