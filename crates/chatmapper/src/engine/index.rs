//! What the engine reads off a project once: every entry as a [`Node`] with its links resolved
//! to node indices, its priority group, and its condition and script compiled in the host.

use std::collections::HashMap;

use stagehand_lua::{ChunkId, ChunkKind, ScriptHost};

use crate::markup;
use crate::model::{ConditionPriority, FalseConditionAction, Id, Project};

/// A compiled chunk, or why it does not compile (the message is logged each time it is needed).
pub(crate) type Compiled = Option<Result<ChunkId, String>>;

/// Compiles conditions and scripts once each in the host, sharing a chunk between identical
/// sources. A chunk is named for its kind (`condition`, `script`), never for an entry, since
/// entries share it: log lines name the entry themselves.
struct Compiler<'h> {
    host: &'h mut dyn ScriptHost,
    chunks: HashMap<(ChunkKind, String), Result<ChunkId, String>>,
}

impl Compiler<'_> {
    fn compile(&mut self, source: &str, kind: ChunkKind) -> Compiled {
        if source.trim().is_empty() {
            return None;
        }
        let key = (kind, source.to_owned());
        if let Some(done) = self.chunks.get(&key) {
            return Some(done.clone());
        }
        let name = match kind {
            ChunkKind::Condition => "condition",
            ChunkKind::Script => "script",
        };
        let compiled = self.host.compile(name, source, kind).map_err(|e| super::environment::failure(&e));
        self.chunks.insert(key, compiled.clone());
        Some(compiled)
    }
}

/// One dialog entry, ready to play.
#[derive(Debug)]
pub(crate) struct Node {
    /// Index of its conversation in `Project::conversations`.
    pub conversation: usize,
    /// Index of the entry in its conversation's `entries`.
    pub entry: usize,
    /// The conversation's ID.
    pub conversation_id: Id,
    /// The entry's ID.
    pub entry_id: Id,
    /// Whether it is its conversation's start entry.
    pub is_root: bool,
    /// Whether it is a group.
    pub is_group: bool,
    /// Whether its `WasDisplayed` waits for the next offered set (only when it has links).
    pub delays_status: bool,
    /// Whether a false condition lets its children through in its place.
    pub passthrough: bool,
    /// Its condition priority.
    pub priority: ConditionPriority,
    /// Whether it is a player choice (non-empty Menu Text, or a player line under
    /// `Options::player_lines_as_choices`).
    pub is_choice: bool,
    /// Whether its Menu Text holds `[f]`.
    pub forces_menu: bool,
    /// Its link destinations in link order; `None` for a link to nothing (logged when followed).
    pub links: Vec<Option<usize>>,
    /// Its priority group: the index of the root or group node heading it, or
    /// `nodes.len() + own index` for a private group.
    pub group: usize,
    /// Its condition, compiled (`None` when empty: always true).
    pub condition: Compiled,
    /// Its script, compiled (`None` when empty).
    pub script: Compiled,
    /// The variables its input prompts ask for, in order, each once.
    pub prompts: Vec<String>,
    /// The speaker's name (the `Actor` field's actor, unless its Name is empty).
    pub speaker: Option<String>,
    /// A label for logs: `conversation 1 entry 5 ("Title")`.
    pub label: String,
}

/// Every entry of a project, in document order, and the way to find them.
#[derive(Debug)]
pub(crate) struct Index {
    /// The nodes.
    pub nodes: Vec<Node>,
    /// `(conversation ID, entry ID)` → node index (the first such entry).
    by_id: HashMap<(Id, Id), usize>,
    /// Each conversation's start node, by conversation index.
    pub starts: Vec<Option<usize>>,
}

