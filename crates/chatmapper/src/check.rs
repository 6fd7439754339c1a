//! Checks for `stagehand check`: what is wrong or suspicious in a project, each finding naming the
//! conversation and entry it concerns.
//!
//! - links to a conversation or entry that does not exist;
//! - entries and conversations whose IDs an earlier one already has (links never reach them);
//! - entries no conversation's START entry reaches (following every link, across conversations);
//! - conditions and scripts (and the project script) that do not compile as Lua 5.1;
//! - variables read (`Variable["x"]`, `Variable['x']`, `Variable.x`, `[var=x]`) but never declared:
//!   not a user variable, never assigned by any script, and asked by no input prompt (`[?x]`);
//! - rings of groups that expand into each other (play refuses them as a possible loop);
//! - rings of Passthrough entries that, their conditions false, stand in for each other (the same);
//! - player lines (the player actor's entries with Dialogue Text and no Menu Text) at a branch,
//!   which play by themselves unless the engine's `player_lines_as_choices` option is on.
//! - globals a condition or script reads that nothing defines (see `globals` for how reads are
//!   found, and the limits);
//! - keys of `Actor`, `Item` and `Location` that no asset of the project has and no script
//!   assigns (`Actor["Ghost"]`, or `Actor["Kick Hart"]` for the key `Kick_Hart`): nil in play (M38);
//! - markup written in another case (`[VAR=x]`, `[EM1]`), which is shown as text (M28).

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;

use stagehand_lua::{ChunkKind, Limits, Sandbox, ScriptHost};

use crate::coerce::lua_key;
use crate::globals;
use crate::markup;
use crate::model::{Id, Project};

