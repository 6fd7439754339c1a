//! Holding a `supply` to what was asked, reading conditions, and filling speech with answers.

use std::borrow::Cow;

use stagehand_playbook::{has_keys, placeholder_for, CompactString, Condition, Fragment};

use crate::protocol::{same_key, Answer, Answers, Question, RefusalReason};

/// Holds what came back to what was asked: every asked key answered, nothing answered that was
/// not asked, and each answer the kind its question needs.
pub(crate) fn check(asked: &[Question<'_>], answers: &Answers<'_>) -> Result<(), (RefusalReason, String)> {
    // The common case first: every key answered once, in the order asked, with the right kind.
    if answers.len() == asked.len()
        && asked.iter().zip(answers.iter()).all(|(q, (key, answer))| same_key(q.key, key) && answer.fits(q.kind))
    {
        return Ok(());
    }
    for question in asked {
        if answers.get(question.key).is_none() {
            return Err((
                RefusalReason::UnansweredKey,
                format!("the key {:?} was asked and not answered (it needs {})", question.key, question.kind),
            ));
        }
    }
    for (key, _) in answers.iter() {
        if !asked.iter().any(|question| question.key == key) {
            let asked: Vec<&str> = asked.iter().map(|q| q.key).collect();
            return Err((
                RefusalReason::UnaskedKey,
                format!("the key {key:?} was answered but not asked; the run asked about {asked:?}"),
            ));
        }
    }
    for question in asked {
        if let Some(answer) = answers.get(question.key) {
            if !answer.fits(question.kind) {
                return Err((
                    RefusalReason::WrongAnswerKind,
                    format!(
                        "the key {:?} needs {}, and the answer was {}",
                        question.key,
                        question.kind,
                        describe(answer)
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn describe(answer: &Answer<'_>) -> String {
    match answer {
        Answer::Truth(b) => format!("the truth {b}"),
        Answer::Text(text) => format!("the words {text:?}"),
        Answer::Number(n) => format!("the number {n}"),
    }
}

/// Whether a condition holds by the answers. A key nobody answered does not hold.
pub(crate) fn holds(condition: &Condition, answers: &Answers<'_>) -> bool {
    matches!(answers.get(condition.key_name()), Some(Answer::Truth(true)))
}

/// Whether a node's own guard allows it: no guard always does.
pub(crate) fn guard_holds(condition: Option<&Condition>, answers: &Answers<'_>) -> bool {
    condition.is_none_or(|condition| holds(condition, answers))
}

/// Speech with each query replaced by what the world said (nothing at all for an empty answer).
/// Speech with no query is borrowed as it stands.
pub(crate) fn fill<'c>(words: &'c [Fragment], answers: &Answers<'_>) -> Cow<'c, [Fragment]> {
    if has_keys(words) {
        Cow::Owned(filled(words.iter(), answers))
    } else {
        Cow::Borrowed(words)
    }
}

fn filled<'a>(words: impl Iterator<Item = &'a Fragment>, answers: &Answers<'_>) -> Vec<Fragment> {
    let mut out = Vec::new();
    for fragment in words {
        match fragment {
            Fragment::Query { key } => {
                let text = match answers.get(key) {
                    Some(Answer::Text(text)) => CompactString::from(&**text),
                    _ => placeholder_for(key).into(),
                };
                if !text.is_empty() {
                    out.push(Fragment::Text { text });
                }
            }
            Fragment::Styled { style, children } if has_keys(children) => {
                out.push(Fragment::Styled { style: *style, children: filled(children.iter(), answers).into() })
            }
            Fragment::Link { target, label } if has_keys(label) => {
                out.push(Fragment::Link { target: target.clone(), label: filled(label.iter(), answers).into() })
            }
            Fragment::Image { source, alt } if has_keys(alt) => {
                out.push(Fragment::Image { source: source.clone(), alt: filled(alt.iter(), answers).into() })
            }
            other => out.push(other.clone()),
        }
    }
    out
}

/// An option's label as offered: its top-level commands removed (a label is shown, never
/// performed) and its queries filled. A plain label is borrowed as it stands.
pub(crate) fn label<'c>(words: &'c [Fragment], answers: &Answers<'_>) -> Cow<'c, [Fragment]> {
    if words.iter().any(Fragment::is_command) {
        Cow::Owned(filled(words.iter().filter(|f| !f.is_command()), answers))
    } else {
        fill(words, answers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::AnswerKind;

    fn ask(key: &str, kind: AnswerKind) -> Question<'_> {
        Question { key, kind }
    }

    #[test]
    fn each_mismatch_has_its_own_reason() {
        let asked = [ask("a", AnswerKind::Truth), ask("b", AnswerKind::Text)];
        let missing = Answers::new().with("a", Answer::Truth(true));
        assert_eq!(check(&asked, &missing).unwrap_err().0, RefusalReason::UnansweredKey);
        let extra = missing.clone().with("b", Answer::Text("x".into())).with("c", Answer::Truth(false));
        assert_eq!(check(&asked, &extra).unwrap_err().0, RefusalReason::UnaskedKey);
        let wrong = Answers::new().with("a", Answer::Text("yes".into())).with("b", Answer::Text("x".into()));
        assert_eq!(check(&asked, &wrong).unwrap_err().0, RefusalReason::WrongAnswerKind);
        let right = Answers::new().with("b", Answer::Text("x".into())).with("a", Answer::Truth(false));
        assert!(check(&asked, &right).is_ok());
    }

    #[test]
    fn a_weight_must_be_finite_and_not_negative() {
        let asked = [ask("w", AnswerKind::Number)];
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            let answers = Answers::new().with("w", Answer::Number(bad));
            assert_eq!(check(&asked, &answers).unwrap_err().0, RefusalReason::WrongAnswerKind);
        }
        assert!(check(&asked, &Answers::new().with("w", Answer::Number(0.0))).is_ok());
    }

    #[test]
    fn an_empty_answer_leaves_nothing_where_the_query_stood() {
        let words = [Fragment::text("Hi, "), Fragment::query("name"), Fragment::text(".")];
        let answers = Answers::new().with("name", Answer::Text("".into()));
        assert_eq!(fill(&words, &answers).as_ref(), [Fragment::text("Hi, "), Fragment::text(".")]);
    }

    #[test]
    fn a_label_loses_its_commands_and_keeps_its_words_apart() {
        let words = [
            Fragment::text("Say goodbye "),
            Fragment::CustomCommand { name: "Wave".into(), args: Box::default() },
            Fragment::text(" and leave"),
        ];
        let shown = label(&words, &Answers::new());
        assert_eq!(shown.as_ref(), [Fragment::text("Say goodbye "), Fragment::text(" and leave")]);
        let plain = [Fragment::text("Stay")];
        assert!(matches!(label(&plain, &Answers::new()), Cow::Borrowed(_)));
    }
}
