//! How a playthrough reads: with ANSI styling for a terminal, as a plain transcript otherwise
//! ([`Painter`]). Pure: it makes strings, the front-end writes them.

use stagehand_playbook::{plain_text, Fragment, Style};
use stagehand_protocol::{Answer, OwnedEvent};
use stagehand_session::host::Move;
use stagehand_session::{Sender, ValueText};
use std::collections::BTreeSet;

use crate::{command_text, Happening, Playthrough, Record, Waiting};

/// Speech as plain text (queries as their placeholders), appended to `out`: what
/// [`plain_text`] gives.
fn plain_into(speech: &[Fragment], out: &mut String) {
    for fragment in speech {
        match fragment {
            Fragment::Text { text } => out.push_str(text),
            Fragment::Styled { children, .. } => plain_into(children, out),
            Fragment::Link { label, .. } => plain_into(label, out),
            Fragment::Image { alt, .. } => plain_into(alt, out),
            Fragment::Break => out.push(' '),
            Fragment::Query { key } => out.push_str(&stagehand_playbook::placeholder_for(key)),
            Fragment::Tag { .. } | Fragment::DefaultCommand { .. } | Fragment::CustomCommand { .. } => {}
        }
    }
}

/// Whether speech says nothing: its plain text is all blank (`plain_text(speech).trim()` is
/// empty), found without writing it.
fn blank(speech: &[Fragment]) -> bool {
    speech.iter().all(|fragment| match fragment {
        Fragment::Text { text } => text.trim().is_empty(),
        Fragment::Styled { children, .. } => blank(children),
        Fragment::Link { label, .. } => blank(label),
        Fragment::Image { alt, .. } => blank(alt),
        Fragment::Query { .. } => false,
        Fragment::Break | Fragment::Tag { .. } | Fragment::DefaultCommand { .. } | Fragment::CustomCommand { .. } => {
            true
        }
    })
}

/// A line to show: in the transcript, or aside from it (a warning on standard error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown {
    /// A line of the transcript.
    Transcript(String),
    /// A warning aside.
    Aside(String),
}

const RESET: &str = "\x1b[0m";
const SPEAKER: &str = "\x1b[1;36m";
const DIM: &str = "\x1b[2m";
const UNDIM: &str = "\x1b[22m";
const EFFECT: &str = "\x1b[33m";
const WARN: &str = "\x1b[1;31m";

/// Renders for a terminal (`colour`) or as plain text.
#[derive(Debug, Clone, Copy)]
pub struct Painter {
    /// Whether to write ANSI escapes.
    pub colour: bool,
}

