//! The writer spells every document exactly as it always has: the pretty form byte for byte and
//! the canonical (compact) form by its fingerprint, recorded from the tree-building writer this
//! one replaced.

use std::path::Path;

use sha2::{Digest, Sha256};
use stagehand_playbook::{
    fingerprint, read, smallvec, write, write_compact, write_to, Condition, Edge, Node, Playbook, Speaker, Weight,
};

/// (document, SHA-256 of `write`, fingerprint), as the writer of commit 42416f6 gave them.
const RECORDED: &[(&str, &str, &str)] = &[
    (
        "playable/a-choice-after-the-menu-is-left/playbook.json",
        "8523cc846b6a6cf1eb4f4942c18584a197c011fed8ee8cac43c47c845502b024",
        "10b619bddefe90ab40d06c181d3958c7cff8822013aea1cebf06ad8817cd6473",
    ),
    (
        "playable/a-choice-the-menu-did-not-offer/playbook.json",
        "8523cc846b6a6cf1eb4f4942c18584a197c011fed8ee8cac43c47c845502b024",
        "10b619bddefe90ab40d06c181d3958c7cff8822013aea1cebf06ad8817cd6473",
    ),
    (
        "playable/a-command-ending-a-line/playbook.json",
        "fdb6a196e2bfd96a57ec3643ac2ef72fd98e3e5f3d31c980f05227e59215bdcb",
        "10deda8771765af6332d2eeeb055c9779460f44262cf76dca215a7236f358868",
    ),
    (
        "playable/a-command-in-a-label/playbook.json",
        "227156daa2fcc7d26e8b4f02bb68e58f6aca6108e12265a53ade2dc29f7305fd",
        "b25fc14f75761c55bf559268e65ccde80082758c96fd6fe1b817f5825ba3d2b1",
    ),
    (
        "playable/a-command-mid-line/playbook.json",
        "94d1f2256a33f1de700d5b144034390fe42b3829a74cea7e27bc2e2544200c21",
        "80e291c2184e5db2c99cd9b2020ce7585ce6c8738f4321cf03fd46cb39c21107",
    ),
    (
        "playable/a-command-opening-a-line/playbook.json",
        "190dba0c37811f36d7f082eed9a1e7141643a569200a9e382d233283027a3329",
        "187bda9c78d50ea081c68c53d2e2ce4683d875a5b49fca331565f7a60cb19488",
    ),
    (
        "playable/a-command-too-late/playbook.json",
        "f9c4ebf3b173bb95a762d7d4429837f928f5664d31e05871c2ffdbb1fd7d2fa5",
        "01e389881ecd521a52d6e9ebe29fa869141a26890245b03c469f32df29ffe33b",
    ),
    (
        "playable/a-conditional-block/playbook.json",
        "7fc67daa19413386d28274284058d55ac9450b8052ea506de57ba7b3fd86af33",
        "4faa8d4e12d175d5ebd0792c03b6b2eb083f67a4dec1d6c9bb03f68aae31ef20",
    ),
    (
        "playable/a-conditional-jump/playbook.json",
        "aa9f915f2ef46439938f4025f2754bcd293d976749a89bb82178df18f3392b4b",
        "9855e992b3615c5d34dcf884775044fddcc42fdfd713f52fee297d50433d9df0",
    ),
    (
        "playable/a-conditional-line/playbook.json",
        "d95748584d0c5f381e05fd045ac4df1b84b7695b7a1fbe6294e16cc43d7b4af3",
        "9349570abde9730f1a4df14162365e2f2f649bb104b8c9547ecd5556a956b641",
    ),
    (
        "playable/a-divert-option/playbook.json",
        "e5d6160534ebcb96a113b1b5a802b8187d0d84c066b1f2cf223a244b30eacdec",
        "4204b5707ec63413c3efc747f3fe4bc5051750c569b733a14f9ef2b19df4f9e6",
    ),
    (
        "playable/a-failed-command-in-a-line/playbook.json",
        "fdb6a196e2bfd96a57ec3643ac2ef72fd98e3e5f3d31c980f05227e59215bdcb",
        "10deda8771765af6332d2eeeb055c9779460f44262cf76dca215a7236f358868",
    ),
    (
        "playable/a-failed-effect/playbook.json",
        "308a0f8617fd5ad093e3d051ccc3450e464f24e71a447f9881d848bfa02f9be2",
        "95013703a180a46eb8810460ff4eb2ca83b78aadf118f64bb81ee322a64ce8b9",
    ),
    (
        "playable/a-jump/playbook.json",
        "c3a624efe2e39684e182ff907db0e2feeaa5d6458ba78212b0156af10907f1df",
        "46455ca138efcf811fc1d2f304e94717af1168876a28f8e7fef49fbc521f7729",
    ),
    (
        "playable/a-line-that-is-only-a-command/playbook.json",
        "72a60c423fa0ad1b199165c4157a66f0207263a6e8c6e4dff030174313dfcecd",
        "073afea030a4423a12229061f36a049dec4b0cb80f5b91b9069d17c024a442ad",
    ),
    (
        "playable/a-next-at-a-menu/playbook.json",
        "8523cc846b6a6cf1eb4f4942c18584a197c011fed8ee8cac43c47c845502b024",
        "10b619bddefe90ab40d06c181d3958c7cff8822013aea1cebf06ad8817cd6473",
    ),
    (
        "playable/a-next-while-waiting/playbook.json",
        "308a0f8617fd5ad093e3d051ccc3450e464f24e71a447f9881d848bfa02f9be2",
        "95013703a180a46eb8810460ff4eb2ca83b78aadf118f64bb81ee322a64ce8b9",
    ),
    (
        "playable/a-numbered-menu/playbook.json",
        "cc40749d2c36fcf0bb24ee4230b204bafb5169010010d9e73b5935e24db58683",
        "d4888c480b5e1df532b0d06c0bb5ea4adefb2c694e09a7d0d119f0eee2a8b6f5",
    ),
    (
        "playable/a-player-choice/playbook.json",
        "2f49d51341a45c50444958c885201264001002f389bc4686e243aabf7b2d128a",
        "2d0713f8e7a88c4ee21a146738761547432faf9457b16dccb75079101b1c96bc",
    ),
    (
        "playable/a-query-after-a-command/playbook.json",
        "1932484a786c1f35d49e4d271b89540e6787afbda5ae2f78109a68fb31036543",
        "a63efbbb96a5570396222a114c9f6363a6a82ad723a280ac76ed2640dc8723ba",
    ),
    (
        "playable/a-query-in-a-link/playbook.json",
        "22c98ffa5496782d41092eb370dee90921fd6fc8266d548bde2504ce77f751ed",
        "b700506e08bb362971683c40a1498ee99cf58a0719851ccd2fe5efc253de052f",
    ),
    (
        "playable/a-query-in-speech/playbook.json",
        "95ce5349dedadf7a266b6dfe439716eb82444de430c0cafe1f51df80d26b7306",
        "3a63eef9225f6703e5f8241688ee8700519af5940e878691203af867c2555d12",
    ),
    (
        "playable/an-effect/playbook.json",
        "308a0f8617fd5ad093e3d051ccc3450e464f24e71a447f9881d848bfa02f9be2",
        "95013703a180a46eb8810460ff4eb2ca83b78aadf118f64bb81ee322a64ce8b9",
    ),
    (
        "playable/an-unavailable-option/playbook.json",
        "06b0d27b0e3deda9f3b0bfc933f95e79be118146b2ce23ae2d5019daae282fce",
        "4c8a6a3f9e0de73b157c889507a702867563b83821ffe11b5cf4d866330c3d83",
    ),
    (
        "playable/linear-speech/playbook.json",
        "42a82702e63d7aba4335b9132bde1ff8577506b03bdb7a177014ac0ae051c1d7",
        "39d6b10a21c1005b9f74c50065cfec7b96bac10ec5703762ee9689575a7fd006",
    ),
    (
        "playable/styled-speech/playbook.json",
        "91453eeefc5cb70f0c293c12fc9648bfbfc1549be3c3b7a78530515a98c127cd",
        "c1f2382ff4cd36807beadb94787db976c3bb04ab816d4d641cad72cca9330086",
    ),
    (
        "playable/two-options-with-the-same-label/playbook.json",
        "5acf854c3992bc6b00172199c7d9dd3707ed1fa10adc68c2edd7f934860452b9",
        "155d066116d59fc4484ae03c813e089a33a1a24014625ead9107ad8f9aec23e6",
    ),
    (
        "readable/baseline/playbook.json",
        "92594ce647f39be9c716cc0ba0d5677f476ab0b5f6746fa96ed923f99bc2040c",
        "90c6864962fbd7f9111c37e1cd8a89296e0efe6c7ace6a75b54456e6e1baea2d",
    ),
    (
        "readable/unknown-property/playbook.json",
        "92594ce647f39be9c716cc0ba0d5677f476ab0b5f6746fa96ed923f99bc2040c",
        "90c6864962fbd7f9111c37e1cd8a89296e0efe6c7ace6a75b54456e6e1baea2d",
    ),
    (
        "readable/unknown-uses/playbook.json",
        "4ec5b7aff8ae99bc36e8e986e1dfa7edc6921f37bbfa042df05f09745b320df4",
        "2c599cefb7d536194c6970774c152b19cd0c9e703e9c9375ab1eb7a78567a166",
    ),
    (
        "goldens/gallery.verified.json",
        "3ec923367b1f62f9193d537523c6ac80476fe8271aa201836468e34d6bf1d9ab",
        "0ca1faff5f420d944bc1e50287d0b0908633d4a7aa907f27e738379c4655c316",
    ),
    (
        "goldens/highrise-fire.verified.json",
        "46ca61f91c4a56547d2ec7d8e238efdb1957b285dd825bf2f4244660eeb9e917",
        "2addbab8811bcd47b934044f9b20c92ca9b54324948b2fd7ac8c3c42a21ae8b1",
    ),
    (
        "goldens/rpg-quest.verified.json",
        "2bc3924fbf296be22b0bb83f43d8d19ebcb4de5c3d2185f0e2187cb384a99c47",
        "e155f444d473677a667505d9f6a615f95e0e4ac7186dc9ad4090b38be6248491",
    ),
    (
        "goldens/visual-novel.verified.json",
        "03763efa8f219e46a3eda9f11c004b8d99ca02268ac420455c59da00fd034c0b",
        "f67a4adadc8e500d178c62f5355660c9a37e65710596551c63fd3c9160b92e9c",
    ),
];

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|byte| format!("{byte:02x}")).collect()
}

