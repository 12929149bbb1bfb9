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
    /// log2 of how many IDs the layout can issue inside the window. The fewer, the less
    /// likely the IDs fit it by chance, so candidates are ranked by it, smallest first.
    pub window_bits: f64,
}

impl Candidate {
    /// The IDs given to [`guess`] taken apart under this layout, in their order. Each
    /// is taken apart as it is asked for, so a caller that writes them out as it goes
    /// holds one at a time, not one copy of the input per candidate.
    pub fn decode<'a>(&'a self, ids: &'a [ReadId]) -> impl Iterator<Item = Decoded> + 'a {
        // Every ID fits (guess checked), so none is skipped here.
        ids.iter()
            .filter_map(|read| self.layout.decompose(read.id).ok())
    }
}

/// Every named layout with a time field under which each ID decodes to a moment after
/// the layout's epoch and inside `window`, ranked (see [`Candidate::window_bits`]; ties
/// keep the catalog's order). An ID written in a text form (a TSID string) only fits
/// layouts with that form.
///
/// One pass over the IDs: each one drops the layouts it does not fit, reading only
/// their time field, and the pass ends as soon as no layout is left.
pub fn guess(ids: &[ReadId], window: Window) -> Vec<Candidate> {
    if ids.is_empty() {
        return Vec::new();
    }
    let mut candidates: Vec<Candidate> = named_layouts()
        .filter_map(|layout| {
            let window_bits = window_bits(&layout, window)?;
            Some(Candidate {
                layout,
                window_bits,
            })
        })
        .collect();
    for read in ids {
        candidates.retain(|candidate| plausible(&candidate.layout, *read, window));
        if candidates.is_empty() {
            break;
        }
    }
    candidates.sort_by(|a, b| a.window_bits.total_cmp(&b.window_bits));
    candidates
}

/// Whether `read` could be an ID of `layout`: in its text form if it was written in
/// one, and dated after the epoch and inside the window.
fn plausible(layout: &Layout, read: ReadId, window: Window) -> bool {
    if let IdForm::Text(form) = read.form
        && layout.text_form() != Some(form)
    {
        return false;
    }
    let Some(time) = layout.field(FieldKind::Time) else {
        return false;
    };
    let units = time.extract(read.id);
    read.id <= layout.max_id()
        && units > 0
        && layout
            .unit_start_ms(units as i64)
            .is_some_and(|at| (window.from_ms..=window.to_ms).contains(&at))
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
