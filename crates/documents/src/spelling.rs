//! How a compiled playbook is written out: the canonical JSON form on one line, indented, or the
//! binary form, and the file name each takes beside its script.

use std::io::Write;
use std::path::{Path, PathBuf};

use stagehand_playbook::Playbook;

/// How a playbook is spelled when written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// The canonical JSON form, on one line.
    Compact,
    /// The indented JSON form.
    Pretty,
    /// The binary form (`docs/playbook-binary.md`).
    Binary,
}

impl Spelling {
    /// The spelling `--binary` and `--pretty` ask for (binary wins).
    pub fn of(binary: bool, pretty: bool) -> Spelling {
        match (binary, pretty) {
            (true, _) => Spelling::Binary,
            (false, true) => Spelling::Pretty,
            (false, false) => Spelling::Compact,
        }
    }

    /// Writes `playbook` to `out` as it is serialised (JSON is never held as text), a JSON form
    /// ended by a newline.
    pub fn write(self, playbook: &Playbook, out: &mut dyn Write) -> std::io::Result<()> {
        match self {
            Spelling::Binary => out.write_all(&stagehand_playbook::write_binary(playbook))?,
            Spelling::Compact | Spelling::Pretty => {
                stagehand_playbook::write_to(playbook, &mut *out, self == Spelling::Pretty)?;
                out.write_all(b"\n")?;
            }
        }
        out.flush()
    }

    /// The file a script's playbook is written to in a folder: `story.dialogue.md` →
    /// `story.playbook.json` (`story.playbook.bin` in the binary form).
    pub fn file_name(self, script: &Path) -> String {
        let script = script.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let script = script.as_str();
        let stem = script.strip_suffix(".dialogue.md").or_else(|| script.strip_suffix(".md")).unwrap_or(script);
        let extension = if self == Spelling::Binary { "bin" } else { "json" };
        format!("{stem}.playbook.{extension}")
    }

    /// Where a script's playbook goes: standard output (`None`), into the folder `output` names,
    /// or the file it names; never over the script itself, which the playbook would destroy.
    pub fn destination(self, output: Option<&Path>, script: &Path) -> Result<Option<PathBuf>, String> {
        let destination = match output {
            None => return Ok(None),
            Some(dir) if dir.is_dir() => dir.join(self.file_name(script)),
            Some(file) => file.to_path_buf(),
        };
        let real = |path: &Path| std::fs::canonicalize(path).ok();
        if real(&destination).is_some_and(|to| Some(to) == real(script)) {
            let script = script.display();
            return Err(format!(
                "{script}: its playbook would be written over the script itself: name another file with -o"
            ));
        }
        Ok(Some(destination))
    }
}
