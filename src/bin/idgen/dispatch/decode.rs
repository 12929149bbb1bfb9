//! `idgen decode`: unpack the fields of IDs in any supported layout, or `--guess` which
//! layouts could have made them.

use crate::dispatch::Context;
use crate::exit::Outcome;
use crate::layout_args::{EPOCH_ENV, LayoutArgs};
use comfy_table::{CellAlignment, Table};
use idgen::layout::{
    Candidate, Decoded, DecodedJson, FieldKind, IdForm, Layout, ReadId, TextForm, Window, catalog,
    format_timestamp, guess, parse_epoch, read_id,
};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use std::io::{self, BufRead, IsTerminal};

#[derive(Debug, clap::Args)]
#[command(after_help = help_text())]
pub struct DecodeArgs {
    /// IDs to decode: decimal, 0x hexadecimal, TSID text, or a URL or path containing one;
    /// without any, read them from stdin, one per line
    #[arg(value_name = "ID", allow_negative_numbers = true)]
    pub ids: Vec<String>,

    /// Print JSON: one object per ID (JSON Lines); with --guess, one document
    #[arg(long)]
    pub json: bool,

    /// List the named layouts under which every ID decodes to a plausible moment, ranked
    #[arg(long, conflicts_with_all = ["layout", "bits", "unit", "fix"])]
    pub guess: bool,

    /// With --guess: the window a plausible moment lies in, e.g. 2020-01-01..2021-01-01;
    /// either end may be left out [default: the layout's epoch..a day from now]
    #[arg(long, value_name = "FROM..TO", requires = "guess")]
    pub between: Option<String>,

    /// With --guess: how many of the best-ranked layouts decode every ID; the others show
    /// their first ID only [default: all for up to 10 IDs, else 1]
    #[arg(long, value_name = "N|all", requires = "guess", value_parser = parse_candidates)]
    pub candidates: Option<Candidates>,

    #[command(flatten)]
    pub layout: LayoutArgs,
}

pub async fn run(args: DecodeArgs, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    if let Some(first) = args.layout.fix.first() {
        return Err(idgen::Error::invalid(
            "flag",
            format!("--fix {first} has no meaning in decode"),
            "leave out --fix: it pins node fields for `idgen lease`, while decode reads every field from the ID",
        )
        .into());
    }
    let style = if args.json {
        Style::Json
    } else if ctx.out.stdout_tty {
        Style::Table
    } else {
        Style::Lines
    };
    if args.guess {
        return run_guess(&args, style, ctx);
    }
    let layout = args.layout.resolve(&ctx.settings)?;
    ctx.out.info(&format!("layout: {layout}"));
    let mut decoder = Decoder {
        ctx,
        layout: &layout,
        style,
        table: (style == Style::Table).then(|| table_for(ctx, &layout)),
        rejected: 0,
    };
    for_each_input(&args.ids, |text| decoder.decode(text))?;
    if let Some(table) = &decoder.table
        && !table.is_empty()
    {
        ctx.out.print_table(table)?;
    }
    Ok(if decoder.rejected > 0 {
        Outcome::BadInput
    } else {
        Outcome::Success
    })
}

/// Calls `each` with every ID argument, or with every non-blank stdin line if none.
fn for_each_input(
    args: &[String],
    mut each: impl FnMut(&str) -> io::Result<()>,
) -> anyhow::Result<()> {
    if !args.is_empty() {
        for text in args {
            each(text)?;
        }
        return Ok(());
    }
    let stdin = io::stdin();
    if stdin.is_terminal() {
        return Err(idgen::Error::invalid(
            "input",
            "no IDs given and stdin is a terminal",
            "pass IDs as arguments, or pipe them in one per line",
        )
        .into());
    }
    let mut input = stdin.lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if !text.is_empty() {
            each(text)?;
        }
    }
}