impl Painter {
    /// `text` wrapped to `width` (a terminal's), each line's indent kept (and two spaces more on
    /// the lines it continues onto). Escape codes take no width. `None` leaves it as it is.
    pub fn wrap(&self, text: &str, width: Option<usize>) -> String {
        let Some(width) = width.filter(|&width| width > 8) else { return text.to_owned() };
        let mut out = String::with_capacity(text.len());
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                out.push('\n');
            }
            let body = line.trim_start_matches(' ');
            let indent = &line[..line.len() - body.len()];
            let more = format!("{indent}  ");
            let options = textwrap::Options::new(width).initial_indent(indent).subsequent_indent(&more);
            out.push_str(&textwrap::fill(body, options));
        }
        out
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.colour {
            format!("{code}{text}{RESET}")
        } else {
            text.to_owned()
        }
    }

    /// Speech: styled runs in bold, italic or strikethrough in a terminal, plain text otherwise.
    pub fn speech(&self, speech: &[Fragment]) -> String {
        if !self.colour {
            return plain_text(speech).trim().to_owned();
        }
        let mut out = String::new();
        styled(speech, &mut out);
        out.trim().to_owned()
    }

    /// A line said: `Speaker: words`, or the words alone for the anonymous speaker.
    pub fn said(&self, speaker: Option<&str>, speech: &[Fragment]) -> String {
        if !self.colour {
            // Plain, the line is written once into one string (a piped play shows every line).
            let mut out = String::with_capacity(64);
            if let Some(name) = speaker {
                out.push_str(name);
                out.push_str(": ");
            }
            let words = out.len();
            plain_into(speech, &mut out);
            let kept = out[words..].trim_end().len();
            out.truncate(words + kept);
            let lead = out[words..].len() - out[words..].trim_start().len();
            out.replace_range(words..words + lead, "");
            return out;
        }
        match speaker {
            Some(name) => format!("{}: {}", self.paint(SPEAKER, name), self.speech(speech)),
            None => self.speech(speech),
        }
    }

    /// A menu, numbered from 1; an unavailable option is dimmed and marked.
    pub fn menu(&self, options: &[(Vec<Fragment>, bool)]) -> String {
        let mut out = String::new();
        for (i, (label, available)) in options.iter().enumerate() {
            let line = format!("  {}. {}", i + 1, self.speech(label));
            if *available {
                out.push_str(&line);
            } else if self.colour {
                out.push_str(&format!("{DIM}{line} (unavailable){UNDIM}"));
            } else {
                out.push_str(&format!("{line} (unavailable)"));
            }
            out.push('\n');
        }
        out
    }

    /// What to show for `happenings`: the transcript's lines, and warnings aside — a key nobody
    /// answers and an engine's diagnostic each once (`warned` remembers them). `world` names the
    /// world's file, for the hint of where a key could be answered.
    pub fn show(&self, happenings: &[Happening], warned: &mut BTreeSet<String>, world: Option<&str>) -> Vec<Shown> {
        let mut shown = Vec::new();
        let mut opened = None;
        for happening in happenings {
            match happening {
                Happening::Guessed { key, answer, problem } => {
                    if let Some(problem) = problem {
                        shown.push(Shown::Aside(format!("warning: the world could not answer {key}: {problem}")));
                    }
                    if warned.insert(key.clone()) {
                        let hint = match world {
                            Some(path) => format!("the world {path} does not define it"),
                            None => "give a --world to answer it".into(),
                        };
                        let taken = answer_text(answer);
                        shown.push(Shown::Aside(format!("warning: nobody answers {key}; taking {taken} ({hint})")));
                    }
                }
                Happening::Diagnostic(message) => {
                    if warned.insert(format!("diagnostic: {message}")) {
                        shown.push(Shown::Aside(format!("warning: {message}")));
                    }
                    continue;
                }
                _ => {}
            }
            if let Some(text) = self.happening(happening, &mut opened) {
                shown.push(Shown::Transcript(text));
            }
            if matches!(happening, Happening::Failed { .. }) {
                shown.push(Shown::Transcript(
                    "  (the world could not do it: Enter retries, :skip carries on without it, :restart reads the \
                     edited world and starts over, :undo takes the move back, :quit stops)"
                        .to_owned(),
                ));
            }
        }
        shown
    }

    /// Where the run stands, after an undo or a load: the last thing said, and the menu if one
    /// waits (or the end).
    pub fn current(&self, playthrough: &Playthrough<'_>) -> Vec<String> {
        let mut last_said = None;
        for record in playthrough.history() {
            let mut opened = None;
            for event in &record.events {
                if matches!(event, OwnedEvent::Said { .. } | OwnedEvent::Continued { .. }) {
                    if let Some(line) = self.event_in_line(event, &mut opened) {
                        last_said = Some(line);
                    }
                }
            }
        }
        let waiting = playthrough.waiting();
        if waiting == Waiting::Ended {
            return vec![self.event(&OwnedEvent::Ended).unwrap_or_default()];
        }
        let mut lines: Vec<String> = last_said.into_iter().collect();
        if let Waiting::Choice { options } = waiting {
            lines.push(self.menu(&options).trim_end().to_owned());
        }
        lines
    }

    /// The prompt's hint of what the run waits for.
    pub fn hint(waiting: &Waiting) -> &'static str {
        match waiting {
            Waiting::Next => "",
            Waiting::Choice { .. } => "choose",
            Waiting::Held { .. } => "Enter retries, or :skip",
            Waiting::Ended | Waiting::Stuck { .. } | Waiting::NotStarted => ":undo, :restart or :quit",
        }
    }

    /// The prompt, with a hint of what the run waits for.
    pub fn prompt(&self, hint: &str) -> String {
        if hint.is_empty() {
            self.paint(DIM, "› ")
        } else {
            self.paint(DIM, &format!("{hint} › "))
        }
    }

    /// A warning line.
    pub fn warning(&self, text: &str) -> String {
        self.paint(WARN, text)
    }

    /// What to show for one happening, if anything. A line that opens with a command says
    /// nothing before it: its speaker is held in `opened` for the words that continue it.
    pub fn happening(&self, happening: &Happening, opened: &mut Option<Option<String>>) -> Option<String> {
        Some(match happening {
            Happening::Event(event) => return self.event_in_line(event, opened),
            Happening::Performed { .. } => return None,
            Happening::Failed { effect, explanation } => {
                self.warning(&format!("  [{} failed: {explanation}]", command_text(effect)))
            }
            Happening::Log(line) => self.paint(DIM, &format!("  | {line}")),
            Happening::Answered { .. } | Happening::Guessed { .. } | Happening::Diagnostic(_) => return None,
            Happening::Rejected(reason) => self.warning(&format!("refused: {reason}")),
        })
    }

    /// What to show for one event of the run, if anything.
    pub fn event(&self, event: &OwnedEvent) -> Option<String> {
        Some(match event {
            OwnedEvent::Said { speaker, speech } => self.said(speaker.as_deref(), speech),
            OwnedEvent::Continued { speech } => format!("  {}", self.speech(speech)),
            OwnedEvent::Ended => self.paint(DIM, "— the end —"),
            OwnedEvent::Offer { options, .. } => self.menu(options).trim_end().to_owned(),
            OwnedEvent::Refused { reason, explanation } => {
                self.warning(&format!("refused ({}): {explanation}", reason.as_str()))
            }
            OwnedEvent::Perform { effect } => self.paint(EFFECT, &format!("  [{}]", command_text(effect))),
            OwnedEvent::Call { call } => self.paint(EFFECT, &format!("  [{}]", call.describe())),
            OwnedEvent::Resolve { .. } => return None,
        })
    }

    /// [`event`](Self::event), joining a line that opened with a command to the words after it.
    pub fn event_in_line(&self, event: &OwnedEvent, opened: &mut Option<Option<String>>) -> Option<String> {
        match event {
            OwnedEvent::Said { speaker, speech } if blank(speech) => {
                *opened = Some(speaker.clone());
                None
            }
            OwnedEvent::Continued { speech } => match opened.take() {
                Some(speaker) => Some(self.said(speaker.as_deref(), speech)),
                None => self.event(event),
            },
            OwnedEvent::Said { .. } => {
                *opened = None;
                self.event(event)
            }
            _ => self.event(event),
        }
    }

    /// The transcript so far: what was said, what the person chose, and what the world did.
    pub fn history(&self, records: &[Record]) -> String {
        let mut out = String::new();
        for record in records {
            match (&record.entry.by, &record.entry.step) {
                (Sender::Player, Move::Choose { position }) => {
                    let label = record.entry.label.clone().unwrap_or_default();
                    out.push_str(&format!("> {}. {label}\n", position.saturating_add(1)));
                }
                (Sender::World, Move::Supply { answers }) => {
                    for (key, answer) in answers {
                        out.push_str(&self.paint(DIM, &format!("  ({key} = {})", ValueText(answer))));
                        out.push('\n');
                    }
                }
                (Sender::World, Move::Failed { explanation }) => {
                    let explanation = record.failure.as_deref().unwrap_or(explanation);
                    out.push_str(&self.warning(&format!("  [failed: {explanation}]")));
                    out.push('\n');
                }
                _ => {}
            }
            let mut opened = None;
            for event in &record.events {
                let shown = match event {
                    OwnedEvent::Said { .. }
                    | OwnedEvent::Continued { .. }
                    | OwnedEvent::Ended
                    | OwnedEvent::Perform { .. } => self.event_in_line(event, &mut opened),
                    _ => None,
                };
                if let Some(line) = shown {
                    out.push_str(&line);
                    out.push('\n');
                }
            }
        }
        out
    }
}

