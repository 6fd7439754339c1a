//! Semantic analysis, one top-level block at a time as the script streams past: scenes get
//! anchors, speakers are bound into one table, jumps are classified and random choices have
//! their weights checked. What needs the whole script waits for the end: whether each jump's
//! anchor exists (the graph checks that, as it wires the jumps) and who the default speaker is
//! ([`crate::speakers::Binder::finish`]).

use foldhash::{HashSet, HashSetExt};

use crate::ast::{Block, JumpTarget, WeightSyntax};
use crate::config::Options;
use crate::diagnostics::{Code, Sink};
use crate::speakers::{Binder, Speakers};

/// The anchor a heading's words slug to, as github-slugger makes it (the Semantic Analyzer
/// note's DD5: "a faithful port of github-slugger's exact rules … no trimming or
/// run-collapsing"): lower-cased, each space a hyphen, and dropped every character that is
/// punctuation but `-` and connectors (`_`), a symbol, an "other" number (`½`, `²`), a control,
/// format or private-use character, unassigned, or a separator but the space — unless it is
/// alphabetic (`Ⓐ` stays). Letters, marks, digits and letter numbers stay.
pub(crate) fn slug(title: &str) -> String {
    use unicode_properties::{GeneralCategory as G, GeneralCategoryGroup as Group, UnicodeGeneralCategory};
    let dropped = |c: char| {
        if c == ' ' || c == '-' || c.is_alphabetic() {
            return false;
        }
        match c.general_category_group() {
            Group::Letter | Group::Mark => false,
            Group::Number => c.general_category() == G::OtherNumber,
            Group::Punctuation => c.general_category() != G::ConnectorPunctuation,
            Group::Symbol | Group::Separator | Group::Other => true,
        }
    };
    title.to_lowercase().chars().filter(|&c| !dropped(c)).map(|c| if c == ' ' { '-' } else { c }).collect()
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

/// Analysis of a script, fed its blocks in document order.
pub(crate) struct Analyzer {
    binder: Binder,
    /// Every anchor so far.
    anchors: HashSet<String>,
    /// What analysis found; kept apart from the syntax stages' diagnostics, since a
    /// [`crate::Mode::StageBoundary`] compile drops them when those stages found errors.
    pub sink: Sink,
}

impl Analyzer {
    /// An analyzer for one script.
    pub fn new(options: &Options) -> Analyzer {
        let mut sink = Sink::default();
        Analyzer { binder: Binder::new(options, &mut sink), anchors: HashSet::new(), sink }
    }

    /// Analyzes the blocks one top-level Markdown block became, in place: scenes are given
    /// their anchors, lines their speakers and jumps what they point at.
    pub fn blocks(&mut self, blocks: &mut [Block]) {
        let Analyzer { binder, anchors, sink } = self;
        walk(blocks, &mut |block| {
            let jump = match block {
                // A nested heading is an error of its own and makes no anchor.
                Block::Scene(scene) if !scene.nested => {
                    scene.anchor = anchor(anchors, &scene.title, (&scene.span, &scene.title_span), sink);
                    None
                }
                Block::Line(line) => {
                    binder.line(line, sink);
                    line.jump.as_mut()
                }
                Block::Control(control) => control.jump.as_mut(),
                Block::Choices(choices) if choices.is_random() => {
                    weights(choices, sink);
                    None
                }
                _ => None,
            };
            if let Some(jump) = jump {
                jump.resolved = classify(&jump.target, &jump.span, sink);
            }
        });
    }

    /// The speaker table, once the whole script has been seen, and what analysis found.
    pub fn finish(mut self) -> (Speakers, Sink) {
        let speakers = self.binder.finish(&mut self.sink);
        (speakers, self.sink)
    }
}

/// A scene's anchor, when it has one of its own: at least one letter or number, and no scene
/// before it with the same.
fn anchor(
    anchors: &mut HashSet<String>,
    title: &str,
    (span, title_span): (&std::ops::Range<usize>, &std::ops::Range<usize>),
    sink: &mut Sink,
) -> Option<String> {
    let anchor = slug(title);
    if !anchor.chars().any(char::is_alphanumeric) {
        sink.push(
            Code::HeadingWithoutAnchor,
            title_span.clone(),
            "A heading needs at least one letter or number so it can be a jump target; this one has none. \
             Add sluggable text to the heading.",
            "no anchor",
        );
        None
    } else if anchors.contains(&anchor) {
        sink.push(
            Code::DuplicateAnchor,
            span.clone(),
            format!("Two scenes resolve to the same anchor '#{anchor}'. Rename one heading so each jump target is unambiguous."),
            "duplicate anchor",
        );
        None
    } else {
        anchors.insert(anchor.clone());
        Some(anchor)
    }
}

/// What a jump points at, as far as its words tell: the end, a scene of this script (whether
/// there is one is checked once every scene is known), or somewhere outside the script.
fn classify(target: &str, span: &std::ops::Range<usize>, sink: &mut Sink) -> JumpTarget {
    if target == "#END" || percent_decoded(target).is_some_and(|decoded| decoded == "#END") {
        JumpTarget::End
    } else if target.len() > 1 && target.starts_with('#') {
        JumpTarget::Anchor
    } else if !target.is_empty() && !target.starts_with('#') {
        sink.push(
            Code::JumpOutsideScript,
            span.clone(),
            format!(
                "This jump names '{target}', which is outside this script. Targets outside the script are not \
                 resolved yet, so the jump leads nowhere. Point it at a scene in this script — '#the-scene' — \
                 until cross-file jumps land."
            ),
            "outside this script",
        );
        JumpTarget::Outside
    } else {
        missing_target(target, span, sink);
        JumpTarget::Unresolved
    }
}

/// A jump target with its percent escapes decoded, as a browser decodes a link's fragment
/// before it looks for the element it names (C35): `#caf%C3%A9` is `#café`. `None` when there is
/// nothing to decode, or the escapes do not spell UTF-8; a `%` that starts no escape (`%zz`, a
/// last `%`) stays itself.
pub(crate) fn percent_decoded(target: &str) -> Option<String> {
    memchr::memchr(b'%', target.as_bytes())?;
    let bytes = target.as_bytes();
    let hex = |at: usize| bytes.get(at).and_then(|&digit| char::from(digit).to_digit(16));
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        match (byte, hex(at + 1), hex(at + 2)) {
            (b'%', Some(high), Some(low)) => {
                // Two hex digits are a byte below 256.
                decoded.push(u8::try_from(high * 16 + low).unwrap_or(b'%'));
                at += 3;
            }
            _ => {
                decoded.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8(decoded).ok().filter(|decoded| decoded != target)
}

/// Reports a jump whose anchor matches no scene.
pub(crate) fn missing_target(target: &str, span: &std::ops::Range<usize>, sink: &mut Sink) {
    let shown = target.strip_prefix('#').unwrap_or(target);
    sink.push(
        Code::MissingJumpTarget,
        span.clone(),
        format!("Jump target '#{shown}' does not match any scene. Check the anchor, or add a heading it can point to."),
        "no such scene",
    );
}

/// A total as a person writes it: no float noise (`0.1 + 0.2` shows `0.3`), no `.0`.
fn percent(value: f64) -> String {
    let value = if value.abs() < 1e12 { (value * 1e6).round() / 1e6 } else { value };
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

/// How far a static total may stray from 100 and still count as 100: three `33.3%` make 99.9.
const ROUNDING: f64 = 0.5;

/// Checks a random choice's weights: each must be there and valid (syntax), they must not all
/// be zero (semantic), and — when the group's total is known before the run — it should be 100
/// (style). A single option is its own warning, and says all there is to say about its weight.
fn weights(choices: &crate::ast::Choices, sink: &mut Sink) {
    let (mut total, mut autos, mut dynamic, mut valid) = (0.0, 0, false, true);
    for option in &choices.options {
        // Which options are open is known only at run time, so neither is the total.
        dynamic |= option.condition.is_some();
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
    // Placed where the error-code guide marks each (C39): the lone option's text from its
    // weight, the first weight when all are zero, the last when the total strays from 100.
    let head = choices.span.start..choices.options.first().map_or(choices.span.end, |option| option.span.end);
    let weight_at = |option: Option<&crate::ast::ChoiceArm>| match option.and_then(|option| option.weight.as_ref()) {
        Some((_, span)) => span.clone(),
        None => head.clone(),
    };
    if let [only] = &choices.options[..] {
        let from = only.weight.as_ref().map_or(only.span.start, |(_, span)| span.start);
        sink.push(
            Code::SingleOptionRandom,
            from..only.span.end,
            "This random choice has a single option, so it is always selected and the weight has no effect. \
             Remove the weight to make it a plain line, or add more options.",
            "single option",
        );
        return;
    }
    if !valid {
        return;
    }
    // Every weight zero is zero whichever options are open; a query may weigh anything.
    let queried = choices.options.iter().any(|option| matches!(option.weight, Some((WeightSyntax::Query(_), _))));
    if !queried && autos == 0 && total == 0.0 {
        sink.push(
            Code::ZeroWeights,
            weight_at(choices.options.first()),
            "Every weight in this random choice is 0, so no option can be selected. Give at least one option a \
             positive weight.",
            "all weights zero",
        );
        return;
    }
    // Autos share what the explicit weights leave of 100, so only an explicit total past 100
    // makes a group with autos stray.
    let resolved = if autos > 0 { total.max(100.0) } else { total };
    if !dynamic && (resolved - 100.0).abs() > ROUNDING {
        sink.push(
            Code::WeightsNotHundred,
            weight_at(choices.options.last()),
            format!(
                "These weights total {}%, not 100%. Weights are normalized by their sum, so the odds still work; \
                 adjust them to total 100% to state the intended odds directly.",
                percent(total)
            ),
            format!("totals {}%", percent(total)),
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
