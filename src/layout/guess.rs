//! Which named layouts could have made a set of IDs: `idgen decode --guess`.

use super::{Decoded, FieldKind, IdForm, Layout, ReadId, named_layouts};

/// How far past now a plausible moment may lie by default: clocks disagree, but by less
/// than a day.
pub const DEFAULT_FUTURE_MS: i64 = 86_400_000;

/// The instants an ID's time may decode to, both ends included. A moment must also lie
/// after the layout's epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub from_ms: i64,
    pub to_ms: i64,
}

impl Window {
    /// Any moment after a layout's epoch and at most a day past `now_ms`.
    pub fn until_tomorrow(now_ms: i64) -> Window {
        Window {
            from_ms: i64::MIN,
            to_ms: now_ms.saturating_add(DEFAULT_FUTURE_MS),
        }
    }
}

/// A layout that explains every ID given.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub layout: Layout,
    /// The IDs taken apart, in the order given.
    pub decoded: Vec<Decoded>,
    /// log2 of how many IDs the layout can issue inside the window. The fewer, the less
    /// likely the IDs fit it by chance, so candidates are ranked by it, smallest first.
    pub window_bits: f64,
}

/// Every named layout with a time field under which each ID decodes to a moment after
/// the layout's epoch and inside `window`, ranked (see [`Candidate::window_bits`]; ties
/// keep the catalog's order). An ID written in a text form (a TSID string) only fits
/// layouts with that form.
pub fn guess(ids: &[ReadId], window: Window) -> Vec<Candidate> {
    if ids.is_empty() {
        return Vec::new();
    }
    let mut candidates: Vec<Candidate> = named_layouts()
        .filter_map(|layout| {
            let decoded = ids
                .iter()
                .map(|read| plausible(&layout, *read, window))
                .collect::<Option<Vec<Decoded>>>()?;
            let window_bits = window_bits(&layout, window)?;
            Some(Candidate {
                layout,
                decoded,
                window_bits,
            })
        })
        .collect();
    candidates.sort_by(|a, b| a.window_bits.total_cmp(&b.window_bits));
    candidates
}

fn plausible(layout: &Layout, read: ReadId, window: Window) -> Option<Decoded> {
    if let IdForm::Text(form) = read.form
        && layout.text_form() != Some(form)
    {
        return None;
    }
    let decoded = layout.decompose(read.id).ok()?;
    let after_epoch = decoded.get(FieldKind::Time)? > 0;
    let at = decoded.unix_ms?;
    (after_epoch && (window.from_ms..=window.to_ms).contains(&at)).then_some(decoded)
}

/// log2 of the number of IDs whose time lies after the epoch and inside the window.
fn window_bits(layout: &Layout, window: Window) -> Option<f64> {
    let unit_ms = i64::from(layout.unit()?.ms());
    let first = layout.unit_start_ms(1)?.max(window.from_ms);
    let last = (layout.exhausted_at_ms()? - 1).min(window.to_ms);
    let units = ((last - first) / unit_ms + 1).max(1) as f64;
    let other_bits = layout.width() - layout.field(FieldKind::Time)?.width();
    Some(units.log2() + f64::from(other_bits))
}
