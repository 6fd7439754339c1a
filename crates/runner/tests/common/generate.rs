//! A proptest strategy drawing valid playbooks of every node kind (`PlaybookGen`).
//!
//! Keys come from three disjoint pools, one per kind of answer, so a drawn playbook never needs
//! a key two ways; every other shape the reader accepts may be drawn, rings of silent nodes and
//! nodes nothing reaches included.

use proptest::prelude::*;
use stagehand_playbook::{
    CompactString, Condition, Edge, Edges, Fragment, Node, NodeKind, Playbook, Speaker, SpeakerTag, Style, Weight,
};

fn truth_key() -> impl Strategy<Value = String> {
    (0..4u8).prop_map(|i| format!("flag{i}"))
}

fn text_key() -> impl Strategy<Value = String> {
    (0..4u8).prop_map(|i| format!("name{i}"))
}

fn number_key() -> impl Strategy<Value = String> {
    (0..3u8).prop_map(|i| format!("weight{i}"))
}

fn condition() -> impl Strategy<Value = Option<Condition>> {
    prop::option::weighted(0.3, truth_key().prop_map(Condition::key))
}

fn words() -> impl Strategy<Value = CompactString> {
    plain_words().prop_map(CompactString::from)
}

fn plain_words() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["Hello.", " ", "", "A fox.", "ünïcödé ", "\n"]).prop_map(str::to_owned)
}

fn command() -> impl Strategy<Value = Fragment> {
    prop_oneof![
        words().prop_map(|action| Fragment::DefaultCommand { action }),
        (prop::sample::select(vec!["Wave", "Bow", "Give"]), prop::collection::vec(words(), 0..2))
            .prop_map(|(name, args)| Fragment::CustomCommand { name: name.into(), args: args.into() }),
    ]
}

fn fragment() -> impl Strategy<Value = Fragment> {
    let leaf = prop_oneof![
        4 => words().prop_map(|text| Fragment::Text { text }),
        1 => Just(Fragment::Break),
        2 => text_key().prop_map(|key| Fragment::Query { key: key.into() }),
        1 => (words(), prop::option::of(words()), any::<bool>())
            .prop_map(|(name, value, reserved)| Fragment::Tag { name: name.into(), value: value.map(|value| Box::from(value.as_str())), reserved }),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            (prop::sample::select(Style::ALL.to_vec()), prop::collection::vec(inner.clone(), 0..3))
                .prop_map(|(style, children)| Fragment::Styled { style, children: children.into() }),
            (words(), prop::collection::vec(inner.clone(), 0..2))
                .prop_map(|(target, label)| Fragment::Link { target: target.into(), label: label.into() }),
            (words(), prop::collection::vec(inner, 0..2))
                .prop_map(|(source, alt)| Fragment::Image { source: source.into(), alt: alt.into() }),
        ]
    })
}

/// Speech with top-level commands mixed in.
fn speech() -> impl Strategy<Value = Vec<Fragment>> {
    prop::collection::vec(prop_oneof![4 => fragment(), 1 => command()], 0..6)
}

fn weight() -> impl Strategy<Value = Weight> {
    prop_oneof![
        Just(Weight::Auto),
        (0u8..=100).prop_map(|p| Weight::Number { percentage: f64::from(p) }),
        number_key().prop_map(|key| Weight::Query { key: key.into() }),
    ]
}

/// The ways out of a line or control node: at most one divert, and the succession the reader
/// needs when the node is conditional or has no open divert.
fn line_out(n: u32, conditional: bool) -> impl Strategy<Value = Vec<Edge>> {
    (prop::option::of((0..n, condition(), speech())), 0..n, any::<bool>()).prop_map(
        move |(divert, succession, extra)| {
            let mut out = Vec::new();
            let open = matches!(&divert, Some((_, None, _)));
            if let Some((target, condition, label)) = divert {
                out.push(Edge::Divert { target, label: label.into(), condition });
            }
            if conditional || !open || extra {
                out.push(Edge::Succession { target: succession });
            }
            out
        },
    )
}

/// Arms of one kind plus the succession the reader needs when every arm is gated.
fn with_fall_through(arms: Vec<Edge>, n_target: u32, extra: bool) -> Edges {
    let mut out = Edges::from_vec(arms);
    if out.iter().all(|edge| edge.condition().is_some()) || extra {
        out.push(Edge::Succession { target: n_target });
    }
    out
}

