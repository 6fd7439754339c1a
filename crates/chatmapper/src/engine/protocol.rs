//! The protocol matrix: which command is taken in which situation, and the refusals.

use stagehand_lua::Value;
use stagehand_runner::{Answer, Answers, Command, OwnedEvent, RefusalReason};

use super::entering::Entered;
use super::offered::{self, Offered};
use super::state::Situation;
use super::{environment, ChatMapperEngine};
use crate::coerce::{coerce_answer, lua_key, parse_number, Coerced};

impl ChatMapperEngine {
    /// One command: `match (situation, command)`.
    pub(super) fn step(&mut self, command: Command<'_>, events: &mut Vec<OwnedEvent>) {
        let refuse = |events: &mut Vec<OwnedEvent>, reason, explanation: String| {
            events.push(OwnedEvent::Refused { reason, explanation });
        };
        match (&self.state.situation, command) {
            (_, Command::Start { anchor }) => self.start(anchor.as_deref(), events),
            (Situation::NotStarted, Command::Next) => refuse(
                events,
                RefusalReason::NotStarted,
                "next arrived before start: start a conversation first".into(),
            ),
            (Situation::Ended | Situation::Halted, Command::Next) => refuse(
                events,
                RefusalReason::AlreadyEnded,
                "next arrived after the conversation ended; start begins one again".into(),
            ),
            (Situation::Speaking { .. }, Command::Next) => self.next(events),
            (Situation::Asking { .. }, Command::Supply(answers)) => self.supply(&answers, events),
            (Situation::Choosing { .. }, Command::Choose(index)) => self.choose(index, events),
            (_, command) => {
                let explanation = format!("{} cannot be taken here: {}", command.name(), self.state.describe());
                refuse(events, RefusalReason::Misplaced, explanation);
            }
        }
    }

    fn start(&mut self, anchor: Option<&str>, events: &mut Vec<OwnedEvent>) {
        let refuse = |events: &mut Vec<OwnedEvent>, reason, explanation: String| {
            events.push(OwnedEvent::Refused { reason, explanation });
        };
        let conversations = &self.project.conversations;
        let found = match anchor {
            None => (!conversations.is_empty()).then_some(0),
            Some(anchor) => {
                let by_id =
                    anchor.trim().parse::<i64>().ok().and_then(|id| conversations.iter().position(|c| c.id == id));
                by_id.or_else(|| conversations.iter().position(|c| c.title() == anchor))
            }
        };
        let Some(conversation) = found else {
            let known: Vec<String> = conversations.iter().map(|c| format!("{} ({:?})", c.id, c.title())).collect();
            let explanation = match anchor {
                None => "the project has no conversations".to_owned(),
                Some(anchor) => format!(
                    "the project has no conversation with ID or Title {anchor:?}; it has {}",
                    if known.is_empty() { "none".to_owned() } else { known.join(", ") }
                ),
            };
            return refuse(events, RefusalReason::NoSuchAnchor, explanation);
        };
        let title = conversations[conversation].title().to_owned();
        let Some(root) = self.index.starts[conversation] else {
            return refuse(
                events,
                RefusalReason::CannotStart,
                format!("the conversation {title:?} has no START entry"),
            );
        };
        // The root's condition reads the conversation's own `Dialog` table; a start refused
        // leaves `Dialog` naming the conversation it named before (M20).
        let before = self.state.conversation;
        self.switch_conversation(conversation);
        if !offered::holds(&self.index.nodes[root], self.host.as_mut(), &mut self.log) {
            match before {
                Some(before) => self.switch_conversation(before),
                None => self.state.conversation = None,
            }
            return refuse(
                events,
                RefusalReason::CannotStart,
                format!("the condition of the conversation {title:?}'s START entry is false now"),
            );
        }
        self.flush_deferred();
        self.state.automatic = 0;
        self.state.conversation = None;
        match self.enter(&Offered { node: root, carried: Vec::new() }, events) {
            Entered::Stands => {}
            Entered::Silent(node) => self.advance(node, events),
        }
    }

