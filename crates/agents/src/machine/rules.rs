//! The reader's rules, checked in document order; the first broken one is the refusal.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::read::Refusal;
use super::types::*;
use super::{AWAIT_BOSS_REPLY, DONE, FAILED, NEEDS_BOSS_REPLY, RUNTIME_EVENTS, RUNTIME_FIELDS};
use super::{RUNTIME_ABI, SUPPORTED_ARTIFACT_SCHEMAS};

type Checked = Result<(), Refusal>;

/// Whether `name` matches `[A-Za-z_$][A-Za-z0-9_$]*`.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// DR-022: the declared schema must be one this runtime reads, then the declared ABI the one
/// it implements; when both disagree the schema alone is reported (A46).
fn compat(m: &Machine) -> Checked {
    let Some(c) = m.compat else { return Ok(()) };
    if !SUPPORTED_ARTIFACT_SCHEMAS.contains(&c.artifact_schema) {
        return Err(Refusal::new(
            "artifact-schema",
            "$.compat.artifactSchema",
            format!(
                "an artifact schema this runtime supports, one of {SUPPORTED_ARTIFACT_SCHEMAS:?} (the machine declares {})",
                c.artifact_schema
            ),
        ));
    }
    if c.runtime_abi != RUNTIME_ABI {
        return Err(Refusal::new(
            "runtime-abi",
            "$.compat.runtimeAbi",
            format!(
                "runtime ABI {RUNTIME_ABI}, the one this runtime implements (the machine declares {})",
                c.runtime_abi
            ),
        ));
    }
    Ok(())
}

struct Ctx<'m> {
    m: &'m Machine,
    ids: BTreeSet<&'m str>,
    fields: BTreeMap<&'m str, FieldType>,
}

pub(super) fn validate(m: &Machine) -> Checked {
    compat(m)?;
    let mut fields = BTreeMap::new();
    for (i, f) in m.context.iter().enumerate() {
        let path = format!("$.context[{i}].name");
        if !is_identifier(&f.name) {
            return Err(Refusal::new("bad-field-name", path, "a field name [A-Za-z_$][A-Za-z0-9_$]*"));
        }
        if RUNTIME_FIELDS.contains(&f.name.as_str()) {
            return Err(Refusal::new("reserved-field", path, "a field the runtime does not own"));
        }
        if fields.insert(f.name.as_str(), f.ty).is_some() {
            return Err(Refusal::new("duplicate-field", path, "a context field declared once"));
        }
        if let Some(v) = &f.initial {
            if !fits(f.ty, v) {
                return Err(Refusal::new(
                    "value-type",
                    format!("$.context[{i}].initial"),
                    format!("a {:?} value", f.ty),
                ));
            }
        }
    }
    for (i, e) in m.events.iter().enumerate() {
        if RUNTIME_EVENTS.contains(&e.event_type.as_str()) || !is_identifier(&e.event_type) {
            return Err(Refusal::new(
                "reserved-event",
                format!("$.events[{i}].type"),
                "an event type the runtime does not own",
            ));
        }
        if m.events[..i].iter().any(|x| x.event_type == e.event_type) {
            return Err(Refusal::new("duplicate-event", format!("$.events[{i}].type"), "an event type declared once"));
        }
        for (k, f) in e.fields.iter().enumerate() {
            if e.fields[..k].iter().any(|x| x.name == f.name) {
                return Err(Refusal::new(
                    "duplicate-event-field",
                    format!("$.events[{i}].fields[{k}].name"),
                    "a field named once per event",
                ));
            }
        }
    }
    let mut ids = BTreeSet::new();
    for (i, s) in m.states.iter().enumerate() {
        if !is_identifier(&s.id) {
            return Err(Refusal::new(
                "bad-state-id",
                format!("$.states[{i}].id"),
                "a state id [A-Za-z_$][A-Za-z0-9_$]*",
            ));
        }
        if !ids.insert(s.id.as_str()) {
            return Err(Refusal::new("duplicate-state-id", format!("$.states[{i}].id"), "a state id used once"));
        }
    }
    let cx = Ctx { m, ids, fields };
    if !cx.ids.contains(m.initial.as_str()) {
        return Err(Refusal::new("missing-target", "$.initial", "the id of a state"));
    }
    if !m.states.iter().any(|s| s.is_final) {
        return Err(Refusal::new("no-final-state", "$.states", "at least one state with `final: true`"));
    }
    let mut ownership: BTreeMap<String, (bool, String)> = BTreeMap::new();
    for (i, s) in m.states.iter().enumerate() {
        cx.state(i, s, &mut ownership)?;
    }
    cx.conventions()?;
    cx.root()
}

