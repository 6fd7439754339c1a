//! Lints over a compiled graph: what a script compiles to and plays badly. `stagehand check`
//! runs them after a script compiles and reads back. What a node asks the world is taken from
//! the runner's own reading ([`NodeAsks`], what its `PlayContext` records), so a lint about
//! keys cannot disagree with what a run asks.
//!
//! | Lint | Severity | Why |
//! | --- | --- | --- |
//! | a node nothing reaches (from the entry or any anchor) | warning | dead words |
//! | a node from which the story can never end | warning | a run there never reaches an `end` |
//! | a ring of nodes that never say a line or offer a menu | error (only jumps and commands) or warning (with random choices, or questions whose answers may lead out) | a run going round it is refused `endless-loop` (D10 of `docs/design/runner.md`) |
//! | one node needing a key as a truth and as words (or a number) | error | the runner refuses it `key-needed-both-ways` |
//! | one key asked as a truth in one place and as words in another | warning | one world answer cannot serve both |

use std::collections::{BTreeMap, BTreeSet};

use stagehand_dialoguedown::Severity;
use stagehand_playbook::{plain_text, Edge, Node, Playbook, Weight};
use stagehand_runner::{AnswerKind, NodeAsks};

/// One thing the graph lints found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lint {
    /// How serious it is.
    pub severity: Severity,
    /// The node it concerns (its position in the playbook).
    pub node: usize,
    /// Where the node was written (line and column, from 1), when the source is known.
    pub place: Option<(usize, usize)>,
    /// What is wrong, naming the node by its words where it has some.
    pub message: String,
}

/// The kinds of answer a key can be asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Use {
    Truth,
    Words,
    Number,
}

impl From<AnswerKind> for Use {
    fn from(kind: AnswerKind) -> Use {
        match kind {
            AnswerKind::Truth => Use::Truth,
            AnswerKind::Text => Use::Words,
            AnswerKind::Number => Use::Number,
        }
    }
}

impl Use {
    fn describe(self) -> &'static str {
        match self {
            Use::Truth => "a truth (a condition)",
            Use::Words => "words (a query)",
            Use::Number => "a number (a weight)",
        }
    }
}

/// Where each node was written (line and column, from 1), by node; empty when only the compiled
/// playbook is known (a playbook file), and nodes are named by number. As
/// `stagehand_dialoguedown::line_columns` gives them: pairs of `u32`, 8 bytes a node.
pub type Places<'a> = &'a [(u32, u32)];

/// A node by where it was written (`the line at 5:1`), else by number (`node 2 (line)`).
fn name_node(playbook: &Playbook, places: Places<'_>, index: usize) -> String {
    let Some(node) = playbook.nodes.get(index) else { return format!("node {index}") };
    match places.get(index) {
        Some((line, column)) => {
            let kind = match node {
                Node::Line { .. } => "line",
                Node::Control { .. } => "control line",
                Node::Choice { .. } => "menu",
                Node::RandomChoice { .. } => "random choice",
                Node::Branch { .. } => "conditional block",
                Node::End => "end",
            };
            format!("the {kind} at {line}:{column}")
        }
        None => format!("node {index} ({})", node.kind()),
    }
}

/// How a node reads to a person: where it was written (or its number) and its first words.
pub fn describe_node(playbook: &Playbook, places: Places<'_>, index: usize) -> String {
    let Some(node) = playbook.nodes.get(index) else { return format!("node {index}") };
    let words = match node {
        Node::Line { speaker, speech, .. } => {
            let who = playbook
                .speaker(stagehand_playbook::position(*speaker))
                .and_then(|s| s.name.as_deref())
                .unwrap_or("the narrator");
            Some(format!("{who}: {}", plain_text(speech)))
        }
        Node::Choice { out, .. } => out.iter().find_map(|edge| match edge {
            Edge::Option { label, .. } => Some(format!("a menu starting \"{}\"", plain_text(label))),
            _ => None,
        }),
        _ => None,
    };
    let mut text = name_node(playbook, places, index);
    if let Some(words) = words {
        let short: String = words.chars().take(60).collect();
        let ellipsis = if short.len() < words.len() { "…" } else { "" };
        text.push_str(&format!(" \"{}{ellipsis}\"", short.trim()));
    }
    text
}

