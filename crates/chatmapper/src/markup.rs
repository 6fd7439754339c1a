//! The markup in a project's text (FORMAT.md §7), as pure functions.
//!
//! A token is bracketed text with no `[` inside: `[f]`, `[a]`, `[pic=n]`, `[pica=n]`, `[picc=n]`
//! (`n` digits), `[var=Name]`, `[?Name]` or `[var=?Name]` (an input prompt), `[em1]`..`[em4]`
//! and `[/em1]`..`[/em4]`. Tokens are matched as FORMAT.md spells them, in lower case (decision
//! M28): any other bracketed text, such as `[Location Change]`, `[A] Attack`, `[F]` or
//! `[lua(…)]` (a Dialogue System tag the format does not have), is ordinary text and survives
//! every function here, as do the typewriter pause codes (`\.`, `\,`).
//!
//! An engine renders a line with [`prompt_names`] (pause if there are any), then [`render_line`],
//! then [`spans`] on each segment; a menu label with [`menu_label`] then [`spans`] (a label
//! never asks: its prompts are stripped).

/// A markup token recognised inside brackets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag<'a> {
    Force,
    Action,
    Picture,
    Var(&'a str),
    Prompt(&'a str),
    EmphasisOpen(u8),
    EmphasisClose(u8),
}

/// A piece of text: plain, or a token (with its raw bracketed spelling).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece<'a> {
    Text(&'a str),
    Tag(Tag<'a>, &'a str),
}

fn name(text: &str) -> Option<&str> {
    Some(text.trim()).filter(|s| !s.is_empty())
}

fn classify(inner: &str) -> Option<Tag<'_>> {
    match inner {
        "f" => return Some(Tag::Force),
        "a" => return Some(Tag::Action),
        _ => {}
    }
    for prefix in ["pic=", "pica=", "picc="] {
        if let Some(n) = inner.strip_prefix(prefix) {
            return (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some(Tag::Picture);
        }
    }
    if let Some(rest) = inner.strip_prefix("var=") {
        return match rest.strip_prefix('?') {
            Some(prompt) => name(prompt).map(Tag::Prompt),
            None => name(rest).map(Tag::Var),
        };
    }
    if let Some(prompt) = inner.strip_prefix('?') {
        return name(prompt).map(Tag::Prompt);
    }
    let level = |digit: &str| match digit {
        "1" => Some(1),
        "2" => Some(2),
        "3" => Some(3),
        "4" => Some(4),
        _ => None,
    };
    if let Some(close) = inner.strip_prefix("/em") {
        return level(close).map(Tag::EmphasisClose);
    }
    inner.strip_prefix("em").and_then(level).map(Tag::EmphasisOpen)
}

/// Splits text into plain runs and tokens; unrecognised brackets stay in the plain runs.
fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let mut plain_start = 0;
    let mut search = 0;
    while let Some(open) = text[search..].find('[').map(|i| search + i) {
        let Some(close) = text[open + 1..].find(']').map(|i| open + 1 + i) else { break };
        let inner = &text[open + 1..close];
        if let Some(nested) = inner.rfind('[') {
            // `[a [b]`: the first bracket is plain text; look again from the inner one.
            search = open + 1 + nested;
            continue;
        }
        if let Some(tag) = classify(inner) {
            if plain_start < open {
                pieces.push(Piece::Text(&text[plain_start..open]));
            }
            pieces.push(Piece::Tag(tag, &text[open..=close]));
            plain_start = close + 1;
        }
        search = close + 1;
    }
    if plain_start < text.len() {
        pieces.push(Piece::Text(&text[plain_start..]));
    }
    pieces
}

/// Rebuilds text in one pass, replacing each token by what `replace` gives (`None` keeps it
/// verbatim). Replacements are not scanned again.
fn rewrite(text: &str, mut replace: impl FnMut(Tag<'_>) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    for piece in pieces(text) {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Tag(tag, raw) => match replace(tag) {
                Some(replacement) => out.push_str(&replacement),
                None => out.push_str(raw),
            },
        }
    }
    out
}