/// An answer as a supply writes it: `true`, `"words"`, `2.5`, `0`.
pub fn answer_text(answer: &Answer<'_>) -> String {
    match answer {
        Answer::Truth(truth) => truth.to_string(),
        Answer::Text(text) => format!("{text:?}"),
        Answer::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => format!("{}", *n as i64),
        Answer::Number(n) => n.to_string(),
    }
}

fn styled(speech: &[Fragment], out: &mut String) {
    for fragment in speech {
        match fragment {
            Fragment::Styled { style, children } => {
                let (on, off) = match style {
                    Style::Bold => ("\x1b[1m", "\x1b[22m"),
                    Style::Italic => ("\x1b[3m", "\x1b[23m"),
                    Style::Strikethrough => ("\x1b[9m", "\x1b[29m"),
                };
                out.push_str(on);
                styled(children, out);
                out.push_str(off);
            }
            Fragment::Link { label, .. } => {
                out.push_str("\x1b[4m");
                styled(label, out);
                out.push_str("\x1b[24m");
            }
            Fragment::Image { alt, .. } => styled(alt, out),
            other => out.push_str(&plain_text(std::slice::from_ref(other))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_become_escapes_only_in_colour() {
        let speech = vec![
            Fragment::text("a "),
            Fragment::Styled { style: Style::Bold, children: vec![Fragment::text("bold")].into() },
            Fragment::text(" and "),
            Fragment::Styled { style: Style::Strikethrough, children: vec![Fragment::text("gone")].into() },
        ];
        assert_eq!(Painter { colour: false }.speech(&speech), "a bold and gone");
        assert_eq!(Painter { colour: true }.speech(&speech), "a \x1b[1mbold\x1b[22m and \x1b[9mgone\x1b[29m");
    }

    #[test]
    fn text_wraps_to_the_width_keeping_its_indent_and_ignoring_escapes() {
        let painter = Painter { colour: true };
        let said = painter.said(Some("Mira"), &[Fragment::text("The art club paints the fountain on Fridays.")]);
        let wrapped = "\x1b[1;36mMira\x1b[0m: The art club\n  paints the\n  fountain on\n  Fridays.";
        assert_eq!(painter.wrap(&said, Some(20)), wrapped);
        assert_eq!(painter.wrap("  1. Join the art club today.", Some(20)), "  1. Join the art\n    club today.");
        assert_eq!(painter.wrap("a b c d e f g h i j k l m n", None), "a b c d e f g h i j k l m n");
    }

    #[test]
    fn a_plain_line_reads_as_its_trimmed_plain_text_after_the_speaker() {
        let painter = Painter { colour: false };
        let speeches = [
            vec![Fragment::text("  Hello, "), Fragment::query("Name"), Fragment::text("!  ")],
            vec![Fragment::Break, Fragment::text("é après"), Fragment::Break],
            vec![Fragment::Styled { style: Style::Italic, children: vec![Fragment::text(" soft ")].into() }],
            vec![Fragment::text("   ")],
            vec![],
        ];
        for speech in &speeches {
            let words = plain_text(speech).trim().to_owned();
            assert_eq!(painter.said(Some("Mira"), speech), format!("Mira: {words}"));
            assert_eq!(painter.said(None, speech), words);
            assert_eq!(blank(speech), words.is_empty(), "{speech:?}");
        }
        assert!(!blank(&[Fragment::query("Name")]));
    }
}
