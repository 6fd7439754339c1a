//! Entering a node (the page's four steps), the walk that follows (play, menu or end), the
//! runaway guard, and rendering text as speech.

use stagehand_lua::Value;
use stagehand_playbook::{Fragment, Style};
use stagehand_runner::{OwnedEvent, RefusalReason};

use super::offered::{self, Offered, Ring};
use super::state::Situation;
use super::status::{self, SimStatus};
use super::{environment, ChatMapperEngine};
use crate::markup;

/// What entering a node left the run doing.
pub(super) enum Entered {
    /// It stands: a line was said, or a prompt asked.
    Stands,
    /// The node emitted nothing; the walk goes on from it.
    Silent(usize),
}

impl ChatMapperEngine {
    /// Enters a node: marks it (or defers the mark), runs the carried group scripts and its own
    /// script, then asks its input prompts or says its first segment.
    pub(super) fn enter(&mut self, offered: &Offered, events: &mut Vec<OwnedEvent>) -> Entered {
        let node = offered.node;
        self.switch_conversation(self.index.nodes[node].conversation);
        let (is_root, delays) = (self.index.nodes[node].is_root, self.index.nodes[node].delays_status);
        // 1. SimStatus: the root is never marked; DelaySimStatus waits for the next offered set.
        if !is_root {
            if delays {
                self.state.deferred.push(node);
            } else {
                self.mark_displayed(node);
            }
        }
        // 2. The accumulated group scripts, then the node's own.
        for &group in &offered.carried {
            self.run_script(group);
        }
        self.run_script(node);
        if is_root {
            return Entered::Silent(node);
        }
        // 3. Input prompts: withhold the line and ask.
        let names = &self.index.nodes[node].prompts;
        if !names.is_empty() {
            events.push(OwnedEvent::Resolve {
                questions: names.iter().map(|n| (n.clone(), stagehand_runner::AnswerKind::Text)).collect(),
            });
            self.state.situation = Situation::Asking { node, names: names.clone() };
            return Entered::Stands;
        }
        // 4. The line.
        self.speak(node, events)
    }

    /// Renders a node's line and says its first segment, or reports it silent.
    pub(super) fn speak(&mut self, node: usize, events: &mut Vec<OwnedEvent>) -> Entered {
        let n = &self.index.nodes[node];
        if n.is_root {
            return Entered::Silent(node);
        }
        let text = self.project.conversations[n.conversation].entries[n.entry].dialogue_text();
        let host = self.host.as_ref();
        let segments = markup::render_line(text, |name| variable_text(host, name));
        match segments.first() {
            None => Entered::Silent(node),
            Some(first) => {
                events.push(OwnedEvent::Said { speaker: n.speaker.clone(), speech: speech(first) });
                self.state.situation = Situation::Speaking { node, segments, next: 1 };
                Entered::Stands
            }
        }
    }

    /// The walk from `from`: compute the offered set, then end, show a menu, or enter the line or
    /// single choice and carry on while entering says nothing.
    pub(super) fn advance(&mut self, mut from: usize, events: &mut Vec<OwnedEvent>) {
        loop {
            let set = offered::offered(&self.index, self.host.as_mut(), &mut self.log, from);
            self.flush_deferred();
            self.state.closed = set.closed;
            if let Some(ring) = set.ring {
                events.push(OwnedEvent::Refused { reason: RefusalReason::EndlessLoop, explanation: self.ring(&ring) });
                self.state.situation = Situation::Halted;
                return;
            }
            let offered = set.offered;
            if offered.is_empty() {
                events.push(OwnedEvent::Ended);
                self.state.situation = Situation::Ended;
                return;
            }
            let nodes = &self.index.nodes;
            let pick = match offered.iter().position(|o| !nodes[o.node].is_choice) {
                Some(line) => Some(line),
                None if offered.len() == 1 && !nodes[offered[0].node].forces_menu => Some(0),
                None => None,
            };
            let Some(pick) = pick else {
                self.show_menu(offered, events);
                return;
            };
            self.state.automatic += 1;
            if self.state.automatic > self.options.max_automatic_advances {
                let label = self.index.nodes[offered[pick].node].label.clone();
                events.push(OwnedEvent::Refused {
                    reason: RefusalReason::EndlessLoop,
                    explanation: format!(
                        "more than {} entries were entered automatically without a player decision, so this may \
                         be a loop (it was about to enter {label}); the conversation stops here",
                        self.options.max_automatic_advances
                    ),
                });
                self.state.situation = Situation::Halted;
                return;
            }
            match self.enter(&offered[pick], events) {
                Entered::Stands => return,
                Entered::Silent(node) => from = node,
            }
        }
    }

    /// Why a ring of groups (M10) or of false Passthrough entries (M18) stops the conversation.
    fn ring(&self, ring: &Ring) -> String {
        let (members, kind) = match ring {
            Ring::Groups(members) => (members, "groups"),
            Ring::Passthrough(members) => (members, "Passthrough entries"),
        };
        let labels: Vec<&str> = members.iter().map(|&g| self.index.nodes[g].label.as_str()).collect();
        let what = match (ring, labels.as_slice()) {
            (Ring::Groups(_), [one]) => format!("the group {one} expands into itself"),
            (Ring::Groups(_), [rest @ .., last]) => {
                format!("the groups {} and {last} expand into each other", rest.join(", "))
            }
            (Ring::Passthrough(_), [one]) => {
                format!("the false Passthrough entry {one} puts itself in its own place")
            }
            (Ring::Passthrough(_), [rest @ .., last]) => {
                format!("the false Passthrough entries {} and {last} put each other in their place", rest.join(", "))
            }
            (_, []) => format!("{kind} lead to each other"),
        };
        format!(
            "{what} (a ring of {kind}), so the offered set never closes and this may be a loop; the conversation \
             stops here"
        )
    }