/// The bracketed pieces that would be tokens in lower case but are not as written (`[VAR=x]`,
/// `[Em1]`, `[PIC=2]`), in order: they are shown as text (decision M28). A single letter (`[A]`,
/// `[F]`) is left out: it is as likely the writer's own text (`[A] Attack`).
pub fn miscased_tokens(text: &str) -> Vec<(&str, String)> {
    let mut found = Vec::new();
    for piece in pieces(text) {
        let Piece::Text(plain) = piece else { continue };
        let mut rest = plain;
        while let Some(open) = rest.find('[') {
            let after = &rest[open + 1..];
            let Some(close) = after.find(']') else { break };
            let inner = &after[..close];
            if inner.contains('[') {
                rest = &rest[open + 1..];
                continue;
            }
            if inner.chars().count() > 1 && classify(&inner.to_lowercase()).is_some() {
                found.push((&rest[open..open + close + 2], format!("[{}]", lower_keyword(inner))));
            }
            rest = &after[close + 1..];
        }
    }
    found
}

/// A token's inside with its keyword in lower case and a variable's name as written
/// (`VAR=Gold` → `var=Gold`).
fn lower_keyword(inner: &str) -> String {
    match inner.find('=') {
        Some(at) if inner[..at].eq_ignore_ascii_case("var") => {
            let name = &inner[at + 1..];
            match name.strip_prefix('?') {
                Some(prompt) => format!("var=?{prompt}"),
                None => format!("var={name}"),
            }
        }
        _ => inner.to_lowercase(),
    }
}

/// Splits Dialogue Text on `|` into its successive segments, as written (nothing dropped).
pub fn segments(text: &str) -> Vec<&str> {
    text.split('|').collect()
}

/// Removes picture tokens (`[pic=n]`, `[pica=n]`, `[picc=n]`).
pub fn strip_pictures(text: &str) -> String {
    rewrite(text, |tag| matches!(tag, Tag::Picture).then(String::new))
}

/// The variable names of the `[var=Name]` references, in order (prompts are not references).
pub fn var_references(text: &str) -> Vec<&str> {
    pieces(text)
        .into_iter()
        .filter_map(|p| match p {
            Piece::Tag(Tag::Var(name), _) => Some(name),
            _ => None,
        })
        .collect()
}

/// The variable names of the input prompts (`[?Name]`, `[var=?Name]`), in order, each once.
pub fn prompt_names(text: &str) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for piece in pieces(text) {
        if let Piece::Tag(Tag::Prompt(name), _) = piece {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

/// Replaces each `[var=Name]` by `lookup(Name)`. The name is passed as written (trimmed); the
/// caller maps it to a Lua key and formats the value (as Lua 5.1's `tostring` would).
pub fn substitute_vars(text: &str, mut lookup: impl FnMut(&str) -> String) -> String {
    rewrite(text, |tag| match tag {
        Tag::Var(name) => Some(lookup(name)),
        _ => None,
    })
}

/// An input prompt found in a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputPrompt {
    /// The variable that receives the player's answer.
    pub name: String,
    /// The text with this prompt's token removed.
    pub text: String,
}

/// The first input prompt (`[?Name]` or `[var=?Name]`) in `text`, if any.
pub fn input_prompt(text: &str) -> Option<InputPrompt> {
    let pieces = pieces(text);
    let (index, name) = pieces.iter().enumerate().find_map(|(i, p)| match p {
        Piece::Tag(Tag::Prompt(name), _) => Some((i, *name)),
        _ => None,
    })?;
    let mut rest = String::with_capacity(text.len());
    for (i, piece) in pieces.iter().enumerate() {
        match piece {
            _ if i == index => {}
            Piece::Text(t) | Piece::Tag(_, t) => rest.push_str(t),
        }
    }
    Some(InputPrompt { name: name.to_owned(), text: rest })
}

/// Whether the text holds `[f]` (in Menu Text: always show a menu, even for one choice).
pub fn forces_menu(text: &str) -> bool {
    pieces(text).iter().any(|p| matches!(p, Piece::Tag(Tag::Force, _)))
}

/// Whether the text holds `[a]` (an action line).
pub fn is_action(text: &str) -> bool {
    pieces(text).iter().any(|p| matches!(p, Piece::Tag(Tag::Action, _)))
}

/// Removes `[f]` and `[a]`.
pub fn strip_flags(text: &str) -> String {
    rewrite(text, |tag| matches!(tag, Tag::Force | Tag::Action).then(String::new))
}

/// Text with its line ends as `\n`: exports often hold CRLF (or a lone CR) inside text fields,
/// and a raw CR must never reach a transcript or a terminal.
fn unix_lines(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n").into()
    } else {
        text.into()
    }
}