fn node(n: u32, speakers: u32, kind: NodeKind) -> BoxedStrategy<Node> {
    match kind {
        NodeKind::Line => (0..speakers, speech(), condition())
            .prop_flat_map(move |(speaker, speech, condition)| {
                let conditional = condition.is_some();
                line_out(n, conditional).prop_map(move |out| Node::Line {
                    speaker,
                    speech: speech.clone().into(),
                    condition: condition.clone(),
                    out: out.into(),
                })
            })
            .boxed(),
        NodeKind::Control => (prop::collection::vec(command(), 0..3), condition())
            .prop_flat_map(move |(effects, condition)| {
                let conditional = condition.is_some();
                line_out(n, conditional).prop_map(move |out| Node::Control {
                    effects: effects.clone().into(),
                    condition: condition.clone(),
                    out: out.into(),
                })
            })
            .boxed(),
        NodeKind::Choice => {
            (any::<bool>(), prop::collection::vec((0..n, speech(), condition()), 1..4), 0..n, any::<bool>())
                .prop_map(|(ordered, options, fall, extra)| Node::Choice {
                    ordered,
                    out: with_fall_through(
                        options
                            .into_iter()
                            .map(|(target, label, condition)| Edge::Option { target, label: label.into(), condition })
                            .collect(),
                        fall,
                        extra,
                    ),
                })
                .boxed()
        }
        NodeKind::RandomChoice => (prop::collection::vec((0..n, weight(), condition()), 1..4), 0..n, any::<bool>())
            .prop_map(|(arms, fall, extra)| Node::RandomChoice {
                out: with_fall_through(
                    arms.into_iter()
                        .map(|(target, weight, condition)| Edge::RandomOption { target, weight, condition })
                        .collect(),
                    fall,
                    extra,
                ),
            })
            .boxed(),
        NodeKind::Branch => (prop::collection::vec((0..n, truth_key()), 1..3), prop::option::of(0..n), 0..n)
            .prop_map(|(gated, otherwise, fall)| {
                let mut out: Vec<Edge> = gated
                    .into_iter()
                    .map(|(target, key)| Edge::Branch { target, condition: Some(Condition::key(key)) })
                    .collect();
                match otherwise {
                    Some(target) => out.push(Edge::Branch { target, condition: None }),
                    None => out.push(Edge::Succession { target: fall }),
                }
                Node::Branch { out: out.into() }
            })
            .boxed(),
        NodeKind::End => Just(Node::End).boxed(),
    }
}

fn speaker() -> impl Strategy<Value = Speaker> {
    let tag = (plain_words(), prop::option::of(plain_words()));
    (prop::option::of(plain_words()), any::<bool>(), prop::collection::vec(tag, 0..2)).prop_map(
        |(name, default, tags)| Speaker {
            id: None,
            name,
            default,
            tags: tags.into_iter().map(|(name, value)| SpeakerTag { name, value, reserved: false }).collect(),
        },
    )
}

/// A valid playbook of 1 to `max_nodes` nodes, drawing every node kind.
pub fn playbook(max_nodes: usize) -> impl Strategy<Value = Playbook> {
    (1..=max_nodes, 1..4usize)
        .prop_flat_map(|(n, speakers)| {
            let kinds = prop::collection::vec(prop::sample::select(NodeKind::ALL.to_vec()), n);
            (Just(n), prop::collection::vec(speaker(), speakers), kinds)
        })
        .prop_flat_map(|(n, speakers, kinds)| {
            let count = u32::try_from(speakers.len()).expect("a few speakers");
            let small = u32::try_from(n).expect("a few nodes");
            let nodes: Vec<BoxedStrategy<Node>> = kinds.into_iter().map(|kind| node(small, count, kind)).collect();
            (Just(speakers), nodes, 0..n, prop::collection::btree_map(plain_words(), 0..n, 0..3))
        })
        .prop_map(|(speakers, nodes, entry, anchors)| {
            let mut playbook = Playbook::new("generated.dialogue.md");
            playbook.speakers = speakers;
            playbook.nodes = nodes;
            playbook.entry = entry;
            playbook.anchors = anchors;
            playbook
        })
}
