//! Port binding specs: `exec:COMMAND`, `exec[VAR,…]:COMMAND` and `openai:MODEL@URL`, and the
//! `NAME=SPEC` form of `--player` (PT1).

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::exec::ExecPort;
use crate::openai::OpenAiPort;
use crate::port::Port;

/// A bad binding, with the text at fault and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BindingError {
    /// `--player` text without `NAME=`.
    #[error("`{text}`: expected NAME=PORT, e.g. writer=exec:./writer.sh")]
    MissingName {
        /// The text given.
        text: String,
    },
    /// A player name that is empty or has characters other than letters, digits, `_`, `-`, `.`.
    #[error("`{name}`: a player name is letters, digits, `_`, `-` and `.`")]
    BadName {
        /// The name given.
        name: String,
    },
    /// A spec whose kind is neither `exec` nor `openai`.
    #[error("`{text}`: expected exec:COMMAND or openai:MODEL@URL")]
    UnknownKind {
        /// The spec given.
        text: String,
    },
    /// `exec:` with no command.
    #[error("`{text}`: exec: needs a command, e.g. exec:./writer.sh")]
    EmptyCommand {
        /// The spec given.
        text: String,
    },
    /// `exec[…]:` whose list is not comma-separated variable names.
    #[error(
        "`{text}`: exec[NAME,…]: lists environment variable names (letters, digits, `_`; not starting with a digit)"
    )]
    BadEnvList {
        /// The spec given.
        text: String,
    },
    /// `openai:` not of the form `MODEL@URL`.
    #[error("`{text}`: expected openai:MODEL@URL, e.g. openai:gpt-4o-mini@https://api.openai.com/v1")]
    OpenAiForm {
        /// The spec given.
        text: String,
    },
    /// An `openai:` URL that cannot be used.
    #[error("`{url}`: {reason}")]
    BadUrl {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The same player bound twice.
    #[error("player `{name}` is bound twice")]
    DuplicatePlayer {
        /// The player.
        name: String,
    },
}

/// What a port is bound to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PortSpec {
    /// `exec[VAR,…]:COMMAND`: a shell command; the listed host variables are passed on.
    Exec {
        /// The command, run with `sh -c`.
        command: String,
        /// Host variables passed on besides the inherited allow-list.
        env: Vec<String>,
    },
    /// `openai:MODEL@URL`: a chat-completions server.
    OpenAi {
        /// The model name sent.
        model: String,
        /// The API's base URL (`http://` or `https://`, no trailing `/`).
        url: String,
    },
}

impl PortSpec {
    /// Reads a spec: `exec:COMMAND`, `exec[VAR,…]:COMMAND` or `openai:MODEL@URL`.
    pub fn parse(text: &str) -> Result<PortSpec, BindingError> {
        if let Some(rest) = text.strip_prefix("exec") {
            let (env, command) = if let Some(command) = rest.strip_prefix(':') {
                (Vec::new(), command)
            } else if let Some(list) = rest.strip_prefix('[') {
                let bad = || BindingError::BadEnvList { text: text.to_owned() };
                let (names, command) = list.split_once("]:").ok_or_else(bad)?;
                let env: Vec<String> = names.split(',').map(|n| n.trim().to_owned()).collect();
                if !env.iter().all(|n| is_env_name(n)) {
                    return Err(bad());
                }
                (env, command)
            } else {
                return Err(BindingError::UnknownKind { text: text.to_owned() });
            };
            if command.trim().is_empty() {
                return Err(BindingError::EmptyCommand { text: text.to_owned() });
            }
            return Ok(PortSpec::Exec { command: command.to_owned(), env });
        }
        if let Some(rest) = text.strip_prefix("openai:") {
            let form = || BindingError::OpenAiForm { text: text.to_owned() };
            // The last `@` before a scheme: model names may hold `@` (`@cf/…`), URLs may not.
            let at = ["@https://", "@http://"].iter().filter_map(|m| rest.rfind(m)).max().ok_or_else(form)?;
            let (model, url) = (&rest[..at], &rest[at + 1..]);
            if model.is_empty() || model.chars().any(char::is_whitespace) {
                return Err(form());
            }
            return Ok(PortSpec::OpenAi { model: model.to_owned(), url: check_url(url)? });
        }
        Err(BindingError::UnknownKind { text: text.to_owned() })
    }

    /// Opens the port: an [`ExecPort`] in `cwd` (the host's own when `None`), or an
    /// [`OpenAiPort`] with its key from the environment.
    pub fn open(&self, cwd: Option<&Path>) -> Box<dyn Port> {
        match self {
            PortSpec::Exec { command, env } => {
                let mut port = ExecPort::new(command.clone()).with_env(env.iter().cloned());
                if let Some(cwd) = cwd {
                    port = port.with_cwd(cwd);
                }
                Box::new(port)
            }
            PortSpec::OpenAi { model, url } => Box::new(OpenAiPort::from_env(model.clone(), url)),
        }
    }
}

impl fmt::Display for PortSpec {
    /// The spec's text, which [`PortSpec::parse`] reads back to the same spec.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PortSpec::Exec { command, env } if env.is_empty() => write!(f, "exec:{command}"),
            PortSpec::Exec { command, env } => write!(f, "exec[{}]:{command}", env.join(",")),
            PortSpec::OpenAi { model, url } => write!(f, "openai:{model}@{url}"),
        }
    }
}

impl FromStr for PortSpec {
    type Err = BindingError;

    fn from_str(text: &str) -> Result<PortSpec, BindingError> {
        PortSpec::parse(text)
    }
}

impl Serialize for PortSpec {
    /// As its text (parked records keep the lineup as the person typed it).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for PortSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<PortSpec, D::Error> {
        let text = String::deserialize(deserializer)?;
        PortSpec::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// `NAME=SPEC`: one `--player` flag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Binding {
    /// The player's name.
    pub name: String,
    /// What it is bound to.
    pub spec: PortSpec,
}

impl Binding {
    /// Reads `NAME=SPEC`. The name ends at the first `=`.
    pub fn parse(text: &str) -> Result<Binding, BindingError> {
        let (name, spec) = text.split_once('=').ok_or_else(|| BindingError::MissingName { text: text.to_owned() })?;
        if !is_player_name(name) {
            return Err(BindingError::BadName { name: name.to_owned() });
        }
        Ok(Binding { name: name.to_owned(), spec: PortSpec::parse(spec)? })
    }
}

impl fmt::Display for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.name, self.spec)
    }
}

impl FromStr for Binding {
    type Err = BindingError;

    fn from_str(text: &str) -> Result<Binding, BindingError> {
        Binding::parse(text)
    }
}

fn is_player_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Checks an `openai:` base URL and drops trailing slashes.
fn check_url(url: &str) -> Result<String, BindingError> {
    let bad = |reason| BindingError::BadUrl { url: url.to_owned(), reason };
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or_else(|| bad("the URL must start with http:// or https://"))?;
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(bad("the URL has spaces or control characters"));
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.is_empty() {
        return Err(bad("the URL has no host"));
    }
    if authority.contains('@') {
        return Err(bad("credentials do not go in the URL: set STAGEHAND_OPENAI_API_KEY instead"));
    }
    if rest.contains(['?', '#']) {
        return Err(bad("the base URL takes no query or fragment (…/chat/completions is added to it)"));
    }
    Ok(url.trim_end_matches('/').to_owned())
}