/// A menu label from Menu Text: `[f]`, `[a]`, picture tokens and input prompts (`[?Name]`,
/// `[var=?Name]`: a label cannot ask, decision M33) removed, `[var=…]` substituted, line ends made
/// `\n`, surrounding whitespace trimmed. Emphasis tags remain for [`spans`].
pub fn menu_label(menu_text: &str, mut lookup: impl FnMut(&str) -> String) -> String {
    let label = rewrite(&unix_lines(menu_text), |tag| match tag {
        Tag::Force | Tag::Action | Tag::Picture | Tag::Prompt(_) => Some(String::new()),
        Tag::Var(name) => Some(lookup(name)),
        _ => None,
    });
    label.trim().to_owned()
}

/// Whether text renders to no words: once emphasis tags are made spans, nothing but whitespace
/// is left (a menu label of `[f]` alone, or of `[em1] [/em1]`).
pub fn says_nothing(text: &str) -> bool {
    spans(text).iter().all(|span| span.text.trim().is_empty())
}

/// The segments a line emits: Dialogue Text split on `|`, then in each segment picture tokens,
/// `[f]`, `[a]` and input prompts removed and `[var=…]` substituted, line ends made `\n`,
/// surrounding whitespace trimmed, and empty segments dropped: those that say nothing, emphasis
/// tags around nothing included ([`says_nothing`]). Emphasis tags remain for [`spans`].
pub fn render_line(dialogue_text: &str, mut lookup: impl FnMut(&str) -> String) -> Vec<String> {
    segments(&unix_lines(dialogue_text))
        .into_iter()
        .map(|segment| {
            let line = rewrite(segment, |tag| match tag {
                Tag::Picture | Tag::Force | Tag::Action | Tag::Prompt(_) => Some(String::new()),
                Tag::Var(name) => Some(lookup(name)),
                Tag::EmphasisOpen(_) | Tag::EmphasisClose(_) => None,
            });
            line.trim().to_owned()
        })
        .filter(|s| !says_nothing(s))
        .collect()
}

/// A run of text with its emphasis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// The text.
    pub text: String,
    /// `None` for plain text, `Some(1..=4)` for `[emN]` emphasis.
    pub emphasis: Option<u8>,
}

