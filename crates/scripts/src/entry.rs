//! Finding the class a JVM program runs as in its sources, where its file name does not say.
//!
//! Java's `javac` makes a public class live in a file of its name, so the first file's path is
//! its main class (`language::class_name_of`). Scala has no such rule: `object Main extends
//! App` may be in `main.scala` or `solution.scala`, and scalac names the class after the
//! object. So the main class of a Scala program is the object that defines `main` or extends
//! `App` (docs/languages.md, "Entry points").

/// How a profile's `{main_class}` is found when the request names no `entry_point`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MainClassRule {
    /// The first file's path as a class name (`cn/org/Main.java` is `cn.org.Main`).
    #[default]
    FirstFile,
    /// The first top-level Scala object (in file order) that defines `main` or extends
    /// `App`, qualified by its file's `package`; else the first file's path.
    ScalaObject,
}

/// The main object of Scala `sources` (`(name, text)` in order): the first top-level object
/// defining `def main` or extending `App`, with its file's package (`pkg.Main`); or a Scala 3
/// `@main def name`'s `name`. `None` when no source has one.
pub fn scala_main_object<N: AsRef<str>, T: AsRef<str>>(sources: &[(N, T)]) -> Option<String> {
    sources
        .iter()
        .filter(|(name, _)| name.as_ref().ends_with(".scala"))
        .find_map(|(_, text)| main_object_of(&tokens(&code_only(text.as_ref()))))
}

