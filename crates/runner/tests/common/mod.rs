//! Shared by the runner's tests: building playbooks by hand, and one helper that plays commands
//! and renders what happened as text, so a test reads as a transcript.

#![allow(dead_code)]

use stagehand_playbook::{plain_text, Condition, Edge, Fragment, Node, Playbook, Speaker, Weight};
use stagehand_runner::{step, Answer, Answers, Command, Event, PlayContext, PlayState, Situation};

pub fn text(words: &str) -> Vec<Fragment> {
    vec![Fragment::text(words)]
}

pub fn wave() -> Fragment {
    Fragment::CustomCommand { name: "Wave".into(), args: vec![].into() }
}

pub fn call(name: &str) -> Fragment {
    Fragment::CustomCommand { name: name.into(), args: vec![].into() }
}

pub fn next(target: u32) -> Edge {
    Edge::Succession { target }
}

pub fn divert(target: u32, key: Option<&str>) -> Edge {
    Edge::Divert { target, label: vec![].into(), condition: key.map(Condition::key) }
}

pub fn option(target: u32, label: &str, key: Option<&str>) -> Edge {
    Edge::Option { target, label: text(label).into(), condition: key.map(Condition::key) }
}

pub fn arm(target: u32, key: Option<&str>) -> Edge {
    Edge::Branch { target, condition: key.map(Condition::key) }
}

pub fn random_arm(target: u32, weight: Weight, key: Option<&str>) -> Edge {
    Edge::RandomOption { target, weight, condition: key.map(Condition::key) }
}

pub fn line(speaker: u32, speech: Vec<Fragment>, out: Vec<Edge>) -> Node {
    Node::Line { speaker, speech: speech.into(), condition: None, out: out.into() }
}

pub fn guarded_line(speaker: u32, key: &str, speech: Vec<Fragment>, out: Vec<Edge>) -> Node {
    Node::Line { speaker, speech: speech.into(), condition: Some(Condition::key(key)), out: out.into() }
}

pub fn control(effects: Vec<Fragment>, out: Vec<Edge>) -> Node {
    Node::Control { effects: effects.into(), condition: None, out: out.into() }
}

/// A playbook with Alice (0) and the anonymous default speaker (1).
pub fn playbook(nodes: Vec<Node>) -> Playbook {
    let mut playbook = Playbook::new("test.dialogue.md");
    playbook.speakers = vec![Speaker::named("Alice"), Speaker::anonymous_default()];
    playbook.nodes = nodes;
    playbook
}

/// Renders one event compactly.
pub fn render(event: &Event<'_>) -> String {
    match event {
        Event::Said { speaker, speech } => format!("said {} {:?}", speaker.unwrap_or("-"), plain_text(speech)),
        Event::Continued { speech } => format!("continued {:?}", plain_text(speech)),
        Event::Ended => "ended".into(),
        Event::Refused { reason, .. } => format!("refused {reason}"),
        Event::Perform { effect } => match effect {
            Fragment::CustomCommand { name, .. } => format!("perform {name}()"),
            Fragment::DefaultCommand { action } => format!("perform ({action})"),
            other => format!("perform {other:?}"),
        },
        Event::Resolve { questions } => {
            format!("resolve [{}]", questions.iter().map(|q| q.key).collect::<Vec<_>>().join(", "))
        }
        Event::Offer { ordered, options } => format!(
            "offer{} [{}]",
            if *ordered { " ordered" } else { "" },
            options
                .iter()
                .map(|o| if o.available { plain_text(&o.label) } else { format!("({})", plain_text(&o.label)) })
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Event::Call { call } => format!("call {}", call.call_id()),
    }
}

/// Shorthand for a supply of truths and words.
pub fn supply(pairs: &[(&str, Answer<'static>)]) -> Command<'static> {
    Command::Supply(pairs.iter().map(|(k, a)| ((*k).to_owned(), a.clone())).collect::<Answers<'static>>())
}

pub fn yes(key: &'static str) -> (&'static str, Answer<'static>) {
    (key, Answer::Truth(true))
}

pub fn no(key: &'static str) -> (&'static str, Answer<'static>) {
    (key, Answer::Truth(false))
}

pub fn says(key: &'static str, words: &'static str) -> (&'static str, Answer<'static>) {
    (key, Answer::Text(words.into()))
}

/// A run in progress, for tests.
pub struct Run<'p> {
    pub context: PlayContext<'p>,
    pub state: PlayState,
}

impl<'p> Run<'p> {
    pub fn new(playbook: &'p Playbook) -> Self {
        Run { context: PlayContext::new(playbook), state: PlayState::new() }
    }

    pub fn seeded(playbook: &'p Playbook, seed: u64) -> Self {
        Run { context: PlayContext::new(playbook), state: PlayState::seeded(seed) }
    }

    /// Sends one command; returns the events rendered, joined by " | ".
    pub fn send(&mut self, command: Command<'_>) -> String {
        let result = step(&self.context, &self.state, command);
        self.state = result.state;
        result.events.iter().map(render).collect::<Vec<_>>().join(" | ")
    }

    pub fn situation(&self) -> &Situation {
        &self.state.situation
    }
}
pub mod generate;
