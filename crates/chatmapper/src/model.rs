//! The typed model of a ChatMapper project, shared by both readers and meant for an engine to
//! play directly.
//!
//! Every type is plain data with public fields; the accessors only look things up. The readers
//! finish with [`Project::resolve_links`], which normalises conversation IDs in links and computes
//! each entry's tree [`parent`](DialogEntry::parent); call it yourself after building or editing a
//! project by hand.

use crate::coerce::whole_id;

/// An asset, conversation or dialog entry ID as the exports write it.
pub type Id = i64;

/// A whole project: its metadata, project script and assets.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Project {
    /// The project's title (`Title`).
    pub title: String,
    /// The editor version that wrote the export (`Version`, e.g. `1.5.1.0`).
    pub version: String,
    /// The author (`Author`).
    pub author: String,
    /// The project description (`Description`).
    pub description: String,
    /// The export language (`Language`, JSON only; empty when absent).
    pub language: String,
    /// The project's Lua script (`UserScript`), run once when a playthrough starts; empty when
    /// absent or null.
    pub user_script: String,
    /// Actors, in document order.
    pub actors: Vec<Asset>,
    /// Items (also quests), in document order.
    pub items: Vec<Asset>,
    /// Locations, in document order.
    pub locations: Vec<Asset>,
    /// User variables, in document order; their `Name` field names them.
    pub user_variables: Vec<Asset>,
    /// Conversations, in document order.
    pub conversations: Vec<Conversation>,
}

/// An actor, item, location or user variable: an ID and its fields.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Asset {
    /// The asset's ID; user variables carry none in the exports and read as 0.
    pub id: Id,
    /// The fields, in document order.
    pub fields: Vec<Field>,
}

/// One field of an asset, conversation or entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Field {
    /// The field's title, e.g. `Name`, `Dialogue Text`, `fr-FR`.
    pub title: String,
    /// The raw value as written (empty for `<Value />`).
    pub value: String,
    /// The declared type (XML), or the inferred one (JSON, see [`crate::coerce::infer_type`]).
    pub kind: FieldType,
}

/// The type of a field. `Multiline` and unknown XML types read as [`FieldType::Text`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum FieldType {
    /// Plain text (also `Multiline` and any unknown type).
    #[default]
    Text,
    /// A number.
    Number,
    /// A boolean (`True`/`False`).
    Boolean,
    /// A list of file names.
    Files,
    /// A localised variant of another field.
    Localization,
    /// An actor ID.
    Actor,
    /// An item ID.
    Item,
    /// A location ID.
    Location,
}

impl FieldType {
    /// The type named by an XML `Type` attribute (case-insensitive); unknown names are `Text`.
    pub fn from_name(name: &str) -> FieldType {
        match name.trim().to_ascii_lowercase().as_str() {
            "number" => FieldType::Number,
            "boolean" => FieldType::Boolean,
            "files" => FieldType::Files,
            "localization" => FieldType::Localization,
            "actor" => FieldType::Actor,
            "item" => FieldType::Item,
            "location" => FieldType::Location,
            _ => FieldType::Text,
        }
    }
}

/// A conversation: its fields and dialog entries.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conversation {
    /// The conversation's ID.
    pub id: Id,
    /// The fields (`Title`, `Description`, `Actor`, `Conversant`, custom), in document order.
    pub fields: Vec<Field>,
    /// The dialog entries, in document order.
    pub entries: Vec<DialogEntry>,
}

/// What to do with a candidate entry whose condition is false.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum FalseConditionAction {
    /// Drop the candidate (JSON 0).
    #[default]
    Block,
    /// Put the candidate's own children in its place (JSON 1).
    Passthrough,
}

