//! The flags that choose a bit layout, shared by `decode` and `lease`.

use clap::builder::{PossibleValue, StringValueParser, TypedValueParser};
use idgen::config::Settings;
use idgen::layout::{Layout, TimeUnit, layout_names_and_aliases, parse_epoch, parse_fixed};
use std::ffi::OsStr;

/// Environment variable naming the default layout. Read here rather than by clap so that
/// `--bits` on the command line overrides it instead of conflicting with it.
pub const LAYOUT_ENV: &str = "IDGEN_LAYOUT";

/// Environment variable giving the epoch, as `--epoch` does.
pub const EPOCH_ENV: &str = "IDGEN_EPOCH";

/// The layout to use when nothing names one.
pub const DEFAULT_LAYOUT: &str = "snowflake";

#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Layout")]
pub struct LayoutArgs {
    /// Named layout or alias; see the list below [env: IDGEN_LAYOUT] [default: snowflake]
    #[arg(
        long,
        value_name = "NAME",
        conflicts_with = "bits",
        value_parser = LayoutName,
        hide_possible_values = true
    )]
    pub layout: Option<String>,

    /// Epoch: Unix ms, RFC 3339 (no offset = UTC) or YYYY-MM-DD (UTC midnight) [default: the layout's]
    #[arg(long, hide_env_values = true, env = EPOCH_ENV, value_name = "EPOCH")]
    pub epoch: Option<String>,

    /// Custom layout, fields from high to low bits, e.g. time:41,worker:10,seq:12 (63 or 64 bits)
    #[arg(long, value_name = "SPEC")]
    pub bits: Option<String>,

    /// Time unit of a --bits layout: ms, s, 10ms, any Nms or Ns [default: ms]
    #[arg(long, value_name = "UNIT", requires = "bits")]
    pub unit: Option<String>,

    /// Pin a worker-ID field so only the other worker bits are leased, e.g. datacenter=3 (repeatable; lease only)
    #[arg(long = "fix", value_name = "FIELD=VALUE")]
    pub fix: Vec<String>,
}

/// Offers the named layouts to shell completion; the layout itself checks the name, so an
/// unknown one gets the same error from the flag as from `IDGEN_LAYOUT`.
#[derive(Debug, Clone, Copy)]
struct LayoutName;

impl TypedValueParser for LayoutName {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<String, clap::Error> {
        StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(layout_names_and_aliases().map(PossibleValue::new)))
    }
}

impl LayoutArgs {
    /// The layout these flags describe. Precedence: `--bits`, then `--layout` or
    /// `IDGEN_LAYOUT`, then the configured layout, then `snowflake`. The epoch comes from
    /// `--epoch`/`IDGEN_EPOCH`, else the configured epoch (only for the configured or
    /// default layout: it belongs with the layout it was configured for), else the
    /// layout's own.
    pub fn resolve(&self, settings: &Settings) -> idgen::Result<Layout> {
        self.resolve_with(settings, std::env::var(LAYOUT_ENV).ok())
    }

    fn resolve_with(
        &self,
        settings: &Settings,
        env_layout: Option<String>,
    ) -> idgen::Result<Layout> {
        let explicit_epoch = self
            .epoch
            .as_deref()
            .map(|text| {
                parse_epoch(text).map_err(|e| {
                    // Say which variable holds the bad epoch, when it came from one.
                    match std::env::var(EPOCH_ENV).ok().as_deref() == Some(text) {
                        true => idgen::Error::invalid(
                            "epoch",
                            format!("{e} (from {EPOCH_ENV})"),
                            e.hint(),
                        ),
                        false => e.into(),
                    }
                })
            })
            .transpose()?;
        let mut layout = match &self.bits {
            Some(bits) => {
                let unit = self.unit.as_deref().map(TimeUnit::parse).transpose()?;
                Layout::custom(bits, unit, explicit_epoch)?
            }
            None => {
                let from_env = self.layout.is_none() && env_layout.is_some();
                let explicit = self.layout.clone().or(env_layout);
                let configured = explicit.is_none();
                let name = explicit
                    .or_else(|| settings.layout.clone())
                    .unwrap_or_else(|| DEFAULT_LAYOUT.to_string());
                let layout = Layout::named(&name).map_err(|e| match from_env {
                    // Say which variable holds the bad name.
                    true => idgen::Error::invalid(
                        "layout",
                        format!("{e} (from {LAYOUT_ENV})"),
                        e.hint(),
                    ),
                    false => e.into(),
                })?;
                let configured_epoch = match (&settings.epoch, configured) {
                    (Some(text), true) => Some(parse_epoch(text)?),
                    _ => None,
                };
                match explicit_epoch.or(configured_epoch) {
                    Some(epoch) => layout.with_epoch_ms(epoch)?,
                    None => layout,
                }
            }
        };
        for text in &self.fix {
            let (kind, value) = parse_fixed(text)?;
            layout = layout.with_fixed(kind, value)?;
        }
        Ok(layout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(layout: Option<&str>, epoch: Option<&str>) -> Settings {
        Settings {
            layout: layout.map(str::to_string),
            epoch: epoch.map(str::to_string),
            ..Settings::default()
        }
    }

    #[test]
    fn nothing_given_means_snowflake_with_its_epoch() {
        let layout = LayoutArgs::default()
            .resolve_with(&settings(None, None), None)
            .unwrap();
        assert_eq!(layout, Layout::named("snowflake").unwrap());
    }

    #[test]
    fn flag_beats_environment_which_beats_configuration() {
        let args = LayoutArgs {
            layout: Some("discord".into()),
            ..LayoutArgs::default()
        };
        let configured = settings(Some("sonyflake"), None);
        let from_flag = args
            .resolve_with(&configured, Some("segment".into()))
            .unwrap();
        assert_eq!(from_flag.name(), "discord");
        let from_env = LayoutArgs::default()
            .resolve_with(&configured, Some("segment".into()))
            .unwrap();
        assert_eq!(from_env.name(), "segment");
        let from_config = LayoutArgs::default()
            .resolve_with(&configured, None)
            .unwrap();
        assert_eq!(from_config.name(), "sonyflake");
    }

    #[test]
    fn bits_override_the_layout_environment_variable() {
        let args = LayoutArgs {
            bits: Some("time:41,worker:10,seq:12".into()),
            epoch: Some("0".into()),
            ..LayoutArgs::default()
        };
        let layout = args
            .resolve_with(&settings(None, None), Some("discord".into()))
            .unwrap();
        assert_eq!(layout.name(), "snowflake");
        assert_eq!(layout.epoch_ms(), Some(0));
    }

    #[test]
    fn configured_epoch_applies_to_the_configured_layout_only() {
        let configured = settings(Some("discord"), Some("2020-01-01"));
        let own = LayoutArgs::default()
            .resolve_with(&configured, None)
            .unwrap();
        assert_eq!(own.epoch_ms(), Some(1_577_836_800_000));
        let other = LayoutArgs {
            layout: Some("snowflake".into()),
            ..LayoutArgs::default()
        }
        .resolve_with(&configured, None)
        .unwrap();
        assert_eq!(
            other.epoch_ms(),
            Layout::named("snowflake").unwrap().epoch_ms()
        );
    }

    #[test]
    fn fix_pins_node_fields_into_the_signature() {
        let args = LayoutArgs {
            layout: Some("snowflake-dc".into()),
            fix: vec!["datacenter=3".into()],
            ..LayoutArgs::default()
        };
        let layout = args.resolve_with(&settings(None, None), None).unwrap();
        assert_eq!(layout.worker_bits(), 5);
        assert!(layout.signature().contains("datacenter:5=3"));
    }
}