/// The main object of one file's tokens.
fn main_object_of(tokens: &[&str]) -> Option<String> {
    let mut package: Vec<&str> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i] {
            "{" => depth += 1,
            "}" => depth = depth.saturating_sub(1),
            // `package a.b` (or chained `package a` / `package b`) before the definitions.
            "package" if depth == 0 && tokens.get(i + 1).is_some_and(|w| *w != "object") => {
                let mut j = i + 1;
                while let Some(word) = tokens.get(j).filter(|w| is_word(w)) {
                    package.push(word);
                    if tokens.get(j + 1) != Some(&".") {
                        break;
                    }
                    j += 2;
                }
                i = j + 1;
                continue;
            }
            "@" if depth == 0 && tokens.get(i + 1) == Some(&"main") => {
                if let (Some(&"def"), Some(name)) = (tokens.get(i + 2), tokens.get(i + 3)) {
                    return Some(qualified(&package, name));
                }
            }
            "object" if depth == 0 => {
                if let Some(name) = tokens.get(i + 1).filter(|w| is_word(w))
                    && is_main_object(&tokens[i + 2..])
                {
                    return Some(qualified(&package, name));
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whether the object whose tokens follow its name extends `App` (before its body) or
/// defines `main` directly in its body.
fn is_main_object(after_name: &[&str]) -> bool {
    let body = after_name.iter().position(|t| *t == "{");
    let header = &after_name[..body.unwrap_or(after_name.len())];
    // The header ends at the body, or at the next definition when the object has none.
    let header_end = header
        .iter()
        .position(|t| matches!(*t, "object" | "class" | "trait" | "def" | "val" | "package"))
        .unwrap_or(header.len());
    let header = &header[..header_end];
    let parent = |j: usize| matches!(header.get(j), Some(&("extends" | "with")));
    let extends_app = (0..header.len()).any(|j| {
        header[j] == "App"
            && j > 0
            && (parent(j - 1)
                || (j >= 3 && header[j - 1] == "." && header[j - 2] == "scala" && parent(j - 3)))
    });
    if extends_app {
        return true;
    }
    let Some(open) = body.filter(|&b| b == header.len()) else {
        return false;
    };
    let mut depth = 0usize;
    for (k, token) in after_name[open..].iter().enumerate() {
        match *token {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth == 0 {
                    return false;
                }
            }
            "def" if depth == 1 && after_name.get(open + k + 1) == Some(&"main") => {
                return true;
            }
            _ => {}
        }
    }
    false
}

fn qualified(package: &[&str], name: &str) -> String {
    let mut parts: Vec<&str> = package.to_vec();
    parts.push(name);
    parts.join(".")
}

fn is_word(token: &str) -> bool {
    token
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '`')
}

/// Words (identifiers, keywords, backquoted names without their quotes) and one-character
/// symbols, in order.
fn tokens(code: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() {
            rest = &rest[c.len_utf8()..];
        } else if c == '`' {
            let end = rest[1..].find('`').map_or(rest.len(), |e| e + 1);
            out.push(&rest[1..end]);
            rest = rest.get(end + 1..).unwrap_or("");
        } else if c.is_alphanumeric() || c == '_' || c == '$' {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .unwrap_or(rest.len());
            out.push(&rest[..end]);
            rest = &rest[end..];
        } else {
            out.push(&rest[..c.len_utf8()]);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// `code` with its comments (`//`, nested `/* */`), string literals (`"..."`, `"""..."""`) and
/// character literals blanked out, so that a word in them is never taken for code.
fn code_only(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut chars = code.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let rest = &code[at..];
        if rest.starts_with("//") {
            while chars.peek().is_some_and(|&(_, c)| c != '\n') {
                chars.next();
            }
            out.push(' ');
        } else if rest.starts_with("/*") {
            chars.next();
            let mut depth = 1;
            while depth > 0 {
                match chars.next() {
                    Some((i, '/')) if code[i..].starts_with("/*") => {
                        chars.next();
                        depth += 1;
                    }
                    Some((i, '*')) if code[i..].starts_with("*/") => {
                        chars.next();
                        depth -= 1;
                    }
                    Some(_) => {}
                    None => break,
                }
            }
            out.push(' ');
        } else if rest.starts_with("\"\"\"") {
            chars.next();
            chars.next();
            while let Some((i, _)) = chars.next() {
                if code[i..].starts_with("\"\"\"") {
                    chars.next();
                    chars.next();
                    break;
                }
            }
            out.push(' ');
        } else if c == '"' {
            while let Some((_, c)) = chars.next() {
                match c {
                    '\\' => {
                        chars.next();
                    }
                    '"' | '\n' => break,
                    _ => {}
                }
            }
            out.push(' ');
        } else if c == '\'' && (rest.get(2..3) == Some("'") || rest.starts_with("'\\")) {
            // A character literal ('{', '\n'); a symbol literal ('sym) is left as it is.
            let close = rest[1..].find('\'').map_or(rest.len(), |e| e + 1);
            for _ in 0..rest[..close].chars().count() {
                chars.next();
            }
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn main_of(files: &[(&str, &str)]) -> Option<String> {
        scala_main_object(files)
    }

    /// `object Main extends App` in `main.scala` failed with "Could not find or
    /// load main class main": the main class was taken from the file name.
    #[test]
    fn the_main_class_of_a_scala_program_is_its_main_object_not_its_file_name() {
        let app = "object Main extends App {\n  println(1)\n}\n";
        assert_eq!(main_of(&[("main.scala", app)]).as_deref(), Some("Main"));
        let with_main = "import scala.io.StdIn\n\nobject Solution {\n  def main(args: Array[String]): Unit = {\n    println(StdIn.readLine())\n  }\n}\n";
        assert_eq!(
            main_of(&[("main.scala", with_main)]).as_deref(),
            Some("Solution")
        );
        let app_with = "object A extends scala.App with Serializable { println(2) }\n";
        assert_eq!(main_of(&[("a.scala", app_with)]).as_deref(), Some("A"));
    }

    #[test]
    fn a_scala_main_object_is_found_among_helpers_and_files_with_its_package() {
        let helper = "case class P(x: Int)\nobject Helper {\n  def add(a: Int, b: Int) = a + b\n  object Inner { def main(a: Array[String]) = () }\n}\n";
        let main = "package contest.a\n\nobject Runner {\n  def main(args: Array[String]): Unit = println(Helper.add(1, 2))\n}\n";
        assert_eq!(
            main_of(&[("helper.scala", helper), ("runner.scala", main)]).as_deref(),
            Some("contest.a.Runner")
        );
        let chained = "package contest\npackage b\nobject M extends App\n";
        assert_eq!(
            main_of(&[("m.scala", chained)]).as_deref(),
            Some("contest.b.M")
        );
        let scala3 = "@main def solve(): Unit = println(1)\n";
        assert_eq!(main_of(&[("s.scala", scala3)]).as_deref(), Some("solve"));
    }

    #[test]
    fn words_in_comments_strings_and_other_members_are_not_a_main_object() {
        let decoys = "// object Fake extends App\n/* object Also { def main(a: Array[String]) = () } /* nested */ */\nobject Text {\n  val s = \"object Str extends App { def main\"\n  val c = '{'\n  def helper = { def main = 1; main }\n}\nobject Real {\n  def main(args: Array[String]): Unit = ()\n}\n";
        assert_eq!(main_of(&[("x.scala", decoys)]).as_deref(), Some("Real"));
        assert_eq!(
            main_of(&[("x.scala", "class App2 { def main() = 1 }\n")]),
            None
        );
        assert_eq!(main_of(&[("x.java", "object J extends App\n")]), None);
    }
}
