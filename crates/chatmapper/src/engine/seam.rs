//! The ChatMapper engine behind the protocol's [`Engine`] seam: one command at a time, what it
//! waits for, snapshots through the engine's own Lua snapshot support, and the project's
//! fingerprint.

use sha2::{Digest, Sha256};
use stagehand_protocol::{Command, Engine, EngineError as SeamError, OwnedEvent, Waiting};

use super::state::Situation;
use super::{ChatMapperEngine, Snapshot};

impl Engine for ChatMapperEngine {
    type Snapshot = Snapshot;

    fn take(&mut self, command: Command<'_>, events: &mut Vec<OwnedEvent>) {
        events.extend(self.send(command));
    }

    fn waiting(&self) -> Waiting {
        match self.state.situation {
            Situation::NotStarted => Waiting::Start,
            Situation::Speaking { .. } => Waiting::Next,
            Situation::Asking { .. } => Waiting::Answers,
            Situation::Choosing { .. } => Waiting::Choice,
            Situation::Ended => Waiting::Ended,
            Situation::Halted => Waiting::Stopped,
        }
    }

    fn snapshot(&mut self) -> Result<Snapshot, SeamError> {
        ChatMapperEngine::snapshot(self).map_err(|e| SeamError::new(e.to_string()))
    }

    fn restore(&mut self, snapshot: &Snapshot) -> Result<(), SeamError> {
        ChatMapperEngine::restore(self, snapshot).map_err(|e| SeamError::new(e.to_string()))
    }

    /// SHA-256 of the project as this build reads it (its model's debug form): the same export
    /// always gives the same fingerprint, and any edit that changes what is played changes it.
    fn fingerprint(&self) -> String {
        let digest = Sha256::digest(format!("{:?}", self.project).as_bytes());
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// An input prompt (`[?Name]`) asks the player, as the page says ("ask the player, store the
    /// answer in Name"), so a session waiting on one is at rest (decision H61).
    fn asks_the_person(&self) -> bool {
        true
    }

    fn take_log(&mut self) -> Vec<String> {
        ChatMapperEngine::take_log(self)
    }

    fn describe(&self) -> String {
        let conversation = self.state.conversation.map(|c| self.project.conversations[c].title().to_owned());
        let mut sentence = String::new();
        if let Some(title) = conversation {
            sentence.push_str(&format!("In the conversation {title:?}, "));
        }
        sentence.push_str(self.state.describe());
        sentence.push('.');
        let mut chars = sentence.chars();
        match chars.next() {
            Some(first) => first.to_uppercase().chain(chars).collect(),
            None => sentence,
        }
    }

    fn state_id(&self) -> String {
        let engine = self;
        let conversation = engine.state.conversation.map(|c| engine.project.conversations[c].id);
        let at = |node: usize| {
            let node = &engine.index.nodes[node];
            format!("{}/{}", node.conversation_id, node.entry_id)
        };
        match &engine.state.situation {
            Situation::NotStarted => "not-started".to_owned(),
            Situation::Speaking { node, next, .. } => format!("speaking:{}#{next}", at(*node)),
            Situation::Asking { node, .. } => format!("asking:{}", at(*node)),
            Situation::Choosing { options } => {
                let options: Vec<String> = options.iter().map(|o| at(o.node)).collect();
                format!("choosing:{}", options.join(","))
            }
            Situation::Ended => format!("ended:{}", conversation.map_or(String::new(), |c| c.to_string())),
            Situation::Halted => format!("halted:{}", conversation.map_or(String::new(), |c| c.to_string())),
        }
    }
}
