//! The speaker table: declarations, references and partial declarations bound into one list
//! of speakers, in the order they first appear, with the default speaker settled — the
//! script's own `##default`, else the configured default, else an anonymous one.

use std::collections::HashMap;
use std::ops::Range;

use stagehand_playbook::{Speaker, SpeakerTag};

use crate::ast::{Declaration, Line, Partial, SpeakerSyntax, TagSyntax};
use crate::config::Options;
use crate::diagnostics::{Code, Sink};

/// One speaker being bound.
struct Symbol {
    name: Option<String>,
    id: Option<String>,
    default: bool,
    tags: Vec<SpeakerTag>,
    span: Range<usize>,
}

#[derive(Default)]
struct Table {
    symbols: Vec<Symbol>,
    by_name: HashMap<String, usize>,
    by_id: HashMap<String, usize>,
    default: Option<usize>,
}

/// A line's speaker waiting for the in-file default, declared later in the script.
pub(crate) const LATER_DEFAULT: usize = usize::MAX;

impl Table {
    fn create(&mut self, name: Option<String>, id: Option<String>, span: Range<usize>) -> usize {
        let index = self.symbols.len();
        if let Some(name) = &name {
            self.by_name.insert(name.clone(), index);
        }
        if let Some(id) = &id {
            self.by_id.insert(id.clone(), index);
        }
        self.symbols.push(Symbol { name, id, default: false, tags: Vec::new(), span });
        index
    }

    fn by_id(&mut self, id: &str, span: &Range<usize>) -> usize {
        match self.by_id.get(id) {
            Some(&index) => index,
            None => self.create(None, Some(id.to_owned()), span.clone()),
        }
    }

    fn declare(&mut self, name: &str, id: Option<&str>, span: &Range<usize>, sink: &mut Sink) -> usize {
        let named = self.by_name.get(name).copied();
        let with_id = id.and_then(|id| self.by_id.get(id).copied());
        match (named, with_id, id) {
            (Some(a), Some(b), _) if a == b => a,
            (Some(a), Some(b), Some(id)) => {
                if let Some(other) = self.symbols[b].name.clone() {
                    id_taken(id, &other, name, span, sink);
                } else if let Some(old) = self.symbols[a].id.clone() {
                    name_taken(name, &old, id, span, sink);
                } else {
                    sink.push(
                        Code::AmbiguousSpeakerBinding,
                        span.clone(),
                        format!(
                            "Cannot bind name '{name}' to id '@{id}': both are already in use as separate speakers, \
                             so joining them now is ambiguous. If they are one speaker, declare it ({name} @{id}: …) \
                             before either is used on its own."
                        ),
                        "ambiguous binding",
                    );
                }
                a
            }
            (Some(a), None, Some(id)) => {
                match self.symbols[a].id.clone() {
                    Some(old) if old != id => name_taken(name, &old, id, span, sink),
                    _ => {
                        self.symbols[a].id = Some(id.to_owned());
                        self.by_id.insert(id.to_owned(), a);
                    }
                }
                a
            }
            (Some(a), _, None) => a,
            (None, Some(b), Some(id)) => {
                match self.symbols[b].name.clone() {
                    Some(other) => id_taken(id, &other, name, span, sink),
                    None => {
                        self.symbols[b].name = Some(name.to_owned());
                        self.by_name.insert(name.to_owned(), b);
                    }
                }
                b
            }
            (None, _, id) => self.create(Some(name.to_owned()), id.map(str::to_owned), span.clone()),
        }
    }

    fn merge(&mut self, index: usize, tags: &[TagSyntax], sink: &mut Sink) {
        for tag in tags {
            if tag.reserved {
                if tag.name == "default" && tag.value.is_none() {
                    match self.default {
                        Some(other) if other != index => {
                            let first = self.display(other);
                            let second = self.display(index);
                            sink.push(
                                Code::TwoDefaultSpeakers,
                                tag.span.clone(),
                                format!(
                                    "Two speakers are marked ##default ('{first}' and '{second}'); only one default \
                                     speaker is allowed."
                                ),
                                "second default",
                            );
                        }
                        _ => {
                            self.default = Some(index);
                            self.symbols[index].default = true;
                        }
                    }
                } else {
                    sink.push(
                        Code::UnknownReservedTag,
                        tag.span.clone(),
                        format!(
                            "'##{0}' is not a known reserved tag. Use a custom tag ('#{0}') or one of DialogueDown's \
                             reserved tags (##default).",
                            tag.name
                        ),
                        "unknown reserved tag",
                    );
                }
                continue;
            }
            let entry = SpeakerTag { name: tag.name.clone(), value: tag.value.clone(), reserved: false };
            if !self.symbols[index].tags.contains(&entry) {
                self.symbols[index].tags.push(entry);
            }
        }
    }

