//! Classifying Boss input: the judge's prompt and the validation of its reply
//! (CONTRACT.md §1.5 step 3, §1.9 "Answering"; J13–J16).
//!
//! The judge picks the event type and any routing fields; the runtime fills every text field
//! with Boss's exact text. `NO_ACTION` and `BOSS_REPLY` belong to the runtime and are always
//! offered (`BOSS_REPLY` only while a question is pending).

use serde_json::{Map, Value};

use super::fence_for;
use crate::recover::recover_object;

/// The event that means "nothing to do": exactly `{"type": "NO_ACTION"}`.
pub const NO_ACTION: &str = "NO_ACTION";
/// The event that answers a pending question.
pub const BOSS_REPLY: &str = "BOSS_REPLY";
/// `BOSS_REPLY`'s routing field.
pub const QUESTION_ID: &str = "questionId";
/// `BOSS_REPLY`'s text field, filled with Boss's exact text.
pub const ANSWER: &str = "answer";

/// A question waiting for Boss, as the judge sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingQuestion {
    /// The question's id (the id of the state that asked).
    pub question_id: String,
    /// Who asked: a player's name or `Captain`.
    pub asker: String,
    /// The question, verbatim.
    pub question: String,
}

/// Who supplies a field of a Boss event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldSource {
    /// The judge chooses it (routing data).
    Judge,
    /// The runtime fills it with Boss's exact text.
    Text,
}

/// One field of a flat Boss-event contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventField {
    /// The field name.
    pub name: String,
    /// Who supplies it.
    pub source: FieldSource,
    /// A judge field the judge must give (text fields are always filled).
    pub required: bool,
    /// A closed set of strings the judge must choose from, if any.
    pub values: Option<Vec<String>>,
}

/// A flat Boss-event contract the machine accepts besides the runtime's own two events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventContract {
    /// The event type, e.g. `BOSS_INTERRUPT`.
    pub event_type: String,
    /// Its fields; no others are allowed.
    pub fields: Vec<EventField>,
}

/// A validated Boss event: its type and payload, text fields holding Boss's exact text.
#[derive(Debug, Clone, PartialEq)]
pub struct BossEvent {
    /// The event type.
    pub event_type: String,
    /// The payload fields (without `type`).
    pub fields: Map<String, Value>,
}

/// Why a classification reply was refused. The runtime then emits one status, sends no
/// event, and the turn's outcome is `no-action` (CONTRACT.md §1.5).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClassifyError {
    /// The reply held no JSON object, even after repair.
    #[error("the judge's reply holds no JSON object")]
    NoObject,
    /// The object has no string `type` member.
    #[error("the judge's reply has no string `type` member")]
    MissingType,
    /// The type is neither the runtime's nor a declared contract's.
    #[error("the judge chose the undeclared event `{0}`")]
    UnknownEvent(String),
    /// A member the event's contract does not declare.
    #[error("the judge gave `{event}` the undeclared member `{key}`")]
    ExtraKey {
        /// The event type.
        event: String,
        /// The member.
        key: String,
    },
    /// A required judge field is absent.
    #[error("the judge's `{event}` lacks the required field `{field}`")]
    MissingField {
        /// The event type.
        event: String,
        /// The field.
        field: String,
    },
    /// A judge field that is not a non-empty string.
    #[error("the judge's `{event}` gives `{field}` a value that is not a non-empty string")]
    InvalidValue {
        /// The event type.
        event: String,
        /// The field.
        field: String,
    },
    /// A judge field whose string is outside its closed set.
    #[error("the judge's `{event}` gives `{field}` the value `{value}`, outside its allowed set")]
    UnknownValue {
        /// The event type.
        event: String,
        /// The field.
        field: String,
        /// The value given.
        value: String,
    },
    /// `BOSS_REPLY` while no question is pending.
    #[error("the judge chose BOSS_REPLY but no question is pending")]
    NoPendingQuestion,
    /// `BOSS_REPLY` without `questionId` while several questions are pending.
    #[error("the judge's BOSS_REPLY names no questionId while {0} questions are pending")]
    QuestionIdRequired(usize),
    /// A `BOSS_REPLY` without `questionId` while a parallel group's keyed wait is pending.
    #[error("the judge's BOSS_REPLY names no questionId, which a parallel group's keyed wait requires")]
    KeyedQuestionIdRequired,
    /// `BOSS_REPLY` naming a question that is not pending (the id as given; JSON text when
    /// it is not a string).
    #[error("the judge's BOSS_REPLY names the question `{0}`, which is not pending")]
    UnknownQuestion(String),
}