impl FalseConditionAction {
    /// The action named as in XML (`Block`, `Passthrough`; case-insensitive).
    pub fn from_name(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "block" => Some(Self::Block),
            "passthrough" => Some(Self::Passthrough),
            _ => None,
        }
    }

    /// The action numbered as in JSON (0 `Block`, 1 `Passthrough`).
    pub fn from_code(code: i64) -> Option<Self> {
        match code {
            0 => Some(Self::Block),
            1 => Some(Self::Passthrough),
            _ => None,
        }
    }

    /// The action as an export writes it: by name ([`from_name`](Self::from_name)) or by number
    /// ([`from_code`](Self::from_code)), surrounding whitespace ignored.
    pub fn from_text(text: &str) -> Option<Self> {
        Self::from_name(text).or_else(|| text.trim().parse().ok().and_then(Self::from_code))
    }
}

/// An entry's condition priority. Lower is better: `High` (1) beats `Normal` (3), so the derived
/// ordering sorts the best first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ConditionPriority {
    /// 1, the best.
    High = 1,
    /// 2.
    AboveNormal = 2,
    /// 3, the default.
    #[default]
    Normal = 3,
    /// 4.
    BelowNormal = 4,
    /// 5, the worst.
    Low = 5,
}

impl ConditionPriority {
    /// The priority named as in XML (`High` … `Low`; case-insensitive).
    pub fn from_name(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "high" => Some(Self::High),
            "abovenormal" => Some(Self::AboveNormal),
            "normal" => Some(Self::Normal),
            "belownormal" => Some(Self::BelowNormal),
            "low" => Some(Self::Low),
            _ => None,
        }
    }

    /// The priority numbered as in JSON (1 `High` … 5 `Low`).
    pub fn from_code(code: i64) -> Option<Self> {
        match code {
            1 => Some(Self::High),
            2 => Some(Self::AboveNormal),
            3 => Some(Self::Normal),
            4 => Some(Self::BelowNormal),
            5 => Some(Self::Low),
            _ => None,
        }
    }

    /// The priority as an export writes it: by name ([`from_name`](Self::from_name)) or by number
    /// ([`from_code`](Self::from_code)), surrounding whitespace ignored.
    pub fn from_text(text: &str) -> Option<Self> {
        Self::from_name(text).or_else(|| text.trim().parse().ok().and_then(Self::from_code))
    }

    /// The number of this priority (1 `High` … 5 `Low`).
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// One dialog entry (a "node").
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DialogEntry {
    /// The entry's ID within its conversation.
    pub id: Id,
    /// Whether this is the conversation's root (`START`).
    pub is_root: bool,
    /// Whether this is a group: never played, its children are offered in its place.
    pub is_group: bool,
    /// Whether marking it `WasDisplayed` waits until the next offered set is computed.
    pub delay_sim_status: bool,
    /// What happens when its condition is false.
    pub false_condition_action: FalseConditionAction,
    /// Its priority among its group's candidates.
    pub condition_priority: ConditionPriority,
    /// The fields, in document order.
    pub fields: Vec<Field>,
    /// The outgoing links, in link order (the order candidates are collected in).
    pub links: Vec<Link>,
    /// The condition (a Lua expression); empty means true.
    pub conditions: String,
    /// The script (Lua statements) run when the entry is entered; may be empty.
    pub user_script: String,
    /// The entry's tree parent in the same conversation, computed by
    /// [`Project::resolve_links`]: the entry holding the first incoming link (in document order)
    /// from this conversation with `IsConnector="false"`, or failing that the first with no
    /// connector flag (JSON), or failing that the first connector (decision M25). Links from
    /// other conversations and self-links never make a parent; the root has none; parent chains
    /// never loop (in a loop, the first of its entries met walking up from each entry in document
    /// order loses its parent).
    pub parent: Option<Id>,
}

