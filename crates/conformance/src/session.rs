//! Holding a session: play each turn against the state the one before it left, and compare each
//! reply with the next expectation — never searching ahead.

use std::collections::VecDeque;

use serde_json::Value;
use stagehand_playbook::{plain_text, speech_to_json, Fragment};
use stagehand_protocol::{Answer, Answers, Command, Engine, OwnedEvent, RefusalReason, Waiting};

use crate::fixture::{Expect, PerformClaim, Send, SpeechClaim, Turn};

/// Where a session (or a host script) and the engine parted ways.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divergence {
    /// The turn (from 0) at which they parted, or the session's length when the end was the
    /// problem. For a host script, the step.
    pub turn: usize,
    /// What happened, and what the session expected.
    pub message: String,
}

/// Whether the engine's run is over: it ended, or the engine stopped it.
pub(crate) fn finished<E: Engine + ?Sized>(engine: &E) -> bool {
    matches!(engine.waiting(), Waiting::Ended | Waiting::Stopped)
}

/// Holds `session` against `engine`, any engine of the protocol, one command at a time through
/// [`Engine::take`]. A session that does not open with `start` is begun for it.
pub fn hold<E: Engine + ?Sized>(session: &[Turn], engine: &mut E) -> Result<(), Divergence> {
    let mut unread: VecDeque<OwnedEvent> = VecDeque::new();
    let mut events = Vec::new();
    let diverge = |turn: usize, message: String| Err(Divergence { turn, message });
    if !matches!(session.first(), Some(Turn::Send(Send::Start(_)))) {
        engine.start(None, &mut events);
        unread.extend(events.drain(..));
    }
    for (turn, entry) in session.iter().enumerate() {
        match entry {
            Turn::Send(send) => {
                if let Some(event) = unread.front() {
                    return diverge(
                        turn,
                        format!("the runtime said {} before this send, and the session expected nothing", show(event)),
                    );
                }
                match command(send) {
                    Ok(command) => {
                        engine.take(command, &mut events);
                        unread.extend(events.drain(..));
                    }
                    Err((reason, explanation)) => unread.push_back(OwnedEvent::Refused { reason, explanation }),
                }
            }
            Turn::Expect(expect) => match unread.pop_front() {
                None if finished(engine) => {
                    return diverge(turn, format!("the run ended early: the session still expects {}", claim(expect)))
                }
                None => {
                    return diverge(
                        turn,
                        format!("the runtime said nothing more, and the session expects {}", claim(expect)),
                    )
                }
                Some(event) => {
                    if let Err(difference) = matches(expect, &event) {
                        return diverge(turn, difference);
                    }
                }
            },
        }
    }
    if let Some(event) = unread.front() {
        return diverge(
            session.len(),
            format!("the session ended with events unread: the runtime went on to say {}", show(event)),
        );
    }
    if !finished(engine) {
        return diverge(session.len(), "the session ended before the run did".to_owned());
    }
    Ok(())
}

/// Holds a fixture's `final` claims to what the engine observes once its session ended (`None`:
/// the engine observes nothing, and any claim diverges). `turn` places the failure.
pub fn hold_final(claims: &Value, observed: Option<Value>, turn: usize) -> Result<(), Divergence> {
    let observed = observed.unwrap_or(Value::Null);
    match crate::claims::subset(claims, &observed, "final") {
        Some(message) => Err(Divergence { turn, message }),
        None => Ok(()),
    }
}

/// Reads a fixture's send as a command, as a reader of commands off a wire does: an answer that
/// is not a truth, words or a number is refused here, before any engine sees it.
pub fn command(send: &Send) -> Result<Command<'static>, (RefusalReason, String)> {
    Ok(match send {
        Send::Next => Command::Next,
        Send::Done => Command::Done,
        Send::Choose(index) => Command::Choose(*index),
        Send::Start(anchor) => Command::start_at(anchor.clone()),
        Send::Failed(why) => Command::failed(why.clone()),
        Send::Supply(map) => {
            let mut answers = Answers::with_capacity(map.len());
            for (key, value) in map {
                let answer = match value {
                    Value::Bool(b) => Answer::Truth(*b),
                    Value::String(s) => Answer::Text(s.clone().into()),
                    Value::Number(n) => Answer::Number(n.as_f64().unwrap_or(f64::NAN)),
                    other => {
                        return Err((
                            RefusalReason::WrongAnswerKind,
                            format!("the answer for {key:?} is {other}, which is neither a truth, words nor a number"),
                        ))
                    }
                };
                answers.insert(key.clone(), answer);
            }
            Command::Supply(answers)
        }
        Send::Describe => {
            return Err((RefusalReason::UnknownCommand, "describe is a query, not a command".to_owned()));
        }
    })
}

fn speech_holds(claim: &SpeechClaim, speech: &[Fragment]) -> bool {
    match claim {
        SpeechClaim::Plain(text) => plain_text(speech) == *text,
        SpeechClaim::Fragments(fragments) => fragments[..] == speech[..],
    }
}

