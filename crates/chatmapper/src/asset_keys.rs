//! The keys of the asset tables `Actor`, `Item` and `Location` a project has, for `check`'s
//! finding of keys no asset has (decision M38).

use std::collections::HashSet;

use crate::check::{accesses_of, FindingKind};
use crate::coerce::lua_key;
use crate::model::Project;

/// The keys of the asset tables: each asset's, and those any script assigns (`Item["Lamp"] = …`).
pub(crate) struct AssetKeys {
    /// Per table (`Actor`, `Item`, `Location`): the keys its assets have, and those assigned.
    tables: Vec<(&'static str, HashSet<String>)>,
}

impl AssetKeys {
    pub(crate) fn new(project: &Project) -> AssetKeys {
        let scripts: Vec<&str> = std::iter::once(project.user_script.as_str())
            .chain(project.conversations.iter().flat_map(|c| &c.entries).map(|e| e.user_script.as_str()))
            .collect();
        let tables = [("Actor", &project.actors), ("Item", &project.items), ("Location", &project.locations)]
            .into_iter()
            .map(|(table, assets)| {
                let mut keys: HashSet<String> = assets.iter().map(|a| lua_key(a.name())).collect();
                for source in &scripts {
                    keys.extend(accesses_of(table, source).into_iter().filter(|(_, a)| *a).map(|(key, _)| key));
                }
                (table, keys)
            })
            .collect();
        AssetKeys { tables }
    }

    /// The keys these sources read that no asset has, each once, as findings.
    pub(crate) fn unknown(&self, sources: &[&str]) -> Vec<FindingKind> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        for (table, keys) in &self.tables {
            for source in sources {
                for (name, _) in accesses_of(table, source).into_iter().filter(|(_, assigned)| !assigned) {
                    if keys.contains(&name) || !seen.insert((*table, name.clone())) {
                        continue;
                    }
                    let key = lua_key(&name);
                    let meant = (key != name && keys.contains(&key)).then_some(key);
                    out.push(FindingKind::UnknownAsset { table: (*table).to_owned(), name, meant });
                }
            }
        }
        out
    }
}
