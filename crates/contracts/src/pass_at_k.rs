//! pass@k, the unbiased estimator of Chen et al. 2021 ("Evaluating Large Language Models
//! Trained on Code", section 2.1): with `n` samples of which `c` are correct,
//! `pass@k = 1 - C(n-c, k) / C(n, k)`, computed as the product
//! `1 - prod_{i=n-c+1}^{n} (1 - k/i)`, which never forms a binomial coefficient (no overflow).
//!
//! ```
//! use verdict_contracts::pass_at_k::{mean_pass_at_k, pass_at_k};
//! assert_eq!(pass_at_k(10, 0, 1), Some(0.0));
//! assert!((pass_at_k(10, 3, 1).unwrap() - 0.3).abs() < 1e-12);
//! assert_eq!(pass_at_k(10, 8, 5), Some(1.0));
//! assert_eq!(pass_at_k(3, 1, 5), None);
//! assert!((mean_pass_at_k(&[(2, 1), (2, 2)], 1).unwrap() - 0.75).abs() < 1e-12);
//! ```

/// pass@k of one problem with `n` samples, `c` of them correct; `None` when `k` is 0, `n < k`
/// or `c > n` (the estimator is not defined there).
pub fn pass_at_k(n: u64, c: u64, k: u64) -> Option<f64> {
    if k == 0 || n < k || c > n {
        return None;
    }
    if n - c < k {
        return Some(1.0);
    }
    if k == 1 {
        // Exactly the fraction correct (the product would round it).
        return Some(c as f64 / n as f64);
    }
    let k = k as f64;
    let product: f64 = ((n - c + 1)..=n).map(|i| 1.0 - k / i as f64).product();
    Some(1.0 - product)
}

/// The mean pass@k over problems given as `(n, c)`, leaving out those where it is undefined;
/// `None` when it is undefined for all of them.
pub fn mean_pass_at_k(problems: &[(u64, u64)], k: u64) -> Option<f64> {
    let values: Vec<f64> = problems
        .iter()
        .filter_map(|&(n, c)| pass_at_k(n, c, k))
        .collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `1 - C(n-c, k) / C(n, k)` with exact integers, for small n.
    fn by_binomials(n: u64, c: u64, k: u64) -> f64 {
        fn choose(n: u64, k: u64) -> f64 {
            if k > n {
                return 0.0;
            }
            (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
        }
        1.0 - choose(n - c, k) / choose(n, k)
    }

    #[test]
    fn the_product_form_equals_the_binomial_form() {
        for n in 1..=20 {
            for c in 0..=n {
                for k in 1..=n {
                    let got = pass_at_k(n, c, k).unwrap();
                    assert!(
                        (got - by_binomials(n, c, k)).abs() < 1e-9,
                        "n={n} c={c} k={k}"
                    );
                }
            }
        }
    }

    #[test]
    fn pass_at_1_is_the_fraction_correct() {
        assert_eq!(pass_at_k(1024, 256, 1), Some(0.25));
        assert_eq!(pass_at_k(5, 2, 1), Some(0.4));
    }

    #[test]
    fn large_n_stays_finite() {
        let v = pass_at_k(1_000_000, 1, 100).unwrap();
        assert!((v - 1e-4).abs() < 1e-9);
    }

    #[test]
    fn undefined_where_the_estimator_is() {
        assert_eq!(pass_at_k(4, 1, 0), None);
        assert_eq!(pass_at_k(4, 5, 1), None);
        assert_eq!(pass_at_k(0, 0, 1), None);
        assert_eq!(mean_pass_at_k(&[(1, 1)], 2), None);
    }
}
