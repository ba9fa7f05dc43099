//! `Arbitrary` for the closed and newtype inputs of the pure decisions
//! (feature `arbitrary`), so the structure-aware fuzz targets in `fuzz/`
//! build layouts and recordings from libFuzzer bytes (docs/fuzzing.md).
//!
//! Closed enums pick one of their `VARIANTS`, so a new agent or shell is
//! fuzzed with no change here. Strings stay as hostile as the bytes allow:
//! a recorded flag is any name and any value, as a tampered store could hold.

use arbitrary::{Arbitrary, Result, Unstructured};

use crate::flag::RecordedFlag;
use crate::pane::PaneId;
use crate::posture::UnixMillis;
use crate::shell::Shell;
use crate::AgentKind;

impl<'a> Arbitrary<'a> for AgentKind {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        u.choose(AgentKind::VARIANTS).copied()
    }
}

impl<'a> Arbitrary<'a> for Shell {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        u.choose(Shell::VARIANTS).copied()
    }
}

impl<'a> Arbitrary<'a> for PaneId {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(PaneId::from_bytes(u.arbitrary()?))
    }
}

impl<'a> Arbitrary<'a> for UnixMillis {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(UnixMillis(u.arbitrary()?))
    }
}

impl<'a> Arbitrary<'a> for RecordedFlag {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(RecordedFlag {
            name: u.arbitrary()?,
            value: u.arbitrary()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_enums_reach_every_variant() {
        let bytes: Vec<u8> = (0..=255).collect();
        let mut u = Unstructured::new(&bytes);
        let mut seen = std::collections::BTreeSet::new();
        while let Ok(kind) = AgentKind::arbitrary(&mut u) {
            if u.is_empty() {
                break;
            }
            seen.insert(kind.code());
        }
        assert_eq!(seen.len(), AgentKind::VARIANTS.len());
    }
}