    fn display(&self, index: usize) -> String {
        let symbol = &self.symbols[index];
        symbol.name.clone().or_else(|| symbol.id.as_ref().map(|id| format!("@{id}"))).unwrap_or_default()
    }
}

fn id_taken(id: &str, owner: &str, name: &str, span: &Range<usize>, sink: &mut Sink) {
    sink.push(
        Code::IdBoundToTwoNames,
        span.clone(),
        format!("id '@{id}' is already bound to speaker '{owner}', so it cannot also be bound to '{name}'. Use a different id for '{name}'."),
        "id already taken",
    );
}

fn name_taken(name: &str, old: &str, new: &str, span: &Range<usize>, sink: &mut Sink) {
    sink.push(
        Code::NameBoundToTwoIds,
        span.clone(),
        format!("Speaker '{name}' is already bound to id '@{old}', so it cannot also be bound to id '@{new}'. Give the speaker a single id."),
        "second id",
    );
}

fn is_default_tag(tag: &TagSyntax) -> bool {
    tag.reserved && tag.name == "default"
}

/// Whether a line declares the script's own default speaker (`Name ##default:`).
pub(crate) fn declares_default(line: &Line) -> bool {
    match &line.speaker {
        SpeakerSyntax::Declaration(declaration) => declaration.tags.iter().any(is_default_tag),
        SpeakerSyntax::Partial(partial) => partial.tags.iter().any(is_default_tag),
        _ => false,
    }
}

/// Binds lines' speakers one at a time, in document order, into the speaker table.
pub(crate) struct Binder {
    table: Table,
    in_file_default: bool,
    configured_default: Option<usize>,
    anonymous: Option<usize>,
}

impl Binder {
    /// A binder for a script; `in_file_default` says whether any line declares the default.
    pub fn new(options: &Options, in_file_default: bool) -> Binder {
        let mut table = Table::default();
        for speaker in &options.speakers {
            let index = table.create(Some(speaker.name.clone()), speaker.id.clone(), 0..0);
            if speaker.default && !in_file_default {
                table.default = Some(index);
                table.symbols[index].default = true;
            }
            for (name, value) in &speaker.tags {
                table.symbols[index].tags.push(SpeakerTag {
                    name: name.clone(),
                    value: value.clone(),
                    reserved: false,
                });
            }
        }
        let configured_default = table.default;
        Binder { table, in_file_default, configured_default, anonymous: None }
    }

    /// Binds one line's speaker, setting its `speaker_index` ([`LATER_DEFAULT`] for the
    /// in-file default, which [`Binder::finish`] names).
    pub fn line(&mut self, line: &mut Line, sink: &mut Sink) {
        let table = &mut self.table;
        line.speaker_index = match &line.speaker {
            SpeakerSyntax::Default if self.in_file_default => LATER_DEFAULT,
            SpeakerSyntax::Default => match self.configured_default.or(self.anonymous) {
                Some(index) => index,
                None => {
                    let index = table.symbols.len();
                    table.symbols.push(Symbol { name: None, id: None, default: true, tags: Vec::new(), span: 0..0 });
                    self.anonymous = Some(index);
                    index
                }
            },
            SpeakerSyntax::Name { name, span } => match table.by_name.get(name) {
                Some(&index) => index,
                None => table.create(Some(name.clone()), None, span.clone()),
            },
            SpeakerSyntax::Id { id, span } => table.by_id(id, span),
            SpeakerSyntax::Declaration(declaration) => {
                let Declaration { name, id, tags, span } = &**declaration;
                let index = table.declare(name, id.as_deref(), span, sink);
                table.merge(index, tags, sink);
                index
            }
            SpeakerSyntax::Partial(partial) => {
                let Partial { id, tags, span } = &**partial;
                let index = table.by_id(id, span);
                table.merge(index, tags, sink);
                index
            }
        };
    }

    /// The speaker table, and the speaker that lines bound to [`LATER_DEFAULT`] have.
    pub fn finish(self, sink: &mut Sink) -> (Vec<Speaker>, usize) {
        let table = self.table;
        let fallback = table.default.unwrap_or(0);
        for symbol in &table.symbols {
            if let (None, Some(id)) = (&symbol.name, &symbol.id) {
                sink.push(
                    Code::UnnamedSpeakerId,
                    symbol.span.clone(),
                    format!(
                        "Speaker '@{id}' is used but never declared with a name. Declare it with a name (Name @{id}: …) — \
                         a stable id must belong to a named speaker."
                    ),
                    "never named",
                );
            }
        }
        let speakers = table
            .symbols
            .into_iter()
            .map(|symbol| Speaker { id: symbol.id, name: symbol.name, default: symbol.default, tags: symbol.tags })
            .collect();
        (speakers, fallback)
    }
}
