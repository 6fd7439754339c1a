//! The dialogue graph, emitted straight into a playbook.
//!
//! Each top-level block's analyzed blocks are lowered as soon as they are ready, a node per
//! block in reading order, so a node's position is its id. What a node leads to is often not
//! built yet, so the walk carries *holes*: a fall-through waiting for the next node, an option
//! or arm waiting for the first node of its body, a scene anchor waiting for the scene's first
//! node. Each new node fills
//! every open hole; whatever is still open at the end leads to the `end` node. Jumps point at
//! anchors, which are only all known at the end, so their targets are patched last, and a jump
//! to an anchor no scene has is reported then. Speakers are settled last too.

use foldhash::HashMap;

use stagehand_playbook::{position, reference, Condition, Edge, Edges, Fragment, Node, Playbook, Weight};

use crate::analysis::{missing_target, percent_decoded};
use crate::ast::{Block, Cond, Jump, JumpTarget, Spare, WeightSyntax};
use crate::diagnostics::{Code, Sink};
use crate::speakers::{Speakers, LATER_DEFAULT};

/// A target not known yet. No node has this position: [`Lowering::reference`] keeps every
/// node's and speaker's below it.
const OPEN: u32 = u32::MAX;

/// The speaker of a line bound to the default speaker, who is known only at the end.
const DEFAULT_LATER: u32 = u32::MAX;

enum Hole {
    /// The node's fall-through.
    Succession(usize),
    /// The target of a node's edge (an option or a branch arm).
    Edge(usize, usize),
    /// A scene's anchor.
    Anchor(String),
}

/// Where a jump leads, known only once the whole script is.
enum Late {
    End,
    /// A scene: the jump's target (`#anchor`) and span (start and end, as `u32`: the script is
    /// under 4 GiB, or the compile fails with `DLG1902`), for the report if there is no such scene.
    Anchor(Box<str>, u32, u32),
}

/// A jump's divert waiting for its target: the node, the edge's place in it, and where it leads.
/// 32 bytes (48 with `usize` places and a `Range` span): a big script has tens of thousands.
struct Waiting {
    node: u32,
    edge: u32,
    what: Late,
}

/// The graph of a script being lowered, one top-level block at a time.
#[derive(Default)]
pub(crate) struct Lowering {
    nodes: Vec<Node>,
    /// Each scene's anchor and first node (sorted into the playbook's map at the end).
    anchors: HashMap<String, usize>,
    /// The lines bound to the default speaker, who is known only at the end.
    defaulted: Vec<usize>,
    /// Edges whose target is the end node or an anchor.
    late: Vec<Waiting>,
    /// What is waiting for the next node.
    open: Vec<Hole>,
    /// Emptied hole lists, kept for the next option or arm body.
    spare: Vec<Vec<Hole>>,
    /// Containers emptied by lowering, for the transpiler to fill again.
    pub emptied: Spare,
    /// Where in the source each node was written (a byte offset, as a `u32`: the script is under
    /// 4 GiB, or the compile fails with `DLG1902`), by node.
    offsets: Vec<u32>,
    /// The script's length, from which the node table's final size is projected.
    source_len: usize,
    /// How many nodes and speakers a playbook may hold: fewer than `u32::MAX` (references are
    /// `u32`, PB7; `u32::MAX` marks what is not known yet). Lower in tests.
    limit: usize,
    /// Whether a node or speaker was past [`Lowering::limit`] (reported as `DLG1902`).
    too_many: bool,
}

/// How many nodes and speakers a playbook the compiler makes may hold (see `Lowering::limit`).
const LIMIT: u32 = u32::MAX;

/// Nodes the table holds before its growth is projected from the script read so far.
const PROJECT_AFTER: usize = 4096;

/// How many times its size the node table may grow at once to a projection (see `grow`): from
/// [`PROJECT_AFTER`] nodes, up to a million at once, so a script of a few hundred thousand nodes
/// is projected once and its table never moves again.
const PROJECT_AT_MOST: usize = 256;

impl Lowering {
    /// A graph for a script of `source_len` bytes.
    pub fn new(source_len: usize) -> Lowering {
        // Offsets and spans are kept as `u32`: a script of 4 GiB or more is refused whole.
        let too_many = u32::try_from(source_len).is_err();
        Lowering { source_len, limit: position(LIMIT), too_many, ..Lowering::default() }
    }

    /// Byte `at` of the script, as kept: below 4 GiB, or the compile fails (see [`Lowering::new`]).
    fn offset(&mut self, at: usize) -> u32 {
        u32::try_from(at).unwrap_or_else(|_| {
            self.too_many = true;
            u32::MAX
        })
    }