/// What a finding is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FindingKind {
    /// A link leads to a conversation the project does not have.
    MissingConversation {
        /// The conversation the link names.
        conversation: Id,
    },
    /// A link leads to an entry its conversation does not have.
    MissingEntry {
        /// The conversation the link names.
        conversation: Id,
        /// The entry the link names.
        entry: Id,
    },
    /// No START entry reaches the entry.
    Unreachable,
    /// The condition does not compile as a Lua expression.
    ConditionDoesNotCompile {
        /// Lua's message.
        message: String,
    },
    /// The script does not compile as Lua statements.
    ScriptDoesNotCompile {
        /// Lua's message.
        message: String,
    },
    /// A variable is read but never declared nor assigned.
    UndeclaredVariable {
        /// The variable's key as read.
        name: String,
    },
    /// Groups link to each other in a ring (reported at the first of them, in document order):
    /// expanding them never ends, so play refuses the offered set as a possible loop (M10).
    GroupRing {
        /// The groups of the ring, `(conversation, entry)`, in document order.
        members: Vec<(Id, Id)>,
    },
    /// Passthrough entries with conditions link to each other in a ring (reported at the first of
    /// them, in document order): when all their conditions are false, each puts the next in its
    /// place and the offered set never closes, so play refuses it as a possible loop (M18).
    PassthroughRing {
        /// The entries of the ring, `(conversation, entry)`, in document order.
        members: Vec<(Id, Id)>,
    },
    /// An entry of the player actor with Dialogue Text and no Menu Text stands among other
    /// candidates: by the page's rule it plays by itself and never forms a menu; the option
    /// `--player-lines-as-choices` makes such entries choices (M11).
    PlayerLineWithoutMenuText,
    /// Another entry of the same conversation, earlier in the document, has this entry's ID: links
    /// reach only that one, so this entry is out of reach and shares its SimStatus.
    DuplicateEntry,
    /// Another conversation, earlier in the document, has this conversation's ID: links and
    /// `start` by ID reach only that one, and the two share `Conversation[id]` in Lua.
    DuplicateConversation,
    /// A condition or script reads a global that neither the project's scripts assign nor the
    /// ChatMapper Lua surface (or the sandbox's libraries) defines: a function or table the game
    /// is expected to supply (`play --world FILE.lua` can).
    UndefinedGlobal {
        /// The global's name.
        name: String,
    },
    /// Dialogue Text or Menu Text holds what would be markup in lower case but is not as written
    /// (`[VAR=gold]`, `[Em1]`): tokens are matched as FORMAT.md spells them, so it is shown as
    /// text (decision M28).
    MarkupInAnotherCase {
        /// The bracketed text as written.
        written: String,
        /// The markup it would be (its keyword in lower case, a variable's name as written).
        meant: String,
    },
    /// A condition or script reads `Actor[key]`, `Item[key]` or `Location[key]` for a key that no
    /// asset of the project has and no script assigns: it is nil in play, and a status or
    /// relationship written on it fails (decisions M37, M38).
    UnknownAsset {
        /// The table: `Actor`, `Item` or `Location`.
        table: String,
        /// The key as written.
        name: String,
        /// The key of the asset the name names, when the key is an asset's name written with its
        /// spaces (`Kick Hart` for `Kick_Hart`).
        meant: Option<String>,
    },
    /// Menu Text holds an input prompt (`[?Name]`, `[var=?Name]`): a label cannot ask, so it is
    /// stripped from the label and never asked (decision M33).
    PromptInMenuText {
        /// The variable the prompt names.
        name: String,
    },
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The conversation it concerns (`None` for the project script).
    pub conversation: Option<Id>,
    /// The entry it concerns (`None` for the project script).
    pub entry: Option<Id>,
    /// What it is.
    pub kind: FindingKind,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.conversation, self.entry) {
            (Some(c), Some(e)) => write!(f, "conversation {c}, entry {e}: ")?,
            (Some(c), None) => write!(f, "conversation {c}: ")?,
            _ => f.write_str("project script: ")?,
        }
        match &self.kind {
            FindingKind::MissingConversation { conversation } => {
                write!(f, "a link leads to conversation {conversation}, which does not exist")
            }
            FindingKind::MissingEntry { conversation, entry } => {
                write!(f, "a link leads to entry {entry} of conversation {conversation}, which does not exist")
            }
            FindingKind::Unreachable => f.write_str("no START entry reaches this entry"),
            FindingKind::ConditionDoesNotCompile { message } => write!(f, "the condition does not compile: {message}"),
            FindingKind::ScriptDoesNotCompile { message } => write!(f, "the script does not compile: {message}"),
            FindingKind::UndeclaredVariable { name } => {
                write!(f, "reads Variable[{name:?}], which is neither a user variable nor assigned by any script or input prompt")
            }
            FindingKind::GroupRing { members } => {
                let members: Vec<String> =
                    members.iter().map(|(c, e)| format!("entry {e} of conversation {c}")).collect();
                write!(
                    f,
                    "the groups {} expand into each other (a ring of groups): play stops there as a possible loop",
                    members.join(", ")
                )
            }
            FindingKind::PassthroughRing { members } => {
                let members: Vec<String> =
                    members.iter().map(|(c, e)| format!("entry {e} of conversation {c}")).collect();
                write!(
                    f,
                    "the Passthrough entries {} lead to each other (a ring of Passthrough entries): when their \
                     conditions are all false, play stops there as a possible loop",
                    members.join(", ")
                )
            }
            FindingKind::PlayerLineWithoutMenuText => f.write_str(
                "the player actor's line has no Menu Text at a branch, so it plays by itself and never forms a \
                 menu; if it is meant as a choice, give it Menu Text or play with --player-lines-as-choices",
            ),
            FindingKind::DuplicateEntry => write!(
                f,
                "another entry of this conversation has ID {}, and links reach only the first of them: this one \
                 is out of reach and shares its SimStatus",
                self.entry.unwrap_or_default()
            ),
            FindingKind::DuplicateConversation => write!(
                f,
                "another conversation has ID {}, and links and start by ID reach only the first of them; the two \
                 share Conversation[{0}] in Lua",
                self.conversation.unwrap_or_default()
            ),
            FindingKind::UndefinedGlobal { name } => write!(
                f,
                "reads the global {name}, which neither the project's scripts nor ChatMapper's Lua defines (a game's own? give it with play --world FILE.lua)"
            ),
            FindingKind::MarkupInAnotherCase { written, meant } => write!(
                f,
                "{written} is not markup (markup is written in lower case), so it is shown as written; write \
                 {meant} if it is meant as markup"
            ),
            FindingKind::UnknownAsset { table, name, meant } => {
                let what = match table.as_str() {
                    "Item" => "item",
                    "Location" => "location",
                    _ => "actor",
                };
                match meant {
                    Some(key) => write!(
                        f,
                        "reads {table}[{name:?}], which is no {what} of the project (the key of the one named {name:?} \
                         is {key})"
                    ),
                    None => write!(
                        f,
                        "reads {table}[{name:?}], which is no {what} of the project and no script assigns, so it is nil"
                    ),
                }
            }
            FindingKind::PromptInMenuText { name } => write!(
                f,
                "its Menu Text holds the input prompt [?{name}], which a menu label cannot ask: it is left out of the \
                 label and never asked (a prompt asks from Dialogue Text)"
            ),
        }
    }
}

