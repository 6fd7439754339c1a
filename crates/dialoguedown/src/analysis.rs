//! Semantic analysis: what needs the whole document. Scenes get anchors, speakers are bound
//! into one table, jumps are resolved against the anchors, and random choices have their
//! weights checked.

use std::collections::BTreeSet;
use std::ops::Range;

use stagehand_playbook::Speaker;

use crate::ast::{Block, JumpTarget, WeightSyntax};
use crate::config::Options;
use crate::diagnostics::{Code, Sink};
use crate::speakers::Binder;

/// What analysis learned about the document.
#[derive(Debug, Default)]
pub(crate) struct Model {
    /// The speaker table, in playbook order.
    pub speakers: Vec<Speaker>,
    /// The speaker of lines bound to the in-file default (`speakers::LATER_DEFAULT`).
    pub default_speaker: usize,
    /// How many nodes the graph has: one per block other than a scene heading, and the end.
    pub nodes: usize,
}

/// The anchor a heading's words slug to: lower-cased, spaces to hyphens, punctuation dropped.
pub(crate) fn slug(title: &str) -> String {
    let mut out = String::new();
    for c in title.trim().chars() {
        if c.is_alphanumeric() || c == '_' || c == '-' {
            out.extend(c.to_lowercase());
        } else if c.is_whitespace() {
            out.push('-');
        }
    }
    out
}

/// Visits every block in document order, descending into options and arms.
pub(crate) fn walk(blocks: &mut [Block], visit: &mut dyn FnMut(&mut Block)) {
    for block in blocks {
        visit(block);
        match block {
            Block::Choices(choices) => {
                for option in &mut choices.options {
                    walk(&mut option.body, visit);
                }
            }
            Block::Branches(control) => {
                for arm in &mut control.arms {
                    walk(&mut arm.body, visit);
                }
            }
            Block::Scene(_) | Block::Line(_) | Block::Control(_) => {}
        }
    }
}

/// Analyzes a transpiled document in place, in one walk. `declares_default` says whether any
/// line declares the script's own default speaker (see [`crate::speakers::declares_default`]).
pub(crate) fn analyze(blocks: &mut [Block], declares_default: bool, options: &Options, sink: &mut Sink) -> Model {
    let anchors = scenes(blocks, sink);
    let mut binder = Binder::new(options, declares_default);
    let mut nodes = 1;
    walk(blocks, &mut |block| {
        nodes += usize::from(!matches!(block, Block::Scene(_)));
        if let Block::Line(line) = block {
            binder.line(line, sink);
        }
        let jump = match block {
            Block::Line(line) => line.jump.as_mut(),
            Block::Control(control) => control.jump.as_mut(),
            _ => None,
        };
        if let Some(jump) = jump {
            jump.resolved = resolve(&jump.target, &jump.span, &anchors, sink);
        }
        if let Block::Choices(choices) = block {
            if choices.is_random() {
                weights(choices, sink);
            }
        }
    });
    let (speakers, default_speaker) = binder.finish(sink);
    Model { speakers, default_speaker, nodes }
}

fn scenes(blocks: &mut [Block], sink: &mut Sink) -> BTreeSet<String> {
    let mut anchors = BTreeSet::new();
    for block in blocks.iter() {
        let Block::Scene(scene) = block else { continue };
        if scene.nested {
            continue;
        }
        let anchor = slug(&scene.title);
        if !anchor.chars().any(char::is_alphanumeric) {
            sink.push(
                Code::HeadingWithoutAnchor,
                scene.span.clone(),
                "A heading needs at least one letter or number so it can be a jump target; this one has none. \
                 Add words to the heading.",
                "no anchor",
            );
        } else if !anchors.insert(anchor.clone()) {
            sink.push(
                Code::DuplicateAnchor,
                scene.span.clone(),
                format!("Two scenes resolve to the same anchor '#{anchor}'. Rename one heading so each jump target is unambiguous."),
                "duplicate anchor",
            );
        }
    }
    anchors
}

fn resolve(target: &str, span: &Range<usize>, anchors: &BTreeSet<String>, sink: &mut Sink) -> JumpTarget {
    if target == "#END" {
        return JumpTarget::End;
    }
    if let Some(anchor) = target.strip_prefix('#') {
        if anchors.contains(anchor) {
            return JumpTarget::Anchor(anchor.to_owned());
        }
    } else if !target.is_empty() {
        sink.push(
            Code::JumpOutsideScript,
            span.clone(),
            format!(
                "This jump names '{target}', which is outside this script. Jumps outside the script are not \
                 resolved yet, so it leads nowhere and the line reads on. Point it at a scene in this script \
                 ('#the-scene') until cross-file jumps land."
            ),
            "outside this script",
        );
        return JumpTarget::Outside;
    }
    let shown = target.strip_prefix('#').unwrap_or(target);
    sink.push(
        Code::MissingJumpTarget,
        span.clone(),
        format!("Jump target '#{shown}' does not match any scene. Check the anchor, or add a heading it can point to."),
        "no such scene",
    );
    JumpTarget::Unresolved
}

fn percent(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

fn weights(choices: &crate::ast::Choices, sink: &mut Sink) {
    let (mut total, mut autos, mut dynamic, mut valid) = (0.0, 0, false, true);
    for option in &choices.options {
        match &option.weight {
            None => {
                valid = false;
                sink.push(
                    Code::MissingWeight,
                    option.span.clone(),
                    "This option has no weight, but its list is a random choice. Give it a weight like `50%`, or \
                     `%` to share the remaining percentage equally.",
                    "weight missing",
                );
            }
            Some((WeightSyntax::Invalid(text), span)) => {
                valid = false;
                sink.push(
                    Code::InvalidWeight,
                    span.clone(),
                    format!(
                        "\"{text}\" is not a valid weight. Write a non-negative percentage like `50%`, or `%` to \
                         share the remaining percentage equally."
                    ),
                    "invalid weight",
                );
            }
            Some((WeightSyntax::Number(value), _)) => total += value,
            Some((WeightSyntax::Auto, _)) => autos += 1,
            Some((WeightSyntax::Query(_), _)) => dynamic = true,
        }
    }
    let head = choices.span.start..choices.options.first().map_or(choices.span.end, |option| option.span.end);
    if valid && !dynamic && autos == 0 && total == 0.0 {
        sink.push(
            Code::ZeroWeights,
            head.clone(),
            "Every weight in this random choice is 0, so no option can be picked. Give at least one option a \
             positive weight.",
            "all weights zero",
        );
    } else if valid && !dynamic && ((autos == 0 && (total - 100.0).abs() > 1e-9) || (autos > 0 && total > 100.0)) {
        sink.push(
            Code::WeightsNotHundred,
            head.clone(),
            format!(
                "These weights total {}%, not 100%. Weights are normalized by their sum, so the odds still work; \
                 adjust them to total 100% to state the intended odds directly.",
                percent(total)
            ),
            format!("totals {}%", percent(total)),
        );
    }
    if choices.options.len() == 1 {
        sink.push(
            Code::SingleOptionRandom,
            head,
            "This random choice has a single option, so it is always picked and its weight does nothing. Remove \
             the weight to make it a plain line, or add more options.",
            "single option",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::slug;

    #[test]
    fn slugs_follow_the_heading_words() {
        assert_eq!(slug("The Dragon's Hall"), "the-dragons-hall");
        assert_eq!(slug("Shelter in Place"), "shelter-in-place");
        assert_eq!(slug("..."), "");
    }
}