fn fits(ty: FieldType, v: &Value) -> bool {
    match ty {
        FieldType::String => v.is_string(),
        FieldType::Number => v.is_number(),
        FieldType::Boolean => v.is_boolean(),
        FieldType::Json => true,
    }
}

impl Ctx<'_> {
    fn target(&self, id: &str, path: String) -> Checked {
        if self.ids.contains(id) {
            Ok(())
        } else {
            Err(Refusal::new("missing-target", path, format!("the id of a state (no state `{id}`)")))
        }
    }

    /// A state a transition or jump enters: an existing state that is not a parallel group's
    /// member, which only its group starts and joins (§2.3; A43).
    fn entered(&self, id: &str, path: String) -> Checked {
        self.target(id, path.clone())?;
        match self.m.states.iter().find(|g| g.parallel.iter().any(|m| m == id)) {
            Some(group) => Err(Refusal::new(
                "parallel-member",
                path,
                format!("a state other than a member of a parallel group (enter its group `{}`)", group.id),
            )),
            None => Ok(()),
        }
    }

    fn field(&self, name: &str, path: String) -> Result<FieldType, Refusal> {
        if RUNTIME_FIELDS.contains(&name) {
            return Err(Refusal::new("reserved-field", path, "a field the runtime does not own"));
        }
        self.fields
            .get(name)
            .copied()
            .ok_or_else(|| Refusal::new("unknown-field", path, format!("a declared context field (no field `{name}`)")))
    }

    fn state(&self, i: usize, s: &State, own: &mut BTreeMap<String, (bool, String)>) -> Checked {
        let at = format!("$.states[{i}]");
        if s.is_final && (s.invoke.is_some() || !s.on.is_empty() || !s.parallel.is_empty()) {
            return Err(Refusal::new("final-state", at, "a final state with no invoke, parallel group or transitions"));
        }
        if !s.is_final && !s.output.is_empty() {
            return Err(Refusal::new("output-not-final", format!("{at}.output"), "an output only on a final state"));
        }
        for (k, o) in s.output.iter().enumerate() {
            let path = format!("{at}.output[{k}].value");
            match &o.value {
                Operand::Context(f) => {
                    self.field(f, path)?;
                }
                Operand::Literal(_) => {}
                _ => return Err(Refusal::new("output-operand", path, "a context field or a literal")),
            }
        }
        if s.invoke.is_some() && !s.parallel.is_empty() {
            return Err(Refusal::new("invoke-and-parallel", at, "either one invoke or one parallel group"));
        }
        let guards: Vec<ResultSpec> = match &s.invoke {
            Some(inv) => {
                self.invoke(&format!("{at}.invoke"), inv, own)?;
                inv.effective_results()
            }
            None if !s.parallel.is_empty() => {
                self.parallel(&at, s)?;
                vec![ResultSpec {
                    guard: DONE.into(),
                    description: String::new(),
                    required_fields: vec![],
                    verbatim_fields: vec![],
                }]
            }
            None => Vec::new(),
        };
        for (j, t) in s.on.iter().enumerate() {
            self.transition(&format!("{at}.on[{j}]"), s, &guards, t)?;
        }
        Ok(())
    }

    fn invoke(&self, at: &str, inv: &Invoke, own: &mut BTreeMap<String, (bool, String)>) -> Checked {
        let (inputs, results) = match inv {
            Invoke::Player { inputs, results, .. } | Invoke::Captain { inputs, results, .. } => {
                (inputs.as_slice(), results.as_slice())
            }
            Invoke::Playbook { id, from_context, text, results } => {
                match (id, from_context) {
                    (Some(_), None) => {}
                    (None, Some(f)) => {
                        if self.field(f, format!("{at}.fromContext"))? != FieldType::String {
                            return Err(Refusal::new("value-type", format!("{at}.fromContext"), "a string field"));
                        }
                    }
                    _ => return Err(Refusal::new("playbook-target", at, "exactly one of `id` and `fromContext`")),
                }
                if let Some(t) = text {
                    self.operand(&format!("{at}.text"), t, None, None)?;
                }
                (&[][..], results.as_slice())
            }
            Invoke::Script { timeout_ms, .. } => {
                if *timeout_ms == 0 {
                    return Err(Refusal::new("bad-timeout", format!("{at}.timeoutMs"), "a time limit above zero"));
                }
                return Ok(());
            }
        };
        for (k, f) in inputs.iter().enumerate() {
            self.field(f, format!("{at}.inputs[{k}]"))?;
        }
        let mut seen = BTreeSet::new();
        for (j, r) in results.iter().enumerate() {
            let rp = format!("{at}.results[{j}]");
            if !is_identifier(&r.guard) {
                return Err(Refusal::new(
                    "bad-guard-name",
                    format!("{rp}.guard"),
                    "a guard name [A-Za-z_$][A-Za-z0-9_$]*",
                ));
            }
            if r.guard == NEEDS_BOSS_REPLY {
                return Err(Refusal::new(
                    "reserved-guard",
                    format!("{rp}.guard"),
                    "a guard other than `needsBossReply`, which the reader implies",
                ));
            }
            if !seen.insert(r.guard.as_str()) {
                return Err(Refusal::new("duplicate-guard", format!("{rp}.guard"), "a guard listed once per invoke"));
            }
            let all = r.required_fields.iter().map(|f| (f, false, "requiredFields"));
            for (k, (f, verbatim, key)) in
                all.chain(r.verbatim_fields.iter().map(|f| (f, true, "verbatimFields"))).enumerate()
            {
                let k = if verbatim { k - r.required_fields.len() } else { k };
                let path = format!("{rp}.{key}[{k}]");
                if !is_identifier(f) {
                    return Err(Refusal::new("bad-field-name", path, "a field name [A-Za-z_$][A-Za-z0-9_$]*"));
                }
                match own.get(f.as_str()) {
                    Some((was, first)) if *was != verbatim => {
                        return Err(Refusal::new(
                            "verbatim-conflict",
                            path,
                            format!(
                                "one owner per field (`{f}` is {} at {first})",
                                if *was { "verbatim" } else { "judge-authored" }
                            ),
                        ));
                    }
                    Some(_) => {}
                    None => {
                        own.insert(f.clone(), (verbatim, path));
                    }
                }
            }
            self.fields_match_description(&rp, r)?;
        }
        Ok(())
    }

    /// The runtime reads a result's fields from its description's "Output shall include"
    /// clauses (J5); the listed `requiredFields`/`verbatimFields` must say the same (A23).
    fn fields_match_description(&self, rp: &str, r: &ResultSpec) -> Checked {
        let named = crate::adjudicate::required_fields(&r.description);
        let set = |verbatim: bool| -> BTreeSet<&str> {
            named.iter().filter(|f| f.verbatim == verbatim).map(|f| f.name.as_str()).collect()
        };
        let (want_required, want_verbatim) = (set(false), set(true));
        let have_required: BTreeSet<&str> = r.required_fields.iter().map(String::as_str).collect();
        let have_verbatim: BTreeSet<&str> = r.verbatim_fields.iter().map(String::as_str).collect();
        if want_required != have_required || want_verbatim != have_verbatim {
            return Err(Refusal::new(
                "fields-description",
                format!("{rp}.description"),
                format!(
                    "a description whose \"Output shall include\" clauses name exactly the listed fields \
                     (it names required [{}] and verbatim [{}])",
                    list(want_required.into_iter()),
                    list(want_verbatim.into_iter())
                ),
            ));
        }
        Ok(())
    }

    fn parallel(&self, at: &str, s: &State) -> Checked {
        let mut players = BTreeMap::new();
        for (k, member) in s.parallel.iter().enumerate() {
            let path = format!("{at}.parallel[{k}]");
            self.target(member, path.clone())?;
            let Some(ms) = self.m.state(member) else { continue };
            let Some(Invoke::Player { player, .. }) = &ms.invoke else {
                return Err(Refusal::new("parallel-member", path, "a player state"));
            };
            if !ms.on.is_empty() || member == &s.id {
                return Err(Refusal::new(
                    "parallel-member",
                    path,
                    "a member with no transitions of its own (the group joins them)",
                ));
            }
            let groups = self.m.states.iter().filter(|g| g.parallel.contains(member)).count();
            if groups > 1 {
                return Err(Refusal::new("parallel-member", path, "a state in one parallel group only"));
            }
            if let Some(first) = players.insert(player.as_str(), k) {
                return Err(Refusal::new(
                    "parallel-duplicate-player",
                    path,
                    format!("one region per player (`{player}` already runs at {at}.parallel[{first}])"),
                ));
            }
        }
        Ok(())
    }

    fn transition(&self, at: &str, s: &State, guards: &[ResultSpec], t: &Transition) -> Checked {
        let event = match (&t.guard, &t.event) {
            (Some(g), None) => {
                if !guards.iter().any(|r| &r.guard == g) {
                    return Err(Refusal::new(
                        "unknown-guard",
                        format!("{at}.guard"),
                        format!(
                            "a guard state `{}` can produce ({})",
                            s.id,
                            list(guards.iter().map(|r| r.guard.as_str()))
                        ),
                    ));
                }
                None
            }
            (None, Some(e)) => {
                if s.invoke.is_some() || !s.parallel.is_empty() {
                    return Err(Refusal::new(
                        "guard-or-event",
                        at,
                        "a `guard` (a working state moves on its results, not on Boss events)",
                    ));
                }
                match self.m.events.iter().find(|x| &x.event_type == e) {
                    Some(spec) => Some(spec),
                    None => {
                        return Err(Refusal::new(
                            "unknown-event",
                            format!("{at}.event"),
                            format!("a declared event ({})", list(self.m.events.iter().map(|x| x.event_type.as_str()))),
                        ))
                    }
                }
            }
            _ => return Err(Refusal::new("guard-or-event", at, "exactly one of `guard` and `event`")),
        };
        let result = t.guard.as_ref().and_then(|g| guards.iter().find(|r| &r.guard == g));
        self.predicates(at, &t.when)?;
        self.assigns(at, &t.assign, result, event)?;
        self.entered(&t.target, format!("{at}.target"))
    }

    fn predicates(&self, at: &str, when: &[Predicate]) -> Checked {
        for (k, p) in when.iter().enumerate() {
            let path = format!("{at}.when[{k}]");
            let ty = self.field(&p.field, format!("{path}.field"))?;
            let ok = match (p.op, &p.value) {
                (CompareOp::Present | CompareOp::Absent, None) => true,
                (CompareOp::Eq | CompareOp::Ne, Some(v)) => fits(ty, v),
                (CompareOp::Lt | CompareOp::Le | CompareOp::Gt | CompareOp::Ge, Some(v)) => {
                    ty == FieldType::Number && v.is_number()
                }
                _ => false,
            };
            if !ok {
                return Err(Refusal::new("predicate-type", path, format!("a test that fits the {ty:?} field `{}` (numbers compare with lt/le/gt/ge, present/absent take no value)", p.field)));
            }
        }
        Ok(())
    }

    fn assigns(&self, at: &str, assign: &[Assign], result: Option<&ResultSpec>, event: Option<&EventSpec>) -> Checked {
        for (k, a) in assign.iter().enumerate() {
            let path = format!("{at}.assign[{k}]");
            match a {
                Assign::Set { field, value } => {
                    let ty = self.field(field, format!("{path}.set.field"))?;
                    self.operand(&format!("{path}.set.value"), value, result, event)?;
                    if let Operand::Literal(v) = value {
                        if !fits(ty, v) {
                            return Err(Refusal::new(
                                "value-type",
                                format!("{path}.set.value"),
                                format!("a {ty:?} value"),
                            ));
                        }
                    }
                }
                Assign::Increment { field, .. } => {
                    if self.field(field, format!("{path}.increment.field"))? != FieldType::Number {
                        return Err(Refusal::new("value-type", format!("{path}.increment.field"), "a number field"));
                    }
                }
                Assign::Clear { field } => {
                    self.field(field, format!("{path}.clear.field"))?;
                }
            }
        }
        Ok(())
    }

    /// `result` and `event` are what the enclosing transition can read; `None` outside one.
    fn operand(&self, at: &str, o: &Operand, result: Option<&ResultSpec>, event: Option<&EventSpec>) -> Checked {
        match o {
            Operand::Context(f) => self.field(f, format!("{at}.context")).map(|_| ()),
            Operand::Literal(_) => Ok(()),
            Operand::Result(f) => match result {
                Some(r)
                    if r.required_fields.contains(f)
                        || r.verbatim_fields.contains(f)
                        || (r.guard == NEEDS_BOSS_REPLY && f == "question") =>
                {
                    Ok(())
                }
                _ => Err(Refusal::new(
                    "unknown-result-field",
                    format!("{at}.result"),
                    "a required or verbatim field of the transition's result",
                )),
            },
            Operand::Event(f) => match event {
                Some(e) if e.fields.iter().any(|x| &x.name == f) => Ok(()),
                _ => Err(Refusal::new(
                    "unknown-event-field",
                    format!("{at}.event"),
                    "a field of the transition's declared event",
                )),
            },
        }
    }

    fn conventions(&self) -> Checked {
        let asks = self.m.states.iter().position(|s| s.invoke.as_ref().is_some_and(Invoke::asks_agent));
        if let Some(i) = asks {
            if !self.ids.contains(AWAIT_BOSS_REPLY) {
                return Err(Refusal::new(
                    "missing-convention-state",
                    format!("$.states[{i}]"),
                    "an `awaitBossReply` state for its `needsBossReply` result",
                ));
            }
        }
        if let Some(i) = self.m.states.iter().position(|s| s.invoke.is_some()) {
            if !self.ids.contains(FAILED) {
                return Err(Refusal::new(
                    "missing-convention-state",
                    format!("$.states[{i}]"),
                    "a `failed` state for its error path",
                ));
            }
        }
        Ok(())
    }

    fn root(&self) -> Checked {
        let m = self.m;
        for (i, j) in m.boss_interrupt.iter().enumerate() {
            let at = format!("$.bossInterrupt[{i}]");
            self.entered(&j.target, format!("{at}.target"))?;
            if m.state(&j.target).is_some_and(|s| s.is_final) {
                return Err(Refusal::new("bad-jump", format!("{at}.target"), "a state that is not final"));
            }
            self.predicates(&at, &j.when)?;
            let interrupt = EventSpec { event_type: "BOSS_INTERRUPT".into(), description: None, fields: Vec::new() };
            for (k, a) in j.assign.iter().enumerate() {
                // A jump may copy any Boss-supplied field of the interrupt (A7).
                let path = format!("{at}.assign[{k}]");
                if let Assign::Set { field, value: Operand::Event(_) } = a {
                    self.field(field, format!("{path}.set.field"))?;
                } else {
                    self.assigns(&at, std::slice::from_ref(a), None, Some(&interrupt)).map_err(|mut r| {
                        r.path = r.path.replacen("assign[0]", &format!("assign[{k}]"), 1);
                        r
                    })?;
                }
            }
        }
        if let Some(reply) = &m.boss_reply {
            for (k, id) in reply.resumable.iter().enumerate() {
                let path = format!("$.bossReply.resumable[{k}]");
                self.target(id, path.clone())?;
                if !m.state(id).and_then(|s| s.invoke.as_ref()).is_some_and(Invoke::asks_agent) {
                    return Err(Refusal::new("bad-resumable", path, "a player or Captain state"));
                }
            }
        }
        if let Some(entry) = &m.entry_event {
            let Some(spec) = m.events.iter().find(|e| e.event_type == entry.event_type) else {
                return Err(Refusal::new("unknown-event", "$.entryEvent.type", "a declared event"));
            };
            if !spec.fields.iter().any(|f| f.name == entry.text_field && f.source == FieldSource::Text) {
                return Err(Refusal::new(
                    "bad-entry-event",
                    "$.entryEvent.textField",
                    "a field of that event with `source: text`",
                ));
            }
        }
        for (k, f) in m.control_context_fields.iter().enumerate() {
            let path = format!("$.controlContextFields[{k}]");
            if f == "pendingBossQuestion" || f == "lastError" {
                return Err(Refusal::new(
                    "reserved-control-field",
                    path,
                    "a field other than the first-class `pendingBossQuestion` and `lastError`",
                ));
            }
            self.field(f, path)?;
        }
        for (k, p) in m.player_states.iter().enumerate() {
            let path = format!("$.playerStates[{k}]");
            self.target(&p.state, format!("{path}.state"))?;
            match m.state(&p.state).and_then(|s| s.invoke.as_ref()) {
                Some(Invoke::Player { player, .. }) if player == &p.player => {}
                _ => {
                    return Err(Refusal::new(
                        "bad-player-state",
                        format!("{path}.player"),
                        "the player the state invokes",
                    ))
                }
            }
        }
        Ok(())
    }
}

fn list<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<&str> = items.collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}