/// Checks a project; findings come in document order, by kind within an entry.
pub fn check(project: &Project) -> Vec<Finding> {
    let mut findings = Vec::new();
    // Compiling is bounded by the project's own text and runs nothing: no memory cap, so a big
    // project's chunks never fail for want of room.
    let mut host = Sandbox::new(Limits { memory_bytes: 0, ..Limits::default() }, 0).ok();
    let mut declared: HashSet<String> = project.user_variables.iter().map(|v| lua_key(v.name())).collect();
    for conversation in &project.conversations {
        for entry in &conversation.entries {
            declared.extend(assigned(&entry.user_script));
            // An input prompt stores its answer in Variable[Name] (the page; M7).
            declared.extend(markup::prompt_names(entry.dialogue_text()).into_iter().map(lua_key));
        }
    }
    declared.extend(assigned(&project.user_script));
    let assets = crate::asset_keys::AssetKeys::new(project);
    let mut defined: HashSet<String> = globals::predefined().map(str::to_owned).collect();
    for source in project.conversations.iter().flat_map(|c| &c.entries).map(|e| &e.user_script) {
        defined.extend(globals::globals(source).assigned);
    }
    defined.extend(globals::globals(&project.user_script).assigned);
    for name in globals::globals(&project.user_script).reads.into_iter().filter(|n| !defined.contains(n)) {
        findings.push(Finding { conversation: None, entry: None, kind: FindingKind::UndefinedGlobal { name } });
    }
    if let Some(host) = host.as_mut() {
        if !project.user_script.trim().is_empty() {
            if let Err(error) = host.compile("project script", &project.user_script, ChunkKind::Script) {
                findings.push(Finding {
                    conversation: None,
                    entry: None,
                    kind: FindingKind::ScriptDoesNotCompile { message: error.message },
                });
            }
        }
    }
    let reached = reachable(project);
    let mut rings: HashMap<(Id, Id), Vec<(Id, Id)>> =
        crate::branches::group_rings(project).into_iter().map(|ring| (ring[0], ring)).collect();
    let mut passthrough_rings: HashMap<(Id, Id), Vec<(Id, Id)>> =
        crate::branches::passthrough_rings(project).into_iter().map(|ring| (ring[0], ring)).collect();
    let player_lines: HashSet<(Id, Id)> = crate::branches::player_lines_at_branches(project).into_iter().collect();
    let conversations: HashMap<Id, HashSet<Id>> =
        project.conversations.iter().map(|c| (c.id, c.entries.iter().map(|e| e.id).collect())).collect();
    let mut conversation_ids = HashSet::new();
    for conversation in &project.conversations {
        if !conversation_ids.insert(conversation.id) {
            findings.push(Finding {
                conversation: Some(conversation.id),
                entry: None,
                kind: FindingKind::DuplicateConversation,
            });
        }
        let mut entry_ids = HashSet::new();
        for entry in &conversation.entries {
            let here = |kind| Finding { conversation: Some(conversation.id), entry: Some(entry.id), kind };
            if !entry_ids.insert(entry.id) {
                findings.push(here(FindingKind::DuplicateEntry));
            }
            for link in &entry.links {
                match conversations.get(&link.destination_conversation) {
                    None => findings
                        .push(here(FindingKind::MissingConversation { conversation: link.destination_conversation })),
                    Some(entries) if !entries.contains(&link.destination_entry) => {
                        findings.push(here(FindingKind::MissingEntry {
                            conversation: link.destination_conversation,
                            entry: link.destination_entry,
                        }))
                    }
                    Some(_) => {}
                }
            }
            if !reached.contains(&(conversation.id, entry.id)) {
                findings.push(here(FindingKind::Unreachable));
            }
            // The chunks that compile, whose globals are then read (a chunk that does not is
            // reported once, as that).
            let mut compiled = Vec::new();
            if let Some(host) = host.as_mut() {
                let name = format!("conversation {} entry {}", conversation.id, entry.id);
                if !entry.conditions.trim().is_empty() {
                    match host.compile(&name, &entry.conditions, ChunkKind::Condition) {
                        Err(error) => {
                            findings.push(here(FindingKind::ConditionDoesNotCompile { message: error.message }))
                        }
                        Ok(_) => compiled.push(&entry.conditions),
                    }
                }
                if !entry.user_script.trim().is_empty() {
                    match host.compile(&name, &entry.user_script, ChunkKind::Script) {
                        Err(error) => findings.push(here(FindingKind::ScriptDoesNotCompile { message: error.message })),
                        Ok(_) => compiled.push(&entry.user_script),
                    }
                }
            }
            let mut reads = Vec::new();
            for source in [&entry.conditions, &entry.user_script] {
                reads.extend(variable_reads(source));
            }
            for text in [entry.dialogue_text(), entry.menu_text()] {
                reads.extend(markup::var_references(text).into_iter().map(lua_key));
            }
            let mut seen = HashSet::new();
            for name in reads {
                if !declared.contains(&name) && seen.insert(name.clone()) {
                    findings.push(here(FindingKind::UndeclaredVariable { name }));
                }
            }
            for kind in assets.unknown(&[&entry.conditions, &entry.user_script]) {
                findings.push(here(kind));
            }
            if let Some(members) = rings.remove(&(conversation.id, entry.id)) {
                findings.push(here(FindingKind::GroupRing { members }));
            }
            if let Some(members) = passthrough_rings.remove(&(conversation.id, entry.id)) {
                findings.push(here(FindingKind::PassthroughRing { members }));
            }
            for text in [entry.dialogue_text(), entry.menu_text()] {
                for (written, meant) in markup::miscased_tokens(text) {
                    findings.push(here(FindingKind::MarkupInAnotherCase { written: written.to_owned(), meant }));
                }
            }
            for name in markup::prompt_names(entry.menu_text()) {
                findings.push(here(FindingKind::PromptInMenuText { name: name.to_owned() }));
            }
            if player_lines.contains(&(conversation.id, entry.id)) {
                findings.push(here(FindingKind::PlayerLineWithoutMenuText));
            }
            let mut seen = HashSet::new();
            for source in compiled {
                for name in globals::globals(source).reads {
                    if !defined.contains(&name) && seen.insert(name.clone()) {
                        findings.push(here(FindingKind::UndefinedGlobal { name }));
                    }
                }
            }
        }
    }
    findings
}