/// Reads one ID; says in `--verbose` how it was read when it was not plain decimal.
fn read(ctx: &Context<'_>, text: &str, text_form: Option<TextForm>) -> Option<ReadId> {
    match read_id(text, text_form) {
        Ok(read) => {
            match read.form {
                IdForm::Decimal => {}
                IdForm::Hex => ctx.out.info(&format!("{text}: hexadecimal ID {}", read.id)),
                IdForm::Text(form) => {
                    ctx.out
                        .info(&format!("{text}: {} text of ID {}", form.name(), read.id))
                }
                IdForm::InUrlOrPath => ctx.out.info(&format!(
                    "{text}: took ID {}, the longest run of digits",
                    read.id
                )),
            }
            Some(read)
        }
        Err(err) => {
            ctx.out.error(&err.to_string(), Some(&err.hint()));
            None
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Table,
    Lines,
    Json,
}

struct Decoder<'a> {
    ctx: &'a Context<'a>,
    layout: &'a Layout,
    style: Style,
    table: Option<Table>,
    rejected: usize,
}

impl Decoder<'_> {
    /// Decodes one ID and renders it; a bad ID is reported and counted, not fatal.
    fn decode(&mut self, text: &str) -> io::Result<()> {
        let Some(read) = read(self.ctx, text, self.layout.text_form()) else {
            self.rejected += 1;
            return Ok(());
        };
        let decoded = match self.layout.decompose(read.id) {
            Ok(decoded) => decoded,
            Err(err) => {
                self.rejected += 1;
                self.ctx.out.error(&err.to_string(), Some(&err.hint()));
                return Ok(());
            }
        };
        match self.style {
            Style::Lines => self.ctx.out.print_line(&plain_line(self.layout, &decoded)),
            Style::Json => {
                let record = DecodedJson {
                    layout: self.layout,
                    layout_key: true,
                    decoded: &decoded,
                };
                let line = serde_json::to_string(&record).map_err(io::Error::other)?;
                self.ctx.out.print_line(&line)
            }
            Style::Table => {
                if let Some(table) = &mut self.table {
                    table.add_row(table_row(self.layout, &decoded));
                }
                Ok(())
            }
        }
    }
}

