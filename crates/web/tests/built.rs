//! The embedded assets are the built ones: every file the build wrote into `web/dist` (its
//! manifest) is embedded, and each embedded file's SHA-256 is the one the build recorded. The
//! `.ci/web` step rebuilds `web/dist` from the sources and fails if it changes, so together these
//! hold the binary to the sources.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

fn manifest() -> BTreeMap<String, String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../web/dist/manifest.json");
    let text = std::fs::read_to_string(path).expect("web/dist/manifest.json is there (npm run build writes it)");
    serde_json::from_str(&text).expect("the manifest is a JSON object of file names to hashes")
}

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn every_built_file_is_embedded_and_nothing_else() {
    let built: Vec<String> = manifest().into_keys().collect();
    let mut embedded: Vec<String> = stagehand_web::FILES.iter().map(|(name, _, _)| (*name).to_owned()).collect();
    embedded.sort();
    assert_eq!(embedded, built, "crates/web/src/lib.rs FILES must list exactly what web/dist/manifest.json lists");
}

#[test]
fn each_embedded_file_hashes_as_the_build_recorded() {
    let manifest = manifest();
    for (name, bytes, _) in stagehand_web::FILES {
        let recorded = manifest.get(*name).unwrap_or_else(|| panic!("{name} is not in the manifest"));
        assert_eq!(&hex(bytes), recorded, "{name}: the embedded bytes are not the build's (run npm run build in web/)");
    }
}

#[test]
fn the_files_on_disk_are_the_ones_embedded() {
    // A build that changed web/dist after this crate was compiled would show here as well.
    let dist = concat!(env!("CARGO_MANIFEST_DIR"), "/../../web/dist");
    for (name, bytes, _) in stagehand_web::FILES {
        let on_disk = std::fs::read(format!("{dist}/{name}")).expect("the file is in web/dist");
        assert!(on_disk == *bytes, "{name} differs from its embedded copy");
    }
}
