//! Whole-graph analyses for `stagehand check MACHINE`: findings about a machine the reader
//! accepted, each with a JSON path (A11).

use std::collections::{BTreeSet, VecDeque};

use super::types::{EdgeKind, Machine};

/// What an analysis found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindingKind {
    /// No way from the initial state leads here.
    UnreachableState,
    /// A declared result no transition of its state handles.
    GuardNeverTaken,
    /// No way from here leads to a final state without a Boss interrupt.
    NoWayToFinal,
}

impl FindingKind {
    /// The kebab-case name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::UnreachableState => "unreachable-state",
            FindingKind::GuardNeverTaken => "guard-never-taken",
            FindingKind::NoWayToFinal => "no-way-to-final",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What was found.
    pub kind: FindingKind,
    /// A JSON path into the document, e.g. `$.states[4]`.
    pub path: String,
    /// A sentence for people.
    pub message: String,
}

/// Runs every analysis on a machine the reader accepted. Findings come in state order.
pub fn check(m: &Machine) -> Vec<Finding> {
    let edges = m.implied_edges();
    let reach = closure(&m.initial, &edges, false, |_| true);
    let finals: Vec<&str> = m.states.iter().filter(|s| s.is_final).map(|s| s.id.as_str()).collect();
    // Backwards from the finals over the ways a run moves on its own: Boss interrupts are an
    // escape hatch and the error path a failure, so neither counts as a way (A11).
    let mut to_final = BTreeSet::new();
    for f in finals {
        to_final.extend(closure(f, &edges, true, |k| !matches!(k, EdgeKind::Interrupt | EdgeKind::Error)));
    }
    let mut out = Vec::new();
    for (i, s) in m.states.iter().enumerate() {
        if !reach.contains(s.id.as_str()) {
            out.push(Finding {
                kind: FindingKind::UnreachableState,
                path: format!("$.states[{i}]"),
                message: format!("state `{}` cannot be reached from `{}`", s.id, m.initial),
            });
        }
        // A parallel member's results are staged and joined by its group (A10), not routed.
        let member = m.states.iter().any(|g| g.parallel.contains(&s.id));
        if let Some(inv) = s.invoke.as_ref().filter(|_| !member) {
            let written = matches!(inv, super::Invoke::Player { results, .. } | super::Invoke::Captain { results, .. } | super::Invoke::Playbook { results, .. } if !results.is_empty());
            for (j, r) in inv.declared_results().iter().enumerate() {
                if s.on.iter().any(|t| t.guard.as_deref() == Some(r.guard.as_str())) {
                    continue;
                }
                let path = if written {
                    format!("$.states[{i}].invoke.results[{j}]")
                } else {
                    format!("$.states[{i}].invoke")
                };
                out.push(Finding {
                    kind: FindingKind::GuardNeverTaken,
                    path,
                    message: format!(
                        "result `{}` of state `{}` has no transition (it would fail over to `failed`)",
                        r.guard, s.id
                    ),
                });
            }
        }
        if !s.is_final && !to_final.contains(s.id.as_str()) {
            out.push(Finding {
                kind: FindingKind::NoWayToFinal,
                path: format!("$.states[{i}]"),
                message: format!("no way leads from state `{}` to a final state", s.id),
            });
        }
    }
    out
}

fn closure<'e>(
    start: &'e str,
    edges: &'e [(String, String, EdgeKind)],
    backwards: bool,
    follow: impl Fn(EdgeKind) -> bool,
) -> BTreeSet<&'e str> {
    let mut seen = BTreeSet::from([start]);
    let mut queue = VecDeque::from([start]);
    while let Some(at) = queue.pop_front() {
        for (from, to, kind) in edges {
            if !follow(*kind) {
                continue;
            }
            let (a, b) = if backwards { (to, from) } else { (from, to) };
            if a == at && seen.insert(b.as_str()) {
                queue.push_back(b.as_str());
            }
        }
    }
    seen
}
