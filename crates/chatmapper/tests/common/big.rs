//! A generated ChatMapper export of any size, in XML or JSON, for scale tests and BENCHMARKS.md.
//!
//! Conversations of `per_conversation` entries each (the last may be shorter): a root, lines that link to the next two entries,
//! every fifth entry guarded by a condition and every seventh carrying a script (each source
//! distinct, so nothing is shared), and the last entry linking to the next conversation's root.

/// How many user variables the conditions and scripts use.
const VARIABLES: usize = 97;

/// The shape of one generated entry.
struct Entry {
    id: usize,
    title: String,
    actor: usize,
    text: String,
    condition: String,
    script: String,
    /// `(conversation, entry)` targets.
    links: Vec<(usize, usize)>,
}

fn entries(conversation: usize, count: usize, conversations: usize, per_conversation: usize) -> Vec<Entry> {
    (0..count)
        .map(|id| {
            let n = (conversation - 1) * per_conversation + id;
            let mut links: Vec<(usize, usize)> =
                [id + 1, id + 2].into_iter().filter(|&t| t < count).map(|t| (conversation, t)).collect();
            if id + 1 == count && conversation < conversations {
                links.push((conversation + 1, 0));
            }
            Entry {
                id,
                title: if id == 0 { "START".to_owned() } else { format!("Line {n}") },
                actor: 1 + id % 2,
                text: if id == 0 { String::new() } else { format!("Line {n} of conversation {conversation}.") },
                condition: if id % 5 == 4 { format!("Variable[\"v{}\"] ~= {n}", n % VARIABLES) } else { String::new() },
                script: if id % 7 == 6 { format!("Variable[\"v{}\"] = {n}", n % VARIABLES) } else { String::new() },
                links,
            }
        })
        .collect()
}

/// The conversations of an `entries`-entry project: `(ID, entry count)`, IDs from 1.
fn conversations(entries: usize, per_conversation: usize) -> Vec<(usize, usize)> {
    let full = entries / per_conversation;
    let mut out: Vec<(usize, usize)> = (1..=full).map(|c| (c, per_conversation)).collect();
    if !entries.is_multiple_of(per_conversation) {
        out.push((full + 1, entries % per_conversation));
    }
    out
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A JSON export of `entries` entries in conversations of `per_conversation` (at least 1).
pub fn json(entries: usize, per_conversation: usize) -> String {
    let per_conversation = per_conversation.max(1);
    use serde_json::json;
    let list = conversations(entries, per_conversation);
    let last = list.len();
    let actors: Vec<_> =
        (1..=2).map(|id| json!({"ID": id, "Fields": {"Name": format!("Actor {id}"), "IsPlayer": "False"}})).collect();
    let variables: Vec<_> =
        (0..VARIABLES).map(|v| json!({"Fields": {"Name": format!("v{v}"), "Initial Value": "0"}})).collect();
    let conversations: Vec<_> = list
        .iter()
        .map(|&(c, count)| {
            let nodes: Vec<_> = self::entries(c, count, last, per_conversation)
                .into_iter()
                .map(|e| {
                    let links: Vec<_> = e
                        .links
                        .iter()
                        .map(|&(tc, te)| json!({"OriginConvoID": c, "DestinationConvoID": tc, "OriginDialogID": e.id, "DestinationDialogID": te}))
                        .collect();
                    json!({
                        "ID": e.id, "ConversationID": c, "IsRoot": e.id == 0, "IsGroup": false,
                        "ConditionsString": e.condition, "UserScript": e.script,
                        "DelaySimStatus": false, "FalseConditionAction": 0, "ConditionPriority": 2,
                        "OutgoingLinks": links,
                        "Fields": {"Title": e.title, "Actor": e.actor.to_string(), "Conversant": (3 - e.actor).to_string(),
                                   "Menu Text": "", "Dialogue Text": e.text}
                    })
                })
                .collect();
            json!({"ID": c, "Fields": {"Title": format!("Conversation {c}"), "Actor": "2", "Conversant": "1"}, "DialogNodes": nodes})
        })
        .collect();
    let project = json!({
        "Title": "Generated", "Version": "1.5.1.0", "Author": "stagehand tests", "UserScript": "",
        "Assets": {"Actors": actors, "Items": [], "Locations": [], "Conversations": conversations, "UserVariables": variables}
    });
    project.to_string()
}

/// An XML export of `entries` entries in conversations of `per_conversation` (at least 1).
pub fn xml(entries: usize, per_conversation: usize) -> String {
    let per_conversation = per_conversation.max(1);
    use std::fmt::Write;
    let field = |out: &mut String, kind: &str, title: &str, value: &str| {
        let _ = write!(out, "<Field Type=\"{kind}\"><Title>{title}</Title><Value>{}</Value></Field>", escape(value));
    };
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<ChatMapperProject Title=\"Generated\" Version=\"1.5.1.0\" Author=\"stagehand tests\"><Assets><Actors>");
    for id in 1..=2 {
        let _ = write!(out, "<Actor ID=\"{id}\"><Fields>");
        field(&mut out, "Text", "Name", &format!("Actor {id}"));
        field(&mut out, "Boolean", "IsPlayer", "False");
        out.push_str("</Fields></Actor>");
    }
    out.push_str("</Actors><Conversations>");
    let list = conversations(entries, per_conversation);
    let last = list.len();
    for &(c, count) in &list {
        let _ = write!(out, "<Conversation ID=\"{c}\"><Fields>");
        field(&mut out, "Text", "Title", &format!("Conversation {c}"));
        out.push_str("</Fields><DialogEntries>");
        for e in self::entries(c, count, last, per_conversation) {
            let _ = write!(
                out,
                "<DialogEntry ID=\"{}\" IsRoot=\"{}\" IsGroup=\"false\" DelaySimStatus=\"false\" FalseCondtionAction=\"Block\" ConditionPriority=\"Normal\"><Fields>",
                e.id,
                e.id == 0
            );
            field(&mut out, "Text", "Title", &e.title);
            field(&mut out, "Actor", "Actor", &e.actor.to_string());
            field(&mut out, "Actor", "Conversant", &(3 - e.actor).to_string());
            field(&mut out, "Text", "Menu Text", "");
            field(&mut out, "Text", "Dialogue Text", &e.text);
            out.push_str("</Fields><OutgoingLinks>");
            for (tc, te) in &e.links {
                let _ = write!(out, "<Link OriginConvoID=\"{c}\" DestinationConvoID=\"{tc}\" OriginDialogID=\"{}\" DestinationDialogID=\"{te}\" IsConnector=\"false\" />", e.id);
            }
            let _ = write!(
                out,
                "</OutgoingLinks><ConditionsString>{}</ConditionsString><UserScript>{}</UserScript></DialogEntry>",
                escape(&e.condition),
                escape(&e.script)
            );
        }
        out.push_str("</DialogEntries></Conversation>");
    }
    out.push_str("</Conversations><UserVariables>");
    for v in 0..VARIABLES {
        out.push_str("<UserVariable><Fields>");
        field(&mut out, "Text", "Name", &format!("v{v}"));
        field(&mut out, "Number", "Initial Value", "0");
        out.push_str("</Fields></UserVariable>");
    }
    out.push_str("</UserVariables></Assets></ChatMapperProject>\n");
    out
}
