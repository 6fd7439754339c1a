//! Adjudication: turning an actor's free text into a routing decision through the hidden
//! judge (CONTRACT.md §1.5 "Adjudication"; J5–J8), and validating the judge's classification
//! of Boss input ([`classify`]).

pub mod classify;

use serde_json::{Map, Value};

use crate::recover::recover_object;

/// One declared outcome of an invoke: a guard name and its description, verbatim from the
/// machine, in the order the machine lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardSpec {
    /// The guard name (`[A-Za-z_$][A-Za-z0-9_$]*`).
    pub name: String,
    /// The description, which names required output fields after "Output shall include".
    pub description: String,
}

/// A field an outcome's description requires in the adjudicated output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequiredField {
    /// The field name.
    pub name: String,
    /// Annotated `<verbatim final text>`: the runtime fills it from the actor's trimmed final
    /// text, and the judge is not asked for it.
    pub verbatim: bool,
}

/// The English and the Chinese clause markers (the Chinese form as upstream writes it).
pub const CLAUSE_MARKERS: [&str; 2] = ["Output shall include", "输出应包含"];

/// The annotation that marks a verbatim field.
pub const VERBATIM_ANNOTATION: &str = "<verbatim final text>";

/// The fields a guard description requires, in order of first mention, parsed only from its
/// "Output shall include …" (or "输出应包含 …") clauses (J5).
///
/// A clause runs from its marker to the end of its sentence (a `.`, `。`, `;` or `；` outside
/// backticks followed by white space or the end) or of the description. Each backticked span
/// in it that reads `name` or `name: <annotation>` names a field; `<verbatim final text>` marks
/// it verbatim. Other backticked text is ignored.
pub fn required_fields(description: &str) -> Vec<RequiredField> {
    let mut fields: Vec<RequiredField> = Vec::new();
    let mut rest = description;
    while let Some((at, marker)) =
        CLAUSE_MARKERS.iter().filter_map(|m| rest.find(m).map(|at| (at, *m))).min_by_key(|&(at, _)| at)
    {
        let clause_start = &rest[at + marker.len()..];
        let (clause, after) = split_sentence(clause_start);
        for span in backticked(clause) {
            if let Some(field) = parse_field(span) {
                if !fields.iter().any(|f| f.name == field.name) {
                    fields.push(field);
                }
            }
        }
        rest = after;
    }
    fields
}

/// `text` split after the first sentence end outside backticks.
fn split_sentence(text: &str) -> (&str, &str) {
    let mut in_code = false;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '`' => in_code = !in_code,
            '.' | ';' if !in_code && chars.peek().is_none_or(|&(_, next)| next.is_whitespace()) => {
                return text.split_at(i + 1);
            }
            '。' | '；' if !in_code => return text.split_at(i + c.len_utf8()),
            _ => {}
        }
    }
    (text, "")
}

/// The contents of each complete backticked span in `text` (an unmatched backtick opens none).
fn backticked(text: &str) -> impl Iterator<Item = &str> {
    let pieces: Vec<&str> = text.split('`').collect();
    // An even number of pieces means the last backtick is unmatched: its piece is no span.
    let complete = if pieces.len().is_multiple_of(2) { pieces.len() - 1 } else { pieces.len() };
    pieces.into_iter().take(complete).skip(1).step_by(2)
}

fn parse_field(span: &str) -> Option<RequiredField> {
    let (name, annotation) = match span.split_once(':') {
        Some((name, annotation)) => (name.trim(), Some(annotation.trim())),
        None => (span.trim(), None),
    };
    is_identifier(name)
        .then(|| RequiredField { name: name.to_owned(), verbatim: annotation == Some(VERBATIM_ANNOTATION) })
}

/// `[A-Za-z_$][A-Za-z0-9_$]*`, the grammar of guard and field names.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// A Markdown fence long enough that no run of backticks in `text` can close it.
pub fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat(longest.max(2) + 1)
}

