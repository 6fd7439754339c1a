//! A host view of an agent session words a player's question to Boss as the player asked it
//! (decision A54), not as its key.

mod agent_support;

use agent_support::open;
use stagehand_agents::runtime::PlayerResult;
use stagehand_protocol::{PortAnswer, PortCall, Receipt};
use stagehand_session::host::Pending;

const QUESTION: &str = "Which tone, gloomy or bright?";

#[test]
fn the_views_pending_question_is_the_players_own_words() {
    let document = open();
    let mut session = document.start("s", 0, 1).unwrap();
    let receipt = session.input("task", "a poem", "task", 2);
    assert!(matches!(receipt, Receipt::Executed { .. }), "{receipt:?}");
    for n in 0..10 {
        let Pending::Call { call } = session.pending().clone() else { break };
        let answer = match call {
            PortCall::Player { .. } => PortAnswer::Player { result: PlayerResult::ok(QUESTION) },
            PortCall::Judge { .. } => {
                PortAnswer::Judge { text: format!(r#"{{"guard": "needsBossReply", "question": "{QUESTION}"}}"#) }
            }
            other => panic!("{other:?}"),
        };
        let receipt = session.answer(answer, &format!("k{n}"), 10 + n);
        assert!(matches!(receipt, Receipt::Executed { .. }), "{receipt:?}");
    }
    let view = session.describe();
    assert_eq!(view.pending_questions.len(), 1, "{view:?}");
    assert_eq!(view.pending_questions[0].text, QUESTION, "{view:?}");
}
