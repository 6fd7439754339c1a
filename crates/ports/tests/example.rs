//! The agent example in `examples/agents/` (issue 13, item 8): the machine loads and checks
//! clean, and its shell-script players and judge play it through every path.

use stagehand_agents::machine::{check, read_toml, Machine};

const MACHINE: &str = include_str!("../../../examples/agents/write-review-revise.toml");

fn machine() -> Machine {
    read_toml(MACHINE).unwrap_or_else(|refusal| panic!("the example machine is refused: {refusal}"))
}

#[test]
fn the_example_machine_loads_and_checks_clean() {
    let m = machine();
    assert_eq!(m.id, "writeReviewRevise");
    let findings = check(&m);
    assert!(findings.is_empty(), "{findings:?}");
}

// A small stand-in driver: it plays this one machine the way the contract says (entry event,
// prompt composition, the judge's adjudication, 6.x continuity, the Boss's question and
// reply), using the agents crate's own prompt and judge functions and the real `exec:` ports
// the example's README binds. Only the predicates and assignments this machine uses are
// evaluated. It is here so the example is known to play before the runtime lands.
mod driver {
    use std::collections::BTreeMap;

    use serde_json::{Map, Value};
    use stagehand_agents::adjudicate::classify::{
        classification_prompt, validate_classification, EventContract, PendingQuestion, BOSS_REPLY,
    };
    use stagehand_agents::adjudicate::{adjudicate, judge_prompt, GuardSpec};
    use stagehand_agents::machine::{
        Assign, CompareOp, Invoke, Machine, Operand, Transition, AWAIT_BOSS_REPLY, NEEDS_BOSS_REPLY,
    };
    use stagehand_agents::prompt::{compose, Audience, Continuation};
    use stagehand_ports::{Abort, Lineup, PortRequest, Who};

    pub struct Play {
        pub machine: Machine,
        pub lineup: Lineup,
        pub state: String,
        pub context: Map<String, Value>,
        pub tokens: BTreeMap<String, String>,
        /// The asking state and its question.
        pub pending: Option<(String, String)>,
        /// Every player call: (player, the token it was handed).
        pub calls: Vec<(String, Option<String>)>,
    }

    impl Play {
        pub fn new(machine: Machine, lineup: Lineup) -> Play {
            let context =
                machine.context.iter().map(|f| (f.name.clone(), f.initial.clone().unwrap_or(Value::Null))).collect();
            let state = machine.initial.clone();
            Play { machine, lineup, state, context, tokens: BTreeMap::new(), pending: None, calls: Vec::new() }
        }

        /// One Boss turn: the entry event from `ready`, else the judge classifies the text.
        pub fn boss(&mut self, text: &str) {
            if self.state == self.machine.initial {
                let entry = self.machine.entry_event.clone().expect("an entry event");
                let mut event = Map::new();
                event.insert(entry.text_field.clone(), Value::String(text.to_owned()));
                let state = self.machine.state(&self.state).unwrap().clone();
                let t = state.on.iter().find(|t| t.event.as_deref() == Some(&entry.event_type)).unwrap().clone();
                self.take(&t, &event, &Map::new());
                return self.run(None);
            }
            assert_eq!(self.state, AWAIT_BOSS_REPLY, "the example only parks for a question");
            let (asker_state, question) = self.pending.clone().expect("a pending question");
            let pending = [PendingQuestion {
                question_id: asker_state.clone(),
                asker: "reviewer".into(),
                question: question.clone(),
            }];
            let contracts: [EventContract; 0] = [];
            let prompt = classification_prompt(text, &self.state, &pending, &contracts);
            let reply = self.lineup.call(&PortRequest::new(Who::Judge, prompt), &Abort::new()).unwrap();
            let event = validate_classification(&reply.final_text, text, &pending, &contracts).unwrap();
            assert_eq!(event.event_type, BOSS_REPLY);
            self.pending = None;
            self.state = asker_state;
            self.run(Some((question, text.to_owned())));
        }

        fn run(&mut self, mut continuation: Option<(String, String)>) {
            for _ in 0..20 {
                let state = self.machine.state(&self.state).unwrap().clone();
                let Some(Invoke::Player { player, prompt, .. }) = &state.invoke else { return };
                let resumed = continuation.take();
                let prompt = compose(
                    prompt,
                    &self.context,
                    &BTreeMap::new(),
                    Audience::Player,
                    resumed.as_ref().map(|(q, r)| Continuation { question: q, reply: r }),
                );
                let token = self.tokens.get(player).cloned();
                self.calls.push((player.clone(), token.clone()));
                let mut request = PortRequest::new(Who::player(player.clone()), prompt);
                request.resume = token;
                let reply = self.lineup.call(&request, &Abort::new()).unwrap();
                match reply.resume_token {
                    Some(t) => self.tokens.insert(player.clone(), t),
                    None => self.tokens.remove(player),
                };
                let invoke = state.invoke.clone().unwrap();
                let guards: Vec<GuardSpec> = invoke
                    .effective_results()
                    .into_iter()
                    .map(|r| GuardSpec { name: r.guard, description: r.description })
                    .collect();
                let judged = judge_prompt(player, &reply.final_text, &guards);
                let verdict = self.lineup.call(&PortRequest::new(Who::Judge, judged), &Abort::new()).unwrap();
                let outcome = adjudicate(&verdict.final_text, &guards, &reply.final_text).unwrap();
                if outcome.guard == NEEDS_BOSS_REPLY {
                    let question = outcome.fields["question"].as_str().unwrap().to_owned();
                    self.pending = Some((self.state.clone(), question));
                    self.state = AWAIT_BOSS_REPLY.to_owned();
                    return;
                }
                let t = state
                    .on
                    .iter()
                    .find(|t| t.guard.as_deref() == Some(&outcome.guard) && self.holds(t))
                    .unwrap_or_else(|| panic!("no transition for {} in {}", outcome.guard, self.state))
                    .clone();
                self.take(&t, &Map::new(), &outcome.fields);
            }
            panic!("the example ran 20 steps without parking or ending");
        }

