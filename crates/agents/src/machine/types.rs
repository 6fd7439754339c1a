//! The document's types. Each key's spelling is owned here (A1).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::NEEDS_BOSS_REPLY_DESCRIPTION;
use super::{AWAIT_BOSS_REPLY, DONE, DONE_DESCRIPTION, FAILED, NEEDS_BOSS_REPLY};
pub use stagehand_protocol::port::Visibility;

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_visible(v: &Visibility) -> bool {
    *v == Visibility::Visible
}

/// A whole agent machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Machine {
    /// The machine's id (the playbook id).
    pub id: String,
    /// The id of the state the machine starts in.
    pub initial: String,
    /// What the machine does, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The artifact schema and runtime ABI the machine was written for (DR-022; CONTRACT.md
    /// §1.12 `spec.compat`); absent for a legacy machine, which loads unchecked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compat: Option<Compat>,
    /// The typed context fields, in order, with their initial values.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<ContextField>,
    /// The Boss events (other than the runtime's own) the machine accepts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<EventSpec>,
    /// The states, in document order.
    pub states: Vec<State>,
    /// Root `BOSS_INTERRUPT` jumps: which states the Boss may jump to, and when.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub boss_interrupt: Vec<Jump>,
    /// `BOSS_REPLY` resumption from `awaitBossReply` (A6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boss_reply: Option<BossReply>,
    /// A deterministic entry event: Boss text starts the machine without a judge call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry_event: Option<EntryEvent>,
    /// The context fields the control view projects, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub control_context_fields: Vec<String>,
    /// Status labels for player states.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub player_states: Vec<PlayerState>,
}

/// A machine's compatibility declaration (DR-022): checked by the reader against
/// [`SUPPORTED_ARTIFACT_SCHEMAS`](super::SUPPORTED_ARTIFACT_SCHEMAS) and
/// [`RUNTIME_ABI`](super::RUNTIME_ABI) before anything else (A46).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Compat {
    /// The machine document format the machine was written in.
    pub artifact_schema: i64,
    /// The runtime ABI the machine was written against.
    pub runtime_abi: i64,
}

/// A typed context field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContextField {
    /// The field's name.
    pub name: String,
    /// The field's type.
    #[serde(rename = "type")]
    pub ty: FieldType,
    /// Its initial value; absent means unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<Value>,
}

/// The type of a context or event field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FieldType {
    /// Text.
    String,
    /// A JSON number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// Any JSON value (a structured result).
    Json,
}

/// A Boss event contract (the contract's `bossEvents`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EventSpec {
    /// The event type, e.g. `START`.
    #[serde(rename = "type")]
    pub event_type: String,
    /// What the event means, for the judge and for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The event's payload fields.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<EventField>,
}

/// One field of a Boss event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EventField {
    /// The field's name.
    pub name: String,
    /// Who writes it: the judge, or the runtime from the Boss's exact text.
    pub source: FieldSource,
    /// Whether the event is invalid without it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub required: bool,
    /// A closed set of allowed values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
}

/// Who writes an event field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FieldSource {
    /// The judge chooses it.
    Judge,
    /// The runtime attaches the Boss's exact text.
    Text,
}

/// One state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct State {
    /// The stable id.
    pub id: String,
    /// The source's own description (control-view labels come from it).
    pub description: String,
    /// The upstream item this state came from, e.g. `IMPL-1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_item: Option<String>,
    /// Status tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<Tag>,
    /// Whether this is a final state.
    #[serde(rename = "final", default, skip_serializing_if = "is_false")]
    pub is_final: bool,
    /// A final state's output, computed from context.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub output: Vec<OutputField>,
    /// The one work this state hands out, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invoke: Option<Invoke>,
    /// A parallel group: the member states, one region per player, joined with `done`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parallel: Vec<String>,
    /// Transitions, in order; the first that matches is taken.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub on: Vec<Transition>,
}

/// A state's status tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Tag {
    /// A working leaf (`playbook.busy`).
    Busy,
    /// A rest point (`playbook.parked`).
    Parked,
    /// Waiting on a nested call (`playbook.suspended`).
    Suspended,
}

/// One field of a final state's output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OutputField {
    /// The output key.
    pub name: String,
    /// Where its value comes from (context or a literal only).
    pub value: Operand,
}