fn show_speech(speech: &[Fragment]) -> String {
    format!("{:?} ({})", plain_text(speech), speech_to_json(speech))
}

fn show_claim(claim: &SpeechClaim) -> String {
    match claim {
        SpeechClaim::Plain(text) => format!("{text:?}"),
        SpeechClaim::Fragments(fragments) => speech_to_json(fragments).to_string(),
    }
}

/// An event, as a failure reports it.
pub fn show(event: &OwnedEvent) -> String {
    match event {
        OwnedEvent::Said { speaker, speech } => {
            format!("said by {} {}", speaker.as_deref().unwrap_or("the default speaker"), show_speech(speech))
        }
        OwnedEvent::Continued { speech } => format!("continued {}", show_speech(speech)),
        OwnedEvent::Ended => "ended".to_owned(),
        OwnedEvent::Refused { reason, explanation } => format!("refused {reason} ({explanation})"),
        OwnedEvent::Perform { effect } => format!("perform {}", speech_to_json(std::slice::from_ref(effect))),
        OwnedEvent::Resolve { questions } => {
            format!("resolve {:?}", questions.iter().map(|(key, _)| key.as_str()).collect::<Vec<_>>())
        }
        OwnedEvent::Offer { ordered, options } => format!(
            "offer (ordered: {ordered}) [{}]",
            options
                .iter()
                .map(|(label, available)| format!(
                    "{:?}{}",
                    plain_text(label),
                    if *available { "" } else { " (unavailable)" }
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        OwnedEvent::Call { call } => format!("call {}", call.describe()),
    }
}

fn claim(expect: &Expect) -> String {
    match expect {
        Expect::Said { speaker, speech } => {
            format!("said by {} {}", speaker.as_deref().unwrap_or("the default speaker"), show_claim(speech))
        }
        Expect::Continued { speech } => format!("continued {}", show_claim(speech)),
        Expect::Offer { ordered, options } => format!(
            "offer (ordered: {ordered}) [{}]",
            options
                .iter()
                .map(|(label, available)| format!(
                    "{}{}",
                    show_claim(label),
                    if *available { "" } else { " (unavailable)" }
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Expect::Perform(PerformClaim::Default { action }) => format!("perform default-command {action:?}"),
        Expect::Perform(PerformClaim::Custom { name, .. }) => format!("perform custom-command {name:?}"),
        Expect::Resolve(keys) => format!("resolve {keys:?}"),
        Expect::Ended => "ended".to_owned(),
        Expect::Refused(reason) => format!("refused {reason}"),
        Expect::Unsettled(name) => (*name).to_owned(),
    }
}

/// Compares one expectation with one event, naming every field that differs.
fn matches(expect: &Expect, event: &OwnedEvent) -> Result<(), String> {
    let mismatch = || Err(format!("expected {}, but the runtime said {}", claim(expect), show(event)));
    match (expect, event) {
        (Expect::Said { speaker, speech }, OwnedEvent::Said { speaker: said_by, speech: said }) => {
            let mut differences = Vec::new();
            if speaker != said_by {
                differences.push(format!(
                    "the speaker is {}, not {}",
                    said_by.as_deref().unwrap_or("the default speaker"),
                    speaker.as_deref().unwrap_or("the default speaker")
                ));
            }
            if !speech_holds(speech, said) {
                differences.push(format!("the speech is {}, not {}", show_speech(said), show_claim(speech)));
            }
            if differences.is_empty() {
                Ok(())
            } else {
                Err(format!("said differs: {}", differences.join("; ")))
            }
        }
        (Expect::Continued { speech }, OwnedEvent::Continued { speech: said }) if speech_holds(speech, said) => Ok(()),
        (Expect::Offer { ordered, options }, OwnedEvent::Offer { ordered: offered_ordered, options: offered }) => {
            let same = ordered == offered_ordered
                && options.len() == offered.len()
                && options
                    .iter()
                    .zip(offered)
                    .all(|((label, available), (shown, open))| available == open && speech_holds(label, shown));
            if same {
                Ok(())
            } else {
                mismatch()
            }
        }
        (
            Expect::Perform(PerformClaim::Default { action }),
            OwnedEvent::Perform { effect: Fragment::DefaultCommand { action: performed } },
        ) if action == performed => Ok(()),
        (
            Expect::Perform(PerformClaim::Custom { name, args }),
            OwnedEvent::Perform { effect: Fragment::CustomCommand { name: performed, args: given } },
        ) if **name == **performed && args.as_ref().is_none_or(|claimed| **claimed == **given) => Ok(()),
        (Expect::Resolve(keys), OwnedEvent::Resolve { questions })
            if keys.len() == questions.len() && keys.iter().zip(questions).all(|(k, (q, _))| k == q) =>
        {
            Ok(())
        }
        (Expect::Ended, OwnedEvent::Ended) => Ok(()),
        (Expect::Refused(reason), OwnedEvent::Refused { reason: given, .. }) if reason == given => Ok(()),
        _ => mismatch(),
    }
}