        fn holds(&self, t: &Transition) -> bool {
            t.when.iter().all(|p| {
                let have = self.context[&p.field].as_f64().unwrap();
                let want = p.value.as_ref().and_then(Value::as_f64).unwrap();
                match p.op {
                    CompareOp::Lt => have < want,
                    CompareOp::Ge => have >= want,
                    op => panic!("the example uses no {op:?}"),
                }
            })
        }

        fn take(&mut self, t: &Transition, event: &Map<String, Value>, result: &Map<String, Value>) {
            for a in &t.assign {
                match a {
                    Assign::Set { field, value } => {
                        let v = match value {
                            Operand::Event(f) => event[f].clone(),
                            Operand::Result(f) => result[f].clone(),
                            Operand::Literal(v) => v.clone(),
                            Operand::Context(f) => self.context[f].clone(),
                        };
                        self.context.insert(field.clone(), v);
                    }
                    Assign::Increment { field, by } => {
                        let n = self.context[field].as_i64().unwrap() + by;
                        self.context.insert(field.clone(), Value::from(n));
                    }
                    Assign::Clear { field } => {
                        self.context.insert(field.clone(), Value::Null);
                    }
                }
            }
            self.state = t.target.clone();
        }
    }
}

use stagehand_ports::LineupSpec;

/// The lineup the example's README gives, run from the workspace root.
fn lineup(strict: bool) -> stagehand_ports::Lineup {
    let reviewer = if strict {
        "reviewer=exec:REVIEWER_STRICT=1 sh examples/agents/reviewer.sh"
    } else {
        "reviewer=exec:sh examples/agents/reviewer.sh"
    };
    let players = ["writer=exec:sh examples/agents/writer.sh".to_owned(), reviewer.to_owned()];
    let spec = LineupSpec::parse(&players, None, Some("exec:sh examples/agents/judge.sh")).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    spec.open(Some(&root))
}

#[test]
fn the_example_plays_write_review_revise_to_approval_in_two_rounds() {
    let mut play = driver::Play::new(machine(), lineup(false));
    play.boss("a short poem about rain");
    assert_eq!(play.state, "approved");
    assert_eq!(play.context["rounds"], 1);
    let draft = play.context["draft"].as_str().unwrap();
    assert!(draft.starts_with("Draft 2: a short poem about rain"), "{draft}");
    assert!(draft.contains("Revised to address: open with a concrete example (review 1)"), "{draft}");
    let who: Vec<&str> = play.calls.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(who, ["writer", "reviewer", "writer", "reviewer"]);
    // Continuity: each player gets back the token it last gave.
    let tokens: Vec<Option<&str>> = play.calls.iter().map(|(_, t)| t.as_deref()).collect();
    assert_eq!(tokens, [None, None, Some("writer-1"), Some("reviewer-1")]);
}

#[test]
fn the_reviewer_asks_the_boss_and_the_reply_resumes_the_review() {
    let mut play = driver::Play::new(machine(), lineup(false));
    play.boss("an essay with a title");
    assert_eq!(play.state, "awaitBossReply");
    let (asker, question) = play.pending.clone().unwrap();
    assert_eq!((asker.as_str(), question.as_str()), ("review", "Should the title be formal or playful?"));
    play.boss("Playful, please.");
    assert_eq!(play.state, "approved");
    let tokens: Vec<Option<&str>> = play.calls.iter().map(|(_, t)| t.as_deref()).collect();
    assert_eq!(tokens, [None, None, Some("reviewer-0"), Some("writer-1"), Some("reviewer-1")]);
}

#[test]
fn a_reviewer_that_never_approves_stops_after_two_rounds() {
    let mut play = driver::Play::new(machine(), lineup(true));
    play.boss("a limerick");
    assert_eq!(play.state, "outOfRounds");
    assert_eq!(play.context["rounds"], 2);
    assert_eq!(play.context["notes"], "open with a concrete example (review 3)");
    assert_eq!(play.calls.len(), 6, "write, then three reviews and two revisions");
}
