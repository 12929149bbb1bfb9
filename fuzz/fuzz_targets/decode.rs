//! `idgen decode`'s input: IDs as users write them (decimal, hex, TSID text,
//! URLs and paths), the layout flags (`--layout`, `--bits`, `--unit`,
//! `--epoch`, `--fix`) resolved by the binary's own `LayoutArgs`, and
//! `--guess` with `--between`.
//!
//! Input: `key: value` lines (layout, bits, unit, epoch, fix, guess), a blank
//! line, then one ID per line; see fuzz/corpus/decode.
//!
//! Checks: no panic; a layout's signature reads back as the same layout; an
//! ID decomposes and composes back to itself (and through its parts, for a
//! layout that generates); TSID text, units and epochs print and read back;
//! every `--guess` candidate decodes every ID.

#![no_main]

use idgen::config::Settings;
use idgen::layout::{
    DecodedJson, IdForm, Layout, ReadId, TextForm, TimeUnit, Window, format_timestamp, guess,
    parse_epoch, read_id,
};
use idgen_fuzz::layout_args::LayoutArgs;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (head, ids) = text.split_once("\n\n").unwrap_or((text, ""));
    let mut args = LayoutArgs::default();
    let mut between = None;
    let mut guessing = false;
    for line in head.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.strip_prefix(' ').unwrap_or(value).to_string();
        match key {
            "layout" => args.layout = Some(value),
            "bits" => args.bits = Some(value),
            "unit" => args.unit = Some(value),
            "epoch" => args.epoch = Some(value),
            "fix" => args.fix.push(value),
            "guess" => {
                guessing = true;
                between = Some(value).filter(|v| !v.is_empty());
            }
            _ => {}
        }
    }
    let ids: Vec<&str> = ids.lines().collect();
    for text in [&args.unit, &args.epoch].into_iter().flatten() {
        units_and_epochs_read_back(text);
    }
    if guessing {
        guess_explains_every_id(&ids, between.as_deref());
        return;
    }
    let Ok(layout) = args.resolve(&Settings::default()) else {
        return;
    };
    signature_reads_back(&layout);
    for text in ids {
        if let Ok(read) = read_id(text, layout.text_form()) {
            read_form_holds(text, read);
            id_reads_back(&layout, read.id);
        }
    }
});

/// `Layout::signature` is what a lease namespace stores: it must read back as
/// the very same layout (fields, roles, fixed values, unit, epoch, text form).
fn signature_reads_back(layout: &Layout) {
    let signature = layout.signature();
    assert_eq!(layout.to_string(), signature);
    let read = Layout::from_signature(&signature)
        .unwrap_or_else(|e| panic!("signature {signature:?} does not read back: {e}"));
    assert_eq!(&read, layout, "signature {signature:?}");
}

/// The form `read_id` names is the one the text is written in.
fn read_form_holds(text: &str, read: ReadId) {
    let trimmed = text.trim();
    let unsigned = trimmed.strip_prefix('+').unwrap_or(trimmed);
    match read.form {
        IdForm::Decimal => assert_eq!(unsigned.parse::<u64>().ok(), Some(read.id), "{text:?}"),
        IdForm::Hex => {
            let hex = &unsigned[2..];
            assert_eq!(
                u128::from_str_radix(hex.trim_start_matches('0').max("0"), 16).ok(),
                Some(u128::from(read.id)),
                "{text:?}"
            );
        }
        IdForm::Text(TextForm::Tsid) => {
            // Crockford base32 reads I and L as 1 and O as 0, in either case.
            let canonical: String = unsigned
                .to_ascii_uppercase()
                .chars()
                .map(|c| match c {
                    'I' | 'L' => '1',
                    'O' => '0',
                    c => c,
                })
                .collect();
            assert_eq!(TextForm::Tsid.format(read.id), canonical, "{text:?}");
        }
        IdForm::InUrlOrPath => assert!(trimmed.contains('/'), "{text:?}"),
    }
}

/// Taking an ID apart and putting it together again gives the same ID, and
/// its text form (a TSID string) reads back as it.
fn id_reads_back(layout: &Layout, id: u64) {
    let Ok(decoded) = layout.decompose(id) else {
        assert!(id > layout.max_id());
        return;
    };
    assert_eq!(layout.compose(&decoded.values), Ok(id), "{layout}: {id}");
    if let Some(form) = layout.text_form() {
        let text = decoded.text.as_deref().expect("a text form gives a text");
        // All digits is read as a decimal number, never as a TSID.
        if !text.bytes().all(|b| b.is_ascii_digit()) {
            assert_eq!(read_id(text, Some(form)).map(|r| r.id), Ok(id), "{text}");
        }
    }
    if let Some(ms) = decoded.unix_ms {
        timestamp_reads_back(ms);
    }
    let json = serde_json::to_string(&DecodedJson {
        layout,
        layout_key: true,
        decoded: &decoded,
    })
    .expect("a decoded ID serializes");
    assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok());
    if layout.check_generatable().is_ok()
        && let Ok(parts) = layout.parts(id)
    {
        assert_eq!(layout.compose_parts(parts), Ok(id), "{layout}: {id}");
    }
}

/// A timestamp decode prints reads back as the same instant.
fn timestamp_reads_back(ms: i64) {
    let shown = format_timestamp(ms);
    if !shown.starts_with('@') {
        assert_eq!(parse_epoch(&shown), Ok(ms), "{shown}");
    }
}

/// A unit prints in its canonical spelling, which reads back as the same
/// unit; an epoch read prints as a timestamp that reads back as it.
fn units_and_epochs_read_back(text: &str) {
    if let Ok(unit) = TimeUnit::parse(text) {
        assert_eq!(TimeUnit::parse(&unit.to_string()), Ok(unit), "{text:?}");
    }
    if let Ok(ms) = parse_epoch(text) {
        timestamp_reads_back(ms);
    }
}

/// `--guess`: every candidate explains every ID given (decode's output for a
/// candidate has one line per ID), and its rank is a number.
fn guess_explains_every_id(texts: &[&str], between: Option<&str>) {
    // decode --guess reads TSID text too: guess sorts out which layout has it.
    let ids: Vec<ReadId> = texts
        .iter()
        .filter_map(|text| read_id(text, Some(TextForm::Tsid)).ok())
        .collect();
    let now = 1_767_225_600_000; // 2026-01-01: fixed, so a crash reproduces
    let mut window = Window::until_tomorrow(now);
    if let Some((from, to)) = between.and_then(|b| b.split_once("..")) {
        for (side, end) in [(from, &mut window.from_ms), (to, &mut window.to_ms)] {
            if let Ok(ms) = parse_epoch(side) {
                *end = ms;
            }
        }
    }
    if window.from_ms > window.to_ms {
        return;
    }
    for candidate in guess(&ids, window) {
        assert!(!candidate.window_bits.is_nan(), "{}", candidate.layout);
        assert_eq!(
            candidate.decode(&ids).count(),
            ids.len(),
            "{} leaves IDs out",
            candidate.layout
        );
    }
}
