//! How soon each layout runs out of time bits, and the findings that follow.

use super::{
    AttentionKind, DAY_MS, LAYOUT_CRITICAL_MS, LAYOUT_WARNING_MS, LayoutState, LayoutStatus, Part,
    Severity,
};
use crate::layout::{Layout, format_timestamp};

pub(super) fn judge_layout(layout: &LayoutStatus, part: &mut Part) {
    let whose = match layout.used_by.as_str() {
        "default" => "the default layout".to_string(),
        other => other.to_string(),
    };
    let when = layout.exhausted_at.clone().unwrap_or_default();
    let days = layout.days_left.unwrap_or(0);
    let name = &layout.layout;
    match layout.state {
        LayoutState::Exhausted => part.flag(
            AttentionKind::LayoutExhausted,
            Severity::Critical,
            format!("{whose} ({name}) ran out of time bits at {when}; it cannot issue IDs"),
        ),
        LayoutState::ExpiringSoon => part.flag(
            AttentionKind::LayoutExpiring,
            Severity::Critical,
            format!(
                "{whose} ({name}) runs out of time bits at {when}, in {days} days; move to a later epoch or a wider layout now"
            ),
        ),
        LayoutState::Expiring => part.flag(
            AttentionKind::LayoutExpiring,
            Severity::Warning,
            format!(
                "{whose} ({name}) runs out of time bits at {when}, in {days} days; plan a later epoch or a wider layout"
            ),
        ),
        LayoutState::NotStarted => part.flag(
            AttentionKind::EpochInFuture,
            Severity::Critical,
            format!(
                "{whose} ({name}) has its epoch in the future ({}); it cannot issue an ID until then: check the epoch",
                layout.epoch_ms.map_or_else(String::new, format_timestamp)
            ),
        ),
        LayoutState::Ok | LayoutState::Untimed => Severity::Ok,
    };
}

pub(super) fn layout_status(used_by: &str, layout: &Layout, now_ms: i64) -> LayoutStatus {
    let end = layout.exhausted_at_ms();
    let state = match end {
        None => LayoutState::Untimed,
        Some(_) if layout.epoch_ms().is_some_and(|epoch| epoch > now_ms) => LayoutState::NotStarted,
        Some(end) if end <= now_ms => LayoutState::Exhausted,
        Some(end) if end - now_ms <= LAYOUT_CRITICAL_MS => LayoutState::ExpiringSoon,
        Some(end) if end - now_ms <= LAYOUT_WARNING_MS => LayoutState::Expiring,
        Some(_) => LayoutState::Ok,
    };
    LayoutStatus {
        used_by: used_by.to_string(),
        layout: layout.name().to_string(),
        epoch_ms: layout.epoch_ms(),
        exhausted_at_ms: end,
        exhausted_at: end.map(format_timestamp),
        days_left: end.map(|end| (end - now_ms).max(0) / DAY_MS),
        seconds_left: end.map(|end| (end - now_ms).max(0) / 1000),
        state,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_judged_against_a_year_and_30_days() {
        let layout = Layout::named("uid-generator").unwrap();
        let end = layout.exhausted_at_ms().unwrap();
        let state = |now| layout_status("default", &layout, now).state;
        assert_eq!(state(end), LayoutState::Exhausted);
        assert_eq!(state(end - LAYOUT_CRITICAL_MS), LayoutState::ExpiringSoon);
        assert_eq!(state(end - LAYOUT_CRITICAL_MS - 1), LayoutState::Expiring);
        assert_eq!(state(end - LAYOUT_WARNING_MS), LayoutState::Expiring);
        assert_eq!(state(end - LAYOUT_WARNING_MS - 1), LayoutState::Ok);
        let epoch = layout.epoch_ms().unwrap();
        assert_eq!(state(epoch - 1), LayoutState::NotStarted);
        let segment = Layout::named("segment").unwrap();
        assert_eq!(
            layout_status("default", &segment, 0).state,
            LayoutState::Untimed
        );
    }
}