/// A link from one entry to another, possibly in another conversation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Link {
    /// The conversation the link starts in.
    pub origin_conversation: Id,
    /// The entry the link starts at.
    pub origin_entry: Id,
    /// The conversation the link leads to.
    pub destination_conversation: Id,
    /// The entry the link leads to.
    pub destination_entry: Id,
    /// `Some(true)` for a connector (loop-back or jump), `Some(false)` for a tree edge, `None`
    /// when the export does not say (JSON).
    pub is_connector: Option<bool>,
}

impl Link {
    /// Whether the link leads into another conversation than the one it starts in.
    pub fn is_cross_conversation(&self) -> bool {
        self.origin_conversation != self.destination_conversation
    }
}

fn find_field<'a>(fields: &'a [Field], title: &str) -> Option<&'a Field> {
    fields.iter().find(|f| f.title == title)
}

fn field_text<'a>(fields: &'a [Field], title: &str) -> &'a str {
    find_field(fields, title).map_or("", |f| f.value.as_str())
}

fn field_id(fields: &[Field], title: &str) -> Option<Id> {
    whole_id(field_text(fields, title))
}

impl Asset {
    /// The first field with this title (case-sensitive).
    pub fn field(&self, title: &str) -> Option<&Field> {
        find_field(&self.fields, title)
    }

    /// The value of the first field with this title, or `""`.
    pub fn value(&self, title: &str) -> &str {
        field_text(&self.fields, title)
    }

    /// The `Name` field, or `""`.
    pub fn name(&self) -> &str {
        self.value("Name")
    }

    /// Whether the `IsPlayer` field holds true (an actor the player plays).
    pub fn is_player(&self) -> bool {
        self.field("IsPlayer").is_some_and(|f| f.lua_value() == crate::coerce::Coerced::Boolean(true))
    }
}

impl Conversation {
    /// The first field with this title (case-sensitive).
    pub fn field(&self, title: &str) -> Option<&Field> {
        find_field(&self.fields, title)
    }

    /// The value of the first field with this title, or `""`.
    pub fn value(&self, title: &str) -> &str {
        field_text(&self.fields, title)
    }

    /// The `Title` field, or `""`.
    pub fn title(&self) -> &str {
        self.value("Title")
    }

    /// The first entry with this ID.
    pub fn entry(&self, id: Id) -> Option<&DialogEntry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// The start entry: the first with `IsRoot` true, falling back to the first titled `START`.
    pub fn start_entry(&self) -> Option<&DialogEntry> {
        self.entries.iter().find(|e| e.is_root).or_else(|| self.entries.iter().find(|e| e.title() == "START"))
    }

    /// The entries of this conversation holding a link to entry `id` of this conversation, in
    /// document order (each once), whatever the links' connector flags.
    pub fn sources(&self, id: Id) -> impl Iterator<Item = &DialogEntry> {
        let here = self.id;
        self.entries.iter().filter(move |e| {
            e.links.iter().any(|l| {
                l.origin_conversation == here && l.destination_conversation == here && l.destination_entry == id
            })
        })
    }

    /// The entries whose tree parent is `id`, in document order.
    pub fn tree_children(&self, id: Id) -> impl Iterator<Item = &DialogEntry> {
        self.entries.iter().filter(move |e| e.parent == Some(id))
    }
}

impl DialogEntry {
    /// The first field with this title (case-sensitive).
    pub fn field(&self, title: &str) -> Option<&Field> {
        find_field(&self.fields, title)
    }

    /// The value of the first field with this title, or `""`.
    pub fn value(&self, title: &str) -> &str {
        field_text(&self.fields, title)
    }

    /// The `Title` field, or `""`.
    pub fn title(&self) -> &str {
        self.value("Title")
    }

    /// The `Menu Text` field, or `""`.
    pub fn menu_text(&self) -> &str {
        self.value("Menu Text")
    }

    /// The `Dialogue Text` field, or `""`.
    pub fn dialogue_text(&self) -> &str {
        self.value("Dialogue Text")
    }

