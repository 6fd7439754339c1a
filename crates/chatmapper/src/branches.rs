//! What `check` reads off the shape of a project's links, without playing it: rings of groups
//! (groups that expand into each other, decision M10), rings of Passthrough entries (M18) and
//! player lines standing at a branch (decision M11). Each pass is linear in the number of entries
//! and links.

use std::collections::HashMap;

use crate::model::{DialogEntry, FalseConditionAction, Id, Project};

/// An entry's place: `(conversation ID, entry ID)`.
pub(crate) type Place = (Id, Id);

/// How deep counting follows groups inside groups; deeper ones count as nothing (a chain of
/// thousands of nested groups must not exhaust the stack).
const MAX_DEPTH: usize = 64;

/// The project's entries as a graph of indices, in document order.
struct Graph {
    places: Vec<Place>,
    is_group: Vec<bool>,
    /// Each entry's link destinations that exist, in link order.
    links: Vec<Vec<usize>>,
}

impl Graph {
    fn new(project: &Project) -> Self {
        let mut places = Vec::new();
        let mut is_group = Vec::new();
        let mut at: HashMap<Place, usize> = HashMap::new();
        for conversation in &project.conversations {
            for entry in &conversation.entries {
                at.entry((conversation.id, entry.id)).or_insert(places.len());
                places.push((conversation.id, entry.id));
                is_group.push(entry.is_group);
            }
        }
        let links = project
            .conversations
            .iter()
            .flat_map(|c| &c.entries)
            .map(|entry| {
                entry
                    .links
                    .iter()
                    .filter_map(|l| at.get(&(l.destination_conversation, l.destination_entry)).copied())
                    .collect()
            })
            .collect();
        Graph { places, is_group, links }
    }
}

/// Every ring of groups: each a strongly connected set of groups linking to each other (or one
/// group linking to itself), its members in document order; the rings in the order of their
/// first members.
pub(crate) fn group_rings(project: &Project) -> Vec<Vec<Place>> {
    rings(project, |entry| entry.is_group)
}

/// Every ring of Passthrough entries (M18): entries that put their children in their own place
/// when their conditions are false (a condition written, Passthrough, not a root: M9), linking to
/// each other or one to itself. Conditions are not evaluated: such a ring loops only when all of
/// its conditions are false at once, so it is a warning, and play refuses it when it happens.
pub(crate) fn passthrough_rings(project: &Project) -> Vec<Vec<Place>> {
    rings(project, |entry| {
        entry.false_condition_action == FalseConditionAction::Passthrough
            && !entry.is_root
            && !entry.conditions.trim().is_empty()
    })
}

/// Every strongly connected set of `member` entries linking to each other only through members
/// (or one member linking to itself), as for [`group_rings`].
fn rings(project: &Project, member: impl Fn(&DialogEntry) -> bool) -> Vec<Vec<Place>> {
    let graph = Graph::new(project);
    let count = graph.places.len();
    let is_member: Vec<bool> = project.conversations.iter().flat_map(|c| &c.entries).map(member).collect();
    let member_links = |n: usize| graph.links[n].iter().copied().filter(|&m| is_member[m]);
    // Tarjan's strongly connected components over the members, iteratively.
    let mut order = vec![usize::MAX; count];
    let mut low = vec![0; count];
    let mut on_stack = vec![false; count];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut rings = Vec::new();
    for root in (0..count).filter(|&n| is_member[n]) {
        if order[root] != usize::MAX {
            continue;
        }
        let mut frames: Vec<(usize, Vec<usize>)> = vec![(root, member_links(root).collect())];
        order[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some((node, pending)) = frames.last_mut() {
            let node = *node;
            if let Some(child) = pending.pop() {
                if order[child] == usize::MAX {
                    order[child] = next;
                    low[child] = next;
                    next += 1;
                    stack.push(child);
                    on_stack[child] = true;
                    frames.push((child, member_links(child).collect()));
                } else if on_stack[child] {
                    low[node] = low[node].min(order[child]);
                }
                continue;
            }
            frames.pop();
            if let Some((parent, _)) = frames.last() {
                low[*parent] = low[*parent].min(low[node]);
            }
            if low[node] == order[node] {
                let mut members = Vec::new();
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    members.push(member);
                    if member == node {
                        break;
                    }
                }
                let looped = members.len() > 1 || graph.links[node].contains(&node);
                if looped {
                    members.sort_unstable();
                    rings.push(members);
                }
            }
        }
    }
    rings.sort_unstable();
    rings.into_iter().map(|ring| ring.into_iter().map(|n| graph.places[n]).collect()).collect()
}