/// Runs every lint; `places` (from the compiler) name nodes by where they were written.
pub fn lint(playbook: &Playbook, places: Places<'_>) -> Vec<Lint> {
    let mut lints = Vec::new();
    let starts = std::iter::once(playbook.entry).chain(playbook.anchors.values().copied());
    let seen = reached_from(playbook, starts);
    unreachable(playbook, places, &seen, &mut lints);
    never_ends(playbook, places, &seen, &mut lints);
    turnless_rings(playbook, places, &mut lints);
    keys(playbook, places, &mut lints);
    for found in &mut lints {
        found.place = places.get(found.node).map(|&(line, column)| (line as usize, column as usize));
    }
    lints.sort_by_key(|lint| (lint.node, lint.severity != Severity::Error));
    lints
}

fn successors(node: &Node) -> impl Iterator<Item = usize> + '_ {
    node.out().iter().map(Edge::target)
}

fn reached_from(playbook: &Playbook, starts: impl IntoIterator<Item = usize>) -> Vec<bool> {
    let mut seen = vec![false; playbook.nodes.len()];
    let mut stack: Vec<usize> = starts.into_iter().filter(|&s| s < seen.len()).collect();
    while let Some(at) = stack.pop() {
        if std::mem::replace(&mut seen[at], true) {
            continue;
        }
        stack.extend(successors(&playbook.nodes[at]).filter(|&n| n < seen.len() && !seen[n]));
    }
    seen
}

/// Nodes nothing reaches; `seen` holds what the start and the scenes reach.
fn unreachable(playbook: &Playbook, places: Places<'_>, seen: &[bool], lints: &mut Vec<Lint>) {
    for (index, reached) in seen.iter().enumerate() {
        // The end node is shared; a script whose every path jumps away leaves it unreached harmlessly.
        if !reached && !matches!(playbook.nodes[index], Node::End) {
            lints.push(Lint {
                severity: Severity::Warning,
                node: index,
                place: None,
                message: format!(
                    "{} is never reached from the start or any scene",
                    describe_node(playbook, places, index)
                ),
            });
        }
    }
}

/// Where a run first gets trapped; `seen` holds what the start and the scenes reach.
fn never_ends(playbook: &Playbook, places: Places<'_>, seen: &[bool], lints: &mut Vec<Lint>) {
    let n = playbook.nodes.len();
    let predecessors = Predecessors::of(playbook);
    let mut can_end = vec![false; n];
    let mut stack: Vec<usize> = (0..n).filter(|&i| matches!(playbook.nodes[i], Node::End)).collect();
    while let Some(at) = stack.pop() {
        if std::mem::replace(&mut can_end[at], true) {
            continue;
        }
        stack.extend(predecessors.of_node(at).filter(|&p| !can_end[p]));
    }
    for index in (0..n).filter(|&i| seen[i] && !can_end[i]) {
        // Report only where a run first gets trapped: a node some trapped node's predecessor can
        // still end from, or the start.
        let entry_point = index == playbook.entry || predecessors.of_node(index).any(|p| can_end[p]);
        if entry_point {
            lints.push(Lint {
                severity: Severity::Warning,
                node: index,
                place: None,
                message: format!("from {}, the story can never reach an end", describe_node(playbook, places, index)),
            });
        }
    }
}

/// Every node's predecessors, in one array sliced by node (a list per node would cost a
/// third of a million allocations on a big script's playbook: issue 11, item 11).
struct Predecessors {
    /// Where each node's predecessors start in `from`; one more entry than there are nodes.
    starts: Vec<u32>,
    from: Vec<u32>,
}

impl Predecessors {
    fn of(playbook: &Playbook) -> Predecessors {
        let n = playbook.nodes.len();
        // Counted first, then placed: two passes over the edges, no list grown.
        let mut starts = vec![0u32; n + 1];
        for node in &playbook.nodes {
            for to in successors(node).filter(|&t| t < n) {
                starts[to + 1] += 1;
            }
        }
        for i in 0..n {
            starts[i + 1] += starts[i];
        }
        // Each node's predecessors are placed from the end of its slice backwards, its end
        // (`starts[to + 1]`) serving as the cursor: once all are placed, each holds the start
        // of node `to`, one place along, and shifting them back makes the slices again.
        let total = starts[n];
        let mut from = vec![0u32; total as usize];
        for (index, node) in playbook.nodes.iter().enumerate().rev() {
            for to in successors(node).filter(|&t| t < n) {
                starts[to + 1] -= 1;
                from[starts[to + 1] as usize] = index as u32;
            }
        }
        starts.rotate_left(1);
        starts[n] = total;
        Predecessors { starts, from }
    }

    fn of_node(&self, node: usize) -> impl Iterator<Item = usize> + '_ {
        let range = self.starts[node] as usize..self.starts[node + 1] as usize;
        self.from[range].iter().map(|&p| p as usize)
    }
}

