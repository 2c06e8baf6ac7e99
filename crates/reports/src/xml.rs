//! A thin streaming layer over quick-xml shared by the XML parsers.
//!
//! The parsers walk the document event by event and collect only the small subtrees
//! they care about (one `<testcase>`, one `<error>`) into an [`Element`], so memory
//! stays proportional to one record, not the whole report.

use crate::ReportError;
use quick_xml::XmlVersion;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

/// One element with its attributes, text and child elements.
#[derive(Debug, Default)]
pub(crate) struct Element {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Element>,
    pub text: String,
}

impl Element {
    /// The value of attribute `key`.
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The first child named `name`.
    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    /// Every child named `name`.
    pub fn children_named<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s Element> + 's {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// The text of the first child named `name`.
    pub fn child_text(&self, name: &str) -> Option<&str> {
        self.child(name).map(|c| c.text.as_str())
    }
}

/// What the stream yields.
pub(crate) enum Item {
    /// An element opened; `empty` when it was `<x/>` (no matching close follows).
    Open { element: Element, empty: bool },
    /// An element closed.
    Close,
    /// Character data (entities resolved, CDATA included).
    Text(String),
    /// The document ended with every element closed.
    End,
}

/// Elements may nest this deep; the tools' reports nest fewer than ten levels, and a deeper
/// document would make [`Stream::subtree`] recurse without bound.
pub(crate) const MAX_DEPTH: usize = 128;

/// An event stream that knows its depth and turns quick-xml errors into [`ReportError`].
pub(crate) struct Stream<'a> {
    reader: Reader<&'a [u8]>,
    tool: &'static str,
    open: Vec<String>,
    seen_root: bool,
}

impl<'a> Stream<'a> {
    /// A stream over `xml`, written by `tool`.
    pub fn new(xml: &'a str, tool: &'static str) -> Self {
        let mut reader = Reader::from_str(xml);
        reader.config_mut().check_end_names = true;
        Stream {
            reader,
            tool,
            open: Vec::new(),
            seen_root: false,
        }
    }

    /// How many elements are open.
    pub fn depth(&self) -> usize {
        self.open.len()
    }

    fn xml_error(&self, source: quick_xml::Error) -> ReportError {
        ReportError::Xml {
            tool: self.tool,
            position: self.reader.error_position(),
            source,
        }
    }

