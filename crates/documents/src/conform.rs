//! The conformance harness with every engine this build has: the DialogueDown runner for
//! playbooks (compiling a case's `source.dialogue.md` when its playbook is absent), the
//! ChatMapper engine for projects ([`ChatMapperLoader`]), and the agent runtime's scenarios
//! (`case.json`, played by `stagehand_agents::scenario::run_case`). Both are held through the protocol's
//! [`Engine`](stagehand_protocol::Engine) trait; this module only opens the documents. It lives
//! here, above the engines and the harness, so that no engine depends on the harness.

use std::path::Path;
use std::sync::Arc;

use stagehand_chatmapper::{ChatMapperEngine, Options as ChatMapperOptions, Project};
use stagehand_conformance::{judge, Fixture, Harness, Loader, Outcome, Subject};
use stagehand_dialoguedown::{compile, Options};

use crate::kind::{kind, Kind};

/// A harness that plays playbooks, compiles scripts and opens ChatMapper projects: the one
/// `stagehand conform` uses, and the cases' own tests.
pub fn harness() -> Harness {
    Harness::new()
        .with_compiler(Arc::new(|source: &str, name: &str| {
            let compilation = compile(source, name, &Options::default());
            match compilation.playbook {
                Some(playbook) if !compilation.has_errors() => Ok(playbook),
                _ => Err(compilation
                    .diagnostics
                    .iter()
                    .filter(|d| d.is_error())
                    .map(|d| format!("{}:{}:{}: {} {}", d.file, d.line, d.column, d.code, d.message))
                    .collect::<Vec<_>>()
                    .join("; ")),
            }
        }))
        .with_loader(Arc::new(ChatMapperLoader))
        .with_scenarios(Arc::new(|dir: &Path| {
            let verdict = stagehand_agents::scenario::run_case(dir);
            if verdict.passed() {
                Ok(())
            } else {
                Err(verdict.failures)
            }
        }))
}

/// Opens ChatMapper projects for the harness: whatever [`kind`] calls a ChatMapper project (an
/// XML export, a JSON export with `Assets`, a native `.cmp` file, which the reader refuses naming
/// the exports). Anything else is left to the harness (`None`). The fixture's seed seeds
/// `math.random`; the other options are the defaults.
#[derive(Debug, Clone, Copy, Default)]
pub struct ChatMapperLoader;

impl Loader for ChatMapperLoader {
    fn open(&self, path: &Path, bytes: &[u8], seed: u64) -> Option<Result<Box<dyn Subject>, String>> {
        if kind(path, bytes) != Kind::ChatMapper {
            return None;
        }
        let opened = stagehand_chatmapper::load(bytes, &path.display().to_string())
            .map_err(|e| e.to_string())
            .and_then(|project| {
                // A project the engine cannot play is found now, not at the first case's turn.
                ChatMapperEngine::new(project.clone(), ChatMapperOptions::seeded(seed)).map_err(|e| e.to_string())?;
                Ok(Box::new(ChatMapperSubject { project, seed }) as Box<dyn Subject>)
            });
        Some(opened)
    }
}

/// A ChatMapper project opened for a case.
struct ChatMapperSubject {
    project: Project,
    seed: u64,
}

impl Subject for ChatMapperSubject {
    fn judge(&self, fixture: &Fixture) -> Outcome {
        let fresh = || {
            ChatMapperEngine::new(self.project.clone(), ChatMapperOptions::seeded(self.seed)).map_err(|e| e.to_string())
        };
        judge(fixture, &fresh, &|engine: &ChatMapperEngine| Some(engine.observe()))
    }
}
