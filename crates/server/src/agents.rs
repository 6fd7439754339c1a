//! Agent playbook sessions (decisions S21–S24 in `docs/design/server.md`).
//!
//! An agent machine is served like any document; its sessions make port calls, which the
//! server answers with the lineup `--player`, `--captain` and `--judge` bound
//! (`stagehand_worlds::ports::Ported`, run in the server's working folder), through the worlds
//! driver, after the opening and after every executed apply or input, until the Boss must act.
//!
//! - A machine whose players (or Captain, or judge) the lineup does not bind is refused when a
//!   session is created (`422 ports-unbound`, naming the flags), as `stagehand run` refuses it.
//! - Port calls are blocking I/O: the whole computation of a machine's request (restore,
//!   apply, drive) runs on the blocking pool, bounded by the request timeout (S22).

use stagehand_ports::LineupSpec;
use stagehand_worlds::ports::{unbound, Bindings};

use crate::app::AppState;
use crate::host::Document;
use crate::problem::{Kind, Problem};

/// The ports a session of `document` is driven with: the server's lineup, run in its working
/// folder, for an agent machine; `None` for every other kind (their sessions make no port
/// calls, and are computed on the request's own task).
pub fn ports(lineup: &LineupSpec, document: &Document) -> Option<Bindings> {
    document.machine()?;
    let cwd = std::env::current_dir().map_or_else(|_| ".".to_owned(), |d| d.display().to_string());
    Some(Bindings { lineup: lineup.clone(), cwd })
}

/// Refuses a session of an agent machine whose ports the lineup leaves unbound (decision S21).
pub fn refuse_unbound(document: &Document, ports: Option<&Bindings>) -> Result<(), Problem> {
    let Some(machine) = document.machine() else { return Ok(()) };
    let missing = unbound(machine, ports);
    if missing.is_empty() {
        return Ok(());
    }
    Err(Problem::new(
        Kind::PortsUnbound,
        format!(
            "the agent machine needs its ports bound: start the server with {} (PORT is exec:COMMAND or \
             openai:MODEL@URL)",
            missing.join(", ")
        ),
    )
    .with("unbound", serde_json::json!(missing)))
}

/// Runs `work` (a machine's request: restore, apply, drive with port calls) on the blocking
/// pool, so port calls never hold a runtime thread (decision S22). The request's timeout bounds
/// the wait: the route answers `408` when it passes, and what `work` computes after that is
/// dropped uncommitted.
pub async fn blocking<T: Send + 'static>(
    state: &AppState,
    work: impl FnOnce() -> Result<T, Problem> + Send + 'static,
) -> Result<T, Problem> {
    let task = tokio::task::spawn_blocking(work);
    match tokio::time::timeout(state.limits.request_timeout, task).await {
        Err(_) => Err(Problem::new(
            Kind::RequestTimeout,
            "the agent's port calls took longer than the request timeout; nothing was committed",
        )),
        Ok(joined) => joined.map_err(Problem::internal)?,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine() -> Document {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/agents/write-review-revise.toml");
        let bytes = std::fs::read(&path).expect("the example machine");
        crate::host::open(&bytes, Some("write-review-revise.toml"), None).expect("it opens").document
    }

    #[test]
    fn a_machine_needs_every_player_and_a_judge_bound_and_other_documents_need_nothing() {
        let document = machine();
        let none = ports(&LineupSpec::default(), &document);
        let refused = refuse_unbound(&document, none.as_ref()).expect_err("nothing bound");
        assert_eq!(refused.kind, Kind::PortsUnbound);
        assert!(
            refused.detail.contains("--player writer=…") && refused.detail.contains("--judge …"),
            "{}",
            refused.detail
        );
        let players = ["writer=exec:sh w.sh".to_owned(), "reviewer=exec:sh r.sh".to_owned()];
        let some = LineupSpec::parse(&players[..1], None, Some("exec:sh j.sh")).unwrap();
        let refused = refuse_unbound(&document, ports(&some, &document).as_ref()).expect_err("the reviewer");
        assert!(
            refused.detail.contains("--player reviewer=…") && !refused.detail.contains("writer"),
            "{}",
            refused.detail
        );
        let all = LineupSpec::parse(&players, None, Some("exec:sh j.sh")).unwrap();
        assert!(refuse_unbound(&document, ports(&all, &document).as_ref()).is_ok());
        let script = std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/club-fair.dialogue.md"),
        )
        .unwrap();
        let script = crate::host::open(&script, None, None).unwrap().document;
        assert!(ports(&all, &script).is_none());
        assert!(refuse_unbound(&script, None).is_ok());
    }
}
