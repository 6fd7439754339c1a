//! The XML export reader (FORMAT.md §2).
//!
//! The text is decoded first (BOM, UTF-16; a declared ISO-8859-1 or windows-1252 only for bytes
//! that are not UTF-8), parsed with `quick-xml` into a small element tree, then mapped onto the
//! model; dialogue entries and conversations are mapped as their elements close, so their trees
//! are never all held at once.
//! Text line ends are normalised to `\n` as XML requires; unknown elements and attributes are
//! ignored; any of the `Assets` sub-lists may be missing. A field with no `Type` attribute is
//! typed by inference, as in the JSON export (decision M24). An entity XML does not define
//! (`&nbsp;`) is an error placed at its `&` that says what to write instead (M26); the general
//! entities the document's own internal DTD declares are read, with plain text only and bounded
//! expansion (M35, `dtd.rs`).

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use crate::coerce::infer_type;
use crate::dtd::Entities;
use crate::error::{Format, LoadError};
use crate::model::{
    Asset, ConditionPriority, Conversation, DialogEntry, FalseConditionAction, Field, FieldType, Id, Link, Project,
};
use crate::{dtd, entities, text};

/// Elements nest at most this deep; real exports need 6.
const MAX_DEPTH: usize = 64;

/// Reads an XML export from its bytes; `file_name` is only used in errors.
pub fn read_xml(bytes: &[u8], file_name: &str) -> Result<Project, LoadError> {
    let text = text::decode(bytes).map_err(|e| e.malformed(file_name, Format::Xml))?;
    read_xml_str(&text, file_name)
}

/// Reads an XML export already decoded to text.
pub fn read_xml_str(text: &str, file_name: &str) -> Result<Project, LoadError> {
    let fail = |offset: usize, message: String| {
        let (line, column) = text::line_column(text, offset);
        LoadError::Malformed { file: file_name.into(), format: Format::Xml, line, column, message }
    };
    let (root, streamed) = parse_tree(text).map_err(|(offset, message)| fail(offset, message))?;
    map_project(&root, streamed).map_err(|(offset, message)| fail(offset, message))
}

/// A problem at a byte offset of the text.
type Problem = (usize, String);

/// An element: its local name, attributes, child elements and the text directly inside it.
#[derive(Debug, Default)]
struct Element {
    name: String,
    attributes: Vec<(String, String)>,
    children: Vec<Element>,
    text: String,
    offset: usize,
}

impl Element {
    fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    fn child_text(&self, name: &str) -> String {
        self.child(name).map(|c| c.text.clone()).unwrap_or_default()
    }

    /// The children named `item` of the child named `list` (none when the list is missing).
    fn list<'a>(&'a self, list: &str, item: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.child(list).into_iter().flat_map(move |l| l.children.iter().filter(move |c| c.name == item))
    }
}

/// Conversations mapped while the document is read, so that each one's element tree is dropped
/// as soon as it is complete and memory stays near the model's size, not the tree's (an element
/// tree of a whole export took about 11 times the file). Only the elements `map_project` reads are
/// streamed: the entries of a conversation's first `DialogEntries`, in the first `Conversations` of
/// the first root's `Assets`. The first mapping problem is kept and reported where the tree's
/// reading would have reported it.
#[derive(Default)]
struct Streamed {
    conversations: Vec<Conversation>,
    /// The entries of the conversation being read.
    entries: Vec<DialogEntry>,
    problem: Option<Problem>,
}

/// Whether `stack` (the open elements, outermost first) ends in the path of a streamed list:
/// `names` from the root, each the first of its name under its parent.
fn streamed_path(stack: &[Element], names: &[&str]) -> bool {
    stack.len() == names.len()
        && stack.iter().zip(names).all(|(element, name)| element.name == *name)
        && stack.windows(2).all(|pair| !pair[0].children.iter().any(|c| c.name == pair[1].name))
}

const ENTRIES_PATH: [&str; 5] = ["ChatMapperProject", "Assets", "Conversations", "Conversation", "DialogEntries"];

fn stream(stack: &[Element], streamed: &mut Streamed, element: &Element) -> bool {
    if element.name == "DialogEntry" && streamed_path(stack, &ENTRIES_PATH) {
        if streamed.problem.is_none() {
            match required_id(&stack[3], "ID").and_then(|_| map_entry(element)) {
                Ok(entry) => streamed.entries.push(entry),
                Err(problem) => streamed.problem = Some(problem),
            }
        }
        return true;
    }
    if element.name == "Conversation" && streamed_path(stack, &ENTRIES_PATH[..3]) {
        let entries = std::mem::take(&mut streamed.entries);
        if streamed.problem.is_none() {
            match map_conversation(element, entries) {
                Ok(conversation) => streamed.conversations.push(conversation),
                Err(problem) => streamed.problem = Some(problem),
            }
        }
        return true;
    }
    false
}

