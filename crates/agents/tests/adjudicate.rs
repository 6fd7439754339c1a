//! Required fields, the judge and classification prompts, adjudication and classification.

use proptest::prelude::*;
use serde_json::{json, Value};
use stagehand_agents::adjudicate::classify::{
    classification_prompt, validate_classification, ClassifyError, EventContract, EventField, FieldSource,
    PendingQuestion,
};
use stagehand_agents::adjudicate::{
    adjudicate, judge_prompt, required_fields, AdjudicationError, GuardSpec, RequiredField,
};

fn guard(name: &str, description: &str) -> GuardSpec {
    GuardSpec { name: name.into(), description: description.into() }
}

fn field(name: &str, verbatim: bool) -> RequiredField {
    RequiredField { name: name.into(), verbatim }
}

/// The results of the upstream CODE playbook's direct-commit item and a review item.
fn code_guards() -> Vec<GuardSpec> {
    vec![
        guard(
            "directCommit",
            "Coder completed the intent and made its one new commit. Output shall include \
`coderOutput: <verbatim final text>` and `latestCommit: <commit identity>`.",
        ),
        guard("findings", "Reviewer raised findings. Output shall include `reviewFindings: <verbatim final text>`."),
        guard("clean", "Reviewer raised no findings, so the workflow finishes."),
        guard("needsBossReply", "A decision only Boss can make. Output shall include `question: <the question>`."),
    ]
}

#[test]
fn required_fields_come_only_from_the_clause() {
    let table: Vec<(&str, Vec<RequiredField>)> = vec![
        (
            "Done. Output shall include `coderOutput: <verbatim final text>` and \
`latestCommit: <commit identity>`.",
            vec![field("coderOutput", true), field("latestCommit", false)],
        ),
        // Backticks before the clause and after its sentence are not fields.
        (
            "Uses `git` and `cargo`. Output shall include `irNumber: <IR number, e.g. 3.2>`. \
Do not mention `secret`.",
            vec![field("irNumber", false)],
        ),
        // The bare backticked name is accepted too.
        ("Output shall include `summary`", vec![field("summary", false)]),
        // The Chinese clause, as the upstream runtime spells it.
        (
            "审阅者提出了意见。输出应包含 `reviewFindings: <verbatim final text>` 和 `round: <轮次>`。\
另见 `other`。",
            vec![field("reviewFindings", true), field("round", false)],
        ),
        // Both clauses, and a field named twice counts once.
        (
            "Output shall include `a: <x>`. 输出应包含 `b: <y>` 与 `a: <x>`。",
            vec![field("a", false), field("b", false)],
        ),
        // No clause: no fields, whatever is backticked.
        ("Reviewer raised no findings; see `notes: <x>`.", vec![]),
        // Spans that are not names are ignored; an unmatched backtick closes nothing.
        (
            "Output shall include `two words`, `9lives`, `ok_1: <verbatim final text>` and `open",
            vec![field("ok_1", true)],
        ),
        // An annotation must be exactly `<verbatim final text>` to be verbatim.
        ("Output shall include `text: <verbatim final text, trimmed>`.", vec![field("text", false)]),
        ("", vec![]),
    ];
    for (description, expected) in table {
        assert_eq!(required_fields(description), expected, "{description}");
    }
}

#[test]
fn the_judge_prompt_names_quotes_lists_and_asks() {
    let output = "Committed abc123.\n```rust\nfn main() {}\n```\n";
    let prompt = judge_prompt("Coder", output, &code_guards());
    assert!(prompt.contains("Coder"));
    // The output is quoted verbatim in a fence its own fence cannot close.
    assert!(prompt.contains(&format!("````\n{output}\n````")));
    // Every guard with its description verbatim, in order.
    let mut at = 0;
    for g in code_guards() {
        let line = format!("- `{}`: {}\n", g.name, g.description);
        let found = prompt[at..].find(&line).expect(&line);
        at += found + line.len();
    }
    assert!(prompt.contains("exactly one JSON object"));
    assert!(prompt.contains("Use no tools"));
    // It asks for the judge-authored fields, not the verbatim ones.
    assert!(prompt.contains("- for `directCommit`: `latestCommit`\n"));
    assert!(prompt.contains("- for `needsBossReply`: `question`\n"));
    assert!(!prompt.contains("- for `findings`"));
    assert!(!prompt.contains("`coderOutput`"));
}

