//! Prometheus text exposition for `status --format prometheus` and `serve`'s
//! `/metrics`, through the `prometheus` crate's registry and encoder.
//!
//! The text format (0.0.4) is the one node_exporter's textfile collector
//! reads, so both outputs keep to it: one encoder does the escaping, the
//! HELP/TYPE lines, the histogram series and the order of families.

use prometheus::proto::MetricFamily;
use prometheus::{GaugeVec, Opts, Registry, TextEncoder};

/// A family of gauges with these label names, registered in `registry`.
pub fn gauges(registry: &Registry, name: &str, help: &str, labels: &[&str]) -> GaugeVec {
    let family = GaugeVec::new(Opts::new(name, help), labels).expect("a valid metric name");
    registered(registry, family)
}

/// `metric`, registered in `registry`. Names are constants of this binary,
/// each registered once, so a refusal is a bug here, not an input error.
pub fn registered<M: prometheus::core::Collector + Clone + 'static>(
    registry: &Registry,
    metric: M,
) -> M {
    registry
        .register(Box::new(metric.clone()))
        .expect("each family is registered once");
    metric
}

/// A label value taken from stored text: control characters are shown as
/// escapes, like everywhere else idgen prints stored text (the encoder
/// escapes backslashes, quotes and newlines itself).
pub fn label(value: &str) -> String {
    crate::output::escape_controls(value).into_owned()
}

/// The families of every registry, in one exposition ordered by name.
pub fn encode(registries: &[&Registry]) -> String {
    let mut families: Vec<MetricFamily> = registries.iter().flat_map(|r| r.gather()).collect();
    families.sort_by(|a, b| a.name().cmp(b.name()));
    let mut text = String::new();
    TextEncoder::new()
        .encode_utf8(&families, &mut text)
        .expect("writing to a String cannot fail");
    text
}
