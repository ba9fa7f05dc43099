//! Extract + build: the work done once per changed (agent, session id) pair
//! at capture, and once per pane at restore.

use std::hint::black_box;

use agent_resume_core::{
    build, extract, AgentKind, BuildRequest, Catalog, Extraction, Posture, Shell,
};
use criterion::{criterion_group, criterion_main, Criterion};

const ID: &str = "f6066ebb-140e-4519-ab63-b9cde0b60b57";
const TEXT: &str = "claude --model opus --permission-mode plan --add-dir /a /b --effort high 'fix the --flaky test'";

fn bench(c: &mut Criterion) {
    let claude = Catalog::embedded().agent(AgentKind::Claude);
    c.bench_function("extract claude (5 flags + prompt)", |b| {
        b.iter(|| extract(claude, black_box(TEXT)))
    });
    let Ok(Extraction::Interactive { flags, program }) = extract(claude, TEXT) else {
        panic!("bench input extracts");
    };
    c.bench_function("build claude (3 flags)", |b| {
        b.iter(|| {
            build(&BuildRequest {
                agent: claude,
                session_id: black_box(ID),
                flags: &flags,
                program: program.as_deref(),
                posture: Posture::Carry,
                shell: Shell::Zsh,
            })
        })
    });
    c.bench_function("extract + build claude", |b| {
        b.iter(|| {
            let Ok(Extraction::Interactive { flags, program }) = extract(claude, black_box(TEXT))
            else {
                return None;
            };
            build(&BuildRequest {
                agent: claude,
                session_id: ID,
                flags: &flags,
                program: program.as_deref(),
                posture: Posture::Carry,
                shell: Shell::Zsh,
            })
            .ok()
        })
    });
    c.bench_function("catalog load (embedded TOML)", |b| {
        b.iter(|| Catalog::load(black_box(agent_resume_core::catalog::EMBEDDED)))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
