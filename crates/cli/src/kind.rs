//! What a file handed to `play` holds, decided by `stagehand_documents::kind` (one answer for
//! every command); this module only reads the file, and only when its name does not settle it.

use std::path::Path;

pub use stagehand_documents::Kind;

/// [`stagehand_documents::kind()`] of a file on disk, read only when its name does not settle it.
pub fn kind_of(path: &Path) -> Result<Kind, String> {
    if let Some(kind) = stagehand_documents::kind::by_name(path) {
        return Ok(kind);
    }
    let bytes = crate::read::bytes(path)?;
    Ok(stagehand_documents::kind(path, &bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(name: &str, content: &str) -> Kind {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join(name);
        std::fs::write(&path, content).expect("written");
        let on_disk = kind_of(&path).expect("read");
        assert_eq!(
            stagehand_documents::kind(&path, content.as_bytes()),
            on_disk,
            "{name}: read or handed over, the same"
        );
        on_disk
    }

    #[test]
    fn a_file_read_from_disk_is_judged_as_its_bytes_are() {
        assert_eq!(judged("gate.json", r#"{"format": {"version": 0}, "nodes": []}"#), Kind::Playbook);
        assert_eq!(judged("export.txt", "\u{feff} {\"Title\": \"x\", \"Assets\": {}}"), Kind::ChatMapper);
        assert_eq!(judged("story.CMP", "anything"), Kind::ChatMapper);
        assert_eq!(judged("SHOUT.MD", "Alice: Hi."), Kind::Script);
        assert!(kind_of(Path::new("no/such/file.json")).is_err());
    }
}
