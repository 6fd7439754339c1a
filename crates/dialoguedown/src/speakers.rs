//! The speaker table: declarations, references and partial declarations bound into one list
//! of speakers, in the order they first appear, with the default speaker settled — the
//! script's own `##default`, else the configured default, else an anonymous one.

use foldhash::HashMap;
use std::ops::Range;

use stagehand_playbook::{Speaker, SpeakerTag};

use crate::ast::{Declaration, Line, Partial, SpeakerSyntax, TagSyntax};
use crate::config::{ConfiguredSpeaker, Options};
use crate::diagnostics::{Code, Raw, Sink};

/// One speaker being bound.
struct Symbol {
    name: Option<String>,
    id: Option<String>,
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
        self.symbols.push(Symbol { name, id, tags: Vec::new(), span });
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
                             so joining them now is ambiguous. If they are the same speaker, declare it \
                             (Name @{id}: …) before either is used on its own."
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

    /// Binds a configured speaker exactly as a declaration `Name @id #tags:` in the script
    /// would be bound (C19): entries sharing a name are one speaker, and one that gives a name
    /// a second id, or an id a second name, is a conflict, reported at `span`.
    fn configure(&mut self, speaker: &ConfiguredSpeaker, span: &Range<usize>, sink: &mut Sink) -> usize {
        let index = self.declare(&speaker.name, speaker.id.as_deref(), span, sink);
        for (name, value) in &speaker.tags {
            let tags = &mut self.symbols[index].tags;
            if !tags.iter().any(|known| !known.reserved && &known.name == name && &known.value == value) {
                tags.push(SpeakerTag { name: name.clone(), value: value.clone(), reserved: false });
            }
        }
        index
    }