/// The prompt that asks the judge which outcome `actor`'s `output` supports (J6).
///
/// It names the actor, quotes the output verbatim in a fence it cannot close, lists every
/// guard with its description verbatim in the given order, and asks for exactly one JSON
/// object `{"guard": …, …fields}` naming for each guard the fields the judge must supply.
/// Verbatim fields are left out of the request: the runtime fills them itself.
pub fn judge_prompt(actor: &str, output: &str, guards: &[GuardSpec]) -> String {
    let fence = fence_for(output);
    let mut prompt = String::with_capacity(output.len() + 512);
    prompt.push_str(
        "You are a hidden referee for a workflow. Use no tools: do not run commands, open \
files or look anything up. Decide from the text below alone.\n\n",
    );
    prompt
        .push_str(&format!("{actor} finished a step. Its output, exactly as given:\n\n{fence}\n{output}\n{fence}\n\n"));
    prompt.push_str("Exactly one of these outcomes applies. Outcomes, in order:\n\n");
    for guard in guards {
        prompt.push_str(&format!("- `{}`: {}\n", guard.name, guard.description));
    }
    prompt.push_str(
        "\nAnswer with exactly one JSON object and nothing else: no prose, no code fence. Its \
`guard` member is the name of the outcome that applies.",
    );
    let mut asks = String::new();
    for guard in guards {
        let wanted: Vec<String> = required_fields(&guard.description)
            .into_iter()
            .filter(|f| !f.verbatim)
            .map(|f| format!("`{}`", f.name))
            .collect();
        if !wanted.is_empty() {
            asks.push_str(&format!("- for `{}`: {}\n", guard.name, wanted.join(", ")));
        }
    }
    if asks.is_empty() {
        prompt.push_str(" No other members are needed.\n");
    } else {
        prompt.push_str(" Add these members, with values taken from the output:\n");
        prompt.push_str(&asks);
    }
    prompt
}

/// An adjudicated outcome: the guard taken and its required output fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Adjudication {
    /// The guard the judge chose, one the invoke declares.
    pub guard: String,
    /// Every required field of that guard, in order of mention; verbatim fields hold the
    /// actor's trimmed final text. Members the judge added beyond these are dropped (J7).
    pub fields: Map<String, Value>,
}

/// Why a judge's adjudication reply was refused: a control-plane error, never a recoverable
/// failure (CONTRACT.md §1.10).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdjudicationError {
    /// The reply held no JSON object, even after repair.
    #[error("the judge's reply holds no JSON object")]
    NoObject,
    /// The object has no `guard` member that is a string.
    #[error("the judge's reply has no string `guard` member")]
    MissingGuard,
    /// The guard is not one the invoke declares.
    #[error("the judge chose `{guard}`, which is not declared (declared: {declared})")]
    UndeclaredGuard {
        /// The guard the judge named.
        guard: String,
        /// The declared guards, comma-separated, in order.
        declared: String,
    },
    /// A required field is absent or `null`.
    #[error("the judge's reply lacks the field `{field}` that guard `{guard}` requires")]
    MissingField {
        /// The guard chosen.
        guard: String,
        /// The field missing.
        field: String,
    },
}

/// Adjudicates a judge `reply` against the declared `guards` for an actor whose final text
/// was `final_text` (J7, J8).
pub fn adjudicate(reply: &str, guards: &[GuardSpec], final_text: &str) -> Result<Adjudication, AdjudicationError> {
    let mut object = recover_object(reply).ok_or(AdjudicationError::NoObject)?;
    let guard = match object.get("guard") {
        Some(Value::String(guard)) => guard.clone(),
        _ => return Err(AdjudicationError::MissingGuard),
    };
    let spec = guards.iter().find(|g| g.name == guard).ok_or_else(|| AdjudicationError::UndeclaredGuard {
        guard: guard.clone(),
        declared: guards.iter().map(|g| g.name.as_str()).collect::<Vec<_>>().join(", "),
    })?;
    let mut fields = Map::new();
    for field in required_fields(&spec.description) {
        if field.verbatim {
            fields.insert(field.name, Value::String(final_text.trim().to_owned()));
            continue;
        }
        match object.remove(&field.name) {
            Some(Value::Null) | None => return Err(AdjudicationError::MissingField { guard, field: field.name }),
            Some(value) => {
                fields.insert(field.name, value);
            }
        }
    }
    Ok(Adjudication { guard, fields })
}
