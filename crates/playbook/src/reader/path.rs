//! JSON paths, for naming the offending value in a refusal.

use std::fmt;

/// Where a value sits in a document, written `$.nodes[3].out[0].target`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct JsonPath {
    steps: Vec<Step>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Step {
    Key(String),
    Index(usize),
}

impl JsonPath {
    /// The document's root, `$`.
    pub fn root() -> Self {
        JsonPath::default()
    }

    /// This path, then a property.
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.steps.push(Step::Key(key.into()));
        self
    }

    /// This path, then an array position.
    pub fn index(mut self, index: usize) -> Self {
        self.steps.push(Step::Index(index));
        self
    }
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("$")?;
        for step in &self.steps {
            match step {
                Step::Key(key) if is_identifier(key) => write!(f, ".{key}")?,
                Step::Key(key) => write!(f, "[{}]", serde_json::Value::String(key.clone()))?,
                Step::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_read_as_json_paths() {
        let path = JsonPath::root().key("nodes").index(3).key("out").index(0).key("target");
        assert_eq!(path.to_string(), "$.nodes[3].out[0].target");
        assert_eq!(JsonPath::root().key("anchors").key("the-inn").to_string(), "$.anchors[\"the-inn\"]");
        assert_eq!(JsonPath::root().to_string(), "$");
    }
}