    /// Merges a declaration's tags into its speaker; `start` is where the declaration starts,
    /// so a second `##default` is placed on the declaration that makes it (`Bob ##default`).
    fn merge(&mut self, index: usize, tags: &[TagSyntax], start: usize, sink: &mut Sink) {
        for tag in tags {
            if tag.reserved {
                if tag.name == "default" && tag.value.is_none() {
                    match self.default {
                        Some(other) if other != index => {
                            let first = self.display(other);
                            let second = self.display(index);
                            sink.push(
                                Code::TwoDefaultSpeakers,
                                start.min(tag.span.start)..tag.span.end,
                                format!(
                                    "Two speakers are marked ##default ('{first}' and '{second}'); only one default \
                                     speaker is allowed."
                                ),
                                "second default",
                            );
                        }
                        _ => {
                            self.default = Some(index);
                        }
                    }
                } else {
                    sink.unknown_reserved_tag(&tag.name, tag.value.as_deref(), tag.span.clone());
                }
                continue;
            }
            let tags = &mut self.symbols[index].tags;
            let known = tags.iter().any(|known| {
                !known.reserved && known.name == tag.name && known.value.as_deref() == tag.value.as_deref()
            });
            if !known {
                tags.push(SpeakerTag {
                    name: tag.name.to_string(),
                    value: tag.value.as_ref().map(|value| value.to_string()),
                    reserved: false,
                });
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

/// The first configured speaker, by its place in `speakers`, that conflicts with those before
/// it (`DLG2004`, `DLG2005`), and the diagnostic the binder would report for it: what
/// [`Options::from_toml`] refuses, at that entry's line in the file.
pub(crate) fn configured_conflict(speakers: &[ConfiguredSpeaker]) -> Option<(usize, Raw)> {
    let mut table = Table::default();
    let mut sink = Sink::default();
    speakers.iter().enumerate().find_map(|(at, speaker)| {
        table.configure(speaker, &(0..0), &mut sink);
        sink.items.pop().map(|raw| (at, raw))
    })
}

/// Binds lines' speakers one at a time, in document order, into the speaker table.
pub(crate) struct Binder {
    table: Table,
    configured_default: Option<usize>,
    /// The table's length when the first line without a speaker was bound: where an anonymous
    /// default speaker goes, should the script turn out to need one.
    first_default_use: Option<usize>,
}

/// The speaker table of a whole script, and how to settle the speakers lines were bound to.
pub(crate) struct Speakers {
    /// The table, in playbook order.
    pub table: Vec<Speaker>,
    /// The default speaker: who lines bound to [`LATER_DEFAULT`] have.
    pub default: usize,
    /// Where an anonymous default speaker was put in the table, moving every speaker from
    /// there on one place along.
    pub inserted: Option<usize>,
}

impl Speakers {
    /// The final place in the table of a speaker a line was bound to.
    pub fn settle(&self, bound: usize) -> usize {
        match self.inserted {
            _ if bound == LATER_DEFAULT => self.default,
            Some(at) if bound >= at => bound + 1,
            _ => bound,
        }
    }
}

impl Binder {
    /// A binder for a script, with the speakers `options` configure first in the table, bound
    /// as the script's own declarations are (C19). They have no place in the script: a conflict
    /// among them goes into `sink` at its start, an empty span (reading a `dialogue.toml` with
    /// [`Options::from_toml`] refuses one first, at its line in that file).
    pub fn new(options: &Options, sink: &mut Sink) -> Binder {
        let mut table = Table::default();
        let mut configured_default = None;
        for speaker in &options.speakers {
            let index = table.configure(speaker, &(0..0), sink);
            if speaker.default {
                match configured_default {
                    Some(other) if other != index => {
                        let (first, second) = (table.display(other), table.display(index));
                        sink.push(
                            Code::TwoDefaultSpeakers,
                            0..0,
                            format!(
                                "Two speakers are marked ##default ('{first}' and '{second}'); only one default \
                                 speaker is allowed."
                            ),
                            "second default",
                        );
                    }
                    _ => configured_default = Some(index),
                }
            }
        }
        Binder { table, configured_default, first_default_use: None }
    }

    /// Binds one line's speaker, setting its `speaker_index` ([`LATER_DEFAULT`] for a line
    /// without one: who the default speaker is depends on the whole script, so
    /// [`Binder::finish`] settles it).
    pub fn line(&mut self, line: &mut Line, sink: &mut Sink) {
        let table = &mut self.table;
        line.speaker_index = match &line.speaker {
            SpeakerSyntax::Default => {
                self.first_default_use.get_or_insert(table.symbols.len());
                LATER_DEFAULT
            }
            SpeakerSyntax::Name { name, span } => match table.by_name.get(name.as_str()) {
                Some(&index) => index,
                None => table.create(Some(name.to_string()), None, span.clone()),
            },
            SpeakerSyntax::Id { id, span } => table.by_id(id, span),
            SpeakerSyntax::Declaration(declaration) => {
                let Declaration { name, id, tags, span } = &**declaration;
                let index = table.declare(name, id.as_deref(), span, sink);
                table.merge(index, tags, span.start, sink);
                index
            }
            SpeakerSyntax::Partial(partial) => {
                let Partial { id, tags, span } = &**partial;
                let index = table.by_id(id, span);
                table.merge(index, tags, span.start, sink);
                index
            }
        };
    }

    /// The speaker table. The default speaker is the one the script marks `##default`, else
    /// the configured default, else — when some line has no speaker — an anonymous speaker,
    /// placed in the table where the first such line stands.
    pub fn finish(self, sink: &mut Sink) -> Speakers {
        let mut table = self.table;
        if table.default.is_none() {
            if let Some(index) = self.configured_default {
                table.default = Some(index);
            }
        }
        let mut inserted = None;
        if let (None, Some(at)) = (table.default, self.first_default_use) {
            let anonymous = Symbol { name: None, id: None, tags: Vec::new(), span: 0..0 };
            table.symbols.insert(at, anonymous);
            table.default = Some(at);
            inserted = Some(at);
        }
        let default = table.default.unwrap_or(0);
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
            .enumerate()
            .map(|(index, symbol)| Speaker {
                id: symbol.id,
                name: symbol.name,
                default: table.default == Some(index),
                tags: symbol.tags,
            })
            .collect();
        Speakers { table: speakers, default, inserted }
    }
}
