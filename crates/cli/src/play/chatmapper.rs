//! ChatMapper projects in the terminal player: [`ChatMapperStory`] reads a project (an XML or JSON
//! export) and its world from disk and opens them as a [`ChatMapperRun`], which holds the
//! replay, the journal and the saves.

use std::path::PathBuf;

use stagehand_chatmapper::Options;
use stagehand_documents::chatmapper::{ChatMapperRun, WorldChunk};
use stagehand_session::Playable;

use super::story::Story;

/// A ChatMapper project on disk: an XML or JSON export. (A native `.cmp` file is refused by the
/// loader, with a message naming the exports.)
pub struct ChatMapperStory {
    /// The file.
    pub path: PathBuf,
    /// The engine's options: the seed of its `math.random`, and whether the player actor's lines
    /// without Menu Text are choices.
    pub options: Options,
    /// The world file, if any: a `.lua` one also runs in the project's sandbox.
    pub world: Option<PathBuf>,
}

impl Story for ChatMapperStory {
    fn open(&self) -> Result<Box<dyn Playable>, String> {
        let name = self.path.display().to_string();
        let bytes = crate::read::bytes(&self.path)?;
        let mut world = None;
        if let Some(path) = self.world.as_ref().filter(|w| w.extension().is_some_and(|e| e == "lua")) {
            let world_name = path.display().to_string();
            let source = crate::read::text(path)?;
            world = Some(WorldChunk { name: world_name, source });
        }
        Ok(Box::new(ChatMapperRun::open_in(&bytes, &name, self.options, world)?))
    }

    fn asks_the_person(&self) -> bool {
        true
    }
}
