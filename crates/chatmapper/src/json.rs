//! The JSON export reader (FORMAT.md §3).
//!
//! The export is untyped: field values are strings whose type is inferred
//! ([`crate::coerce::infer_type`]), enumerations are integers and links carry no connector flag.
//! The reader is lenient about scalars (a number where a string is expected, `null` for empty,
//! `"True"` for a boolean) and strict about structure, reporting serde_json's line and column.
//! It reads the XML's spellings too, as tools that write the editor's classes as JSON spell them:
//! `DialogEntries` for `DialogNodes`, the misspelt `FalseCondtionAction`, and `Fields` as a list
//! of typed `{Title, Value, Type}` objects.

use serde::de::{Deserializer, Error as _};
use serde::Deserialize;
use serde_json::Value;

use crate::coerce::infer_type;
use crate::error::{Format, LoadError};
use crate::model::{
    Asset, ConditionPriority, Conversation, DialogEntry, FalseConditionAction, Field, FieldType, Id, Link, Project,
};
use crate::text;

/// Reads a JSON export from its bytes; `file_name` is only used in errors.
pub fn read_json(bytes: &[u8], file_name: &str) -> Result<Project, LoadError> {
    let text = text::decode(bytes).map_err(|e| e.malformed(file_name, Format::Json))?;
    read_json_str(&text, file_name)
}

/// Reads a JSON export already decoded to text.
pub fn read_json_str(text: &str, file_name: &str) -> Result<Project, LoadError> {
    let malformed = |line: usize, column: usize, message: String| LoadError::Malformed {
        file: file_name.into(),
        format: Format::Json,
        line,
        column,
        message,
    };
    let text = text.trim_start_matches('\u{feff}');
    let start = text.len() - text.trim_start().len();
    if !text[start..].starts_with('{') {
        let (line, column) = text::line_column(text, start);
        return Err(malformed(line, column, "the top level is not an object".into()));
    }
    let raw: RawProject = serde_json::from_str(text)
        .map_err(|e| malformed(e.line().max(1), e.column().max(1), strip_position(&e.to_string())))?;
    let mut project = Project {
        title: raw.title,
        version: raw.version,
        author: raw.author,
        description: raw.description,
        language: raw.language,
        user_script: raw.user_script,
        actors: raw.assets.actors.into_iter().map(RawAsset::into_asset).collect(),
        items: raw.assets.items.into_iter().map(RawAsset::into_asset).collect(),
        locations: raw.assets.locations.into_iter().map(RawAsset::into_asset).collect(),
        user_variables: raw.assets.user_variables.into_iter().map(RawAsset::into_asset).collect(),
        conversations: raw.assets.conversations.into_iter().map(RawConversation::into_conversation).collect(),
    };
    project.resolve_links();
    Ok(project)
}

/// serde_json appends " at line L column C"; the error carries those separately.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct RawProject {
    #[serde(default, deserialize_with = "text")]
    language: String,
    #[serde(default, deserialize_with = "text")]
    title: String,
    #[serde(default, deserialize_with = "text")]
    version: String,
    #[serde(default, deserialize_with = "text")]
    author: String,
    #[serde(default, deserialize_with = "text")]
    description: String,
    #[serde(default, deserialize_with = "text")]
    user_script: String,
    #[serde(default, deserialize_with = "or_default")]
    assets: RawAssets,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "PascalCase")]
struct RawAssets {
    #[serde(default, deserialize_with = "or_default")]
    actors: Vec<RawAsset>,
    #[serde(default, deserialize_with = "or_default")]
    items: Vec<RawAsset>,
    #[serde(default, deserialize_with = "or_default")]
    locations: Vec<RawAsset>,
    #[serde(default, deserialize_with = "or_default")]
    conversations: Vec<RawConversation>,
    #[serde(default, deserialize_with = "or_default")]
    user_variables: Vec<RawAsset>,
}

#[derive(Deserialize)]
struct RawAsset {
    #[serde(rename = "ID", default, deserialize_with = "id")]
    id: Id,
    #[serde(rename = "Fields", default, deserialize_with = "fields")]
    fields: Vec<Field>,
}

impl RawAsset {
    fn into_asset(self) -> Asset {
        Asset { id: self.id, fields: self.fields }
    }
}

#[derive(Deserialize)]
struct RawConversation {
    #[serde(rename = "ID", deserialize_with = "id")]
    id: Id,
    #[serde(rename = "Fields", default, deserialize_with = "fields")]
    fields: Vec<Field>,
    #[serde(rename = "DialogNodes", alias = "DialogEntries", default, deserialize_with = "or_default")]
    nodes: Vec<RawNode>,
}