    fn element(&self, start: &BytesStart<'_>) -> Result<Element, ReportError> {
        let name = start.name().as_ref().to_owned();
        let mut attrs = Vec::new();
        for attr in start.attributes() {
            let attr = attr.map_err(|e| self.xml_error(e.into()))?;
            let key = attr.key.as_ref().to_owned();
            let value = attr
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|e| self.xml_error(e))?
                .into_owned();
            attrs.push((key, value));
        }
        Ok(Element {
            name,
            attrs,
            children: Vec::new(),
            text: String::new(),
        })
    }

    /// The next item of the document.
    pub fn next_item(&mut self) -> Result<Item, ReportError> {
        loop {
            let event = self.reader.read_event().map_err(|e| self.xml_error(e))?;
            match event {
                Event::Start(start) => {
                    let element = self.element(&start)?;
                    if self.open.len() >= MAX_DEPTH {
                        return Err(ReportError::TooDeep {
                            tool: self.tool,
                            element: element.name,
                            limit: MAX_DEPTH,
                        });
                    }
                    self.open.push(element.name.clone());
                    self.seen_root = true;
                    return Ok(Item::Open {
                        element,
                        empty: false,
                    });
                }
                Event::Empty(start) => {
                    let element = self.element(&start)?;
                    self.seen_root = true;
                    return Ok(Item::Open {
                        element,
                        empty: true,
                    });
                }
                Event::End(_) => {
                    self.open.pop();
                    return Ok(Item::Close);
                }
                Event::Text(text) => return Ok(Item::Text(text.xml10_content().into_owned())),
                Event::CData(data) => return Ok(Item::Text(data.xml10_content().into_owned())),
                Event::GeneralRef(reference) => {
                    let resolved = match reference
                        .resolve_char_ref()
                        .map_err(|e| self.xml_error(e))?
                    {
                        Some(c) => c.to_string(),
                        None => {
                            let name = reference.xml10_content();
                            match resolve_predefined_entity(&name) {
                                Some(s) => s.to_owned(),
                                None => {
                                    return Err(ReportError::BadValue {
                                        tool: self.tool,
                                        what: "entity reference",
                                        value: format!("&{name};"),
                                    });
                                }
                            }
                        }
                    };
                    return Ok(Item::Text(resolved));
                }
                Event::Eof => {
                    if let Some(element) = self.open.last() {
                        return Err(ReportError::Truncated {
                            tool: self.tool,
                            element: element.clone(),
                        });
                    }
                    if !self.seen_root {
                        return Err(ReportError::Truncated {
                            tool: self.tool,
                            element: "document".into(),
                        });
                    }
                    return Ok(Item::End);
                }
                Event::Decl(_) | Event::PI(_) | Event::DocType(_) | Event::Comment(_) => {}
            }
        }
    }

    /// Reads the rest of the element `element` (just yielded by [`Self::next_item`]),
    /// children and text included.
    pub fn subtree(&mut self, mut element: Element, empty: bool) -> Result<Element, ReportError> {
        if empty {
            return Ok(element);
        }
        loop {
            match self.next_item()? {
                Item::Open {
                    element: child,
                    empty,
                } => {
                    let child = self.subtree(child, empty)?;
                    element.children.push(child);
                }
                Item::Text(text) => element.text.push_str(&text),
                Item::Close => return Ok(element),
                Item::End => {
                    return Err(ReportError::Truncated {
                        tool: self.tool,
                        element: element.name,
                    });
                }
            }
        }
    }

    /// Reads to the end, handing `each` every element named `name` whole (children and text
    /// included), in document order; everything else is skipped.
    pub fn each_subtree(
        &mut self,
        name: &str,
        mut each: impl FnMut(Element) -> Result<(), ReportError>,
    ) -> Result<(), ReportError> {
        loop {
            match self.next_item()? {
                Item::Open { element, empty } if element.name == name => {
                    each(self.subtree(element, empty)?)?;
                }
                Item::Open { .. } | Item::Close | Item::Text(_) => {}
                Item::End => return Ok(()),
            }
        }
    }

    /// Reads the root element's start and checks its name.
    pub fn expect_root(&mut self, expected: &'static str) -> Result<Element, ReportError> {
        loop {
            match self.next_item() {
                Ok(Item::Open { element, .. }) => {
                    if element.name == expected {
                        return Ok(element);
                    }
                    return Err(ReportError::WrongRoot {
                        tool: self.tool,
                        expected,
                        found: format!("<{}>", element.name),
                    });
                }
                Ok(Item::Text(text)) if text.trim().is_empty() => {}
                Ok(Item::Text(_)) => {
                    return Err(ReportError::WrongRoot {
                        tool: self.tool,
                        expected,
                        found: "text".into(),
                    });
                }
                Ok(Item::Close | Item::End) | Err(ReportError::Truncated { .. }) => {
                    return Err(ReportError::WrongRoot {
                        tool: self.tool,
                        expected,
                        found: "no element".into(),
                    });
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// Parses `value` as a number, or reports it as a bad `what`.
pub(crate) fn number<T: std::str::FromStr>(
    value: &str,
    tool: &'static str,
    what: &'static str,
) -> Result<T, ReportError> {
    value.trim().parse().map_err(|_| ReportError::BadValue {
        tool,
        what,
        value: value.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(xml: &str) -> Result<Element, ReportError> {
        let mut s = Stream::new(xml, "test");
        let (element, empty) = match s.next_item()? {
            Item::Open { element, empty } => (element, empty),
            _ => panic!("no root"),
        };
        s.subtree(element, empty)
    }

    #[test]
    fn entities_and_cdata_become_text() {
        let e = root("<a x=\"1&#x0A;&lt;2\">p &amp; q<![CDATA[<r>]]></a>").unwrap();
        assert_eq!(e.attr("x"), Some("1\n<2"));
        assert_eq!(e.text, "p & q<r>");
    }

    #[test]
    fn unclosed_root_is_truncated() {
        let err = root("<a><b>text</b>").unwrap_err();
        assert!(
            matches!(err, ReportError::Truncated { ref element, .. } if element == "a"),
            "{err}"
        );
    }

    #[test]
    fn mismatched_end_is_malformed() {
        let err = root("<a><b></a>").unwrap_err();
        assert!(matches!(err, ReportError::Xml { .. }), "{err}");
    }

    #[test]
    fn nesting_beyond_the_limit_is_an_error_not_a_stack_overflow() {
        let deep = format!("{}{}", "<a>".repeat(100_000), "</a>".repeat(100_000));
        let err = root(&deep).unwrap_err();
        assert!(matches!(err, ReportError::TooDeep { .. }), "{err}");
        let fine = format!("{}{}", "<a>".repeat(20), "</a>".repeat(20));
        assert!(root(&fine).is_ok());
    }

    #[test]
    fn unknown_entity_is_a_bad_value() {
        let err = root("<a>&nope;</a>").unwrap_err();
        assert!(matches!(err, ReportError::BadValue { .. }), "{err}");
    }

    #[test]
    fn wrong_or_missing_root_is_reported() {
        let mut s = Stream::new("<b/>", "test");
        assert!(matches!(
            s.expect_root("a"),
            Err(ReportError::WrongRoot { .. })
        ));
        let mut s = Stream::new("", "test");
        assert!(matches!(
            s.expect_root("a"),
            Err(ReportError::WrongRoot { .. })
        ));
        let mut s = Stream::new("   ", "test");
        assert!(matches!(
            s.expect_root("a"),
            Err(ReportError::WrongRoot { .. })
        ));
    }
}