/// Fields other than time, in layout order, then the text form if the layout has one.
fn shown_fields(layout: &Layout, decoded: &Decoded) -> Vec<(&'static str, String)> {
    let mut shown: Vec<(&'static str, String)> = decoded
        .values
        .iter()
        .filter(|(kind, _)| *kind != FieldKind::Time)
        .map(|(kind, value)| (kind.name(), value.to_string()))
        .collect();
    if let (Some(form), Some(text)) = (layout.text_form(), &decoded.text) {
        shown.push((form.name(), text.clone()));
    }
    shown
}

/// `FIELD=VALUE ...`, space-separated.
fn fields_text(layout: &Layout, decoded: &Decoded) -> String {
    shown_fields(layout, decoded)
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `ID LAYOUT [TIMESTAMP] FIELD=VALUE...`, the stable form for scripts.
fn plain_line(layout: &Layout, decoded: &Decoded) -> String {
    let mut line = format!("{} {}", decoded.id, layout.name());
    if let Some(ms) = decoded.unix_ms {
        line.push(' ');
        line.push_str(&format_timestamp(ms));
    }
    for (name, value) in shown_fields(layout, decoded) {
        line.push_str(&format!(" {name}={value}"));
    }
    line
}

fn table_for(ctx: &Context<'_>, layout: &Layout) -> Table {
    let mut table = ctx.out.table();
    let mut header = vec!["ID".to_string(), "LAYOUT".to_string()];
    if layout.epoch_ms().is_some() {
        header.push("TIMESTAMP (UTC)".to_string());
    }
    let fields = layout
        .fields()
        .iter()
        .filter(|field| field.kind() != FieldKind::Time);
    header.extend(fields.map(|field| field.name().to_uppercase()));
    let first_field = 2 + usize::from(layout.epoch_ms().is_some());
    let columns = header.len();
    if let Some(form) = layout.text_form() {
        header.push(form.name().to_uppercase());
    }
    table.set_header(header);
    for i in std::iter::once(0).chain(first_field..columns) {
        if let Some(column) = table.column_mut(i) {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
    table
}

fn table_row(layout: &Layout, decoded: &Decoded) -> Vec<String> {
    let mut row = vec![decoded.id.to_string(), layout.name().to_string()];
    if let Some(ms) = decoded.unix_ms {
        row.push(format_timestamp(ms));
    }
    row.extend(
        shown_fields(layout, decoded)
            .into_iter()
            .map(|(_, value)| value),
    );
    row
}

// ---- --guess -----------------------------------------------------------------------------

fn run_guess(args: &DecodeArgs, style: Style, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    // Not a clap conflict: IDGEN_EPOCH set in the environment must not stop --guess.
    if args.layout.epoch.is_some() && args.layout.epoch != std::env::var(EPOCH_ENV).ok() {
        return Err(idgen::Error::invalid(
            "flag",
            "--epoch has no meaning with --guess",
            "leave out --epoch: --guess tries every named layout with its own epoch; narrow the moments with --between",
        )
        .into());
    }
    let window = match &args.between {
        Some(text) => parse_window(text, now_ms())?,
        None => Window::until_tomorrow(now_ms()),
    };
    let mut ids = Vec::new();
    let mut rejected = 0;
    // Any layout with a text form may have written an ID that way; guess sorts it out.
    let text_form = catalog()
        .iter()
        .find_map(|named| named.layout().text_form());
    for_each_input(&args.ids, |text| {
        match read(ctx, text, text_form) {
            Some(read) => ids.push(read),
            None => rejected += 1,
        }
        Ok(())
    })?;
    let candidates = guess(&ids, window);
    for candidate in &candidates {
        ctx.out.info(&format!(
            "{}: about 2^{:.1} IDs fit the window",
            candidate.layout.name(),
            candidate.window_bits
        ));
    }
    let shown = Shown {
        in_full: args.candidates.unwrap_or_default().in_full(ids.len()),
        ids: ids.len(),
    };
    match style {
        Style::Json => ctx.out.print_json(&GuessJson(&candidates, &ids, shown))?,
        Style::Lines => {
            for (rank, candidate) in ranked(&candidates) {
                for decoded in candidate.decode(&ids).take(shown.ids_of(rank)) {
                    let line = plain_line(&candidate.layout, &decoded);
                    ctx.out.print_line(&format!("{rank} {line}"))?;
                }
            }
        }
        Style::Table if !candidates.is_empty() => {
            ctx.out
                .print_table(&guess_table(ctx, &candidates, &ids, shown))?
        }
        Style::Table => {}
    }
    if candidates.len() > shown.in_full {
        let first_abridged = shown.in_full + 1;
        let ranks = if first_abridged == candidates.len() {
            format!("rank {first_abridged} shows")
        } else {
            format!("ranks {first_abridged} to {} show", candidates.len())
        };
        ctx.out.note(&format!(
            "{ranks} their first ID only; --candidates all decodes all {} IDs under each",
            ids.len()
        ));
    }
    if candidates.is_empty() && !ids.is_empty() {
        let what = if ids.len() == 1 {
            "this ID".to_string()
        } else {
            format!("all {} IDs", ids.len())
        };
        let when = match &args.between {
            Some(text) => format!("between {text}"),
            None => "after its epoch and before a day from now".to_string(),
        };
        ctx.out.error(
            &format!("no named layout dates {what} {when}"),
            Some("widen the window with --between FROM..TO, or describe the layout with --bits, --unit and --epoch"),
        );
        return Ok(Outcome::BadInput);
    }
    Ok(if rejected > 0 {
        Outcome::BadInput
    } else {
        Outcome::Success
    })
}

use idgen::clock::process_now_ms as now_ms;

/// `FROM..TO`, each an epoch as `--epoch` takes it; a missing end keeps the default.
fn parse_window(text: &str, now_ms: i64) -> idgen::Result<Window> {
    let bad = |problem: String| {
        idgen::Error::invalid(
            "--between",
            problem,
            "write it as FROM..TO, each Unix ms, an RFC 3339 date-time or a date: --between 2020-01-01..2021-01-01",
        )
    };
    let (from, to) = text
        .split_once("..")
        .ok_or_else(|| bad(format!("{text:?} has no \"..\"")))?;
    let default = Window::until_tomorrow(now_ms);
    let end = |side: &str, default: i64| -> idgen::Result<i64> {
        if side.trim().is_empty() {
            Ok(default)
        } else {
            parse_epoch(side).map_err(|err| bad(err.to_string()))
        }
    };
    let window = Window {
        from_ms: end(from, default.from_ms)?,
        to_ms: end(to, default.to_ms)?,
    };
    if window.from_ms > window.to_ms {
        return Err(bad(format!("{text:?} ends before it starts")));
    }
    Ok(window)
}

/// How many ranked layouts `--guess` decodes every ID under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Candidates {
    /// Every layout for a handful of IDs, the leading one for more.
    #[default]
    Auto,
    All,
    Best(usize),
}

/// Up to this many IDs, every candidate decodes them all by default: a few lines each.
/// Past it, the others' lines would outnumber the leading candidate's.
const ALL_CANDIDATES_UP_TO: usize = 10;

impl Candidates {
    /// How many of the ranked candidates decode all `ids` IDs.
    fn in_full(self, ids: usize) -> usize {
        match self {
            Candidates::Auto if ids <= ALL_CANDIDATES_UP_TO => usize::MAX,
            Candidates::Auto => 1,
            Candidates::All => usize::MAX,
            Candidates::Best(n) => n,
        }
    }
}

fn parse_candidates(text: &str) -> Result<Candidates, String> {
    if text.eq_ignore_ascii_case("all") {
        return Ok(Candidates::All);
    }
    match text.parse::<usize>() {
        Ok(n) if n > 0 => Ok(Candidates::Best(n)),
        _ => Err(format!(
            "{text:?} is not a count: give a whole number from 1, or all"
        )),
    }
}

/// Which IDs each rank shows: all of them up to `in_full`, the first below.
#[derive(Debug, Clone, Copy)]
struct Shown {
    in_full: usize,
    ids: usize,
}

impl Shown {
    fn ids_of(self, rank: usize) -> usize {
        if rank <= self.in_full { self.ids } else { 1 }
    }
}

/// Candidates with their rank, from 1.
fn ranked(candidates: &[Candidate]) -> impl Iterator<Item = (usize, &Candidate)> {
    candidates.iter().enumerate().map(|(i, c)| (i + 1, c))
}

fn guess_table(ctx: &Context<'_>, candidates: &[Candidate], ids: &[ReadId], shown: Shown) -> Table {
    let mut table = ctx.out.table();
    table.set_header(["RANK", "LAYOUT", "ID", "TIMESTAMP (UTC)", "FIELDS"]);
    for (rank, candidate) in ranked(candidates) {
        for (i, decoded) in candidate.decode(ids).take(shown.ids_of(rank)).enumerate() {
            let (rank, name) = if i == 0 {
                (rank.to_string(), candidate.layout.name().to_string())
            } else {
                (String::new(), String::new())
            };
            table.add_row([
                rank,
                name,
                decoded.id.to_string(),
                decoded.unix_ms.map(format_timestamp).unwrap_or_default(),
                fields_text(&candidate.layout, &decoded),
            ]);
        }
    }
    for i in [0, 2] {
        if let Some(column) = table.column_mut(i) {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
    table
}

/// `{"candidates": [{"rank", "layout", "signature", "ids": [...]}, ...]}`, IDs as strings;
/// a candidate that shows its first ID only says how many it left out (`ids_left_out`).
struct GuessJson<'a>(&'a [Candidate], &'a [ReadId], Shown);

impl Serialize for GuessJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry("candidates", &CandidatesJson(self.0, self.1, self.2))?;
        map.end()
    }
}

struct CandidatesJson<'a>(&'a [Candidate], &'a [ReadId], Shown);

impl Serialize for CandidatesJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for (rank, candidate) in ranked(self.0) {
            seq.serialize_element(&CandidateJson {
                rank,
                candidate,
                ids: self.1,
                shown: self.2.ids_of(rank),
            })?;
        }
        seq.end()
    }
}

struct CandidateJson<'a> {
    rank: usize,
    candidate: &'a Candidate,
    ids: &'a [ReadId],
    /// How many of `ids` are decoded.
    shown: usize,
}

