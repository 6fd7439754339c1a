//! The run itself: a state, its journal and transcript, and what is pending with the world. Both
//! live play and replay step through [`Core`], so they cannot disagree.

use stagehand_playbook::Fragment;
use stagehand_runner::{step, AnswerKind, Answers, Command, OwnedEvent, PlayContext, PlayState};

use crate::journal::{Entry, Record};
use crate::session::option_label;

/// A menu as offered: whether it is ordered, and each label with whether it may be taken.
pub(crate) type Menu = (bool, Vec<(Vec<Fragment>, bool)>);

/// A run's progress.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Core {
    pub(crate) state: PlayState,
    pub(crate) journal: Vec<Entry>,
    pub(crate) transcript: Vec<Record>,
    /// The effects of the last `perform` requests, awaiting `done`.
    pub(crate) pending: Vec<Fragment>,
    /// How many of `pending` the world has carried out.
    pub(crate) performed: usize,
    /// The questions of the last `resolve`.
    pub(crate) questions: Vec<(String, AnswerKind)>,
    /// The last answers supplied (for `describe`).
    pub(crate) answers: Option<Answers<'static>>,
    /// The last menu offered.
    pub(crate) offer: Option<Menu>,
}

impl Core {
    pub(crate) fn new(seed: u64) -> Core {
        Core {
            state: PlayState::seeded(seed),
            journal: Vec::new(),
            transcript: Vec::new(),
            pending: Vec::new(),
            performed: 0,
            questions: Vec::new(),
            answers: None,
            offer: None,
        }
    }

    /// Steps one command. Accepted, it is journalled and its events returned; refused, nothing
    /// changes and the events (with the refusal) come back as the error.
    pub(crate) fn apply(
        &mut self,
        context: &PlayContext<'_>,
        mut entry: Entry,
    ) -> Result<Vec<OwnedEvent>, Vec<OwnedEvent>> {
        let result = step(context, &self.state, entry.command.clone());
        let events: Vec<OwnedEvent> = result.events.into_iter().map(|e| e.into_owned()).collect();
        if events.iter().any(|e| matches!(e, OwnedEvent::Refused { .. })) {
            return Err(events);
        }
        self.state = result.state;
        if let Command::Choose(position) = entry.command {
            if entry.label.is_none() {
                entry.label = self.label(position);
            }
        }
        match &entry.command {
            Command::Done | Command::Start { .. } => {
                self.pending.clear();
                self.performed = 0;
            }
            Command::Supply(answers) => self.answers = Some(answers.clone()),
            _ => {}
        }
        let mut fresh = true;
        for event in &events {
            match event {
                OwnedEvent::Perform { effect } => {
                    if fresh {
                        self.pending.clear();
                        self.performed = 0;
                        fresh = false;
                    }
                    self.pending.push(effect.clone());
                }
                OwnedEvent::Resolve { questions } => self.questions = questions.clone(),
                OwnedEvent::Offer { ordered, options } => self.offer = Some((*ordered, options.clone())),
                _ => {}
            }
        }
        self.transcript.push(Record { entry: entry.clone(), events: events.clone() });
        self.journal.push(entry);
        Ok(events)
    }

    /// The plain-text label of the option at `position` in the last menu offered.
    pub(crate) fn label(&self, position: i64) -> Option<String> {
        let (_, options) = self.offer.as_ref()?;
        option_label(options, position)
    }
}
