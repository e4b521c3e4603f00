"""The Wilson score interval shown with every score."""

import math

import pytest
from ggp.server.stats import difference_interval, mean_interval, sign_test, wilson_interval

Z_95 = 1.959963984540054  # the 97.5% quantile of the standard normal distribution


@pytest.mark.parametrize(
    ("successes", "trials"), [(0, 10), (5, 10), (2.5, 4), (17, 20), (20, 20), (1, 1), (300, 400)]
)
def test_each_bound_is_where_the_score_is_z_standard_errors_of_it_away(successes, trials) -> None:
    # The definition: the bounds are the proportions pi with
    # |score - pi| = z * sqrt(pi * (1 - pi) / trials), one on each side of the score.
    score = successes / trials
    low, high = wilson_interval(successes, trials)
    assert 0 <= low <= score <= high <= 1
    for bound in (low, high):
        distance = abs(score - bound)
        assert distance == pytest.approx(Z_95 * math.sqrt(bound * (1 - bound) / trials), abs=1e-9)


def test_a_perfect_score_keeps_a_lower_bound_below_one() -> None:
    low, high = wilson_interval(20, 20)
    assert f"{low:.2f}-{high:.2f}" == "0.84-1.00"
    assert wilson_interval(0, 20)[1] == pytest.approx(1 - low)


def test_more_trials_give_a_narrower_interval_and_more_confidence_a_wider_one() -> None:
    widths = [high - low for low, high in (wilson_interval(n / 2, n) for n in (10, 100, 1000))]
    assert widths == sorted(widths, reverse=True)
    low_90, high_90 = wilson_interval(5, 10, confidence=0.9)
    low_99, high_99 = wilson_interval(5, 10, confidence=0.99)
    assert low_99 < low_90 and high_90 < high_99


@pytest.mark.parametrize(
    ("successes", "trials", "confidence", "message"),
    [
        (0, 0, 0.95, "at least one trial"),
        (11, 10, 0.95, "between 0 and 10"),
        (-1, 10, 0.95, "between 0 and 10"),
        (5, 10, 1.0, "confidence must be between 0 and 1"),
    ],
)
def test_impossible_counts_are_refused(successes, trials, confidence, message) -> None:
    with pytest.raises(ValueError, match=message):
        wilson_interval(successes, trials, confidence)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ((56, 70), (48, 80), (0.0524, 0.3339)),
        ((9, 10), (3, 10), (0.1705, 0.8090)),
        ((6, 7), (2, 7), (0.0582, 0.8062)),
        ((5, 56), (0, 29), (-0.0381, 0.1926)),
    ],
)
def test_the_difference_interval_is_newcombes_hybrid_score_interval(a, b, expected) -> None:
    # Newcombe, "Interval estimation for the difference between independent
    # proportions", Statistics in Medicine 17 (1998), table II, method 10.
    low, high = difference_interval(*a, *b)
    assert (round(low, 4), round(high, 4)) == expected


def test_the_difference_interval_is_symmetric_and_stays_within_its_range() -> None:
    assert difference_interval(5, 10, 5, 10) == pytest.approx(
        tuple(-x for x in reversed(difference_interval(5, 10, 5, 10)))
    )
    low, high = difference_interval(3, 10, 7, 12)
    assert (low, high) == pytest.approx(
        tuple(-x for x in reversed(difference_interval(7, 12, 3, 10)))
    )
    assert difference_interval(10, 10, 0, 10)[1] == pytest.approx(1.0)
    assert difference_interval(0, 10, 10, 10)[0] == pytest.approx(-1.0)


def test_sign_test_matches_the_binomial_tails() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(3, 3) == 1.0  # an even split: no evidence either way
    assert sign_test(5, 0) == pytest.approx(2 / 32)  # all five one way: 2 * 0.5**5
    assert sign_test(0, 5) == sign_test(5, 0)
    # 27 against 16: 2 * P(X <= 16), X ~ Binomial(43, 1/2)
    assert sign_test(27, 16) == pytest.approx(0.126, abs=0.001)


def test_sign_test_refuses_negative_counts() -> None:
    with pytest.raises(ValueError):
        sign_test(-1, 3)


def test_the_mean_interval_of_one_score_is_its_wilson_interval() -> None:
    mean, low, high = mean_interval([(18, 59)])
    assert mean == pytest.approx(18 / 59)
    assert (low, high) == pytest.approx(wilson_interval(18, 59))


def test_the_mean_interval_weighs_each_score_alike_and_adds_half_widths_in_quadrature() -> None:
    mean, low, high = mean_interval([(2, 10), (80, 100)])
    assert mean == pytest.approx((0.2 + 0.8) / 2)  # not 82 / 110
    low_a, high_a = wilson_interval(2, 10)
    low_b, high_b = wilson_interval(80, 100)
    assert mean - low == pytest.approx(math.hypot(0.2 - low_a, 0.8 - low_b) / 2)
    assert high - mean == pytest.approx(math.hypot(high_a - 0.2, high_b - 0.8) / 2)
    # two samples of the same score: narrower than either alone, within 0..1
    one = wilson_interval(5, 10)
    _, low, high = mean_interval([(5, 10), (5, 10)])
    assert one[0] < low < 0.5 < high < one[1]
    assert mean_interval([(0, 3), (0, 4)])[1] == 0.0  # no points: nothing below 0
    assert mean_interval([(3, 3), (4, 4)])[2] == 1.0


def test_the_mean_interval_needs_a_score() -> None:
    with pytest.raises(ValueError):
        mean_interval([])