impl ClassifyError {
    /// The one status line the runtime emits for this refusal (§1.5 step 3), worded as the
    /// reference engine words it.
    pub fn status_line(&self) -> String {
        match self {
            ClassifyError::NoObject => "Classifier reply was not recoverable JSON".into(),
            ClassifyError::MissingType => "Classifier did not name an event type".into(),
            ClassifyError::UnknownEvent(t) => format!("Classifier returned unknown or inapplicable event type: {t}"),
            ClassifyError::ExtraKey { event, .. } if event == NO_ACTION => {
                "Classifier supplied extra fields for NO_ACTION".into()
            }
            ClassifyError::ExtraKey { event, key } => {
                format!("Classifier supplied undeclared field for {event}: {key}")
            }
            ClassifyError::MissingField { event, field } | ClassifyError::InvalidValue { event, field } => {
                format!("Classifier omitted or invalidated {field} for {event}")
            }
            ClassifyError::UnknownValue { event, field, value } => {
                format!("Classifier supplied unknown {field} for {event}: {value}")
            }
            ClassifyError::NoPendingQuestion => "Classifier returned BOSS_REPLY without a pending question".into(),
            ClassifyError::QuestionIdRequired(_) | ClassifyError::KeyedQuestionIdRequired => {
                format!("Classifier omitted or invalidated {QUESTION_ID} for {BOSS_REPLY}")
            }
            ClassifyError::UnknownQuestion(id) => {
                format!("Classifier supplied unknown questionId for BOSS_REPLY: {id}")
            }
        }
    }
}

/// The prompt that asks the judge to classify Boss's `text` while the machine is in `state`
/// (J13): Boss's text in a labelled fence it cannot close, the state, every pending question,
/// and the flat event contracts, the runtime's own first.
pub fn classification_prompt(
    text: &str,
    state: &str,
    pending: &[PendingQuestion],
    contracts: &[EventContract],
) -> String {
    keyed_classification_prompt(text, state, pending, contracts, false)
}

/// [`classification_prompt`] for a machine whose Boss waits are `keyed` (a parallel group's,
/// §1.9): there `questionId` is required however many questions are pending.
pub fn keyed_classification_prompt(
    text: &str,
    state: &str,
    pending: &[PendingQuestion],
    contracts: &[EventContract],
    keyed: bool,
) -> String {
    let fence = fence_for(text);
    let mut prompt = String::with_capacity(text.len() + 1024);
    prompt.push_str(
        "You are a hidden referee for a workflow. Use no tools: do not run commands, open \
files or look anything up. Decide which event Boss's message below means.\n\n",
    );
    prompt.push_str(&format!("Boss message:\n{fence}\n{text}\n{fence}\n\n"));
    prompt.push_str(&format!("Current state: {state}\n\n"));
    if pending.is_empty() {
        prompt.push_str("Pending questions: none\n\n");
    } else {
        prompt.push_str("Pending questions:\n");
        for q in pending {
            let entry = serde_json::json!({
                "questionId": q.question_id, "asker": q.asker, "question": q.question,
            });
            prompt.push_str(&format!("- {entry}\n"));
        }
        prompt.push('\n');
    }
    prompt.push_str("Events (choose exactly one):\n");
    prompt.push_str(&format!("- `{NO_ACTION}`: the message asks for nothing to be done. Members: none.\n"));
    if !pending.is_empty() {
        let id_rule = if pending.len() == 1 && !keyed { "optional" } else { "required" };
        prompt.push_str(&format!(
            "- `{BOSS_REPLY}`: the message answers a pending question. Members: `{QUESTION_ID}` \
({id_rule}; one of the pending ids).\n"
        ));
    }
    for contract in contracts {
        if contract.event_type == NO_ACTION || contract.event_type == BOSS_REPLY {
            continue; // the runtime's own events are described above (J14)
        }
        let members: Vec<String> = contract
            .fields
            .iter()
            .filter(|f| f.source == FieldSource::Judge)
            .map(|f| {
                let need = if f.required { "required" } else { "optional" };
                match &f.values {
                    Some(values) => format!("`{}` ({need}; one of {})", f.name, values.join(", ")),
                    None => format!("`{}` ({need})", f.name),
                }
            })
            .collect();
        let members = if members.is_empty() { "none".to_owned() } else { members.join(", ") };
        prompt.push_str(&format!("- `{}`: Members: {members}.\n", contract.event_type));
    }
    prompt.push_str(
        "\nAnswer with exactly one JSON object and nothing else: `type` is the event, plus only \
the members listed for it. Do not copy Boss's message into any member; the runtime attaches it.\n",
    );
    prompt
}