    /// The same graph, holding fewer than `limit` nodes and speakers (a test's).
    #[cfg(test)]
    pub fn limited(self, limit: usize) -> Lowering {
        Lowering { limit, ..self }
    }

    /// The stored reference to node or speaker `index`; past the limit, nothing anyone reads
    /// (0), and the compile fails with `DLG1902` (see [`Lowering::finish`]): never truncated.
    fn reference(&mut self, index: usize) -> u32 {
        match reference(index) {
            Some(stored) if index < self.limit => stored,
            _ => {
                self.too_many = true;
                0
            }
        }
    }

    /// Lowers the analyzed blocks of one top-level block, in reading order.
    pub fn blocks(&mut self, blocks: impl IntoIterator<Item = Block>) {
        let open = std::mem::take(&mut self.open);
        self.open = self.body(blocks, open);
    }

    /// Ends the graph and builds the playbook, reporting into `sink` every jump to an anchor
    /// no scene has. Lines' speakers are settled against the finished speaker table.
    /// Also returns where each node was written (a byte offset of `source_len` for the end node).
    pub fn finish(
        mut self,
        script: &str,
        source_len: usize,
        speakers: Speakers,
        sink: &mut Sink,
    ) -> (Playbook, Vec<u32>) {
        let mut open = std::mem::take(&mut self.open);
        let end_at = self.nodes.len();
        self.nodes.push(Node::End);
        let end_offset = self.offset(source_len);
        self.offsets.push(end_offset);
        let end = self.reference(end_at);
        self.fill(&mut open, end_at);
        let limit = self.limit;
        let Lowering { mut nodes, anchors, late, defaulted, mut offsets, mut too_many, .. } = self;
        // The table was grown to a projection of its size: give back what it did not use.
        nodes.shrink_to_fit();
        offsets.shrink_to_fit();
        for Waiting { node, edge, what } in late {
            let target = match what {
                Late::End => end,
                Late::Anchor(target, start, end_at) => match anchors.get(&target[1..]).or_else(|| {
                    // A percent-encoded target is matched decoded (C35).
                    percent_decoded(&target).and_then(|decoded| anchors.get(decoded.get(1..)?))
                }) {
                    // An anchor names a node already given a reference, so it fits.
                    Some(&found) => reference(found).unwrap_or(end),
                    None => {
                        missing_target(&target, &(position(start)..position(end_at)), sink);
                        end
                    }
                },
            };
            retarget(&mut nodes, position(node), position(edge), target);
        }
        // The final place of a line's speaker, or `None` past the limit.
        let settle = |bound: u32| {
            let bound = if bound == DEFAULT_LATER { LATER_DEFAULT } else { position(bound) };
            reference(speakers.settle(bound)).filter(|&settled| position(settled) < limit)
        };
        let mut settle_line = |node: &mut Node| {
            if let Node::Line { speaker, .. } = node {
                match settle(*speaker) {
                    Some(settled) => *speaker = settled,
                    None => too_many = true,
                }
            }
        };
        if speakers.inserted.is_some() {
            // An anonymous default joined the table: every speaker after it moves along.
            nodes.iter_mut().for_each(&mut settle_line);
        } else {
            for id in defaulted {
                if let Some(node) = nodes.get_mut(id) {
                    settle_line(node);
                }
            }
        }
        if too_many {
            too_many_nodes(sink);
        }
        let mut playbook = Playbook::new(script);
        playbook.entry = 0;
        playbook.anchors = anchors.into_iter().collect();
        playbook.speakers = speakers.table;
        playbook.nodes = nodes;
        (playbook, offsets)
    }
}

/// Reports a script that makes more nodes or speakers than a playbook holds.
fn too_many_nodes(sink: &mut Sink) {
    sink.push(
        Code::TooManyNodes,
        0..0,
        format!(
            "This script makes more nodes or speakers than a playbook holds ({} of each at most), \
             or is 4 GiB or more, so it cannot be compiled. Split it into several scripts.",
            LIMIT
        ),
        "too many nodes",
    );
}

/// Points edge `edge` of `node` at `to`.
fn retarget(nodes: &mut [Node], node: usize, edge: usize, to: u32) {
    if let Some(edge) = nodes.get_mut(node).and_then(Node::out_mut).and_then(|out| out.get_mut(edge)) {
        edge.set_target(to);
    }
}

fn condition(cond: &Option<Cond>) -> Option<Condition> {
    cond.as_ref().map(|cond| Condition::key(&cond.key))
}

