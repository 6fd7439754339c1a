//! The generated script the compile bench measures, shared with the profiling example.

/// One scene using every construct; `{n}` and `{next}` are filled per copy.
const SCENE: &str = r#"# Scene {n}

`ShowBackground("room {n}", "night")` `PlaySound("door")`

Narrator @narrator ##default: The room is *quiet*, and the clock reads `"Clock.Time"`.
It has been a **long** night. ~~Too long.~~ #mood=tired

Alice @A #main: Hello, `"Player.Name"`! ![Alice waving #size=small](alice.png) `Wave()`

@A #excited: Look at [this map](#scene-{n})!\
Bob: Nice. `("Bob nods slowly")` Very nice.

`Alice.HasKey?` Alice: I have the key.

`Rainy?` => [Wait it out](#scene-{next})

- `Brave?` Open the door.
    - Alice: Here goes.
        => [Onward](#scene-{next})
    - Bob: Careful!
- Wait a moment. #patient
- => [Leave](#scene-{next})

1. First, listen.
2. Then, speak.

- `60%` A fox runs by.
- `Owl.Mood%` An owl hoots.
- `%` Nothing happens.

> `if` `Rich?`
>
> Guard: Welcome, my lord.
>
> > `if` `Armed?`
> >
> > Guard: Leave your blade.
>
> `elseif` `Poor?`
>
> Guard: Begone.
>
> `else`
>
> Guard: State your business.

<!-- A note for the writers. -->

| Speaker | Mood |
| --- | --- |
| Alice | happy |

=> [Next scene](#scene-{next})

"#;

/// A script of at least `bytes` bytes: copies of [`SCENE`] chained by jumps, then a last scene.
pub fn script(bytes: usize) -> String {
    chained("", SCENE, bytes, |n| format!("# Scene {n}\n\nAlice: The end.\n\n=> [The end](#END)\n"))
}

/// `head`, then copies of `scene` numbered from 0 (`{n}`, and `{next}` for the one after) until
/// there are at least `bytes` bytes, then `last` of the number after them.
pub fn chained(head: &str, scene: &str, bytes: usize, last: impl FnOnce(usize) -> String) -> String {
    let mut out = String::with_capacity(bytes + scene.len() * 2);
    out.push_str(head);
    let mut n = 0;
    while out.len() < bytes {
        out.push_str(&scene.replace("{next}", &(n + 1).to_string()).replace("{n}", &n.to_string()));
        n += 1;
    }
    out.push_str(&last(n));
    out
}
