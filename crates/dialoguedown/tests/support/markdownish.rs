//! Markdown-ish text for property tests: the language's own pieces, Markdown's, and stray
//! characters, strung together at random.

use proptest::prelude::*;

/// Up to 40 pieces, each a construct of the language or of Markdown, a blank line, or a few
/// random characters.
pub fn markdownish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("Alice: ".to_owned()),
        Just("Bob @B #tag=v ##default: ".to_owned()),
        Just("@B #x: ".to_owned()),
        Just("#only: ".to_owned()),
        Just("- ".to_owned()),
        Just("1. ".to_owned()),
        Just("> ".to_owned()),
        Just("# Scene\n".to_owned()),
        Just("`if` `Rich?`".to_owned()),
        Just("`elseif` `Poor?`".to_owned()),
        Just("`else`".to_owned()),
        Just("`50%` ".to_owned()),
        Just("`%` ".to_owned()),
        Just("`Key%` ".to_owned()),
        Just("`-5%` ".to_owned()),
        Just("`Key?` ".to_owned()),
        Just("`\"query\"`".to_owned()),
        Just("`Cmd(\"a\", \"b\")`".to_owned()),
        Just("`(\"direction\")`".to_owned()),
        Just("=> [Scene](#scene)".to_owned()),
        Just("=> [End](#END)".to_owned()),
        Just("=> ".to_owned()),
        Just("\\#word \\=> \\\\#tag ".to_owned()),
        Just("*Alice* #x: ".to_owned()),
        Just("[a `Cmd()` ![i](i.png)](#x)".to_owned()),
        Just("[link](#x)".to_owned()),
        Just("![alt #size=big](img.png)".to_owned()),
        Just("*em* **strong** ~~gone~~".to_owned()),
        Just("<!-- note -->".to_owned()),
        Just("<div>".to_owned()),
        Just("---\n".to_owned()),
        Just("```\ncode\n```\n".to_owned()),
        Just("| a | b |\n|---|---|\n| 1 | 2 |\n".to_owned()),
        Just("\n".to_owned()),
        Just("\n\n".to_owned()),
        Just("  \n".to_owned()),
        Just("\\\n".to_owned()),
        Just("    ".to_owned()),
        "[a-zA-Z #@:=\"`*_~\\[\\]()!>%?é—\\\\-]{0,12}",
    ];
    prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}