impl Lowering {
    fn add(&mut self, node: Node, at: usize, open: &mut Vec<Hole>) -> usize {
        let id = self.nodes.len();
        if id == self.nodes.capacity() {
            self.grow(at);
        }
        self.nodes.push(node);
        let at = self.offset(at);
        self.offsets.push(at);
        self.fill(open, id);
        id
    }

    /// Makes room for more nodes, the next node being written at byte `at`. Once the table is
    /// past its first few thousand nodes it grows to the size the script read so far projects
    /// (nodes so far, scaled by the bytes left), and at least by a quarter, rather than by
    /// doubling: a doubled table of a third of a million 128-byte nodes leaves tens of
    /// megabytes reserved and unused (issue 11, item 11). The projection is trusted at once,
    /// up to [`PROJECT_AT_MOST`] times the table: every growth moves the table, and an allocator
    /// that moves a big block by copying it (mimalloc does; glibc remaps its pages) holds the old
    /// table beside the new one meanwhile, which, grown four times at a time (to 27 of the 39 MB
    /// of the 12.5 MiB script's table), was the whole compile's peak. Room the projection
    /// overshoots is never written, so it is address space, not memory, until `finish` gives it
    /// back. Growth stays geometric, so adding a node stays amortised constant time however
    /// wrong the projection is.
    fn grow(&mut self, at: usize) {
        let len = self.nodes.len();
        let projected = if len < PROJECT_AFTER || at == 0 {
            2 * len
        } else {
            // A sixteenth more than the projection, so a script denser at its end than at its
            // start seldom grows a second time.
            let projected = len.saturating_mul(self.source_len) / at;
            projected.saturating_add(projected / 16).min(PROJECT_AT_MOST * len)
        };
        let wanted = projected.max(len + len / 4).max(64);
        self.nodes.reserve_exact(wanted - len);
        self.offsets.reserve_exact(wanted.saturating_sub(self.offsets.len()));
    }

    /// Points every open hole at `id`, leaving `open` empty for reuse.
    fn fill(&mut self, open: &mut Vec<Hole>, id: usize) {
        let target = self.reference(id);
        for hole in open.drain(..) {
            match hole {
                Hole::Succession(node) => {
                    if let Some(out) = self.nodes[node].out_mut() {
                        out.push(Edge::Succession { target });
                    }
                }
                Hole::Edge(node, edge) => {
                    retarget(&mut self.nodes, node, edge, target);
                }
                Hole::Anchor(anchor) => {
                    self.anchors.entry(anchor).or_insert(id);
                }
            }
        }
    }

    /// Adds a jump's divert to a node; returns whether it leaves for sure.
    fn divert(&mut self, node: usize, jump: Jump, cond: Option<Condition>) -> bool {
        let late = match jump.resolved {
            JumpTarget::End => Late::End,
            JumpTarget::Anchor => {
                let (start, end) = (self.offset(jump.target_span.start), self.offset(jump.target_span.end));
                Late::Anchor(jump.target, start, end)
            }
            JumpTarget::Outside | JumpTarget::Unresolved => return false,
        };
        let unconditional = cond.is_none();
        let node_ref = self.reference(node);
        // A node has a handful of edges; past the limit the compile fails (DLG1902).
        let edge = self.reference(self.nodes[node].out().len());
        if let Some(out) = self.nodes[node].out_mut() {
            self.late.push(Waiting { node: node_ref, edge, what: late });
            out.push(Edge::Divert { target: OPEN, label: jump.label.into(), condition: cond });
        }
        unconditional
    }

    /// Lowers an option's or an arm's body, which `entry` leads into, adding the ways out of
    /// it to `exits`.
    fn branch_off(&mut self, mut body: Vec<Block>, entry: Hole, exits: &mut Vec<Hole>) {
        let mut open = self.spare.pop().unwrap_or_default();
        open.push(entry);
        let mut open = self.body(body.drain(..), open);
        exits.append(&mut open);
        self.spare.push(open);
        self.emptied.bodies.push(body);
    }

    fn body(&mut self, blocks: impl IntoIterator<Item = Block>, mut open: Vec<Hole>) -> Vec<Hole> {
        for block in blocks {
            open = self.block(block, open);
        }
        open
    }