/// A value in the closed expression form (A8).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum Operand {
    /// A context field's current value.
    Context(String),
    /// A field of the result that triggered the transition.
    Result(String),
    /// A field of the Boss event that triggered the transition.
    Event(String),
    /// A JSON literal.
    Literal(Value),
}

/// The one work a state hands out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum Invoke {
    /// Delegate to a named player.
    #[serde(rename_all = "camelCase")]
    Player {
        /// The player's name.
        player: String,
        /// The verbatim prompt, with `<placeholder>` marks.
        prompt: String,
        /// Context fields handed to the prompt's placeholders.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        inputs: Vec<String>,
        /// The ordered results (guards); empty means the single default `done`.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        results: Vec<ResultSpec>,
    },
    /// Direct Captain work.
    #[serde(rename_all = "camelCase")]
    Captain {
        /// The verbatim prompt.
        prompt: String,
        /// Context fields handed to the prompt's placeholders.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        inputs: Vec<String>,
        /// The ordered results (guards); empty means the single default `done`.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        results: Vec<ResultSpec>,
        /// Whether the Boss sees the Captain's call (omitted when `visible`, the default).
        #[serde(default, skip_serializing_if = "is_visible")]
        visibility: Visibility,
    },
    /// A nested playbook.
    #[serde(rename_all = "camelCase")]
    Playbook {
        /// A fixed playbook id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// Or the context field holding the id (validated before entry).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from_context: Option<String>,
        /// The text handed to the child.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<Operand>,
        /// The ordered results of the child's output; empty means `done`.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        results: Vec<ResultSpec>,
    },
    /// A shell script; its results are always `ok` (exit 0) then `failed`.
    #[serde(rename_all = "camelCase")]
    Script {
        /// The command, run with `sh -c`.
        command: String,
        /// The time limit in milliseconds.
        timeout_ms: u64,
    },
}

/// One result (guard) of an invoke.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResultSpec {
    /// The guard name, `[A-Za-z_$][A-Za-z0-9_$]*`.
    pub guard: String,
    /// The description the judge reads verbatim.
    pub description: String,
    /// Output fields the judge must write.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required_fields: Vec<String>,
    /// Output fields the runtime fills from the agent's whole final text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verbatim_fields: Vec<String>,
}

/// A guarded transition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Transition {
    /// The result guard this transition handles (invoking and parallel states).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<String>,
    /// The Boss event this transition handles (states without an invoke).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// Context predicates that must all hold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub when: Vec<Predicate>,
    /// Assignments, applied in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assign: Vec<Assign>,
    /// The target state id.
    pub target: String,
}

/// A typed predicate on one context field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Predicate {
    /// The context field tested.
    pub field: String,
    /// The test.
    pub op: CompareOp,
    /// The literal compared against (none for `present`/`absent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
}

/// A predicate's test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CompareOp {
    /// Equal to the value.
    Eq,
    /// Not equal to the value.
    Ne,
    /// Number less than.
    Lt,
    /// Number at most.
    Le,
    /// Number greater than.
    Gt,
    /// Number at least.
    Ge,
    /// Set, and not empty text.
    Present,
    /// Unset, or empty text.
    Absent,
}

/// An assignment to one context field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum Assign {
    /// Set a field to a value.
    Set {
        /// The context field written.
        field: String,
        /// The value.
        value: Operand,
    },
    /// Add to a number field.
    Increment {
        /// The number field.
        field: String,
        /// The step (1 when absent).
        #[serde(default = "one", skip_serializing_if = "is_one")]
        by: i64,
    },
    /// Unset a field.
    Clear {
        /// The context field cleared.
        field: String,
    },
}

fn one() -> i64 {
    1
}

fn is_one(n: &i64) -> bool {
    *n == 1
}

/// A root `BOSS_INTERRUPT` jump.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Jump {
    /// The state jumped to (re-entered).
    pub target: String,
    /// The context the target needs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub when: Vec<Predicate>,
    /// Assignments made on the jump.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assign: Vec<Assign>,
}

/// `BOSS_REPLY` resumption.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BossReply {
    /// The leaves a reply may resume; empty means every player and Captain state.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resumable: Vec<String>,
}