fn parse_tree(text: &str) -> Result<(Element, Streamed), Problem> {
    let mut reader = Reader::from_str(text);
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    let mut streamed = Streamed::default();
    let mut dtd = Entities::default();
    loop {
        let offset = position(reader.buffer_position());
        let event = reader.read_event().map_err(|e| (position(reader.error_position()), e.to_string()))?;
        match event {
            Event::Start(start) => {
                if stack.len() >= MAX_DEPTH {
                    return Err((offset, format!("elements nest deeper than {MAX_DEPTH} levels")));
                }
                stack.push(element(&start, offset, &mut dtd)?);
            }
            Event::Empty(start) => {
                let element = element(&start, offset, &mut dtd)?;
                attach(&mut stack, &mut root, element);
            }
            Event::End(_) => {
                if let Some(element) = stack.pop() {
                    if root.is_some() || !stream(&stack, &mut streamed, &element) {
                        attach(&mut stack, &mut root, element);
                    }
                }
            }
            Event::Text(t) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&t.xml10_content().map_err(|e| (offset, e.to_string()))?);
                }
            }
            Event::CData(t) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&t.xml10_content().map_err(|e| (offset, e.to_string()))?);
                }
            }
            Event::GeneralRef(r) => {
                if let Some(top) = stack.last_mut() {
                    let name = r.decode().map_err(|e| (offset, e.to_string()))?;
                    match r.resolve_char_ref() {
                        Ok(Some(c)) => top.text.push(c),
                        Ok(None) => match quick_xml::escape::resolve_xml_entity(&name) {
                            Some(value) => top.text.push_str(value),
                            None => match dtd.resolve(&name) {
                                Some(value) => top.text.push_str(&value.map_err(|e| (offset, e))?),
                                None => return Err((offset, entities::undefined(&name))),
                            },
                        },
                        Err(e) => return Err((offset, e.to_string())),
                    }
                }
            }
            Event::Eof => break,
            // The internal DTD's general entities (M35); a document has one DOCTYPE, before its root.
            Event::DocType(doctype) => {
                if root.is_none() && stack.is_empty() && dtd.is_empty() {
                    dtd = Entities::read(&String::from_utf8_lossy(&doctype));
                }
            }
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) => {}
        }
    }
    if let Some(open) = stack.last() {
        return Err((text.len(), format!("the document ends inside <{}>", open.name)));
    }
    let root = root.ok_or_else(|| (text.len(), "the document has no root element".to_owned()))?;
    Ok((root, streamed))
}

fn position(offset: u64) -> usize {
    usize::try_from(offset).unwrap_or(usize::MAX)
}

fn attach(stack: &mut [Element], root: &mut Option<Element>, element: Element) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(element),
        None => {
            // Anything after the first root element is not ours to read.
            if root.is_none() {
                *root = Some(element);
            }
        }
    }
}

fn element(start: &BytesStart<'_>, offset: usize, dtd: &mut dtd::Entities) -> Result<Element, Problem> {
    let name = String::from_utf8_lossy(start.local_name().as_ref()).into_owned();
    let mut attributes = Vec::new();
    let undefined = |dtd: &dtd::Entities| entities::in_tag(start, offset, &|name| dtd.declares(name));
    for attribute in start.attributes().with_checks(false) {
        let attribute = attribute.map_err(|e| (offset, e.to_string()))?;
        let key = String::from_utf8_lossy(attribute.key.local_name().as_ref()).into_owned();
        let value = if dtd.is_empty() || !attribute.value.contains(&b'&') {
            attribute
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|e| undefined(dtd).unwrap_or_else(|| (offset, e.to_string())))?
                .into_owned()
        } else {
            let raw = String::from_utf8_lossy(&attribute.value).into_owned();
            dtd.attribute(&raw).map_err(|e| undefined(dtd).unwrap_or((offset, e)))?
        };
        attributes.push((key, value));
    }
    Ok(Element { name, attributes, children: Vec::new(), text: String::new(), offset })
}