/// Validates the judge's classification `reply` of Boss's `text` (J14–J16).
///
/// `NO_ACTION` must be exactly `{type}`; every event refuses members other than its judge
/// fields (a text field the judge writes is refused too); judge fields are non-empty strings;
/// `BOSS_REPLY` may omit `questionId` only when exactly one question is pending; its `answer`,
/// like every text field, is Boss's exact `text`. Whether the machine can take the event in its
/// current state is the caller's check.
pub fn validate_classification(
    reply: &str,
    text: &str,
    pending: &[PendingQuestion],
    contracts: &[EventContract],
) -> Result<BossEvent, ClassifyError> {
    validate_keyed_classification(reply, text, pending, contracts, false)
}

/// [`validate_classification`] for a machine whose Boss waits are `keyed` (a parallel group's,
/// §1.9): a `BOSS_REPLY` without `questionId` is refused even when one question is pending.
pub fn validate_keyed_classification(
    reply: &str,
    text: &str,
    pending: &[PendingQuestion],
    contracts: &[EventContract],
    keyed: bool,
) -> Result<BossEvent, ClassifyError> {
    let mut object = recover_object(reply).ok_or(ClassifyError::NoObject)?;
    let event_type = match object.remove("type") {
        Some(Value::String(t)) => t,
        _ => return Err(ClassifyError::MissingType),
    };
    let extra = |key: &String| ClassifyError::ExtraKey { event: event_type.clone(), key: key.clone() };
    if event_type == NO_ACTION {
        return match object.keys().next() {
            Some(key) => Err(extra(key)),
            None => Ok(BossEvent { event_type, fields: Map::new() }),
        };
    }
    if event_type == BOSS_REPLY {
        // `answer` is a text field: the runtime's, so the judge may not write it (J15).
        if let Some(key) = object.keys().find(|k| *k != QUESTION_ID) {
            return Err(extra(key));
        }
        let question_id = match object.get(QUESTION_ID) {
            Some(Value::String(id)) if pending.iter().any(|q| &q.question_id == id) => id.clone(),
            Some(_) if pending.is_empty() => return Err(ClassifyError::NoPendingQuestion),
            Some(other) => {
                let id = other.as_str().map_or_else(|| other.to_string(), str::to_owned);
                return Err(ClassifyError::UnknownQuestion(id));
            }
            None => match pending {
                [] => return Err(ClassifyError::NoPendingQuestion),
                [only] if !keyed => only.question_id.clone(),
                [_] => return Err(ClassifyError::KeyedQuestionIdRequired),
                many => return Err(ClassifyError::QuestionIdRequired(many.len())),
            },
        };
        let mut fields = Map::new();
        fields.insert(QUESTION_ID.to_owned(), Value::String(question_id));
        fields.insert(ANSWER.to_owned(), Value::String(text.to_owned()));
        return Ok(BossEvent { event_type, fields });
    }
    let contract = contracts
        .iter()
        .find(|c| c.event_type == event_type)
        .ok_or_else(|| ClassifyError::UnknownEvent(event_type.clone()))?;
    let is_judge_field =
        |key: &String| contract.fields.iter().any(|f| &f.name == key && f.source == FieldSource::Judge);
    if let Some(key) = object.keys().find(|k| !is_judge_field(k)) {
        return Err(extra(key));
    }
    let mut fields = Map::new();
    for field in &contract.fields {
        let value = match field.source {
            FieldSource::Text => Value::String(text.to_owned()),
            FieldSource::Judge => match object.remove(&field.name) {
                None if field.required => {
                    return Err(ClassifyError::MissingField { event: event_type, field: field.name.clone() })
                }
                None => continue,
                Some(value) => {
                    match (&value, &field.values) {
                        (Value::String(v), Some(values)) if !v.is_empty() && !values.iter().any(|a| a == v) => {
                            return Err(ClassifyError::UnknownValue {
                                event: event_type,
                                field: field.name.clone(),
                                value: v.clone(),
                            })
                        }
                        (Value::String(v), _) if !v.is_empty() => {}
                        _ => return Err(ClassifyError::InvalidValue { event: event_type, field: field.name.clone() }),
                    }
                    value
                }
            },
        };
        fields.insert(field.name.clone(), value);
    }
    Ok(BossEvent { event_type, fields })
}