/// Turns `[em1]`..`[em4]` and their closing tags into spans; every other token stays as text.
///
/// Emphasis nests (the innermost level applies); a closing tag ends the latest open tag of its
/// level; a closing tag with no open one is dropped; an unclosed tag runs to the end. Empty spans
/// are dropped and neighbours with the same emphasis merged.
pub fn spans(text: &str) -> Vec<Span> {
    let mut spans: Vec<Span> = Vec::new();
    let mut open: Vec<u8> = Vec::new();
    let push = |spans: &mut Vec<Span>, text: &str, emphasis: Option<u8>| {
        if text.is_empty() {
            return;
        }
        match spans.last_mut() {
            Some(last) if last.emphasis == emphasis => last.text.push_str(text),
            _ => spans.push(Span { text: text.to_owned(), emphasis }),
        }
    };
    for piece in pieces(text) {
        match piece {
            Piece::Tag(Tag::EmphasisOpen(level), _) => open.push(level),
            Piece::Tag(Tag::EmphasisClose(level), _) => {
                if let Some(i) = open.iter().rposition(|&l| l == level) {
                    open.remove(i);
                }
            }
            Piece::Text(t) | Piece::Tag(_, t) => push(&mut spans, t, open.last().copied()),
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(name: &str) -> String {
        match name {
            "gold" => "5".into(),
            "Kick Hart" => "yes".into(),
            _ => "nil".into(),
        }
    }

    fn plain(text: &str) -> Span {
        Span { text: text.into(), emphasis: None }
    }

    fn em(level: u8, text: &str) -> Span {
        Span { text: text.into(), emphasis: Some(level) }
    }

    #[test]
    fn segments_split_on_bars() {
        assert_eq!(segments("a|b||c"), ["a", "b", "", "c"]);
        assert_eq!(segments(""), [""]);
    }

    #[test]
    fn picture_tokens_are_stripped_others_kept() {
        assert_eq!(strip_pictures("[pic=1]Hi[pica=22] there[picc=3]"), "Hi there");
        assert_eq!(strip_pictures("[pic=x] [pic=] [PIC=1]"), "[pic=x] [pic=] [PIC=1]");
        assert_eq!(strip_pictures("[Location Change] go"), "[Location Change] go");
    }

    #[test]
    fn variables_are_found_and_substituted_through_the_lookup() {
        assert_eq!(var_references("[var=gold] and [var=Kick Hart] [?x] [var=?y]"), ["gold", "Kick Hart"]);
        assert_eq!(substitute_vars("You have [var=gold] gold, [var=Kick Hart].", vars), "You have 5 gold, yes.");
        assert_eq!(substitute_vars("[var=missing]", vars), "nil");
        assert_eq!(substitute_vars("[var=] [var=?x] [var=gold", vars), "[var=] [var=?x] [var=gold");
    }

    #[test]
    fn input_prompts_give_the_name_and_the_text_without_the_token() {
        let prompt = input_prompt("What is your name? [?player_name]").unwrap();
        assert_eq!(prompt, InputPrompt { name: "player_name".into(), text: "What is your name? ".into() });
        let prompt = input_prompt("[var=?age]How old?[?other]").unwrap();
        assert_eq!((prompt.name.as_str(), prompt.text.as_str()), ("age", "How old?[?other]"));
        assert_eq!(input_prompt("No prompt [?] here [var=x]"), None);
    }

    #[test]
    fn prompt_names_are_found_in_order_each_once() {
        assert_eq!(prompt_names("[var=?age]How old?[?other] [?age] [var=x] [?]"), ["age", "other"]);
        assert_eq!(prompt_names("No prompt [?] here [var=x]"), Vec::<&str>::new());
        // One pass, as the line renders: removing `[?b]` does not make `[?a]` a prompt.
        assert_eq!(prompt_names("Name? [?a[?b]]"), ["b"]);
        assert_eq!(render_line("Name? [?a[?b]]", vars), ["Name? [?a]"]);
    }

    #[test]
    fn force_and_action_are_detected_and_stripped() {
        assert!(forces_menu("[f]Go on."));
        assert!(!forces_menu("[F]Go on. [a]"));
        assert!(is_action("[a]Shrug."));
        assert!(!is_action("[about]"));
        assert_eq!(strip_flags("[f][a]Go [fast]."), "Go [fast].");
        assert_eq!(menu_label(" [f]Pay [var=gold] coins[pic=2] ", vars), "Pay 5 coins");
    }

    #[test]
    fn prompts_are_stripped_from_labels() {
        // A label cannot ask the player (decision M33).
        assert_eq!(menu_label("Name [?who]yourself[var=?who]", vars), "Name yourself");
        assert!(says_nothing(&menu_label("[f] [?who]", vars)));
        assert_eq!(menu_label("[?] [var=?] [? ]", vars), "[?] [var=?] [? ]");
    }

    #[test]
    fn labels_of_no_words_say_nothing() {
        for blank in ["", " ", "[em1][/em1]", "[em2] \n [/em2]", "[em3]"] {
            assert!(says_nothing(blank), "{blank:?}");
        }
        for words in ["x", "[em1]x[/em1]", "[f]", "[Location Change]", "[EM1]"] {
            assert!(!says_nothing(words), "{words:?}");
        }
        assert!(says_nothing(&menu_label("[f]", vars)) && says_nothing(&menu_label("[a][pic=2] [em4][/em4]", vars)));
    }

    #[test]
    fn tokens_are_matched_as_written_and_other_spellings_are_text() {
        // M28: the tokens are spelt in lower case; any other bracketed text is ordinary text.
        assert!(!forces_menu("[F]") && !is_action("[A] Attack"));
        assert_eq!(menu_label("[A] Attack", vars), "[A] Attack");
        assert_eq!(substitute_vars("[VAR=gold] [Var=gold] [var=gold]", vars), "[VAR=gold] [Var=gold] 5");
        assert_eq!(input_prompt("Name? [VAR=?x]"), None);
        assert_eq!(spans("[EM1]x[/EM1]"), [plain("[EM1]x[/EM1]")]);
        let kept = "[lua(Variable['gold'])] \\. wait\\, [Pic=1] [pause]";
        assert_eq!(render_line(kept, vars), [kept]);
    }

    #[test]
    fn markup_in_another_case_is_found_with_its_lower_case_spelling() {
        let found = miscased_tokens("[VAR=Gold] [Var=?Name] [EM1]x[/Em1] [PIC=2] [A] [F] [var=x] [Location] [[Em2]");
        let found: Vec<(&str, &str)> = found.iter().map(|(w, m)| (*w, m.as_str())).collect();
        assert_eq!(
            found,
            [
                ("[VAR=Gold]", "[var=Gold]"),
                ("[Var=?Name]", "[var=?Name]"),
                ("[EM1]", "[em1]"),
                ("[/Em1]", "[/em1]"),
                ("[PIC=2]", "[pic=2]"),
                ("[Em2]", "[em2]")
            ]
        );
        assert_eq!(miscased_tokens("[?x] [em1]ok[/em1] [a]"), []);
    }

    #[test]
    fn emphasis_becomes_spans() {
        assert_eq!(spans("Say [em1]hello[/em1] now"), [plain("Say "), em(1, "hello"), plain(" now")]);
        assert_eq!(spans("[em2]a[em4]b[/em4]c[/em2]"), [em(2, "a"), em(4, "b"), em(2, "c")]);
        assert_eq!(spans("[em1]open to the end"), [em(1, "open to the end")]);
        assert_eq!(spans("stray[/em3] close"), [plain("stray close")]);
        assert_eq!(spans("[em5]x[/em1]"), [plain("[em5]x")]);
        assert_eq!(spans("[em1][/em1]"), []);
        assert_eq!(spans(""), []);
        assert_eq!(spans("[Location Change] [em3]ok[/em3]"), [plain("[Location Change] "), em(3, "ok")]);
    }

    #[test]
    fn lines_render_to_non_empty_segments() {
        let text = "[pic=1]Hello, [var=gold].|  |[pic=2]|[a]He waves. [?name]|[Location Change] [em1]Go[/em1]";
        assert_eq!(render_line(text, vars), ["Hello, 5.", "He waves.", "[Location Change] [em1]Go[/em1]"]);
        assert_eq!(render_line("", vars), Vec::<String>::new());
    }

    #[test]
    fn segments_of_only_emphasis_are_empty_and_dropped() {
        // "drop empty segments" (the page): a segment whose words are nothing but an emphasis
        // pair around whitespace says nothing, so it is dropped like a blank one.
        assert_eq!(render_line("Hi|[em1][/em1]|[em2] [/em2]|[em3]|[pic=1][em4] ", vars), ["Hi"]);
        assert_eq!(render_line("[em1] [/em1]", vars), Vec::<String>::new());
        assert_eq!(render_line("[em1]Go[/em1]|[EM1]", vars), ["[em1]Go[/em1]", "[EM1]"]);
    }

    #[test]
    fn one_pass_so_removals_and_values_never_make_new_tokens() {
        assert_eq!(render_line("[var[pic=1]=gold]", vars), ["[var=gold]"]);
        assert_eq!(render_line("[var=x]", |_| "[pic=1]|[em1]".into()), ["[pic=1]|[em1]"]);
        assert_eq!(menu_label("[f[a]]", vars), "[f]");
    }

    #[test]
    fn unbalanced_brackets_are_plain_text() {
        assert_eq!(strip_pictures("[[pic=1]] ]["), "[] ][");
        assert_eq!(strip_pictures("[a [pic=1]"), "[a ");
        assert_eq!(spans("]["), [plain("][")]);
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        fn markup_text() -> impl Strategy<Value = String> {
            let piece = prop_oneof![
                Just("[".to_owned()),
                Just("]".to_owned()),
                Just("|".to_owned()),
                Just("[f]".to_owned()),
                Just("[em1]".to_owned()),
                Just("[/em2]".to_owned()),
                Just("[var=".to_owned()),
                Just("[?".to_owned()),
                Just("[pic=1]".to_owned()),
                "\\PC{0,6}",
            ];
            prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
        }

        proptest! {
            #[test]
            fn never_panic_on_any_text(text in prop_oneof![markup_text(), any::<String>()]) {
                let _ = segments(&text);
                let _ = var_references(&text);
                let _ = input_prompt(&text);
                let _ = prompt_names(&text);
                let _ = forces_menu(&text) || is_action(&text);
                let _ = strip_flags(&text);
                let _ = menu_label(&text, |n| n.to_owned());
                let _ = render_line(&text, |n| format!("[{n}]"));
                let _ = spans(&text);
                let _ = miscased_tokens(&text);
            }

            #[test]
            fn text_without_brackets_or_bars_is_unchanged(text in "[^\\[\\]|]{0,40}") {
                prop_assert_eq!(strip_pictures(&text), text.clone());
                prop_assert_eq!(strip_flags(&text), text.clone());
                prop_assert_eq!(substitute_vars(&text, |_| "X".into()), text.clone());
                let joined: String = spans(&text).into_iter().map(|s| s.text).collect();
                prop_assert_eq!(joined, text);
            }

            #[test]
            fn stripping_never_adds_text(text in markup_text()) {
                prop_assert!(strip_pictures(&text).len() <= text.len());
                prop_assert!(strip_flags(&text).len() <= text.len());
            }
        }
    }
}