/// What a node does on a ring the person never gets the turn on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    /// Hands the host nothing and goes one way.
    Silent,
    /// Performs commands and goes one way.
    Performs,
    /// Draws its way on, asking nothing.
    Draws,
    /// Asks the world, whose answers choose the way on (or withhold a line or menu).
    Asks,
}

/// Whether a node can be passed without giving the person the turn (saying a line or offering a
/// menu), and where the walk may go on to then.
fn turnless_ways(node: &Node) -> Option<(Vec<usize>, Way)> {
    let all = |out: &[Edge]| out.iter().map(Edge::target).collect::<Vec<_>>();
    let succession = |out: &[Edge]| out.iter().filter(|e| e.is_succession()).map(Edge::target).collect::<Vec<_>>();
    match node {
        Node::Control { effects, condition, out } => {
            if condition.is_some() || out.iter().any(|e| e.condition().is_some()) {
                return Some((all(out), Way::Asks));
            }
            let onward = out
                .iter()
                .find(|e| matches!(e, Edge::Divert { .. }))
                .or_else(|| out.iter().find(|e| e.is_succession()))
                .map(Edge::target);
            let way = if effects.iter().any(|f| f.is_command()) { Way::Performs } else { Way::Silent };
            Some((onward.into_iter().collect(), way))
        }
        Node::RandomChoice { out } => {
            let asks = out.iter().any(|e| {
                e.condition().is_some() || matches!(e, Edge::RandomOption { weight: Weight::Query { .. }, .. })
            });
            Some((all(out), if asks { Way::Asks } else { Way::Draws }))
        }
        Node::Branch { out } => Some((all(out), Way::Asks)),
        // A line or menu the world may withhold is stepped over by its succession.
        Node::Line { condition: Some(_), out, .. } => Some((succession(out), Way::Asks)),
        Node::Choice { out, .. } if out.iter().filter(|e| !e.is_succession()).all(|e| e.condition().is_some()) => {
            Some((succession(out), Way::Asks))
        }
        _ => None,
    }
}

/// How a ring reads, by what its members do: its severity and what a run does there.
fn ring_verdict(ways: impl Iterator<Item = Way> + Clone) -> (Severity, &'static str) {
    let has = |way: Way| ways.clone().any(|w| w == way);
    if has(Way::Asks) {
        (
            Severity::Warning,
            "never says a line or offers a menu unless the world's answers lead out: a run the world keeps going \
             round there is refused as an endless loop",
        )
    } else if has(Way::Draws) {
        (
            Severity::Warning,
            "hands the host nothing: a run that draws its way round there is refused as an endless loop",
        )
    } else if has(Way::Performs) {
        (
            Severity::Error,
            "never says a line or offers a menu, only performs commands: a run that enters it is refused as an \
             endless loop",
        )
    } else {
        (Severity::Error, "hands the host nothing: a run that enters there is refused as an endless loop")
    }
}

/// The subgraph that gives nobody the turn, node by node: each node's [`Way`] (none for a node
/// off it) and its onward nodes, in one array sliced by node, not a list per node.
struct Turnless {
    ways: Vec<Option<Way>>,
    starts: Vec<u32>,
    targets: Vec<u32>,
}

impl Turnless {
    fn of(playbook: &Playbook) -> Turnless {
        let n = playbook.nodes.len();
        let mut turnless =
            Turnless { ways: Vec::with_capacity(n), starts: Vec::with_capacity(n + 1), targets: Vec::new() };
        turnless.starts.push(0);
        for node in &playbook.nodes {
            let found = turnless_ways(node);
            turnless.ways.push(found.as_ref().map(|(_, way)| *way));
            // A target past the table is off the subgraph, as a node off it is.
            let onward = found.into_iter().flat_map(|(targets, _)| targets).filter(|&t| t < n);
            turnless.targets.extend(onward.map(|t| t as u32));
            turnless.starts.push(turnless.targets.len() as u32);
        }
        turnless.targets.shrink_to_fit();
        turnless
    }

    fn targets(&self, node: usize) -> &[u32] {
        &self.targets[self.starts[node] as usize..self.starts[node + 1] as usize]
    }
}