impl RawConversation {
    fn into_conversation(self) -> Conversation {
        let entries = self.nodes.into_iter().map(RawNode::into_entry).collect();
        Conversation { id: self.id, fields: self.fields, entries }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct RawNode {
    #[serde(rename = "ID", deserialize_with = "id")]
    id: Id,
    #[serde(rename = "ConversationID", default, deserialize_with = "id")]
    conversation_id: Id,
    #[serde(default, deserialize_with = "boolean")]
    is_root: bool,
    #[serde(default, deserialize_with = "boolean")]
    is_group: bool,
    #[serde(default, deserialize_with = "boolean")]
    delay_sim_status: bool,
    #[serde(alias = "FalseCondtionAction", default, deserialize_with = "false_condition_action")]
    false_condition_action: FalseConditionAction,
    #[serde(default, deserialize_with = "condition_priority")]
    condition_priority: ConditionPriority,
    #[serde(default, deserialize_with = "fields")]
    fields: Vec<Field>,
    #[serde(default, deserialize_with = "or_default")]
    outgoing_links: Vec<RawLink>,
    #[serde(default, deserialize_with = "text")]
    conditions_string: String,
    #[serde(default, deserialize_with = "text")]
    user_script: String,
}

impl RawNode {
    fn into_entry(self) -> DialogEntry {
        let links = self
            .outgoing_links
            .into_iter()
            .map(|l| Link {
                origin_conversation: l.origin_conversation.unwrap_or(self.conversation_id),
                origin_entry: l.origin_entry.unwrap_or(self.id),
                destination_conversation: l.destination_conversation.unwrap_or(self.conversation_id),
                destination_entry: l.destination_entry,
                is_connector: l.is_connector,
            })
            .collect();
        DialogEntry {
            id: self.id,
            is_root: self.is_root,
            is_group: self.is_group,
            delay_sim_status: self.delay_sim_status,
            false_condition_action: self.false_condition_action,
            condition_priority: self.condition_priority,
            fields: self.fields,
            links,
            conditions: self.conditions_string,
            user_script: self.user_script,
            parent: None,
        }
    }
}

#[derive(Deserialize)]
struct RawLink {
    #[serde(rename = "OriginConvoID", default, deserialize_with = "optional_id")]
    origin_conversation: Option<Id>,
    #[serde(rename = "OriginDialogID", default, deserialize_with = "optional_id")]
    origin_entry: Option<Id>,
    #[serde(rename = "DestinationConvoID", default, deserialize_with = "optional_id")]
    destination_conversation: Option<Id>,
    #[serde(rename = "DestinationDialogID", deserialize_with = "id")]
    destination_entry: Id,
    #[serde(rename = "IsConnector", default, deserialize_with = "optional_boolean")]
    is_connector: Option<bool>,
}

/// A value as text: strings as they are, `null` empty, numbers and booleans as the editor
/// writes them, anything else as its JSON.
fn value_text(value: Value) -> String {
    match value {
        Value::String(s) => s,
        Value::Null => String::new(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        other => other.to_string(),
    }
}

fn text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Value::deserialize(d).map(value_text)
}

fn or_default<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

fn whole_number(value: &Value) -> Option<Id> {
    match value {
        Value::Number(n) => {
            n.as_i64().or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15).map(|f| f as Id))
        }
        Value::String(s) => crate::coerce::whole_id(s),
        _ => None,
    }
}

fn optional_id<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Id>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        v => {
            whole_number(&v).map(Some).ok_or_else(|| D::Error::custom(format!("expected a whole-number ID, found {v}")))
        }
    }
}

fn id<'de, D: Deserializer<'de>>(d: D) -> Result<Id, D::Error> {
    optional_id(d)?.ok_or_else(|| D::Error::custom("expected a whole-number ID, found null"))
}

fn optional_boolean<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(b)),
        Value::Number(n) if n.as_i64() == Some(0) || n.as_i64() == Some(1) => Ok(Some(n.as_i64() == Some(1))),
        Value::String(s) if s.trim().eq_ignore_ascii_case("true") => Ok(Some(true)),
        Value::String(s) if s.trim().eq_ignore_ascii_case("false") || s.trim().is_empty() => Ok(Some(false)),
        v => Err(D::Error::custom(format!("expected true or false, found {v}"))),
    }
}

fn boolean<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(optional_boolean(d)?.unwrap_or(false))
}