/// The player lines (see [`Project::is_player_line`]) that stand at a branch: reached by a link
/// from an entry whose candidates, groups expanded, are two or more, or through groups that are
/// themselves at such a branch. In document order.
pub(crate) fn player_lines_at_branches(project: &Project) -> Vec<Place> {
    let graph = Graph::new(project);
    let count = graph.places.len();
    let mut linkers: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (origin, links) in graph.links.iter().enumerate() {
        for &target in links {
            linkers[target].push(origin);
        }
    }
    let mut widths: Vec<Option<usize>> = vec![None; count];
    let mut branches: Vec<Option<bool>> = vec![None; count];
    let entries: Vec<_> = project.conversations.iter().flat_map(|c| &c.entries).collect();
    (0..count)
        .filter(|&n| !graph.is_group[n] && project.is_player_line(entries[n]))
        .filter(|&n| at_branch(&graph, &linkers, (&mut widths, &mut branches), n, 0))
        .map(|n| graph.places[n])
        .collect()
}

/// How many candidates an entry's links make, counted up to two, each group counted as its own
/// candidates (a group met again while it is being counted, or nested past [`MAX_DEPTH`], counts
/// as none).
fn width(graph: &Graph, widths: &mut [Option<usize>], node: usize, depth: usize) -> usize {
    if let Some(known) = widths[node] {
        return known;
    }
    if depth > MAX_DEPTH {
        return 0;
    }
    widths[node] = Some(0);
    let mut total = 0usize;
    for &target in &graph.links[node] {
        total += if graph.is_group[target] { width(graph, widths, target, depth + 1) } else { 1 };
        if total >= 2 {
            break;
        }
    }
    widths[node] = Some(total);
    total
}

/// What [`at_branch`] remembers: each entry's width, and whether each node is at a branch.
type Memo<'m> = (&'m mut [Option<usize>], &'m mut [Option<bool>]);

/// Whether a node is among two or more candidates of some entry linking to it (or is reached
/// through a group that is).
fn at_branch(graph: &Graph, linkers: &[Vec<usize>], memo: Memo<'_>, node: usize, depth: usize) -> bool {
    let (widths, branches) = memo;
    if let Some(known) = branches[node] {
        return known;
    }
    if depth > MAX_DEPTH {
        return false;
    }
    branches[node] = Some(false);
    let mut found = false;
    for &origin in &linkers[node] {
        if width(graph, widths, origin, 0) >= 2
            || (graph.is_group[origin] && at_branch(graph, linkers, (&mut *widths, &mut *branches), origin, depth + 1))
        {
            found = true;
            break;
        }
    }
    branches[node] = Some(found);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A JSON project of one conversation: `(ID, is group, player line, links)` per entry.
    fn project(entries: &[(Id, bool, bool, &[Id])]) -> Project {
        let nodes: Vec<String> = entries
            .iter()
            .map(|&(id, group, player, links)| {
                let links: Vec<String> = links
                    .iter()
                    .map(|to| {
                        format!(
                            r#"{{"OriginConvoID": 1, "OriginDialogID": {id}, "DestinationConvoID": 1, "DestinationDialogID": {to}}}"#
                        )
                    })
                    .collect();
                let actor = if player { 1 } else { 2 };
                format!(
                    r#"{{"ID": {id}, "IsRoot": {}, "IsGroup": {group}, "Fields": {{"Title": "e{id}", "Actor": "{actor}", "Dialogue Text": "Line {id}."}}, "OutgoingLinks": [{}]}}"#,
                    id == 0,
                    links.join(", ")
                )
            })
            .collect();
        let json = format!(
            r#"{{"Title": "t", "Assets": {{"Actors": [{{"ID": 1, "Fields": {{"Name": "P", "IsPlayer": "True"}}}}, {{"ID": 2, "Fields": {{"Name": "N"}}}}],
               "Conversations": [{{"ID": 1, "Fields": {{"Title": "c"}}, "DialogNodes": [{}]}}]}}}}"#,
            nodes.join(", ")
        );
        crate::load(json.as_bytes(), "t.json").expect("the project")
    }

    #[test]
    fn rings_are_strongly_connected_groups_and_a_group_linking_to_itself() {
        let rings = group_rings(&project(&[
            (0, false, false, &[1]),
            (1, true, false, &[2]),
            (2, true, false, &[3, 1]),
            (3, true, false, &[4]),
            (4, true, false, &[4, 5]),
            (5, false, false, &[1]),
        ]));
        assert_eq!(rings, [vec![(1, 1), (1, 2)], vec![(1, 4)]]);
        let chain = project(&[
            (0, false, false, &[1]),
            (1, true, false, &[2]),
            (2, true, false, &[3]),
            (3, false, false, &[1]),
        ]);
        assert_eq!(group_rings(&chain), Vec::<Vec<Place>>::new(), "a loop through a line is not a ring of groups");
    }

    #[test]
    fn player_lines_count_as_at_a_branch_through_groups_but_not_alone() {
        let lines = player_lines_at_branches(&project(&[
            (0, false, false, &[1]),
            (1, false, false, &[2, 3]),
            (2, true, false, &[4]),
            (3, true, false, &[5]),
            (4, false, true, &[6]),
            (5, false, true, &[]),
            (6, false, true, &[]),
        ]));
        assert_eq!(lines, [(1, 4), (1, 5)], "6 follows 4 alone: no branch");
    }
}
