//! How a run looks: with ANSI styling in a terminal, as a plain transcript otherwise.

use stagehand_playbook::{plain_text, Fragment, Style};
use stagehand_runner::OwnedEvent;
use stagehand_session::{command_text, AnswerText, Happening, Record, Sender};

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
            OwnedEvent::Resolve { .. } => return None,
        })
    }

    /// [`event`](Self::event), joining a line that opened with a command to the words after it.
    pub fn event_in_line(&self, event: &OwnedEvent, opened: &mut Option<Option<String>>) -> Option<String> {
        match event {
            OwnedEvent::Said { speaker, speech } if plain_text(speech).trim().is_empty() => {
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
            match (&record.entry.by, &record.entry.command) {
                (Sender::Player, stagehand_runner::Command::Choose(position)) => {
                    let label = record.entry.label.clone().unwrap_or_default();
                    out.push_str(&format!("> {}. {label}\n", position.saturating_add(1)));
                }
                (Sender::World, stagehand_runner::Command::Supply(answers)) => {
                    for (key, answer) in answers.iter() {
                        out.push_str(&self.paint(DIM, &format!("  ({key} = {})", AnswerText(answer))));
                        out.push('\n');
                    }
                }
                (Sender::World, stagehand_runner::Command::Failed { explanation }) => {
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
}