    /// Whether the entry is a player choice: its Menu Text is non-empty. Menu Text of only
    /// whitespace counts as empty (decision M22): it would label an option with nothing.
    pub fn is_choice(&self) -> bool {
        !self.menu_text().trim().is_empty()
    }

    /// The speaking actor's ID (`Actor` field), if it holds a whole number.
    pub fn actor_id(&self) -> Option<Id> {
        field_id(&self.fields, "Actor")
    }

    /// The listening actor's ID (`Conversant` field), if it holds a whole number.
    pub fn conversant_id(&self) -> Option<Id> {
        field_id(&self.fields, "Conversant")
    }
}

impl Project {
    /// The first conversation with this ID.
    pub fn conversation(&self, id: Id) -> Option<&Conversation> {
        self.conversations.iter().find(|c| c.id == id)
    }

    /// The first conversation with this `Title`.
    pub fn conversation_by_title(&self, title: &str) -> Option<&Conversation> {
        self.conversations.iter().find(|c| c.title() == title)
    }

    /// The entry `entry` of conversation `conversation`.
    pub fn entry(&self, conversation: Id, entry: Id) -> Option<&DialogEntry> {
        self.conversation(conversation)?.entry(entry)
    }

    /// The entry a link leads to.
    pub fn destination(&self, link: &Link) -> Option<&DialogEntry> {
        self.entry(link.destination_conversation, link.destination_entry)
    }

    /// The first actor with this ID.
    pub fn actor(&self, id: Id) -> Option<&Asset> {
        self.actors.iter().find(|a| a.id == id)
    }

    /// Whether `entry` is a player line: spoken by an actor whose `IsPlayer` is true, with
    /// Dialogue Text and no Menu Text. The page plays such an entry as a line; some projects mean
    /// it as a choice (see the engine's `Options::player_lines_as_choices`).
    pub fn is_player_line(&self, entry: &DialogEntry) -> bool {
        entry.menu_text().trim().is_empty()
            && !entry.dialogue_text().trim().is_empty()
            && entry.actor_id().and_then(|id| self.actor(id)).is_some_and(Asset::is_player)
    }

    /// The first item with this ID.
    pub fn item(&self, id: Id) -> Option<&Asset> {
        self.items.iter().find(|a| a.id == id)
    }

    /// The first location with this ID.
    pub fn location(&self, id: Id) -> Option<&Asset> {
        self.locations.iter().find(|a| a.id == id)
    }

    /// The first user variable with this `Name`.
    pub fn user_variable(&self, name: &str) -> Option<&Asset> {
        self.user_variables.iter().find(|a| a.name() == name)
    }

    /// Normalises links and computes tree parents; the readers call it last.
    ///
    /// A conversation ID of 0 in a link means "this conversation" (old exports) unless the
    /// project has a conversation with ID 0. Then each entry's [`parent`](DialogEntry::parent) is
    /// recomputed as documented there.
    pub fn resolve_links(&mut self) {
        let zero_exists = self.conversations.iter().any(|c| c.id == 0);
        for conversation in &mut self.conversations {
            let here = conversation.id;
            for link in conversation.entries.iter_mut().flat_map(|e| e.links.iter_mut()) {
                if !zero_exists {
                    if link.origin_conversation == 0 {
                        link.origin_conversation = here;
                    }
                    if link.destination_conversation == 0 {
                        link.destination_conversation = here;
                    }
                }
            }
            compute_parents(conversation);
        }
    }
}

/// Rank of a link as a tree edge: lower is preferred. A connector is the last resort: it makes
/// a parent only for an entry no other link of its conversation reaches (decision M25).
fn tree_rank(link: &Link) -> Option<u8> {
    match link.is_connector {
        Some(false) => Some(0),
        None => Some(1),
        Some(true) => Some(2),
    }
}