#[test]
fn every_corpus_document_is_written_as_before() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/dialoguedown");
    for (name, pretty, canonical) in RECORDED {
        let text = std::fs::read_to_string(root.join(name)).expect("a corpus document");
        let playbook = read(&text).unwrap_or_else(|error| panic!("{name}: {error}"));
        let written = write(&playbook);
        assert_eq!(&hex(written.as_bytes()), pretty, "{name}: the pretty form changed");
        assert_eq!(&fingerprint(&playbook).to_hex(), canonical, "{name}: the fingerprint changed");
        assert_eq!(&hex(write_compact(&playbook).as_bytes()), canonical, "{name}: the compact form changed");
        let mut streamed = Vec::new();
        write_to(&playbook, &mut streamed, true).expect("a Vec takes every byte");

        assert_eq!(streamed, written.as_bytes(), "{name}: write_to differs from write");
    }
}

#[test]
fn percentages_are_integers_when_whole_and_null_when_not_finite() {
    let mut playbook = Playbook::new("w.dialogue.md");
    playbook.speakers.push(Speaker::named("A"));
    let arm = |target, percentage| Edge::RandomOption {
        target,
        weight: Weight::Number { percentage },
        condition: Some(Condition::key("k")),
    };
    playbook.nodes = vec![
        Node::RandomChoice {
            out: smallvec![
                arm(1, 60.0),
                arm(1, 33.3),
                arm(1, 1e20),
                arm(1, -0.0),
                arm(1, f64::NAN),
                Edge::Succession { target: 1 }
            ],
        },
        Node::End,
    ];
    let text = write_compact(&playbook);
    let weights: Vec<&str> = text
        .match_indices("\"percentage\":")
        .map(|(at, key)| {
            let rest = &text[at + key.len()..];
            &rest[..rest.find('}').expect("the weight closes")]
        })
        .collect();
    assert_eq!(weights, ["60", "33.3", "1e+20", "0", "null"]);
}