#[test]
fn adjudication_fills_verbatim_fields_from_the_trimmed_final_text() {
    let final_text = "\n  All done: committed abc123.  \n";
    let reply = "```json\n{\"guard\":\"directCommit\",\"latestCommit\":\"abc123\",\
\"coderOutput\":\"the judge's paraphrase\",\"extra\":1}\n```";
    let got = adjudicate(reply, &code_guards(), final_text).unwrap();
    assert_eq!(got.guard, "directCommit");
    assert_eq!(
        Value::Object(got.fields),
        json!({"coderOutput": "All done: committed abc123.", "latestCommit": "abc123"})
    );
}

#[test]
fn adjudication_needs_no_judge_copy_of_a_verbatim_field() {
    let got = adjudicate(r#"{"guard":"findings"}"#, &code_guards(), " fix the typo ").unwrap();
    assert_eq!(Value::Object(got.fields), json!({"reviewFindings": "fix the typo"}));
    let got = adjudicate(r#"{"guard":"clean","note":"x"}"#, &code_guards(), "ok").unwrap();
    assert_eq!((got.guard.as_str(), got.fields.len()), ("clean", 0));
}

#[test]
fn adjudication_errors_are_typed() {
    let guards = code_guards();
    let table: Vec<(&str, AdjudicationError)> = vec![
        ("no decision", AdjudicationError::NoObject),
        ("[\"clean\"]", AdjudicationError::NoObject),
        (r#"{"decision":"clean"}"#, AdjudicationError::MissingGuard),
        (r#"{"guard":3}"#, AdjudicationError::MissingGuard),
        (
            r#"{"guard":"merge"}"#,
            AdjudicationError::UndeclaredGuard {
                guard: "merge".into(),
                declared: "directCommit, findings, clean, needsBossReply".into(),
            },
        ),
        (
            r#"{"guard":"directCommit"}"#,
            AdjudicationError::MissingField { guard: "directCommit".into(), field: "latestCommit".into() },
        ),
        (
            r#"{"guard":"needsBossReply","question":null}"#,
            AdjudicationError::MissingField { guard: "needsBossReply".into(), field: "question".into() },
        ),
    ];
    for (reply, expected) in table {
        assert_eq!(adjudicate(reply, &guards, "text"), Err(expected), "{reply}");
    }
}

#[test]
fn adjudication_recovers_messy_replies() {
    let reply = "I pick this:\n{\"guard\": \"needsBossReply\", \"question\": \"Postgres or SQL";
    let got = adjudicate(reply, &code_guards(), "x").unwrap();
    assert_eq!(Value::Object(got.fields), json!({"question": "Postgres or SQL"}));
}

fn pending(ids: &[&str]) -> Vec<PendingQuestion> {
    ids.iter()
        .map(|id| PendingQuestion {
            question_id: (*id).into(),
            asker: "Coder".into(),
            question: format!("question from {id}"),
        })
        .collect()
}

fn contracts() -> Vec<EventContract> {
    vec![
        EventContract {
            event_type: "BOSS_INTERRUPT".into(),
            fields: vec![
                EventField {
                    name: "target".into(),
                    source: FieldSource::Judge,
                    required: true,
                    values: Some(vec!["CODE".into(), "REVIEW".into()]),
                },
                EventField { name: "bossIntent".into(), source: FieldSource::Text, required: false, values: None },
            ],
        },
        EventContract {
            event_type: "START".into(),
            fields: vec![
                EventField { name: "priority".into(), source: FieldSource::Judge, required: false, values: None },
                EventField { name: "task".into(), source: FieldSource::Text, required: false, values: None },
            ],
        },
    ]
}

#[test]
fn the_classification_prompt_carries_every_input() {
    let text = "Use SQLite.\n```\nnot a fence end\n```";
    let prompt = classification_prompt(text, "awaitBossReply", &pending(&["CODE-3"]), &contracts());
    assert!(prompt.contains(&format!("Boss message:\n````\n{text}\n````")));
    assert!(prompt.contains("Current state: awaitBossReply"));
    assert!(prompt.contains(r#"{"questionId":"CODE-3","asker":"Coder","question":"question from CODE-3"}"#));
    assert!(prompt.contains("`NO_ACTION`"));
    assert!(prompt.contains("`BOSS_REPLY`"));
    assert!(prompt.contains("`target` (required; one of CODE, REVIEW)"));
    assert!(prompt.contains("`START`: Members: `priority` (optional)."));
    // Text fields are the runtime's: the judge is not offered them.
    assert!(!prompt.contains("`bossIntent`"));
    assert!(prompt.contains("Use no tools"));
    // With nothing pending, BOSS_REPLY is not offered.
    let idle = classification_prompt("go", "ready", &[], &contracts());
    assert!(idle.contains("Pending questions: none"));
    assert!(!idle.contains("`BOSS_REPLY`"));
}

#[test]
fn classification_fills_text_fields_verbatim() {
    // The judge gives routing fields only; the runtime adds Boss's exact, untrimmed text.
    let text = "  Stop and go back to review, \"now\".\n";
    let got =
        validate_classification(r#"{"type":"BOSS_INTERRUPT","target":"REVIEW"}"#, text, &[], &contracts()).unwrap();
    assert_eq!(got.event_type, "BOSS_INTERRUPT");
    assert_eq!(Value::Object(got.fields), json!({"target": "REVIEW", "bossIntent": text}));
    let got = validate_classification(r#"{"type":"START"}"#, "do it", &[], &contracts()).unwrap();
    assert_eq!(Value::Object(got.fields), json!({"task": "do it"}));
}

#[test]
fn boss_reply_questions_follow_the_pending_set() {
    let one = pending(&["CODE-3"]);
    let two = pending(&["A", "B"]);
    let got = validate_classification(r#"{"type":"BOSS_REPLY"}"#, " SQLite ", &one, &[]).unwrap();
    assert_eq!(Value::Object(got.fields), json!({"questionId": "CODE-3", "answer": " SQLite "}));
    let got = validate_classification(r#"{"type":"BOSS_REPLY","questionId":"B"}"#, "yes", &two, &[]).unwrap();
    assert_eq!(Value::Object(got.fields), json!({"questionId": "B", "answer": "yes"}));
}

#[test]
fn classification_errors_are_typed() {
    let one = pending(&["CODE-3"]);
    let two = pending(&["A", "B"]);
    let c = contracts();
    let table: Vec<(&str, &[PendingQuestion], ClassifyError)> = vec![
        ("nothing", &one, ClassifyError::NoObject),
        (r#"{"event":"NO_ACTION"}"#, &one, ClassifyError::MissingType),
        (
            r#"{"type":"NO_ACTION","reason":"idle"}"#,
            &one,
            ClassifyError::ExtraKey { event: "NO_ACTION".into(), key: "reason".into() },
        ),
        (r#"{"type":"BOSS_REPLY"}"#, &[], ClassifyError::NoPendingQuestion),
        (r#"{"type":"BOSS_REPLY","questionId":"X"}"#, &[], ClassifyError::NoPendingQuestion),
        (r#"{"type":"BOSS_REPLY"}"#, &two, ClassifyError::QuestionIdRequired(2)),
        (r#"{"type":"BOSS_REPLY","questionId":"C"}"#, &two, ClassifyError::UnknownQuestion("C".into())),
        (r#"{"type":"BOSS_REPLY","questionId":7}"#, &one, ClassifyError::UnknownQuestion("7".into())),
        (
            r#"{"type":"BOSS_REPLY","questionId":"CODE-3","mood":"ok"}"#,
            &one,
            ClassifyError::ExtraKey { event: "BOSS_REPLY".into(), key: "mood".into() },
        ),
        // Text fields belong to the runtime: a judge that writes one is refused.
        (
            r#"{"type":"BOSS_REPLY","answer":"judge text"}"#,
            &one,
            ClassifyError::ExtraKey { event: "BOSS_REPLY".into(), key: "answer".into() },
        ),
        (
            r#"{"type":"BOSS_INTERRUPT","target":"CODE","bossIntent":"paraphrase"}"#,
            &one,
            ClassifyError::ExtraKey { event: "BOSS_INTERRUPT".into(), key: "bossIntent".into() },
        ),
        (r#"{"type":"BOSS_REPLY","questionId":null}"#, &one, ClassifyError::UnknownQuestion("null".into())),
        // Routing fields are non-empty strings.
        (
            r#"{"type":"START","priority":3}"#,
            &one,
            ClassifyError::InvalidValue { event: "START".into(), field: "priority".into() },
        ),
        (
            r#"{"type":"START","priority":""}"#,
            &one,
            ClassifyError::InvalidValue { event: "START".into(), field: "priority".into() },
        ),
        (
            r#"{"type":"BOSS_INTERRUPT","target":null}"#,
            &one,
            ClassifyError::InvalidValue { event: "BOSS_INTERRUPT".into(), field: "target".into() },
        ),
        (r#"{"type":"DEPLOY"}"#, &one, ClassifyError::UnknownEvent("DEPLOY".into())),
        (
            r#"{"type":"BOSS_INTERRUPT"}"#,
            &one,
            ClassifyError::MissingField { event: "BOSS_INTERRUPT".into(), field: "target".into() },
        ),
        (
            r#"{"type":"BOSS_INTERRUPT","target":"DEPLOY"}"#,
            &one,
            ClassifyError::UnknownValue {
                event: "BOSS_INTERRUPT".into(),
                field: "target".into(),
                value: "DEPLOY".into(),
            },
        ),
        (
            r#"{"type":"BOSS_INTERRUPT","target":"CODE","why":"x"}"#,
            &one,
            ClassifyError::ExtraKey { event: "BOSS_INTERRUPT".into(), key: "why".into() },
        ),
    ];
    for (reply, questions, expected) in table {
        assert_eq!(validate_classification(reply, "text", questions, &c), Err(expected), "{reply}");
    }
    let ok = validate_classification(r#"{"type":"NO_ACTION"}"#, "hm", &one, &c).unwrap();
    assert_eq!((ok.event_type.as_str(), ok.fields.len()), ("NO_ACTION", 0));
}

#[test]
fn each_refused_classification_has_one_status_line_naming_what_was_wrong() {
    let one = pending(&["CODE-3"]);
    let c = contracts();
    let table: Vec<(&str, &[PendingQuestion], &str)> = vec![
        ("nothing", &one, "Classifier reply was not recoverable JSON"),
        (r#"{"event":"NO_ACTION"}"#, &one, "Classifier did not name an event type"),
        (r#"{"type":"NO_ACTION","reason":"idle"}"#, &one, "Classifier supplied extra fields for NO_ACTION"),
        (r#"{"type":"DEPLOY"}"#, &one, "Classifier returned unknown or inapplicable event type: DEPLOY"),
        (
            r#"{"type":"BOSS_REPLY","answer":"judge text"}"#,
            &one,
            "Classifier supplied undeclared field for BOSS_REPLY: answer",
        ),
        (r#"{"type":"BOSS_INTERRUPT"}"#, &one, "Classifier omitted or invalidated target for BOSS_INTERRUPT"),
        (r#"{"type":"START","priority":3}"#, &one, "Classifier omitted or invalidated priority for START"),
        (
            r#"{"type":"BOSS_INTERRUPT","target":"DEPLOY"}"#,
            &one,
            "Classifier supplied unknown target for BOSS_INTERRUPT: DEPLOY",
        ),
        (r#"{"type":"BOSS_REPLY"}"#, &[], "Classifier returned BOSS_REPLY without a pending question"),
        (r#"{"type":"BOSS_REPLY","questionId":"X"}"#, &one, "Classifier supplied unknown questionId for BOSS_REPLY: X"),
    ];
    for (reply, questions, line) in table {
        let e = validate_classification(reply, "text", questions, &c).expect_err(reply);
        assert_eq!(e.status_line(), line, "{reply}");
    }
}

proptest! {
    #[test]
    fn adjudication_and_classification_never_panic(reply in ".{0,120}", text in ".{0,20}") {
        let _ = adjudicate(&reply, &code_guards(), &text);
        let _ = validate_classification(&reply, &text, &pending(&["A", "B"]), &contracts());
        let _ = required_fields(&reply);
    }

    #[test]
    fn verbatim_fields_are_the_trimmed_final_text_whatever_the_judge_says(
        final_text in ".{0,60}",
        judge_copy in ".{0,20}",
    ) {
        let reply = json!({"guard": "findings", "reviewFindings": judge_copy}).to_string();
        let got = adjudicate(&reply, &code_guards(), &final_text).unwrap();
        prop_assert_eq!(&got.fields["reviewFindings"], &json!(final_text.trim()));
    }
}