impl Serialize for CandidateJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let layout = &self.candidate.layout;
        let shown = self.shown.min(self.ids.len());
        let records = DecodedIdsJson {
            candidate: self.candidate,
            ids: &self.ids[..shown],
        };
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("rank", &self.rank)?;
        map.serialize_entry("layout", layout.name())?;
        map.serialize_entry("signature", &layout.signature())?;
        map.serialize_entry("ids", &records)?;
        if shown < self.ids.len() {
            map.serialize_entry("ids_left_out", &(self.ids.len() - shown))?;
        }
        map.end()
    }
}

/// A candidate's IDs, each taken apart as it is written.
struct DecodedIdsJson<'a> {
    candidate: &'a Candidate,
    ids: &'a [ReadId],
}

impl Serialize for DecodedIdsJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.ids.len()))?;
        for decoded in self.candidate.decode(self.ids) {
            seq.serialize_element(&DecodedJson {
                layout: &self.candidate.layout,
                layout_key: false,
                decoded: &decoded,
            })?;
        }
        seq.end()
    }
}

// ---- help --------------------------------------------------------------------------------

/// When a layout's time bits run out: a timestamp, or the year when past 9999.
fn runs_out(end_ms: i64) -> String {
    const MEAN_YEAR_MS: i64 = 31_556_952_000;
    match format_timestamp(end_ms) {
        text if text.starts_with('@') => {
            format!("around the year {}", 1970 + end_ms / MEAN_YEAR_MS)
        }
        text => text,
    }
}