fn map_project(root: &Element, streamed: Streamed) -> Result<Project, Problem> {
    if root.name != "ChatMapperProject" {
        return Err((root.offset, format!("the root element is <{}>, not <ChatMapperProject>", root.name)));
    }
    let attribute = |name: &str| root.attribute(name).unwrap_or_default().to_owned();
    let mut project = Project {
        title: attribute("Title"),
        version: attribute("Version"),
        author: attribute("Author"),
        description: root.child_text("Description"),
        language: attribute("Language"),
        user_script: root.child_text("UserScript"),
        ..Project::default()
    };
    if let Some(assets) = root.child("Assets") {
        let read_assets = |list: &str, item: &str, id_required: bool| -> Result<Vec<Asset>, Problem> {
            assets.list(list, item).map(|e| map_asset(e, id_required)).collect()
        };
        project.actors = read_assets("Actors", "Actor", true)?;
        project.items = read_assets("Items", "Item", true)?;
        project.locations = read_assets("Locations", "Location", true)?;
        project.user_variables = read_assets("UserVariables", "UserVariable", false)?;
        if let Some(problem) = streamed.problem {
            return Err(problem);
        }
        project.conversations = streamed.conversations;
        for conversation in assets.list("Conversations", "Conversation") {
            project.conversations.push(map_conversation(conversation, Vec::new())?);
        }
    }
    project.resolve_links();
    Ok(project)
}

fn map_asset(element: &Element, id_required: bool) -> Result<Asset, Problem> {
    let id = if id_required { required_id(element, "ID")? } else { optional_id(element, "ID")?.unwrap_or(0) };
    Ok(Asset { id, fields: map_fields(element) })
}

/// The fields of an element. A field's `Type` names its type (unknown names are Text); a field
/// with no `Type` at all has its type inferred from its title and value, as the JSON export's are.
fn map_fields(element: &Element) -> Vec<Field> {
    element
        .list("Fields", "Field")
        .map(|f| {
            let (title, value) = (f.child_text("Title"), f.child_text("Value"));
            let kind = match f.attribute("Type") {
                Some(name) => FieldType::from_name(name),
                None => infer_type(&title, &value),
            };
            Field { title, value, kind }
        })
        .collect()
}

/// A conversation from its element, after the `entries` already read off it as it streamed.
fn map_conversation(element: &Element, mut entries: Vec<DialogEntry>) -> Result<Conversation, Problem> {
    let id = required_id(element, "ID")?;
    for entry in element.list("DialogEntries", "DialogEntry") {
        entries.push(map_entry(entry)?);
    }
    Ok(Conversation { id, fields: map_fields(element), entries })
}

fn map_entry(element: &Element) -> Result<DialogEntry, Problem> {
    let id = required_id(element, "ID")?;
    let conversation = optional_id(element, "ConversationID")?.unwrap_or(0);
    let false_condition_action =
        match element.attribute("FalseCondtionAction").or(element.attribute("FalseConditionAction")) {
            None => FalseConditionAction::default(),
            Some(v) => FalseConditionAction::from_text(v)
                .ok_or_else(|| (element.offset, format!("unknown FalseConditionAction \"{v}\"")))?,
        };
    let condition_priority = match element.attribute("ConditionPriority") {
        None => ConditionPriority::default(),
        Some(v) => ConditionPriority::from_text(v)
            .ok_or_else(|| (element.offset, format!("unknown ConditionPriority \"{v}\"")))?,
    };
    let links =
        element.list("OutgoingLinks", "Link").map(|l| map_link(l, id, conversation)).collect::<Result<_, _>>()?;
    Ok(DialogEntry {
        id,
        is_root: boolean(element, "IsRoot")?,
        is_group: boolean(element, "IsGroup")?,
        delay_sim_status: boolean(element, "DelaySimStatus")?,
        false_condition_action,
        condition_priority,
        fields: map_fields(element),
        links,
        conditions: element.child_text("ConditionsString"),
        user_script: element.child_text("UserScript"),
        parent: None,
    })
}

/// A link; old files give one `ConversationID` (on the link or its entry) for both ends.
fn map_link(element: &Element, origin_entry: Id, entry_conversation: Id) -> Result<Link, Problem> {
    let shared = optional_id(element, "ConversationID")?.unwrap_or(entry_conversation);
    let is_connector = match element.attribute("IsConnector") {
        None => None,
        Some(_) => Some(boolean(element, "IsConnector")?),
    };
    Ok(Link {
        origin_conversation: optional_id(element, "OriginConvoID")?.unwrap_or(shared),
        origin_entry: optional_id(element, "OriginDialogID")?.unwrap_or(origin_entry),
        destination_conversation: optional_id(element, "DestinationConvoID")?.unwrap_or(shared),
        destination_entry: required_id(element, "DestinationDialogID")?,
        is_connector,
    })
}

