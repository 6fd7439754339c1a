//! Arbitrary source never panics the host, and the host stays usable afterwards.

use proptest::prelude::*;
use stagehand_lua::{ChunkKind, Limits, Sandbox, ScriptHost};

fn small_host() -> Sandbox {
    Sandbox::new(Limits { instructions: 20_000, memory_bytes: 4 << 20 }, 3).expect("sandbox")
}

/// Fragments of Lua that make random programs more likely to parse and do something.
fn lua_like() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("x".to_owned()),
        Just("Variable[\"Gold\"]".to_owned()),
        Just(" = ".to_owned()),
        Just(" == ".to_owned()),
        Just(" and ".to_owned()),
        Just(" or ".to_owned()),
        Just("not ".to_owned()),
        Just("(".to_owned()),
        Just(")".to_owned()),
        Just("{".to_owned()),
        Just("}".to_owned()),
        Just("; ".to_owned()),
        Just(" while true do ".to_owned()),
        Just(" end ".to_owned()),
        Just("function() ".to_owned()),
        Just("math.random(".to_owned()),
        Just("string.rep('x', 1e7)".to_owned()),
        Just("pcall(".to_owned()),
        Just("error(".to_owned()),
        Just("print(".to_owned()),
        Just("..".to_owned()),
        Just("#".to_owned()),
        Just("1".to_owned()),
        Just("'s'".to_owned()),
        Just("nil".to_owned()),
        Just("game.currentScene:Load()".to_owned()),
        "[a-z]{1,3}",
        "[ -~]{1,4}",
    ];
    prop::collection::vec(token, 0..24).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings_never_panic(source in any::<String>()) {
        let mut host = small_host();
        for kind in [ChunkKind::Condition, ChunkKind::Script] {
            if let Ok(chunk) = host.compile("fuzz", &source, kind) {
                let _ = host.evaluate(chunk);
                let _ = host.run(chunk);
            }
        }
        let _ = host.load("fuzz", &source);
        let probe = host.compile("probe", "1 + 1 == 2", ChunkKind::Condition).expect("probe compiles");
        prop_assert!(host.evaluate(probe).expect("host still usable"));
    }

    #[test]
    fn lua_like_strings_never_panic(source in lua_like()) {
        let mut host = small_host();
        for kind in [ChunkKind::Condition, ChunkKind::Script] {
            if let Ok(chunk) = host.compile("fuzz", &source, kind) {
                let _ = host.evaluate(chunk);
                let _ = host.run(chunk);
            }
        }
        let _ = host.take_log();
        let probe = host.compile("probe", "1 + 1 == 2", ChunkKind::Condition).expect("probe compiles");
        prop_assert!(host.evaluate(probe).expect("host still usable"));
    }
}
