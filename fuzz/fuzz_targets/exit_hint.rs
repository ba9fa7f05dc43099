//! A scraped exit hint names a verified agent and an id in that agent's shape (and safe), and
//! scraping for that agent alone finds the same id; scraping for any one agent finds only ids in
//! its shape; the last hint wins: any text, then a BEL and `@` (ending any escape sequence the text
//! left open), a newline and a claude hint, scrapes to that hint.
#![no_main]
use agent_resume_core::exit_hint::{scrape, scrape_agent};
use agent_resume_core::{AgentKind, Catalog};
use agent_resume_fuzz::{extract_input, is_safe_value};
const ID: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((agent, text)) = extract_input(data) else { return };
    if let Some((kind, id)) = scrape(&text) {
        let decl = Catalog::embedded().agent(kind);
        assert!(decl.verified && decl.id_shape.matches(&id) && is_safe_value(&id), "{kind}: {id:?}");
        assert_eq!(scrape_agent(kind, &text), Some(id), "{text:?}");
    }
    let own = scrape_agent(agent.kind, &text);
    assert!(own.as_deref().is_none_or(|id| agent.id_shape.matches(id) && is_safe_value(id)), "{own:?}");
    let tailed = format!("{text}\x07@\nclaude --resume {ID}\n");
    assert_eq!(scrape(&tailed), Some((AgentKind::Claude, ID.to_owned())), "{text:?}");
});