fn required_id(element: &Element, name: &str) -> Result<Id, Problem> {
    optional_id(element, name)?.ok_or_else(|| (element.offset, format!("<{}> has no {name} attribute", element.name)))
}

fn optional_id(element: &Element, name: &str) -> Result<Option<Id>, Problem> {
    match element.attribute(name) {
        None => Ok(None),
        Some(v) => crate::coerce::whole_id(v).map(Some).ok_or_else(|| {
            (element.offset, format!("<{}> has {name}=\"{v}\", which is not a whole number", element.name))
        }),
    }
}

fn boolean(element: &Element, name: &str) -> Result<bool, Problem> {
    match element.attribute(name).map(str::trim) {
        None => Ok(false),
        Some(v) if v.eq_ignore_ascii_case("true") || v == "1" => Ok(true),
        Some(v) if v.eq_ignore_ascii_case("false") || v == "0" || v.is_empty() => Ok(false),
        Some(v) => Err((element.offset, format!("<{}> has {name}=\"{v}\", which is not true or false", element.name))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(xml: &str) -> Result<Project, LoadError> {
        read_xml(xml.as_bytes(), "test.xml")
    }

    const MINIMAL: &str = r##"<?xml version="1.0" encoding="utf-16"?>
<ChatMapperProject Title="T" Version="1.5.1.0" Author="A" EmphasisColor1="#ff0000">
  <Description>D</Description>
  <Assets>
    <Conversations>
      <Conversation ID="1" NodeColor="Red">
        <Fields><Field Type="Text" Hint=""><Title>Title</Title><Value>Main</Value></Field></Fields>
        <DialogEntries>
          <DialogEntry ID="0" IsRoot="true" IsGroup="false" FalseCondtionAction="Passthrough" ConditionPriority="AboveNormal">
            <Fields><Field Type="Text"><Title>Title</Title><Value>START</Value></Field>
              <Field Type="Text"><Title>Menu Text</Title><Value /></Field></Fields>
            <OutgoingLinks><Link OriginConvoID="1" DestinationConvoID="1" OriginDialogID="0" DestinationDialogID="1" IsConnector="false" /></OutgoingLinks>
            <ConditionsString />
            <UserScript>x = 1&#13;&#10;y = "a &amp; b"</UserScript>
            <Unknown><Deep /></Unknown>
          </DialogEntry>
          <DialogEntry ID="1" IsRoot="false" FalseConditionAction="Passthrough" ConditionPriority="Low" New="x">
            <Fields><Field Type="Multiline"><Title>Dialogue Text</Title><Value>one
two</Value></Field></Fields>
          </DialogEntry>
        </DialogEntries>
      </Conversation>
    </Conversations>
  </Assets>
</ChatMapperProject>"##;

    #[test]
    fn reads_a_minimal_project_without_most_asset_lists() {
        let project = read(MINIMAL).unwrap();
        assert_eq!((project.title.as_str(), project.version.as_str(), project.author.as_str()), ("T", "1.5.1.0", "A"));
        assert_eq!(project.description, "D");
        assert!(project.actors.is_empty() && project.items.is_empty() && project.user_variables.is_empty());
        let conversation = project.conversation_by_title("Main").unwrap();
        let root = conversation.start_entry().unwrap();
        assert_eq!(root.id, 0);
        assert_eq!(root.false_condition_action, FalseConditionAction::Passthrough);
        assert_eq!(root.condition_priority, ConditionPriority::AboveNormal);
        assert_eq!(root.menu_text(), "");
        assert_eq!(root.user_script, "x = 1\r\ny = \"a & b\"");
        let line = conversation.entry(1).unwrap();
        assert_eq!(line.condition_priority, ConditionPriority::Low);
        assert_eq!(line.false_condition_action, FalseConditionAction::Passthrough, "the correct spelling reads too");
        assert_eq!(line.dialogue_text(), "one\ntwo");
        assert_eq!(line.fields[0].kind, FieldType::Text);
        assert_eq!(line.parent, Some(0));
    }

    #[test]
    fn crlf_in_raw_text_reads_as_lf() {
        let project = read(&MINIMAL.replace('\n', "\r\n")).unwrap();
        assert_eq!(project.conversations[0].entries[1].dialogue_text(), "one\ntwo");
    }

    #[test]
    fn malformed_input_is_located() {
        let error = read("<ChatMapperProject>\n  <Assets>\n</ChatMapperProject>").unwrap_err();
        assert_eq!(error.position().map(|p| p.0), Some(3), "{error}");
        let error = read("<Other/>").unwrap_err();
        assert_eq!(error.position(), Some((1, 1)));
        assert!(error.to_string().contains("ChatMapperProject"), "{error}");
        let error = read("<ChatMapperProject><Assets><Actors><Actor ID=\"x\"/></Actors></Assets></ChatMapperProject>")
            .unwrap_err();
        assert_eq!(error.position(), Some((1, 36)), "{error}");
        let error = read("<ChatMapperProject>").unwrap_err();
        assert!(error.to_string().contains("ends inside"), "{error}");
        assert!(read("").is_err());
    }

    #[test]
    fn bad_enumerations_are_errors() {
        let bad = MINIMAL.replace("\"AboveNormal\"", "\"Urgent\"");
        assert!(read(&bad).unwrap_err().to_string().contains("Urgent"));
        let numeric = MINIMAL.replace("\"AboveNormal\"", "\"1\"");
        assert_eq!(read(&numeric).unwrap().conversations[0].entries[0].condition_priority, ConditionPriority::High);
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let deep = format!("<ChatMapperProject>{}", "<a>".repeat(10_000));
        assert!(read(&deep).is_err());
    }
}

#[cfg(test)]
mod untyped_fields {
    use super::*;
    use crate::coerce::Coerced;

    #[test]
    fn a_field_without_a_type_is_inferred_as_in_json() {
        // A Field with no Type attribute (hand-written or older files) is read as the JSON export
        // is: "5" a number, "True" a boolean, IsPlayer a boolean; an unknown Type is still Text.
        let xml = r#"<ChatMapperProject><Assets>
            <Actors><Actor ID="1"><Fields>
              <Field><Title>Name</Title><Value>Mara</Value></Field>
              <Field><Title>IsPlayer</Title><Value>True</Value></Field></Fields></Actor></Actors>
            <UserVariables>
              <UserVariable><Fields><Field><Title>Name</Title><Value>gold</Value></Field>
                <Field><Title>Initial Value</Title><Value>5</Value></Field></Fields></UserVariable>
              <UserVariable><Fields><Field Type="Colour"><Title>Name</Title><Value>code</Value></Field>
                <Field Type="Colour"><Title>Initial Value</Title><Value>7</Value></Field></Fields></UserVariable>
            </UserVariables></Assets></ChatMapperProject>"#;
        let project = read_xml(xml.as_bytes(), "t.xml").unwrap();
        assert!(project.actors[0].is_player());
        let initial = |i: usize| project.user_variables[i].field("Initial Value").unwrap().lua_value();
        assert_eq!(initial(0), Coerced::Number(5.0));
        assert_eq!(initial(1), Coerced::String("7".into()));
    }
}

#[cfg(test)]
mod ids {
    use super::*;

    #[test]
    fn ids_written_as_whole_decimals_read_as_whole_numbers() {
        // A JSON export's 3.0 is read as 3; the same spelling in a string or an attribute is too.
        let xml = r#"<ChatMapperProject><Assets><Actors><Actor ID="3.0"/><Actor ID=" +4 "/></Actors></Assets></ChatMapperProject>"#;
        let project = read_xml(xml.as_bytes(), "t.xml").unwrap();
        assert_eq!(project.actors.iter().map(|a| a.id).collect::<Vec<_>>(), [3, 4]);
        let json = r#"{"Assets": {"Actors": [{"ID": "3.0"}, {"ID": 4.0}]}}"#;
        let project = crate::read_json(json.as_bytes(), "t.json").unwrap();
        assert_eq!(project.actors.iter().map(|a| a.id).collect::<Vec<_>>(), [3, 4]);
        let bad = r#"<ChatMapperProject><Assets><Actors><Actor ID="3.5"/></Actors></Assets></ChatMapperProject>"#;
        assert!(read_xml(bad.as_bytes(), "t.xml").unwrap_err().to_string().contains("not a whole number"));
        assert!(crate::read_json(br#"{"Assets": {"Actors": [{"ID": "1e400"}]}}"#, "t.json").is_err());
    }
}
