//! What is offered from a node, in the page's four steps: collect the links in order, filter by
//! condition (Passthrough putting a false candidate's children in its place), suppress by priority
//! within each group, and expand groups (carrying their scripts down).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use stagehand_lua::ScriptHost;

use super::index::{Index, Node};
use super::{environment, Log};
use crate::model::ConditionPriority;

/// How deep Passthrough and group expansion may nest before the engine stops following (rings are
/// caught before this; a chain this long is only followed no further: decision M19).
const MAX_DEPTH: usize = 256;

/// One member of an offered set: the entry, and the groups whose scripts run before its own
/// (outermost first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Offered {
    /// The entry's node.
    pub node: usize,
    /// The groups it was expanded from, outermost first.
    pub carried: Vec<usize>,
}

/// Whether a node's condition holds now. Empty is true; a condition that does not compile or
/// fails to run (an error, the budget, memory) is true and logged (the page).
pub(crate) fn holds(node: &Node, host: &mut dyn ScriptHost, log: &mut Log) -> bool {
    match &node.condition {
        None => true,
        Some(Err(message)) => {
            log.push(format!("{}: the condition cannot be evaluated, so it counts as true: {message}", node.label));
            true
        }
        Some(Ok(condition)) => match environment::evaluate(host, *condition) {
            Ok(holds) => holds,
            Err(error) => {
                let error = environment::failure(&error);
                log.push(format!("{}: the condition cannot be evaluated, so it counts as true: {error}", node.label));
                true
            }
        },
    }
}

/// A ring met while computing an offered set: its members, the one met again first, then those
/// that led back to it. The ring was not followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ring {
    /// Groups met again inside their own expansion (decision M10).
    Groups(Vec<usize>),
    /// False Passthrough entries met again while their own children stood in their place (M18).
    Passthrough(Vec<usize>),
}

/// An offered set, with what the way to it met: the candidates its conditions closed, and a ring
/// of groups or of Passthrough entries if one was found.
#[derive(Debug, Default)]
pub(crate) struct OfferedSet {
    /// The offered set, in link order.
    pub offered: Vec<Offered>,
    /// The candidates dropped because their conditions were false (Passthrough ones included:
    /// their children were considered in their place), in the order they were met, each once.
    pub closed: Vec<usize>,
    /// The first ring met (decisions M10, M18).
    pub ring: Option<Ring>,
}

/// The offered set from `from` (steps 1–4).
pub(crate) fn offered(index: &Index, host: &mut dyn ScriptHost, log: &mut Log, from: usize) -> OfferedSet {
    let mut walk = Selection {
        index,
        host,
        log,
        set: OfferedSet::default(),
        closed: HashSet::new(),
        carried: Vec::new(),
        passing: Vec::new(),
        expanded: HashSet::new(),
    };
    let mut pool = Vec::new();
    walk.filter(from, 0, &mut pool, &mut HashSet::new());
    let pool = suppress(index, pool);
    walk.expand(pool);
    walk.set
}

/// One computation of an offered set: the project and the host, what it has found so far, and
/// step 2's and step 4's bookkeeping (the false Passthrough entries and the groups on the way
/// down, and the groups already expanded, each once, so groups reached along many paths cost
/// nothing more).
struct Selection<'a> {
    index: &'a Index,
    host: &'a mut dyn ScriptHost,
    log: &'a mut Log,
    set: OfferedSet,
    closed: HashSet<usize>,
    carried: Vec<usize>,
    passing: Vec<usize>,
    expanded: HashSet<usize>,
}

impl Selection<'_> {
    /// Step 2 over `origin`'s links, appending survivors to `pool`. Each candidate is considered
    /// once per pool (`seen`), so links reached twice, or Passthrough entries sharing children, are
    /// not evaluated again; but a false Passthrough entry met again among the children standing in
    /// its own place is a ring (M18): it is recorded, not followed. A root whose condition is false
    /// is dropped whatever its FalseConditionAction: its condition says whether its conversation
    /// may be entered (M9).
    fn filter(&mut self, origin: usize, depth: usize, pool: &mut Vec<usize>, seen: &mut HashSet<usize>) {
        let nodes = &self.index.nodes;
        for (position, link) in nodes[origin].links.iter().enumerate() {
            let Some(candidate) = *link else {
                self.log.push(format!(
                    "{}: link {} leads to no entry, so it is skipped",
                    nodes[origin].label,
                    position + 1
                ));
                continue;
            };
            if let Some(at) = self.passing.iter().position(|&p| p == candidate) {
                self.set.ring.get_or_insert_with(|| Ring::Passthrough(self.passing[at..].to_vec()));
                continue;
            }
            if !seen.insert(candidate) {
                continue;
            }
            let node = &nodes[candidate];
            if holds(node, self.host, self.log) {
                pool.push(candidate);
                continue;
            }
            if self.closed.insert(candidate) {
                self.set.closed.push(candidate);
            }
            if node.passthrough && !node.is_root {
                if depth >= MAX_DEPTH {
                    self.log.push(format!(
                        "{}: Passthrough entries nest more than {MAX_DEPTH} deep here, so this one is not followed",
                        node.label
                    ));
                } else {
                    self.passing.push(candidate);
                    self.filter(candidate, depth + 1, pool, seen);
                    self.passing.pop();
                }
            }
        }
    }

    /// Step 4: replace each group by its children, filtered and suppressed, carrying its script.
    /// A group met again inside its own expansion is a ring: it is recorded, not followed.
    fn expand(&mut self, pool: Vec<usize>) {
        let nodes = &self.index.nodes;
        for node in pool {
            if !nodes[node].is_group {
                if !self.set.offered.iter().any(|o| o.node == node) {
                    self.set.offered.push(Offered { node, carried: self.carried.clone() });
                }
                continue;
            }
            if let Some(at) = self.carried.iter().position(|&g| g == node) {
                self.set.ring.get_or_insert_with(|| Ring::Groups(self.carried[at..].to_vec()));
                continue;
            }
            if self.carried.len() >= MAX_DEPTH {
                self.log.push(format!(
                    "{}: groups nest more than {MAX_DEPTH} deep here, so this one is not expanded",
                    nodes[node].label
                ));
                continue;
            }
            // A group reached again along another path was expanded once already (M6); that is
            // the rule at work, not a fault of the project, so it is not logged (M34).
            if !self.expanded.insert(node) {
                continue;
            }
            let mut children = Vec::new();
            self.filter(node, 0, &mut children, &mut HashSet::new());
            let children = suppress(self.index, children);
            self.carried.push(node);
            self.expand(children);
            self.carried.pop();
        }
    }
}

/// Step 3: within each priority group, keep only the candidates at the best priority present.
fn suppress(index: &Index, pool: Vec<usize>) -> Vec<usize> {
    let nodes = &index.nodes;
    let mut best: HashMap<usize, ConditionPriority> = HashMap::new();
    for &n in &pool {
        let priority = nodes[n].priority;
        best.entry(nodes[n].group).and_modify(|b| *b = (*b).min(priority)).or_insert(priority);
    }
    pool.into_iter().filter(|&n| best.get(&nodes[n].group) == Some(&nodes[n].priority)).collect()
}
