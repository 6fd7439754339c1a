//! A random choice: the engine picks one option by weight, drawing from the state's entropy.
//!
//! The algorithm is specified in `docs/design/random-choice.md` so that any port can reproduce
//! every pick:
//!
//! 1. An option is in the pool when it has no condition or its condition holds.
//! 2. A `number` weight is its percentage; a `query` weight is the world's answer (a finite,
//!    non-negative number, checked when supplied). A negative or non-finite written percentage
//!    counts as 0.
//! 3. `auto` weights share what the pool's explicit weights leave:
//!    `max(0, 100 − explicit) / autos`.
//! 0. A random choice written with one option takes it whenever its condition holds, whatever
//!    it weighs, and draws nothing.
//! 4. With a pool whose total is 0 (or no pool at all), no option is selected and the walk falls
//!    through by the succession.
//! 5. Otherwise draw `u` in `[0, 1)` ([`Entropy::next_unit`](crate::Entropy::next_unit)), let
//!    `t = u × total`, and take the first option in the order written whose running total of
//!    weights exceeds `t` (an option of weight 0 is never taken).

use stagehand_playbook::{Edge, Node, Weight};

use super::answers::guard_holds;
use super::{Arrived, Stepper};
use crate::protocol::{Answer, Answers};

/// The weight each option of a random choice carries in this draw, in the order written (0 for
/// an option out of the pool). Public to the crate so `describe` can report the odds.
pub(crate) fn weights(node: &Node, answers: &Answers<'_>) -> Vec<f64> {
    let arms: Vec<(&Weight, bool)> = node
        .out()
        .iter()
        .filter_map(|edge| match edge {
            Edge::RandomOption { weight, condition, .. } => Some((weight, guard_holds(condition.as_ref(), answers))),
            _ => None,
        })
        .collect();
    let explicit = |weight: &Weight| match weight {
        Weight::Number { percentage } if percentage.is_finite() && *percentage > 0.0 => Some(*percentage),
        Weight::Number { .. } => Some(0.0),
        Weight::Query { key } => match answers.get(key) {
            Some(Answer::Number(n)) if n.is_finite() && *n > 0.0 => Some(*n),
            _ => Some(0.0),
        },
        Weight::Auto => None,
    };
    let stated: f64 = arms.iter().filter(|(_, pooled)| *pooled).filter_map(|(w, _)| explicit(w)).sum();
    let autos = arms.iter().filter(|(w, pooled)| *pooled && matches!(w, Weight::Auto)).count();
    let share = if autos == 0 { 0.0 } else { (100.0 - stated).max(0.0) / autos as f64 };
    arms.iter().map(|(w, pooled)| if *pooled { explicit(w).unwrap_or(share) } else { 0.0 }).collect()
}

/// The total a random choice with a dynamic weight draws over, when it strays more than 0.5 from
/// 100 (the note's runtime equivalent of DLG3003: the odds are normalized and the draw goes on,
/// with a warning). `None` for a static choice (the compiler warned already), a total within the
/// tolerance, or nothing to draw from.
pub(crate) fn drift(node: &Node, answers: &Answers<'_>) -> Option<f64> {
    let dynamic = node.out().iter().any(|edge| matches!(edge, Edge::RandomOption { weight: Weight::Query { .. }, .. }));
    if !dynamic {
        return None;
    }
    let total: f64 = weights(node, answers).iter().sum();
    (total > 0.0 && (total - 100.0).abs() > 0.5).then_some(total)
}

/// The position (among the random options) a unit draw `u` picks, given the weights.
pub(crate) fn pick(weights: &[f64], u: f64) -> Option<usize> {
    let total: f64 = weights.iter().sum();
    if total.is_nan() || total <= 0.0 {
        return None;
    }
    let threshold = u * total;
    let mut running = 0.0;
    let mut last_positive = None;
    for (i, &w) in weights.iter().enumerate() {
        if w <= 0.0 {
            continue;
        }
        running += w;
        last_positive = Some(i);
        if threshold < running {
            return Some(i);
        }
    }
    last_positive
}

impl<'c, 'p: 'c, 'e> Stepper<'c, 'p, 'e> {
    /// Draws one option and walks on to it; nothing to draw from falls through.
    pub(crate) fn draw(&mut self, index: usize, node: &'p Node, answers: &Answers<'_>) -> Arrived {
        // R4.0: one option written is always taken when its condition holds; its weight has no
        // effect, and nothing is drawn.
        let mut written = node.out().iter().filter(|edge| matches!(edge, Edge::RandomOption { .. }));
        if let (Some(Edge::RandomOption { target, condition, .. }), None) = (written.next(), written.next()) {
            return match guard_holds(condition.as_ref(), answers) {
                true => Arrived::WalkOn(stagehand_playbook::position(*target)),
                false => self.step_over(index, "is a random choice whose one option is closed"),
            };
        }
        let weights = weights(node, answers);
        if weights.iter().sum::<f64>() <= 0.0 {
            return self.step_over(index, "is a random choice with nothing to draw (no option has weight)");
        }
        let (u, entropy) = self.entropy.next_unit();
        self.entropy = entropy;
        let targets = node.out().iter().filter(|edge| matches!(edge, Edge::RandomOption { .. }));
        match pick(&weights, u).and_then(|position| targets.clone().nth(position)) {
            Some(edge) => Arrived::WalkOn(edge.target()),
            None => self.step_over(index, "is a random choice with nothing to draw"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stagehand_playbook::Condition;

    fn random(arms: Vec<(Weight, Option<&str>)>) -> Node {
        Node::RandomChoice {
            out: arms
                .into_iter()
                .zip(1..)
                .map(|((weight, key), target)| Edge::RandomOption {
                    target,
                    weight,
                    condition: key.map(Condition::key),
                })
                .collect(),
        }
    }

    #[test]
    fn autos_share_what_the_stated_weights_leave() {
        let node =
            random(vec![(Weight::Number { percentage: 70.0 }, None), (Weight::Auto, None), (Weight::Auto, None)]);
        assert_eq!(weights(&node, &Answers::new()), [70.0, 15.0, 15.0]);
    }

    #[test]
    fn a_failing_condition_leaves_an_option_out_and_the_rest_renormalise() {
        let node = random(vec![
            (Weight::Number { percentage: 50.0 }, Some("IsAngry")),
            (Weight::Number { percentage: 30.0 }, None),
            (Weight::Number { percentage: 20.0 }, None),
        ]);
        let calm = Answers::new().with("IsAngry", Answer::Truth(false));
        let w = weights(&node, &calm);
        assert_eq!(w, [0.0, 30.0, 20.0]);
        assert_eq!(pick(&w, 0.0), Some(1));
        assert_eq!(pick(&w, 0.59), Some(1));
        assert_eq!(pick(&w, 0.61), Some(2));
    }

    #[test]
    fn dynamic_weights_come_from_the_answers() {
        let node = random(vec![
            (Weight::Query { key: "Bob".into() }, None),
            (Weight::Query { key: "Cy".into() }, None),
            (Weight::Auto, None),
        ]);
        let answers = Answers::new().with("Bob", Answer::Number(30.0)).with("Cy", Answer::Number(50.0));
        assert_eq!(weights(&node, &answers), [30.0, 50.0, 20.0]);
    }

    #[test]
    fn nothing_is_picked_from_nothing() {
        assert_eq!(pick(&[0.0, 0.0], 0.5), None);
        assert_eq!(pick(&[], 0.5), None);
        assert_eq!(pick(&[0.0, 1.0], 0.999_999), Some(1));
    }
}
