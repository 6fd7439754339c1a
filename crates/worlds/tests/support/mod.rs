//! Shared by the playthrough tests: documents, a Lua world the test can read while a
//! playthrough owns it, and what was said.

#![allow(dead_code)]

use std::cell::RefCell;
use std::rc::Rc;

use stagehand_documents::{Document, OpenOptions};
use stagehand_lua::Value;
use stagehand_playbook::{plain_text, Fragment};
use stagehand_protocol::{Answer, AnswerKind, OwnedEvent};
use stagehand_worlds::{Happening, LuaWorld, Playthrough, Waiting, World, WorldError};

/// A document opened from its source.
pub fn document(name: &str, source: &str) -> Document {
    Document::open(name, source.as_bytes(), &OpenOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// An example of the repository, opened.
pub fn example(name: &str) -> Document {
    let path = format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Document::open(name, &bytes, &OpenOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A Lua world shared with the test, so it can read what the world holds.
#[derive(Clone)]
pub struct Shared(pub Rc<RefCell<LuaWorld>>);

impl Shared {
    pub fn new(source: &str, seed: u64) -> Shared {
        Shared(Rc::new(RefCell::new(LuaWorld::new("world.lua", source, seed).expect("the world loads"))))
    }

    pub fn read(&self, key: &str) -> Value {
        self.0.borrow().read(key).expect("it reads")
    }

    pub fn boxed(&self) -> Box<dyn World> {
        Box::new(self.clone())
    }
}

impl World for Shared {
    fn answer(&mut self, key: &str, kind: AnswerKind) -> Result<Option<Answer<'static>>, WorldError> {
        self.0.borrow_mut().answer(key, kind)
    }

    fn perform(&mut self, effect: &Fragment) -> Result<(), WorldError> {
        self.0.borrow_mut().perform(effect)
    }

    fn reset(&mut self) -> Result<(), WorldError> {
        self.0.borrow_mut().reset()
    }

    fn keeps_state(&self) -> bool {
        self.0.borrow().keeps_state()
    }

    fn take_log(&mut self) -> Vec<String> {
        self.0.borrow_mut().take_log()
    }
}

/// Everything said in the happenings, as plain text.
pub fn said(happenings: &[Happening]) -> Vec<String> {
    happenings
        .iter()
        .filter_map(|h| match h {
            Happening::Event(OwnedEvent::Said { speech, .. } | OwnedEvent::Continued { speech }) => {
                Some(plain_text(speech).trim().to_owned())
            }
            _ => None,
        })
        .filter(|line| !line.is_empty())
        .collect()
}

/// Moves on with `next` until the run waits for something else, gathering what was said.
pub fn next_until_not_next(p: &mut Playthrough<'_>) -> Vec<String> {
    let mut lines = Vec::new();
    for _ in 0..50 {
        if p.waiting() != Waiting::Next {
            break;
        }
        lines.extend(said(&p.move_on()));
    }
    lines
}