fn turnless_rings(playbook: &Playbook, places: Places<'_>, lints: &mut Vec<Lint>) {
    let n = playbook.nodes.len();
    let turnless = Turnless::of(playbook);
    let ways = &turnless.ways;
    // Tarjan's strongly connected components over the subgraph that gives nobody the turn.
    const UNSEEN: u32 = u32::MAX;
    let mut index_of = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut counter = 0;
    let mut reported = BTreeSet::new();
    for root in 0..n {
        if index_of[root] != UNSEEN || ways[root].is_none() {
            continue;
        }
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some(&mut (at, ref mut next)) = work.last_mut() {
            if *next == 0 && index_of[at] == UNSEEN {
                index_of[at] = counter;
                low[at] = counter;
                counter += 1;
                stack.push(at);
                on_stack[at] = true;
            }
            if let Some(&to) = turnless.targets(at).get(*next) {
                let to = to as usize;
                *next += 1;
                if ways[to].is_none() {
                    continue;
                }
                if index_of[to] == UNSEEN {
                    work.push((to, 0));
                } else if on_stack[to] {
                    low[at] = low[at].min(index_of[to]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[at]);
            }
            if low[at] == index_of[at] {
                let mut ring = Vec::new();
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    ring.push(member);
                    if member == at {
                        break;
                    }
                }
                let loops_on_itself = ring.len() == 1 && turnless.targets(at).contains(&(at as u32));
                if ring.len() > 1 || loops_on_itself {
                    ring.sort_unstable();
                    let (severity, what) = ring_verdict(ring.iter().filter_map(|&m| ways[m]));
                    if reported.insert(ring[0]) {
                        let members = if places.is_empty() {
                            let numbers: Vec<String> = ring.iter().map(|m| m.to_string()).collect();
                            format!("nodes {}", numbers.join(", "))
                        } else {
                            let named: Vec<String> = ring.iter().map(|&m| name_node(playbook, places, m)).collect();
                            match named.split_last() {
                                Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
                                _ => named.concat(),
                            }
                        };
                        lints.push(Lint {
                            severity,
                            node: ring[0],
                            place: None,
                            message: format!("{members} form a ring that {what}"),
                        });
                    }
                }
            }
        }
    }
}

