//! The runtime feature flag: whether agent-resume does anything at all.
//!
//! Off by default. The precedence is, first match wins:
//!
//! 1. the environment, `AGENT_RESUME=1` (on) or `AGENT_RESUME=0` (off);
//! 2. the config file's `enabled = true|false`;
//! 3. off.
//!
//! Only the exact values `1` and `0` count. Anything else in the environment
//! (`yes`, `true`, `on`, ` 1`, the empty string) is ignored and the decision
//! falls through to the config file: a typo must never switch the path on,
//! and an inherited empty variable must not mask the user's config.
//!
//! This module only decides; the caller reads the environment and parses the
//! config file (core does no I/O).

/// Where the decision came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum GateSource {
    /// `AGENT_RESUME=1` or `AGENT_RESUME=0`.
    Env = 1,
    /// `enabled = …` in the config file.
    Config = 2,
    /// Neither said anything: off.
    Default = 3,
}

impl GateSource {
    /// Every variant.
    pub const VARIANTS: &'static [GateSource] =
        &[GateSource::Env, GateSource::Config, GateSource::Default];

    /// The stable lowercase name.
    pub const fn as_str(self) -> &'static str {
        match self {
            GateSource::Env => "env",
            GateSource::Config => "config",
            GateSource::Default => "default",
        }
    }
}

/// The decided state of the feature flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Gate {
    /// Whether capture, restore and telemetry run.
    pub enabled: bool,
    /// What decided it.
    pub source: GateSource,
}

impl Gate {
    /// The default: off.
    pub const OFF: Gate = Gate {
        enabled: false,
        source: GateSource::Default,
    };
}

/// The name of the environment variable that overrides the config file.
pub const ENV_VAR: &str = "AGENT_RESUME";

/// Decides the flag from the raw environment value of [`ENV_VAR`] (when set)
/// and the config file's `enabled` (when the file sets it).
pub fn gate(env: Option<&str>, config: Option<bool>) -> Gate {
    match env {
        Some("1") => {
            return Gate {
                enabled: true,
                source: GateSource::Env,
            }
        }
        Some("0") => {
            return Gate {
                enabled: false,
                source: GateSource::Env,
            }
        }
        _ => {}
    }
    match config {
        Some(enabled) => Gate {
            enabled,
            source: GateSource::Config,
        },
        None => Gate::OFF,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A labelled case: environment value, config flag, expected gate.
    type Case = (
        &'static str,
        Option<&'static str>,
        Option<bool>,
        bool,
        GateSource,
    );

    #[test]
    fn env_beats_config_beats_default_off() {
        let cases: &[Case] = &[
            ("nothing set", None, None, false, GateSource::Default),
            ("config on", None, Some(true), true, GateSource::Config),
            ("config off", None, Some(false), false, GateSource::Config),
            ("env on", Some("1"), None, true, GateSource::Env),
            (
                "env off over config on",
                Some("0"),
                Some(true),
                false,
                GateSource::Env,
            ),
            (
                "env on over config off",
                Some("1"),
                Some(false),
                true,
                GateSource::Env,
            ),
        ];
        for (label, env, config, enabled, source) in cases {
            assert_eq!(
                gate(*env, *config),
                Gate {
                    enabled: *enabled,
                    source: *source
                },
                "{label}"
            );
        }
    }

    #[test]
    fn env_values_other_than_one_and_zero_fall_through() {
        for junk in ["", "yes", "true", "on", " 1", "1 ", "01", "2", "-1", "0\n"] {
            assert_eq!(gate(Some(junk), None), Gate::OFF, "{junk:?}");
            assert_eq!(
                gate(Some(junk), Some(true)),
                Gate {
                    enabled: true,
                    source: GateSource::Config
                },
                "{junk:?}"
            );
        }
    }

    #[test]
    fn gate_sources_have_distinct_names() {
        let names: std::collections::BTreeSet<_> =
            GateSource::VARIANTS.iter().map(|s| s.as_str()).collect();
        assert_eq!(names.len(), GateSource::VARIANTS.len());
    }
}
