//! What the agent-machine document tests share: the example machine, opened, and scripted ports
//! that play it (the writer drafts, the reviewer approves or is away, the judge reads the verdict). Not every test uses every piece.

#![allow(dead_code)]

use stagehand_agents::runtime::PlayerResult;
use stagehand_documents::{Document, OpenOptions};
use stagehand_protocol::port::CallStatus;
use stagehand_protocol::{PortAnswer, PortCall};

/// The example machine's TOML text.
pub const MACHINE: &str = include_str!("../../../../examples/agents/write-review-revise.toml");

/// The example machine, opened.
pub fn open() -> Document {
    Document::open("write-review-revise.toml", MACHINE.as_bytes(), &OpenOptions::default()).expect("it opens")
}

/// The example's ports: the writer drafts, the reviewer approves (or, with `reviewer_fails`,
/// fails), the judge reads the verdict.
pub fn ports(call: &PortCall, reviewer_fails: bool) -> PortAnswer {
    match call {
        PortCall::Player { player_id, .. } if player_id == "reviewer" && reviewer_fails => PortAnswer::Player {
            result: PlayerResult {
                status: CallStatus::Error,
                resume_token: None,
                final_text: None,
                error: Some("away".into()),
            },
        },
        PortCall::Player { player_id, .. } if player_id == "reviewer" => {
            PortAnswer::Player { result: PlayerResult::ok("VERDICT: approved") }
        }
        PortCall::Player { .. } => PortAnswer::Player { result: PlayerResult::ok("a draft") },
        PortCall::Judge { prompt, .. } if prompt.contains("VERDICT") => {
            PortAnswer::Judge { text: r#"{"guard": "approved"}"#.into() }
        }
        PortCall::Judge { .. } => PortAnswer::Judge { text: r#"{"guard": "drafted"}"#.into() },
        other => panic!("{other:?}"),
    }
}