fn compute_parents(conversation: &mut Conversation) {
    use std::collections::HashMap;
    let here = conversation.id;
    let mut index: HashMap<Id, usize> = HashMap::new();
    for (i, e) in conversation.entries.iter().enumerate() {
        index.entry(e.id).or_insert(i);
    }
    let mut best: Vec<Option<(u8, Id)>> = vec![None; conversation.entries.len()];
    for entry in &conversation.entries {
        for link in &entry.links {
            let internal = link.origin_conversation == here && link.destination_conversation == here;
            let (Some(rank), Some(&target)) = (tree_rank(link), index.get(&link.destination_entry)) else {
                continue;
            };
            if !internal || link.destination_entry == entry.id {
                continue;
            }
            if best[target].is_none_or(|(r, _)| rank < r) {
                best[target] = Some((rank, entry.id));
            }
        }
    }
    for (entry, best) in conversation.entries.iter_mut().zip(best) {
        entry.parent = if entry.is_root { None } else { best.map(|(_, p)| p) };
    }
    break_parent_cycles(conversation, &index);
}

/// Cuts parent chains that loop, so that walking up from any entry ends.
fn break_parent_cycles(conversation: &mut Conversation, index: &std::collections::HashMap<Id, usize>) {
    // 0: unvisited, 1: on the current path, 2: known to end.
    let mut state = vec![0u8; conversation.entries.len()];
    let mut path = Vec::new();
    for start in 0..conversation.entries.len() {
        let mut current = start;
        path.clear();
        let looped = loop {
            if state[current] != 0 {
                break state[current] == 1;
            }
            state[current] = 1;
            path.push(current);
            match conversation.entries[current].parent.and_then(|p| index.get(&p)) {
                Some(&next) => current = next,
                None => break false,
            }
        };
        if looped {
            // The walk re-entered its own path at `current`: make that entry the top.
            conversation.entries[current].parent = None;
        }
        for &i in &path {
            state[i] = 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: Id, links: &[(Id, Id, Option<bool>)]) -> DialogEntry {
        let links = links
            .iter()
            .map(|&(destination_conversation, destination_entry, is_connector)| Link {
                origin_conversation: 0,
                origin_entry: id,
                destination_conversation,
                destination_entry,
                is_connector,
            })
            .collect();
        DialogEntry { id, is_root: id == 0, links, ..DialogEntry::default() }
    }

    fn project(conversations: Vec<(Id, Vec<DialogEntry>)>) -> Project {
        let conversations =
            conversations.into_iter().map(|(id, entries)| Conversation { id, fields: Vec::new(), entries }).collect();
        let mut project = Project { conversations, ..Project::default() };
        project.resolve_links();
        project
    }

    fn parents(conversation: &Conversation) -> Vec<Option<Id>> {
        conversation.entries.iter().map(|e| e.parent).collect()
    }

    #[test]
    fn zero_conversation_ids_mean_this_conversation() {
        let p = project(vec![(7, vec![entry(0, &[(0, 1, None)]), entry(1, &[])])]);
        let link = p.conversations[0].entries[0].links[0];
        assert_eq!((link.origin_conversation, link.destination_conversation), (7, 7));
        assert_eq!(p.conversations[0].entries[1].parent, Some(0));
    }

    #[test]
    fn zero_is_kept_when_a_conversation_zero_exists() {
        let mut jump = entry(0, &[(0, 0, None)]);
        jump.links[0].origin_conversation = 7;
        let p = project(vec![(0, vec![entry(0, &[])]), (7, vec![jump])]);
        assert_eq!(p.conversations[1].entries[0].links[0].destination_conversation, 0);
        assert!(p.conversations[1].entries[0].links[0].is_cross_conversation());
    }

    #[test]
    fn tree_edges_beat_unflagged_links_which_beat_connectors() {
        // 3 is reached by a connector from 1, an unflagged link from 2, then a tree edge from 4;
        // 5 only by a connector from 4.
        let entries = vec![
            entry(0, &[(1, 1, Some(false)), (1, 2, Some(false)), (1, 4, Some(false))]),
            entry(1, &[(1, 3, Some(true))]),
            entry(2, &[(1, 3, None)]),
            entry(4, &[(1, 3, Some(false)), (1, 5, Some(true))]),
            entry(3, &[(1, 0, Some(false))]),
            entry(5, &[]),
        ];
        let p = project(vec![(1, entries)]);
        let c = &p.conversations[0];
        assert_eq!(parents(c), [None, Some(0), Some(0), Some(0), Some(4), Some(4)]);
        assert_eq!(c.tree_children(0).map(|e| e.id).collect::<Vec<_>>(), [1, 2, 4]);
        assert_eq!(c.sources(3).map(|e| e.id).collect::<Vec<_>>(), [1, 2, 4]);
    }

    #[test]
    fn self_links_and_cross_conversation_links_make_no_parent() {
        let p = project(vec![
            (1, vec![entry(0, &[(2, 1, Some(false))]), entry(1, &[(1, 1, Some(false))])]),
            (2, vec![entry(0, &[]), entry(1, &[])]),
        ]);
        assert_eq!(parents(&p.conversations[0]), [None, None]);
        assert_eq!(parents(&p.conversations[1]), [None, None]);
    }

    #[test]
    fn parent_loops_are_cut() {
        let entries =
            vec![entry(1, &[(1, 2, Some(false))]), entry(2, &[(1, 3, Some(false))]), entry(3, &[(1, 1, Some(false))])];
        let p = project(vec![(1, entries)]);
        let c = &p.conversations[0];
        assert_eq!(parents(c), [None, Some(1), Some(2)]);
    }

    #[test]
    fn start_entry_falls_back_to_the_start_title() {
        let mut start = entry(5, &[]);
        start.fields.push(Field { title: "Title".into(), value: "START".into(), kind: FieldType::Text });
        let c = Conversation { id: 1, fields: Vec::new(), entries: vec![entry(4, &[]), start] };
        assert_eq!(c.start_entry().map(|e| e.id), Some(5));
        assert_eq!(Conversation::default().start_entry(), None);
    }

    #[test]
    fn actor_ids_must_be_whole_numbers() {
        let with = |value: &str| DialogEntry {
            fields: vec![Field { title: "Actor".into(), value: value.into(), kind: FieldType::Actor }],
            ..DialogEntry::default()
        };
        assert_eq!(with("3").actor_id(), Some(3));
        assert_eq!(with(" 3.0 ").actor_id(), Some(3));
        assert_eq!(with("3.5").actor_id(), None);
        assert_eq!(with("").actor_id(), None);
        assert_eq!(with("1e400").actor_id(), None);
        assert_eq!(DialogEntry::default().conversant_id(), None);
    }

    #[test]
    fn enumerations_read_names_and_codes() {
        assert_eq!(ConditionPriority::from_name("aboveNormal"), Some(ConditionPriority::AboveNormal));
        assert_eq!(ConditionPriority::from_code(1).map(ConditionPriority::code), Some(1));
        assert_eq!(ConditionPriority::from_code(0), None);
        assert!(ConditionPriority::High < ConditionPriority::Low);
        assert_eq!(FalseConditionAction::from_name("PassThrough"), Some(FalseConditionAction::Passthrough));
        assert_eq!(FalseConditionAction::from_code(2), None);
        assert_eq!(FalseConditionAction::from_text(" 1 "), Some(FalseConditionAction::Passthrough));
        assert_eq!(ConditionPriority::from_text("Low"), Some(ConditionPriority::Low));
        assert_eq!(ConditionPriority::from_text("2"), Some(ConditionPriority::AboveNormal));
        assert_eq!(ConditionPriority::from_text("6"), None);
        assert_eq!(FieldType::from_name("Multiline"), FieldType::Text);
        assert_eq!(FieldType::from_name("Item"), FieldType::Item);
    }
}