fn enumeration<'de, D, T>(
    d: D,
    what: &str,
    from_code: fn(i64) -> Option<T>,
    from_text: fn(&str) -> Option<T>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default,
{
    let value = Value::deserialize(d)?;
    let parsed = match &value {
        Value::Null => Some(T::default()),
        Value::String(s) => from_text(s),
        other => whole_number(other).and_then(from_code),
    };
    parsed.ok_or_else(|| D::Error::custom(format!("unknown {what} {value}")))
}

fn false_condition_action<'de, D: Deserializer<'de>>(d: D) -> Result<FalseConditionAction, D::Error> {
    enumeration(d, "FalseConditionAction", FalseConditionAction::from_code, FalseConditionAction::from_text)
}

fn condition_priority<'de, D: Deserializer<'de>>(d: D) -> Result<ConditionPriority, D::Error> {
    enumeration(d, "ConditionPriority", ConditionPriority::from_code, ConditionPriority::from_text)
}

/// `Fields` is an object of title → untyped value; an array of `{Title, Value}` objects is
/// accepted too, as the XML export writes fields, and there a `Type` is the field's type as in
/// XML (a missing or null one is inferred).
fn fields<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Field>, D::Error> {
    let field = |title: String, value: Value, declared: Option<Value>| {
        let value = value_text(value);
        let kind = match declared {
            None | Some(Value::Null) => infer_type(&title, &value),
            Some(kind) => FieldType::from_name(&value_text(kind)),
        };
        Field { kind, title, value }
    };
    match Value::deserialize(d)? {
        Value::Null => Ok(Vec::new()),
        Value::Object(map) => Ok(map.into_iter().map(|(t, v)| field(t, v, None)).collect()),
        Value::Array(list) => list
            .into_iter()
            .map(|item| match item {
                Value::Object(mut map) => {
                    let title = value_text(map.remove("Title").unwrap_or(Value::Null));
                    Ok(field(title, map.remove("Value").unwrap_or(Value::Null), map.remove("Type")))
                }
                other => Err(D::Error::custom(format!("expected a field object, found {other}"))),
            })
            .collect(),
        other => Err(D::Error::custom(format!("expected an object of fields, found {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coerce::Coerced;
    use crate::model::FieldType;

    fn read(json: &str) -> Result<Project, LoadError> {
        read_json(json.as_bytes(), "test.json")
    }

    const MINIMAL: &str = r#"{
  "Language": "en-US", "Title": "T", "Version": "1.5", "Author": "A", "Description": "D", "UserScript": null,
  "Assets": {
    "Actors": [{"ID": 1, "Fields": {"Name": "Player", "IsPlayer": "True", "Age": "31", "fr-FR": "Joueur"}}],
    "Conversations": [{"ID": 1, "NodeColor": "Red", "Fields": {"Title": "Main"}, "DialogNodes": [
      {"OutgoingLinks": [{"Filename": null, "OriginConvoID": 1, "DestinationConvoID": 1, "OriginDialogID": 0, "DestinationDialogID": 1}],
       "ConversationID": 1, "IsRoot": true, "IsGroup": false, "ConditionsString": "", "UserScript": null, "NodeColor": 0,
       "DelaySimStatus": false, "FalseConditionAction": 1, "ConditionPriority": 2, "Fields": {"Title": "START"}, "ID": 0},
      {"OutgoingLinks": [], "ConversationID": 1, "IsRoot": false, "IsGroup": false, "ConditionsString": "x == 1",
       "UserScript": "y = 2", "NodeColor": 0, "DelaySimStatus": true, "FalseConditionAction": 0, "ConditionPriority": 5,
       "Fields": {"Title": "Line", "Actor": "1", "Dialogue Text": "Hi"}, "ID": 1}
    ]}]
  }
}"#;

    #[test]
    fn reads_a_minimal_project() {
        let project = read(MINIMAL).unwrap();
        assert_eq!((project.language.as_str(), project.title.as_str()), ("en-US", "T"));
        assert_eq!(project.user_script, "");
        let player = project.actor(1).unwrap();
        assert_eq!(player.field("IsPlayer").unwrap().lua_value(), Coerced::Boolean(true));
        assert_eq!(player.field("Age").unwrap().lua_value(), Coerced::Number(31.0));
        assert_eq!(player.field("fr-FR").unwrap().lua_value(), Coerced::String("Joueur".into()));
        let conversation = project.conversation(1).unwrap();
        let root = conversation.start_entry().unwrap();
        assert_eq!(root.false_condition_action, FalseConditionAction::Passthrough);
        assert_eq!(root.condition_priority, ConditionPriority::AboveNormal);
        assert_eq!(root.user_script, "");
        assert_eq!(root.links[0].is_connector, None);
        let line = conversation.entry(1).unwrap();
        assert!(line.delay_sim_status);
        assert_eq!(line.condition_priority, ConditionPriority::Low);
        assert_eq!((line.conditions.as_str(), line.user_script.as_str()), ("x == 1", "y = 2"));
        assert_eq!(line.actor_id(), Some(1));
        assert_eq!(line.field("Actor").unwrap().kind, FieldType::Actor);
        assert_eq!(line.parent, Some(0));
    }

    #[test]
    fn malformed_input_is_located() {
        let error = read("{\n  \"Title\": \"T\",\n  oops\n}").unwrap_err();
        assert_eq!(error.position(), Some((3, 3)), "{error}");
        let error = read("[1, 2]").unwrap_err();
        assert_eq!(error.position(), Some((1, 1)));
        let error = read(&MINIMAL.replace("\"ConditionPriority\": 5", "\"ConditionPriority\": 9")).unwrap_err();
        assert!(error.to_string().contains("ConditionPriority"), "{error}");
        assert_eq!(error.position().map(|p| p.0), Some(10), "{error}");
        let error =
            read(r#"{"Assets": {"Conversations": [{"ID": 1, "DialogNodes": [{"IsRoot": true}]}]}}"#).unwrap_err();
        assert!(error.to_string().contains("ID"), "{error}");
    }

    #[test]
    fn scalars_are_read_leniently() {
        let json = r#"{"Title": 5, "Assets": {"Actors": null, "Conversations": [{"ID": "2", "Fields": [{"Title": "Title", "Value": "X"}],
            "DialogNodes": [{"ID": 0.0, "IsRoot": "True", "ConditionPriority": "High", "FalseConditionAction": "Passthrough",
            "OutgoingLinks": [{"DestinationDialogID": 1, "OriginConvoID": null}]}]}]}}"#;
        let project = read(json).unwrap();
        assert_eq!(project.title, "5");
        let conversation = project.conversation(2).unwrap();
        assert_eq!(conversation.title(), "X");
        let root = &conversation.entries[0];
        assert!(root.is_root);
        assert_eq!(root.condition_priority, ConditionPriority::High);
        assert_eq!(root.false_condition_action, FalseConditionAction::Passthrough);
        assert_eq!((root.links[0].origin_conversation, root.links[0].origin_entry), (2, 0));
        assert_eq!(root.links[0].destination_conversation, 2);
    }
}