    fn show_menu(&mut self, offered: Vec<Offered>, events: &mut Vec<OwnedEvent>) {
        let mut options = Vec::with_capacity(offered.len());
        for o in &offered {
            let n = &self.index.nodes[o.node];
            let (conversation_id, entry_id, is_root) = (n.conversation_id, n.entry_id, n.is_root);
            options.push((speech(&self.label_of(o.node)), true));
            if !is_root {
                if let Err(error) = status::offer(self.host.as_mut(), conversation_id, entry_id) {
                    self.log
                        .push(format!("{}: its SimStatus cannot be written: {error}", self.index.nodes[o.node].label));
                }
            }
        }
        events.push(OwnedEvent::Offer { ordered: true, options });
        self.state.situation = Situation::Choosing { options: offered };
    }

    /// A node's menu label now, emphasis tags kept for [`speech`]: its Menu Text rendered
    /// (`markup::menu_label`), or, for a player line offered as a choice (M11) or a choice whose
    /// Menu Text renders to nothing (`[f]` alone, M27), its Dialogue Text rendered as a line.
    pub(super) fn label_of(&self, node: usize) -> String {
        let n = &self.index.nodes[node];
        let entry = &self.project.conversations[n.conversation].entries[n.entry];
        let host = self.host.as_ref();
        let menu = if entry.is_choice() {
            markup::menu_label(entry.menu_text(), |name| variable_text(host, name))
        } else {
            String::new()
        };
        if markup::says_nothing(&menu) {
            markup::render_line(entry.dialogue_text(), |name| variable_text(host, name)).join(" ")
        } else {
            menu
        }
    }

    /// Marks every deferred node `WasDisplayed`.
    pub(super) fn flush_deferred(&mut self) {
        for node in std::mem::take(&mut self.state.deferred) {
            self.mark_displayed(node);
        }
    }

    fn mark_displayed(&mut self, node: usize) {
        let n = &self.index.nodes[node];
        if let Err(error) = status::write(self.host.as_mut(), n.conversation_id, n.entry_id, SimStatus::WasDisplayed) {
            self.log.push(format!("{}: its SimStatus cannot be written: {error}", n.label));
        }
    }

    fn run_script(&mut self, node: usize) {
        let n = &self.index.nodes[node];
        match &n.script {
            None => {}
            Some(Err(message)) => self.log.push(format!("{}: the script does not compile: {message}", n.label)),
            Some(Ok(script)) => {
                if let Err(error) = environment::run(self.host.as_mut(), *script) {
                    let error = environment::failure(&error);
                    self.log.push(format!("{}: the script failed, and play goes on: {error}", n.label));
                }
            }
        }
    }

    /// Makes `conversation` (an index) the current one, pointing `Dialog` at it.
    pub(super) fn switch_conversation(&mut self, conversation: usize) {
        if self.state.conversation == Some(conversation) {
            return;
        }
        self.state.conversation = Some(conversation);
        let id = self.project.conversations[conversation].id;
        if let Err(error) = self.host.call(environment::ENTER, &[Value::Number(id as f64)]) {
            self.log.push(format!("the Dialog alias for conversation {id} cannot be set: {error}"));
        }
    }
}

/// `[var=Name]`: the variable's value as Lua 5.1's `tostring` writes it (`nil` when unset); a
/// table, function, thread or userdata is its type name alone, without the address `tostring`
/// adds, so that a transcript replays exactly (decision M40).
pub(super) fn variable_text(host: &dyn stagehand_lua::ScriptHost, name: &str) -> String {
    match environment::read_variable(host, name) {
        Ok(value) => value.to_string(),
        Err(_) => environment::variable_type(host, name).unwrap_or("nil").to_owned(),
    }
}

/// Text with emphasis tags as speech: `[em1]`/`[em3]` bold, `[em2]`/`[em4]` italic.
pub(super) fn speech(text: &str) -> Vec<Fragment> {
    markup::spans(text)
        .into_iter()
        .map(|span| match span.emphasis {
            None => Fragment::text(span.text),
            Some(level) => Fragment::Styled {
                style: if level % 2 == 1 { Style::Bold } else { Style::Italic },
                children: vec![Fragment::text(span.text)].into(),
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_emphasis_is_bold_and_even_is_italic() {
        let styled = |style, text: &str| Fragment::Styled { style, children: vec![Fragment::text(text)].into() };
        assert_eq!(
            speech("[em1]a[/em1][em2]b[/em2][em3]c[/em3][em4]d[/em4] e"),
            [
                styled(Style::Bold, "a"),
                styled(Style::Italic, "b"),
                styled(Style::Bold, "c"),
                styled(Style::Italic, "d"),
                Fragment::text(" e")
            ]
        );
        assert_eq!(speech("[Location Change]"), [Fragment::text("[Location Change]")]);
        assert_eq!(speech(""), []);
    }
}
