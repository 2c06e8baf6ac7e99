//! Jobe joins a parameter's strings into a `sh -c` command line, so one string may hold
//! several words and quotes (`-c "print(\"Blah\")"`). Here they are split as `sh` splits them
//! (quotes and backslashes; no expansion, no command runs): each word becomes an argument.

/// The words of `text` as a POSIX shell splits them, quotes and escapes removed.
pub fn shell_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some(next @ ('"' | '\\' | '$' | '`')) => word.push(next),
                            Some('\n') => {}
                            Some(next) => {
                                word.push('\\');
                                word.push(next);
                            }
                            None => word.push('\\'),
                        },
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some('\n') | None => {}
                    Some(next) => word.push(next),
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::shell_words;

    #[test]
    fn words_split_as_sh_splits_them() {
        assert_eq!(shell_words("-Wall -Werror"), ["-Wall", "-Werror"]);
        assert_eq!(
            shell_words(r#"-c "print(\"Blah\")""#),
            ["-c", r#"print("Blah")"#]
        );
        assert_eq!(shell_words("'a b' c\\ d \"\""), ["a b", "c d", ""]);
        assert_eq!(shell_words("  "), Vec::<String>::new());
        assert_eq!(shell_words(r#""a\nb""#), [r"a\nb"]);
    }
}