/// The `--help` epilogue: input, output, the layouts with their epochs, guessing, examples.
fn help_text() -> String {
    let mut text = String::from(
        "Input:
  Decimal (175928847299117063), hexadecimal (0x271065ac1020007), the 13-character TSID
  text for tsid (01226N0640J7Q), or a URL or path that contains the ID (a Discord message
  link, a tweet URL): its longest run of digits is taken; --verbose says so.

Output:
  On a terminal: a table. Otherwise one line per ID, separated by single spaces:
    ID LAYOUT [TIMESTAMP] FIELD=VALUE...
    175928847299117063 discord 2016-04-30T11:18:25.796Z worker=1 process=0 increment=7
  TIMESTAMP is the start of the ID's time unit in UTC (RFC 3339, milliseconds); layouts
  without a time field (segment) have none. FIELDs follow the layout from high to low
  bits; tsid adds tsid=TEXT.
  --json: one object per line with keys id, layout, timestamp, unix_ms and one per field.
  A bad ID, or one that does not fit the layout (too many bits, negative), is reported
  on stderr by name; the others are still decoded; exit code 2.

",
    );
    text.push_str(layout_list());
    text.push_str(REST);
    text
}

/// The named layouts, for every help page whose `--layout` points to it.
/// Built once per process: `decode` and `lease` both show it in their help,
/// and the CLI is built (help texts and all) before any command runs.
pub fn layout_list() -> &'static str {
    static LIST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    LIST.get_or_init(build_layout_list)
}

fn build_layout_list() -> String {
    let mut text = String::from(
        "Layouts (fields from high to low bits, unit; epoch; when the time bits run out):\n",
    );
    for named in catalog() {
        let layout = named.layout();
        let fields: Vec<String> = layout
            .fields()
            .iter()
            .map(|field| format!("{} {}", field.name(), field.width()))
            .collect();
        let signedness = if layout.is_signed() { "" } else { ", unsigned" };
        match (layout.unit(), layout.epoch_ms(), layout.exhausted_at_ms()) {
            (Some(unit), Some(epoch), Some(end)) => {
                text.push_str(&format!(
                    "  {:<17} {} ({unit}{signedness})\n  {:<17} epoch {}, runs out {}\n",
                    layout.name(),
                    fields.join(", "),
                    "",
                    format_timestamp(epoch),
                    runs_out(end),
                ));
            }
            _ => text.push_str(&format!(
                "  {:<17} {} (no time field)\n",
                layout.name(),
                fields.join(", ")
            )),
        }
        if !named.aliases().is_empty() {
            text.push_str(&format!(
                "  {:<17} also called {}\n",
                "",
                named.aliases().join(", ")
            ));
        }
        if named.name() != "segment" && layout.check_generatable().is_err() {
            text.push_str(&format!("  {:<17} decode only\n", ""));
        }
        if let Some(note) = named.note() {
            text.push_str(&format!("  {:<17} {note}\n", ""));
        }
    }
    text.push_str(
        "  custom            --bits NAME:WIDTH,... adding up to 63 (signed) or 64 (unsigned) bits,
                    with --unit and --epoch. Only time is special; any other name is
                    shown as it is (time:48,rest:16). idgen lease fills sequence (seq),
                    increment, counter, worker, datacenter, process, machine and node.
",
    );
    text
}

/// `decode --help` after the layout list.
const REST: &str = "
Guessing (--guess, no --layout):
  Lists every named layout under which each ID's time decodes to a moment after the
  layout's epoch and at most a day from now (or inside --between FROM..TO). With several
  IDs, or a column on stdin, a layout must explain all of them. Ranked by how few IDs the
  layout could issue in that window: the fewer, the less likely the fit is chance.
  For up to 10 IDs every layout listed decodes them all; for more, the leading layout does
  and the others show their first ID (--candidates N|all decodes all under the first N).
  Lines: RANK ID LAYOUT TIMESTAMP FIELD=VALUE...; --json: one document, IDs as strings.
  Exit code 2 when no layout fits.

Examples:
  idgen decode --layout discord 175928847299117063
  idgen decode --layout discord https://discord.com/channels/1/2/175928847299117063
  idgen decode --layout tsid 01226N0640J7Q
  idgen decode --layout uid-generator --epoch 2016-05-20T00:00:00+08:00 3200169789968523265
  idgen decode --json 1541815603606036480
  idgen decode --bits time:41,worker:10,seq:12 --unit ms --epoch 2024-01-01 123456789012345
  idgen decode --guess 1541815603606036480
  cut -d, -f1 orders.csv | idgen decode --guess --between 2023-01-01..2024-01-01";