    fn next(&mut self, events: &mut Vec<OwnedEvent>) {
        let Situation::Speaking { node, segments, next } = &mut self.state.situation else { return };
        let node = *node;
        match segments.get(*next) {
            Some(segment) => {
                let speech = super::entering::speech(segment);
                *next += 1;
                events.push(OwnedEvent::Said { speaker: self.index.nodes[node].speaker.clone(), speech });
            }
            None => self.advance(node, events),
        }
    }

    fn choose(&mut self, index: i64, events: &mut Vec<OwnedEvent>) {
        let Situation::Choosing { options } = &self.state.situation else { return };
        let Some(picked) = usize::try_from(index).ok().and_then(|i| options.get(i)).cloned() else {
            let explanation = format!(
                "the menu offered {} options (choose 0 to {}), and {index} is not one of them",
                options.len(),
                options.len().saturating_sub(1)
            );
            events.push(OwnedEvent::Refused { reason: RefusalReason::NoSuchOption, explanation });
            return;
        };
        self.state.automatic = 0;
        match self.enter(&picked, events) {
            Entered::Stands => {}
            Entered::Silent(node) => self.advance(node, events),
        }
    }

    fn supply(&mut self, answers: &Answers<'_>, events: &mut Vec<OwnedEvent>) {
        let Situation::Asking { node, names } = &self.state.situation else { return };
        let (node, names) = (*node, names.clone());
        if let Err((reason, explanation)) = check(&names, answers) {
            events.push(OwnedEvent::Refused { reason, explanation });
            return;
        }
        for name in &names {
            if let Some(Answer::Text(text)) = answers.get(name) {
                let key = lua_key(name);
                let value = self.answer_value(&key, text);
                if let Err(error) = self.host.set(&environment::variable_path(&key), value) {
                    self.log.push(format!("the answer for {name:?} cannot be stored: {error}"));
                }
            }
        }
        self.state.automatic = 0;
        match self.speak(node, events) {
            Entered::Stands => {}
            Entered::Silent(node) => self.advance(node, events),
        }
    }
}

impl ChatMapperEngine {
    /// The value an answer is stored as in `Variable[key]`: read by the type of the variable's
    /// Initial Value, the last one declared being the one seeded (decision M32). A Number
    /// variable's answer that is not a number is stored as 0, and the log says so.
    fn answer_value(&mut self, key: &str, text: &str) -> Value {
        let declared = self
            .project
            .user_variables
            .iter()
            .rev()
            .find(|v| lua_key(v.name()) == key)
            .map(|v| v.field("Initial Value").map_or(Coerced::String(String::new()), |f| f.lua_value()));
        let value = coerce_answer(declared.as_ref(), text);
        if matches!(declared, Some(Coerced::Number(_))) && parse_number(text).is_none() {
            self.log.push(format!(
                "the answer {text:?} for Variable[{key:?}] is not a number, and the variable holds numbers, so it is \
                 stored as 0"
            ));
        }
        value.into()
    }
}

/// Holds a `supply` to the prompts asked: every one answered with words, nothing else answered.
fn check(asked: &[String], answers: &Answers<'_>) -> Result<(), (RefusalReason, String)> {
    if let Some(missing) = asked.iter().find(|name| answers.get(name).is_none()) {
        return Err((RefusalReason::UnansweredKey, format!("the prompt {missing:?} was asked and not answered")));
    }
    if let Some((extra, _)) = answers.iter().find(|(key, _)| !asked.iter().any(|name| name == key)) {
        return Err((
            RefusalReason::UnaskedKey,
            format!("the key {extra:?} was answered but not asked; the line asked for {asked:?}"),
        ));
    }
    if let Some(name) = asked.iter().find(|name| !matches!(answers.get(name), Some(Answer::Text(_)))) {
        return Err((RefusalReason::WrongAnswerKind, format!("the prompt {name:?} needs words (a string)")));
    }
    Ok(())
}