    fn block(&mut self, block: Block, mut open: Vec<Hole>) -> Vec<Hole> {
        match block {
            Block::Scene(scene) => {
                open.extend(scene.anchor.map(Hole::Anchor));
                open
            }
            Block::Line(line) => {
                let conditional = line.condition.is_some();
                let speaker = match line.speaker_index {
                    LATER_DEFAULT => DEFAULT_LATER,
                    bound => self.reference(bound),
                };
                let node = Node::Line {
                    // Settled once the speaker table is whole (see `finish`).
                    speaker,
                    speech: line.speech.into(),
                    condition: line.condition.map(|cond| Condition::key(cond.key)),
                    // Room for one edge inline; a jump that may not be taken adds a second.
                    out: Edges::new(),
                };
                let id = self.add(node, line.start, &mut open);
                if line.speaker_index == LATER_DEFAULT {
                    self.defaulted.push(id);
                }
                let leaves = line.jump.is_some_and(|jump| {
                    let jump_condition = condition(&jump.condition);
                    self.divert(id, *jump, jump_condition)
                });
                if !leaves || conditional {
                    open.push(Hole::Succession(id));
                }
                open
            }
            Block::Control(control) => {
                // A condition leading a lone jump guards the jump; otherwise it guards the effects.
                let on_jump =
                    control.jump.as_ref().is_some_and(|jump| jump.condition.is_none()) && control.effects.is_empty();
                let node_condition = if on_jump { None } else { condition(&control.condition) };
                let node = Node::Control {
                    effects: control.effects.into(),
                    condition: node_condition.clone(),
                    out: Edges::new(),
                };
                let id = self.add(node, control.start, &mut open);
                let jump_condition = match &control.jump {
                    Some(jump) if jump.condition.is_some() => condition(&jump.condition),
                    _ if on_jump => condition(&control.condition),
                    _ => None,
                };
                let leaves = control.jump.is_some_and(|jump| self.divert(id, *jump, jump_condition));
                if !leaves || node_condition.is_some() {
                    open.push(Hole::Succession(id));
                }
                open
            }
            Block::Choices(mut choices) => {
                let random = choices.is_random();
                let all_gated = choices.options.iter().all(|option| option.condition.is_some());
                // An edge per option, and a succession only when every option is gated.
                let out = Edges::with_capacity(choices.options.len() + usize::from(all_gated));
                let node =
                    if random { Node::RandomChoice { out } } else { Node::Choice { ordered: choices.ordered, out } };
                let id = self.add(node, choices.span.start, &mut open);
                let mut exits = open;
                for (index, option) in choices.options.drain(..).enumerate() {
                    let edge = if random {
                        let weight = match &option.weight {
                            Some((WeightSyntax::Number(value), _)) => Weight::Number { percentage: *value },
                            Some((WeightSyntax::Query(key), _)) => Weight::Query { key: key.as_str().into() },
                            _ => Weight::Auto,
                        };
                        Edge::RandomOption { target: OPEN, weight, condition: condition(&option.condition) }
                    } else {
                        Edge::Option {
                            target: OPEN,
                            label: label(&option.body).into(),
                            condition: condition(&option.condition),
                        }
                    };
                    if let Some(out) = self.nodes[id].out_mut() {
                        out.push(edge);
                    }
                    self.branch_off(option.body, Hole::Edge(id, index), &mut exits);
                }
                self.emptied.options.push(choices.options);
                // With every option gated, nothing may be on offer: fall through then.
                if all_gated {
                    exits.push(Hole::Succession(id));
                }
                exits
            }
            Block::Branches(mut control) => {
                let has_else = control.arms.iter().any(|arm| arm.condition.is_none());
                // An edge per arm, and a succession only when there is no else.
                let out = Edges::with_capacity(control.arms.len() + usize::from(!has_else));
                let id = self.add(Node::Branch { out }, control.start, &mut open);
                let mut exits = open;
                for (index, arm) in control.arms.drain(..).enumerate() {
                    if let Some(out) = self.nodes[id].out_mut() {
                        out.push(Edge::Branch { target: OPEN, condition: condition(&arm.condition) });
                    }
                    self.branch_off(arm.body, Hole::Edge(id, index), &mut exits);
                }
                self.emptied.arms.push(control.arms);
                if !has_else {
                    exits.push(Hole::Succession(id));
                }
                exits
            }
        }
    }
}

/// What an option shows: the words of its first line, or its jump's label.
fn label(body: &[Block]) -> Vec<Fragment> {
    match body.first() {
        Some(Block::Line(line)) => line.speech.clone(),
        Some(Block::Control(control)) => match &control.jump {
            Some(jump) if control.effects.is_empty() => jump.label.clone(),
            _ => control.effects.clone(),
        },
        _ => Vec::new(),
    }
}
