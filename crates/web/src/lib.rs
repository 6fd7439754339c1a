//! The page `stagehand serve` shows at `/`: the web player and the writer's preview.
//!
//! Its sources are TypeScript in `web/src`, built with esbuild into `web/dist` (committed, so
//! `cargo build` alone gives a server with its page and needs no npm; decisions in
//! `docs/design/web.md`). This crate embeds the built files with `include_bytes!` and answers a
//! request path with the file and its media type. It depends on nothing: the server serves what
//! [`asset`] returns and the page talks to the server's own API.

/// One embedded file of the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Asset {
    /// The file's bytes, as built.
    pub bytes: &'static [u8],
    /// Its media type, for `Content-Type`.
    pub content_type: &'static str,
}

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const TEXT: &str = "text/plain; charset=utf-8";

/// Every embedded file: its name in `web/dist`, its bytes, its media type.
pub const FILES: &[(&str, &[u8], &str)] = &[
    ("index.html", include_bytes!("../../../web/dist/index.html"), HTML),
    ("app.js", include_bytes!("../../../web/dist/app.js"), JS),
    ("app.css", include_bytes!("../../../web/dist/app.css"), CSS),
    ("graph.js", include_bytes!("../../../web/dist/graph.js"), JS),
    ("graph.js.LEGAL.txt", include_bytes!("../../../web/dist/graph.js.LEGAL.txt"), TEXT),
];

/// The file a request path names: `/` and `/index.html` are the page, `/app.js` its script, and
/// so on; `None` for any other path (the server answers those itself). The query and fragment
/// are never part of `path` (the server strips them).
pub fn asset(path: &str) -> Option<Asset> {
    let name = path.strip_prefix('/').unwrap_or(path);
    let name = if name.is_empty() { "index.html" } else { name };
    FILES.iter().find(|(file, _, _)| *file == name).map(|(_, bytes, content_type)| Asset { bytes, content_type })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_the_page() {
        let page = asset("/").expect("the page");
        assert_eq!(page.content_type, HTML);
        assert_eq!(asset("/index.html"), Some(page));
        assert!(std::str::from_utf8(page.bytes).expect("utf-8").contains("app.js"));
    }

    #[test]
    fn scripts_and_styles_carry_their_media_types() {
        assert_eq!(asset("/app.js").map(|a| a.content_type), Some(JS));
        assert_eq!(asset("/app.css").map(|a| a.content_type), Some(CSS));
        assert_eq!(asset("/graph.js").map(|a| a.content_type), Some(JS));
    }

    #[test]
    fn other_paths_are_not_assets() {
        for path in
            ["/v1/documents", "/healthz", "/../Cargo.toml", "/manifest.json", "/app.js/", "//app.js", "app.js.map"]
        {
            assert_eq!(asset(path), None, "{path}");
        }
    }
}