/// Every `(conversation, entry)` a START entry reaches. Entries are found by their IDs through one
/// map, so the walk is linear in the project's entries and links.
fn reachable(project: &Project) -> HashSet<(Id, Id)> {
    let mut entries = HashMap::new();
    for conversation in &project.conversations {
        for entry in &conversation.entries {
            entries.entry((conversation.id, entry.id)).or_insert(entry);
        }
    }
    let mut seen = HashSet::new();
    let mut queue = VecDeque::new();
    for conversation in &project.conversations {
        if let Some(start) = conversation.start_entry() {
            if seen.insert((conversation.id, start.id)) {
                queue.push_back((conversation.id, start.id));
            }
        }
    }
    while let Some((c, e)) = queue.pop_front() {
        let Some(entry) = entries.get(&(c, e)) else { continue };
        for link in &entry.links {
            let target = (link.destination_conversation, link.destination_entry);
            if entries.contains_key(&target) && seen.insert(target) {
                queue.push_back(target);
            }
        }
    }
    seen
}

/// One `Variable` access found in source: its key, and whether it is assigned (`=` but not `==`).
fn accesses(source: &str) -> Vec<(String, bool)> {
    accesses_of("Variable", source)
}

/// One access of the global table `table` (`Variable`, `Actor`, …) found in source: its key
/// (`table["key"]`, `table['key']`, `table.key`), and whether it is assigned. A name after `.` or
/// `:` is a field of something else, not the global.
pub(crate) fn accesses_of(table: &str, source: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let bytes = source.as_bytes();
    let mut from = 0;
    while let Some(found) = source[from..].find(table) {
        let start = from + found;
        let mut i = start + table.len();
        from = i;
        let before_ok =
            start == 0 || !(bytes[start - 1].is_ascii_alphanumeric() || matches!(bytes[start - 1], b'_' | b'.' | b':'));
        if !before_ok {
            continue;
        }
        let key = if bytes.get(i) == Some(&b'.') {
            let begin = i + 1;
            let mut end = begin;
            while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
                end += 1;
            }
            i = end;
            (end > begin).then(|| source[begin..end].to_owned())
        } else if bytes.get(i) == Some(&b'[') {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] == b' ' {
                j += 1;
            }
            match bytes.get(j) {
                Some(&quote @ (b'"' | b'\'')) => match source[j + 1..].find(quote as char) {
                    Some(len) => {
                        let key = source[j + 1..j + 1 + len].to_owned();
                        let mut k = j + 1 + len + 1;
                        while k < bytes.len() && bytes[k] == b' ' {
                            k += 1;
                        }
                        if bytes.get(k) == Some(&b']') {
                            i = k + 1;
                            Some(key)
                        } else {
                            None
                        }
                    }
                    None => None,
                },
                _ => None,
            }
        } else {
            None
        };
        let Some(key) = key else { continue };
        from = i;
        let rest = source[i..].trim_start_matches([' ', '\t']);
        let assigned = rest.starts_with('=') && !rest.starts_with("==");
        out.push((key, assigned));
    }
    out
}

/// The variable keys a source reads.
fn variable_reads(source: &str) -> Vec<String> {
    accesses(source).into_iter().filter(|(_, assigned)| !assigned).map(|(key, _)| key).collect()
}

/// The variable keys a source assigns.
fn assigned(source: &str) -> Vec<String> {
    accesses(source).into_iter().filter(|(_, assigned)| *assigned).map(|(key, _)| key).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_assignments_are_told_apart() {
        let found = accesses(r#"Variable["a b"] = Variable.c + 1; if Variable['d'] == 2 then MyVariable.e = 1 end"#);
        assert_eq!(found, [("a b".to_owned(), true), ("c".to_owned(), false), ("d".to_owned(), false)]);
        assert_eq!(variable_reads("Variable[x] Variable. Variable[\"unclosed"), Vec::<String>::new());
    }
}
