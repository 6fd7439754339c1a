//! What is offered from a node, in the page's four steps: collect the links in order, filter by
//! condition (Passthrough putting a false candidate's children in its place), suppress by priority
//! within each group, and expand groups (carrying their scripts down).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use stagehand_lua::ScriptHost;

use super::index::{Index, Node};
use super::{environment, Log};
use crate::model::ConditionPriority;

/// How deep Passthrough and group expansion may nest before the engine stops following (a loop of
/// false Passthrough entries, or groups linking to each other).
const MAX_DEPTH: usize = 64;

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
                log.push(format!("{}: the condition cannot be evaluated, so it counts as true: {error}", node.label));
                true
            }
        },
    }
}

/// The offered set from `from` (steps 1–4).
pub(crate) fn offered(index: &Index, host: &mut dyn ScriptHost, log: &mut Log, from: usize) -> Vec<Offered> {
    let mut pool = Vec::new();
    filter(index, host, log, from, 0, &mut pool, &mut HashSet::new());
    let pool = suppress(index, pool);
    let mut out = Vec::new();
    let mut walk = Expansion { carried: Vec::new(), expanded: HashSet::new(), out: &mut out };
    expand(index, host, log, pool, &mut walk);
    out
}

/// Step 4's bookkeeping: the groups on the way down, the groups already expanded (each once, so
/// groups reached along many paths cost nothing more), and the result.
struct Expansion<'o> {
    carried: Vec<usize>,
    expanded: HashSet<usize>,
    out: &'o mut Vec<Offered>,
}

/// Step 2 over `origin`'s links, appending survivors to `pool`. Each candidate is considered once
/// per pool (`seen`), so links reached twice, or Passthrough entries sharing children, are not
/// evaluated again.
fn filter(
    index: &Index,
    host: &mut dyn ScriptHost,
    log: &mut Log,
    origin: usize,
    depth: usize,
    pool: &mut Vec<usize>,
    seen: &mut HashSet<usize>,
) {
    let nodes = &index.nodes;
    for (position, link) in nodes[origin].links.iter().enumerate() {
        let Some(candidate) = *link else {
            log.push(format!("{}: link {} leads to no entry, so it is skipped", nodes[origin].label, position + 1));
            continue;
        };
        if !seen.insert(candidate) {
            continue;
        }
        let node = &nodes[candidate];
        if holds(node, host, log) {
            pool.push(candidate);
        } else if node.passthrough {
            if depth >= MAX_DEPTH {
                log.push(format!("{}: Passthrough nests too deep (a loop?), so it is not followed", node.label));
            } else {
                filter(index, host, log, candidate, depth + 1, pool, seen);
            }
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

/// Step 4: replace each group by its children, filtered and suppressed, carrying its script.
fn expand(index: &Index, host: &mut dyn ScriptHost, log: &mut Log, pool: Vec<usize>, walk: &mut Expansion<'_>) {
    for node in pool {
        if !index.nodes[node].is_group {
            if !walk.out.iter().any(|o| o.node == node) {
                walk.out.push(Offered { node, carried: walk.carried.clone() });
            }
            continue;
        }
        if walk.carried.len() >= MAX_DEPTH || !walk.expanded.insert(node) {
            log.push(format!(
                "{}: the group was already expanded for this offered set, so it is not expanded again",
                index.nodes[node].label
            ));
            continue;
        }
        let mut children = Vec::new();
        filter(index, host, log, node, 0, &mut children, &mut HashSet::new());
        let children = suppress(index, children);
        walk.carried.push(node);
        expand(index, host, log, children, walk);
        walk.carried.pop();
    }
}