impl Index {
    /// Reads the project and compiles every condition and script once in `host` (whose surface must
    /// be loaded: see `environment::load_surface`). With `player_lines_as_choices`, the player
    /// actor's entries without Menu Text are choices too (`Options::player_lines_as_choices`).
    pub fn build(project: &Project, host: &mut dyn ScriptHost, player_lines_as_choices: bool) -> Index {
        let mut nodes = Vec::new();
        let mut by_id = HashMap::new();
        let mut starts = Vec::with_capacity(project.conversations.len());
        let mut compiler = Compiler { host, chunks: HashMap::new() };
        let mut actors = HashMap::new();
        for actor in &project.actors {
            // An actor with no Name (empty or missing) names no speaker.
            actors.entry(actor.id).or_insert_with(|| Some(actor.name().to_owned()).filter(|n| !n.trim().is_empty()));
        }
        for (c, conversation) in project.conversations.iter().enumerate() {
            let start = conversation.start_entry().map(|e| e.id);
            let mut start_node = None;
            for (e, entry) in conversation.entries.iter().enumerate() {
                let index = nodes.len();
                by_id.entry((conversation.id, entry.id)).or_insert(index);
                let is_root = Some(entry.id) == start && start_node.is_none();
                if is_root {
                    start_node = Some(index);
                }
                let label = format!("conversation {} entry {} ({:?})", conversation.id, entry.id, entry.title());
                let condition = compiler.compile(&entry.conditions, ChunkKind::Condition);
                let script = compiler.compile(&entry.user_script, ChunkKind::Script);
                let speaker = entry.actor_id().and_then(|id| actors.get(&id)).cloned().flatten();
                let prompts = markup::prompt_names(entry.dialogue_text()).into_iter().map(str::to_owned).collect();
                nodes.push(Node {
                    conversation: c,
                    entry: e,
                    conversation_id: conversation.id,
                    entry_id: entry.id,
                    is_root,
                    is_group: entry.is_group,
                    delays_status: entry.delay_sim_status && !entry.links.is_empty(),
                    passthrough: entry.false_condition_action == FalseConditionAction::Passthrough,
                    priority: entry.condition_priority,
                    is_choice: entry.is_choice() || (player_lines_as_choices && project.is_player_line(entry)),
                    forces_menu: markup::forces_menu(entry.menu_text()),
                    links: Vec::new(),
                    group: 0,
                    condition,
                    script,
                    prompts,
                    speaker,
                    label,
                });
            }
            starts.push(start_node);
        }
        let mut index = Index { nodes, by_id, starts };
        index.resolve(project);
        index
    }

    /// The node of entry `entry` in conversation `conversation`.
    pub fn find(&self, conversation: Id, entry: Id) -> Option<usize> {
        self.by_id.get(&(conversation, entry)).copied()
    }

    fn resolve(&mut self, project: &Project) {
        let mut parents = Vec::with_capacity(self.nodes.len());
        let mut links = Vec::with_capacity(self.nodes.len());
        for node in &self.nodes {
            let conversation = &project.conversations[node.conversation];
            let entry = &conversation.entries[node.entry];
            links.push(
                entry
                    .links
                    .iter()
                    .map(|l| self.find(l.destination_conversation, l.destination_entry))
                    .collect::<Vec<_>>(),
            );
            parents.push(entry.parent.and_then(|p| self.find(conversation.id, p)));
        }
        for (node, links) in self.nodes.iter_mut().zip(links) {
            node.links = links;
        }
        // Priority groups (the page): children of the root or of a group form that node's group;
        // every other node inherits its parent's; a node with no parent in its conversation gets
        // a private group. Parent chains never loop (Project::resolve_links cuts loops).
        let count = self.nodes.len();
        let mut groups: Vec<Option<usize>> = vec![None; count];
        for start in 0..count {
            let mut chain = Vec::new();
            let mut current = start;
            let group = loop {
                if let Some(group) = groups[current] {
                    break group;
                }
                match parents[current] {
                    None => break count + current,
                    Some(p) if self.nodes[p].is_root || self.nodes[p].is_group => {
                        groups[current] = Some(p);
                        break p;
                    }
                    Some(p) if chain.len() > count => break count + p,
                    Some(p) => {
                        chain.push(current);
                        current = p;
                    }
                }
            };
            groups[current].get_or_insert(group);
            for node in chain {
                groups[node] = Some(group);
            }
        }
        for (node, group) in self.nodes.iter_mut().zip(groups) {
            node.group = group.unwrap_or(count);
        }
    }
}