/// Keys asked two ways: within one node, which the runner refuses (as `PlayContext::conflict`
/// finds it), and across nodes, which one world answer cannot serve. Each node's questions are
/// read as the runner reads them ([`NodeAsks`], what a context records), one node at a time:
/// a whole context of a big playbook would sit beside it for nothing.
fn keys(playbook: &Playbook, places: Places<'_>, lints: &mut Vec<Lint>) {
    let mut everywhere: BTreeMap<&str, BTreeMap<Use, usize>> = BTreeMap::new();
    for (index, node) in playbook.nodes.iter().enumerate() {
        let asks = NodeAsks::of(node);
        if let Some((key, first, second)) = asks.conflict() {
            let mut kinds = [Use::from(first), Use::from(second)];
            kinds.sort();
            lints.push(Lint {
                severity: Severity::Error,
                node: index,
                place: None,
                message: format!(
                    "{} needs the key \"{key}\" as {} and as {}, which one answer cannot be (the runner refuses it)",
                    describe_node(playbook, places, index),
                    kinds[0].describe(),
                    kinds[1].describe()
                ),
            });
        }
        for question in asks.questions() {
            everywhere.entry(question.key).or_default().entry(Use::from(question.kind)).or_insert(index);
        }
    }
    for (key, kinds) in everywhere.iter().filter(|(_, kinds)| kinds.len() > 1) {
        let asked: Vec<String> = kinds
            .iter()
            .map(|(kind, node)| format!("as {} at {}", kind.describe(), describe_node(playbook, places, *node)))
            .collect();
        let first = kinds.values().copied().min().unwrap_or(0);
        lints.push(Lint {
            severity: Severity::Warning,
            node: first,
            place: None,
            message: format!("the key \"{key}\" is asked {}", asked.join(", and ")),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagehand_playbook::{smallvec, Condition, Fragment, Speaker};

    fn line(words: &str, out: Vec<Edge>) -> Node {
        Node::Line { speaker: 0, speech: vec![Fragment::text(words)].into(), condition: None, out: out.into() }
    }

    fn book(nodes: Vec<Node>) -> Playbook {
        let mut playbook = Playbook::new("t.dialogue.md");
        playbook.speakers.push(Speaker::named("Alice"));
        playbook.nodes = nodes;
        playbook
    }

    fn jump(target: u32) -> Node {
        Node::Control {
            effects: vec![].into(),
            condition: None,
            out: smallvec![Edge::Divert { target, label: vec![].into(), condition: None }],
        }
    }

    #[test]
    fn a_clean_graph_has_no_lints() {
        let playbook = book(vec![line("Hi.", vec![Edge::Succession { target: 1 }]), Node::End]);
        assert!(lint(&playbook, &[]).is_empty());
    }

    #[test]
    fn unreachable_nodes_trapped_runs_and_silent_rings_are_found() {
        let playbook = book(vec![
            line("Hi.", vec![Edge::Succession { target: 1 }]),
            jump(2),
            jump(1),
            line("Never said.", vec![Edge::Succession { target: 4 }]),
            Node::End,
        ]);
        let lints = lint(&playbook, &[]);
        let messages: Vec<&str> = lints.iter().map(|l| l.message.as_str()).collect();
        assert!(
            messages.iter().any(|m| m.contains("node 3 (line) \"Alice: Never said.\" is never reached")),
            "{messages:?}"
        );
        assert!(messages.iter().any(|m| m.contains("can never reach an end")), "{messages:?}");
        let ring = lints.iter().find(|l| l.message.contains("ring")).expect("the ring");
        assert_eq!((ring.severity, ring.node), (Severity::Error, 1));
    }

    fn tick(out: Vec<Edge>) -> Node {
        Node::Control {
            effects: vec![Fragment::DefaultCommand { action: "tick".into() }].into(),
            condition: None,
            out: out.into(),
        }
    }

    #[test]
    fn a_ring_that_only_performs_is_an_error_and_one_the_world_may_leave_warns() {
        // Hi, then a line-less ring of control nodes around `("tick")`.
        let forced = book(vec![
            line("Hi.", vec![Edge::Succession { target: 1 }]),
            tick(vec![Edge::Succession { target: 2 }]),
            jump(1),
            Node::End,
        ]);
        let lints = lint(&forced, &[]);
        let ring = lints.iter().find(|l| l.message.contains("ring")).expect("the ring is found");
        assert_eq!((ring.severity, ring.node), (Severity::Error, 1), "{lints:?}");
        assert!(ring.message.contains("never says a line or offers a menu"), "{}", ring.message);
        // The same ring, left when the world says `done?`: a loop the world may end.
        let ended_by_the_world = book(vec![
            line("Hi.", vec![Edge::Succession { target: 1 }]),
            tick(vec![Edge::Succession { target: 2 }]),
            Node::Control {
                effects: vec![].into(),
                condition: None,
                out: smallvec![
                    Edge::Divert { target: 3, label: vec![].into(), condition: Some(Condition::key("done")) },
                    Edge::Succession { target: 1 }
                ],
            },
            Node::End,
        ]);
        let lints = lint(&ended_by_the_world, &[]);
        let ring = lints.iter().find(|l| l.message.contains("ring")).expect("the ring is found");
        assert_eq!((ring.severity, ring.node), (Severity::Warning, 1), "{lints:?}");
    }

    #[test]
    fn a_key_the_runner_does_not_ask_is_no_conflict() {
        // `K?` => [Go `"K"`](#end): the runner asks K as a truth to take the jump, and never
        // asks the jump's label, so one answer serves.
        let playbook = book(vec![
            Node::Control {
                effects: vec![].into(),
                condition: None,
                out: smallvec![
                    Edge::Divert {
                        target: 1,
                        label: vec![Fragment::query("K")].into(),
                        condition: Some(Condition::key("K"))
                    },
                    Edge::Succession { target: 1 }
                ],
            },
            Node::End,
        ]);
        assert!(lint(&playbook, &[]).iter().all(|l| !l.message.contains("\"K\"")), "{:?}", lint(&playbook, &[]));
    }

    #[test]
    fn a_key_asked_two_ways_is_found_in_a_node_and_across_nodes() {
        let playbook = book(vec![
            Node::Line {
                speaker: 0,
                speech: vec![Fragment::query("mood")].into(),
                condition: Some(Condition::key("mood")),
                out: smallvec![Edge::Succession { target: 1 }],
            },
            Node::Line {
                speaker: 0,
                speech: vec![Fragment::query("gold")].into(),
                condition: None,
                out: smallvec![Edge::Succession { target: 2 }],
            },
            Node::Line {
                speaker: 0,
                speech: vec![].into(),
                condition: Some(Condition::key("gold")),
                out: smallvec![Edge::Succession { target: 3 }],
            },
            Node::End,
        ]);
        let lints = lint(&playbook, &[]);
        assert!(lints.iter().any(|l| l.severity == Severity::Error && l.node == 0 && l.message.contains("\"mood\"")));
        assert!(lints.iter().any(|l| l.severity == Severity::Warning && l.message.contains("\"gold\"")));
    }
}
