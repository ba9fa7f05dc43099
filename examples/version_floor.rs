//! The floor `agent-resume --version` is compared with (goal P7 of
//! `benches/ratios.rs`): a Rust hello-world printing a line of the same
//! length, built with the same profile.

fn main() {
    println!("agent-resume 0.1.0");
}