#[cfg(test)]
mod spellings {
    use super::*;
    use crate::coerce::Coerced;
    use crate::model::FieldType;

    #[test]
    fn a_field_list_keeps_its_declared_types() {
        // Fields written as the XML export writes them, a list of {Title, Value, Type}: the
        // declared type wins over inference ("007" typed Text stays a string).
        let json = r#"{"Assets": {"UserVariables": [{"Fields": [
            {"Title": "Name", "Value": "code", "Type": "Text"},
            {"Title": "Initial Value", "Value": "007", "Type": "Text", "Hint": ""}]},
            {"Fields": [{"Title": "Name", "Value": "count"}, {"Title": "Initial Value", "Value": "3"}]},
            {"Fields": [{"Title": "Name", "Value": "flag"}, {"Title": "Initial Value", "Value": "yes", "Type": "Boolean"}]}]}}"#;
        let project = read_json(json.as_bytes(), "t.json").unwrap();
        let initial = |i: usize| project.user_variables[i].field("Initial Value").unwrap().clone();
        assert_eq!(initial(0).kind, FieldType::Text);
        assert_eq!(initial(0).lua_value(), Coerced::String("007".into()));
        assert_eq!(initial(1).lua_value(), Coerced::Number(3.0), "no Type: inferred as before");
        assert_eq!(initial(2).lua_value(), Coerced::Boolean(false));
    }

    #[test]
    fn the_xml_spellings_of_entries_and_their_action_read_too() {
        // `DialogEntries` (the XML's and the editor's name for the list) and the XML's misspelt
        // `FalseCondtionAction`, as tools that write the editor's classes as JSON spell them.
        let json = r#"{"Assets": {"Conversations": [{"ID": 1, "DialogEntries": [
            {"ID": 0, "IsRoot": true, "FalseCondtionAction": "Passthrough",
             "OutgoingLinks": [{"DestinationConvoID": 1, "DestinationDialogID": 1, "IsConnector": false}]},
            {"ID": 1, "FalseCondtionAction": 0}]}]}}"#;
        let project = read_json(json.as_bytes(), "t.json").unwrap();
        let entries = &project.conversations[0].entries;
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].false_condition_action, FalseConditionAction::Passthrough);
        assert_eq!(entries[1].false_condition_action, FalseConditionAction::Block);
        assert_eq!(entries[1].parent, Some(0));
    }
}
