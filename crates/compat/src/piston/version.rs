//! Piston's version selectors: the `semver` package's `satisfies` for what clients send (`*`,
//! `3.10.0`, `3.x`, `3`, `>=3.8 <4`, `^3.9`, `~3.9.1`, `1.x || 2.x`).

/// A version `major.minor.patch`.
type Version = (u64, u64, u64);

/// Whether `version` (`x.y.z`) satisfies the selector `range`; a selector that does not parse
/// satisfies nothing (Piston answers "runtime is unknown").
pub fn satisfies(version: &str, range: &str) -> bool {
    let Some(version) = parse_version(version) else {
        return false;
    };
    range.split("||").any(|set| {
        let set = set.trim();
        if set.is_empty() {
            return true;
        }
        let mut comparators = Vec::new();
        let words: Vec<&str> = set.split_whitespace().collect();
        let mut i = 0;
        while i < words.len() {
            // `1.2 - 2.3`: a hyphen range.
            if i + 2 < words.len() && words[i + 1] == "-" {
                match (partial(words[i]), partial(words[i + 2])) {
                    (Some(low), Some(high)) => {
                        comparators.push(Comparator::AtLeast(low.floor()));
                        comparators.extend(high.at_most());
                    }
                    _ => return false,
                }
                i += 3;
                continue;
            }
            match comparator(words[i]) {
                Some(parsed) => comparators.extend(parsed),
                None => return false,
            }
            i += 1;
        }
        comparators.iter().all(|c| c.holds(version))
    })
}

#[derive(Debug, Clone, Copy)]
enum Comparator {
    AtLeast(Version),
    Above(Version),
    AtMost(Version),
    Below(Version),
}

impl Comparator {
    fn holds(self, v: Version) -> bool {
        match self {
            Comparator::AtLeast(x) => v >= x,
            Comparator::Above(x) => v > x,
            Comparator::AtMost(x) => v <= x,
            Comparator::Below(x) => v < x,
        }
    }
}

/// A version with some parts left open (`3`, `3.x`, `3.10.*`).
#[derive(Debug, Clone, Copy)]
struct Partial {
    parts: [u64; 3],
    given: usize,
}

impl Partial {
    fn floor(self) -> Version {
        (self.parts[0], self.parts[1], self.parts[2])
    }

    /// The first version past this one's open parts (`3` -> `4.0.0`, `3.1` -> `3.2.0`).
    fn ceiling(self) -> Option<Version> {
        match self.given {
            0 => None,
            1 => Some((self.parts[0] + 1, 0, 0)),
            2 => Some((self.parts[0], self.parts[1] + 1, 0)),
            _ => Some((self.parts[0], self.parts[1], self.parts[2] + 1)),
        }
    }

    /// `<= this` with its open parts open.
    fn at_most(self) -> Option<Comparator> {
        if self.given >= 3 {
            Some(Comparator::AtMost(self.floor()))
        } else {
            self.ceiling().map(Comparator::Below)
        }
    }

    /// `= this` with its open parts open.
    fn equal(self) -> Vec<Comparator> {
        let mut out = vec![Comparator::AtLeast(self.floor())];
        out.extend(self.ceiling().map(Comparator::Below));
        out
    }
}

fn parse_version(text: &str) -> Option<Version> {
    let p = partial(text)?;
    (p.given == 3).then(|| p.floor())
}

/// `1.2.3`, `1.2`, `1`, `1.x`, `*`, `v1.2.3`; a prerelease or build suffix is ignored.
fn partial(text: &str) -> Option<Partial> {
    let text = text.trim().trim_start_matches(['v', '=']);
    let core = text.split(['-', '+']).next().unwrap_or("");
    if core.is_empty() {
        return None;
    }
    let mut parts = [0u64; 3];
    let mut given = 0;
    for (i, part) in core.split('.').enumerate() {
        if i >= 3 {
            return None;
        }
        if matches!(part, "x" | "X" | "*") {
            break;
        }
        parts[i] = part.parse().ok()?;
        given = i + 1;
    }
    Some(Partial { parts, given })
}

fn comparator(word: &str) -> Option<Vec<Comparator>> {
    let (op, rest) = ["<=", ">=", "<", ">", "=", "^", "~"]
        .iter()
        .find_map(|op| word.strip_prefix(op).map(|rest| (*op, rest)))
        .unwrap_or(("", word));
    let p = partial(rest)?;
    Some(match op {
        "" | "=" => p.equal(),
        ">=" => vec![Comparator::AtLeast(p.floor())],
        ">" => match p.ceiling() {
            Some(c) if p.given < 3 => vec![Comparator::AtLeast(c)],
            _ if p.given == 0 => vec![Comparator::Below((0, 0, 0))],
            _ => vec![Comparator::Above(p.floor())],
        },
        "<" => vec![Comparator::Below(p.floor())],
        "<=" => p.at_most().into_iter().collect(),
        "~" => {
            let upper = if p.given >= 2 {
                (p.parts[0], p.parts[1] + 1, 0)
            } else {
                (p.parts[0] + 1, 0, 0)
            };
            if p.given == 0 {
                Vec::new()
            } else {
                vec![Comparator::AtLeast(p.floor()), Comparator::Below(upper)]
            }
        }
        _ => {
            // `^`: the leftmost non-zero part stays.
            let upper = if p.given == 0 {
                return Some(Vec::new());
            } else if p.parts[0] > 0 || p.given == 1 {
                (p.parts[0] + 1, 0, 0)
            } else if p.parts[1] > 0 || p.given == 2 {
                (0, p.parts[1] + 1, 0)
            } else {
                (0, 0, p.parts[2] + 1)
            };
            vec![Comparator::AtLeast(p.floor()), Comparator::Below(upper)]
        }
    })
}

#[cfg(test)]
mod tests {
    use super::satisfies;

    #[test]
    fn selectors_match_as_the_semver_package_matches_them() {
        let yes = [
            ("3.11.2", "*"),
            ("3.11.2", "3.11.2"),
            ("3.11.2", "3.x"),
            ("3.11.2", "3"),
            ("3.11.2", "3.11"),
            ("3.11.2", "3.11.x"),
            ("3.11.2", ">=3.8 <4"),
            ("3.11.2", "^3.9"),
            ("3.11.2", "~3.11.0"),
            ("3.11.2", "1.x || 3.x"),
            ("3.11.2", "3.0 - 3.12"),
            ("3.11.2", "x"),
            ("3.11.2", "v3.11.2"),
        ];
        for (version, range) in yes {
            assert!(satisfies(version, range), "{version} satisfies {range}");
        }
        let no = [
            ("3.11.2", "3.10.0"),
            ("3.11.2", "2.x"),
            ("3.11.2", "<3.11"),
            ("3.11.2", "~3.10.0"),
            ("3.11.2", "^4"),
            ("3.11.2", ">3"),
            ("3.11.2", "latest"),
            ("3.11.2", "3.11.2.1"),
        ];
        for (version, range) in no {
            assert!(
                !satisfies(version, range),
                "{version} does not satisfy {range}"
            );
        }
    }
}