/// The deterministic entry event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EntryEvent {
    /// The declared event sent.
    #[serde(rename = "type")]
    pub event_type: String,
    /// The event field that receives the Boss's exact text.
    pub text_field: String,
}

/// A player state's status label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlayerState {
    /// The state labelled.
    pub state: String,
    /// Its player.
    pub player: String,
    /// The label for the human status stream.
    pub label: String,
}

/// Why an implied edge exists (A4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeKind {
    /// A written transition.
    Transition,
    /// The universal `needsBossReply` result parks in `awaitBossReply`.
    NeedsBossReply,
    /// An invoke's error path to `failed`.
    Error,
    /// A `BOSS_REPLY` resumes the asking leaf.
    Resume,
    /// A parallel group runs its members.
    Region,
    /// A member's region joins back into its group.
    Join,
    /// A root `BOSS_INTERRUPT` jump (from any state).
    Interrupt,
}

impl Invoke {
    /// The written results, or the default `done` when there are none; script results are
    /// `ok` then `failed`.
    pub fn declared_results(&self) -> Vec<ResultSpec> {
        let spec = |guard: &str, description: &str| ResultSpec {
            guard: guard.into(),
            description: description.into(),
            required_fields: Vec::new(),
            verbatim_fields: Vec::new(),
        };
        match self {
            Invoke::Script { .. } => vec![
                spec("ok", "The command exited with status zero."),
                spec("failed", "The command exited with a nonzero status."),
            ],
            Invoke::Player { results, .. } | Invoke::Captain { results, .. } | Invoke::Playbook { results, .. } => {
                if results.is_empty() {
                    vec![spec(DONE, DONE_DESCRIPTION)]
                } else {
                    results.clone()
                }
            }
        }
    }

    /// Whether this invoke asks an agent (player or Captain), and so gets `needsBossReply`.
    pub fn asks_agent(&self) -> bool {
        matches!(self, Invoke::Player { .. } | Invoke::Captain { .. })
    }

    /// The declared results plus, for agents, the universal `needsBossReply` (A4).
    pub fn effective_results(&self) -> Vec<ResultSpec> {
        let mut results = self.declared_results();
        if self.asks_agent() {
            results.push(ResultSpec {
                guard: NEEDS_BOSS_REPLY.into(),
                description: NEEDS_BOSS_REPLY_DESCRIPTION.into(),
                required_fields: vec!["question".into()],
                verbatim_fields: Vec::new(),
            });
        }
        results
    }
}

impl Machine {
    /// The state with this id.
    pub fn state(&self, id: &str) -> Option<&State> {
        self.states.iter().find(|s| s.id == id)
    }

    /// The leaves a `BOSS_REPLY` may resume (A6).
    pub fn resumable(&self) -> Vec<String> {
        match &self.boss_reply {
            Some(r) if !r.resumable.is_empty() => r.resumable.clone(),
            _ => self
                .states
                .iter()
                .filter(|s| s.invoke.as_ref().is_some_and(Invoke::asks_agent))
                .map(|s| s.id.clone())
                .collect(),
        }
    }

    /// Every edge of the graph, written and implied: `(from, to, kind)`. Interrupt edges
    /// are listed once per jump, from the initial state.
    pub fn implied_edges(&self) -> Vec<(String, String, EdgeKind)> {
        let mut edges = Vec::new();
        for s in &self.states {
            for t in &s.on {
                edges.push((s.id.clone(), t.target.clone(), EdgeKind::Transition));
            }
            if let Some(invoke) = &s.invoke {
                if invoke.asks_agent() {
                    edges.push((s.id.clone(), AWAIT_BOSS_REPLY.into(), EdgeKind::NeedsBossReply));
                }
                edges.push((s.id.clone(), FAILED.into(), EdgeKind::Error));
            }
            for m in &s.parallel {
                edges.push((s.id.clone(), m.clone(), EdgeKind::Region));
                edges.push((m.clone(), s.id.clone(), EdgeKind::Join));
            }
        }
        for r in self.resumable() {
            edges.push((AWAIT_BOSS_REPLY.into(), r, EdgeKind::Resume));
        }
        for j in &self.boss_interrupt {
            edges.push((self.initial.clone(), j.target.clone(), EdgeKind::Interrupt));
        }
        edges
    }
}
