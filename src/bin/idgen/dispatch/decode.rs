//! `idgen decode`: unpack the fields of IDs in any supported layout.

use crate::dispatch::Context;
use crate::exit::Outcome;
use crate::layout_args::LayoutArgs;
use comfy_table::{CellAlignment, Table};
use idgen::layout::{Decoded, FieldKind, Layout, format_timestamp, named_layouts, parse_id};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::io::{self, BufRead, IsTerminal};

#[derive(Debug, clap::Args)]
#[command(after_help = help_text())]
pub struct DecodeArgs {
    /// Decimal IDs to decode; without any, read them from stdin, one per line
    #[arg(value_name = "ID", allow_negative_numbers = true)]
    pub ids: Vec<String>,

    /// Print one JSON object per ID (JSON Lines)
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub layout: LayoutArgs,
}

pub async fn run(args: DecodeArgs, ctx: &Context<'_>) -> anyhow::Result<Outcome> {
    let layout = args.layout.resolve(&ctx.settings)?;
    ctx.out.info(&format!("layout: {layout}"));
    let style = if args.json {
        Style::JsonLines
    } else if ctx.out.stdout_tty {
        Style::Table
    } else {
        Style::Lines
    };
    let mut decoder = Decoder {
        ctx,
        layout: &layout,
        style,
        table: (style == Style::Table).then(|| table_for(ctx, &layout)),
        rejected: 0,
    };
    if args.ids.is_empty() {
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
                break;
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim();
            if !text.is_empty() {
                decoder.decode(text)?;
            }
        }
    } else {
        for text in &args.ids {
            decoder.decode(text)?;
        }
    }
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Table,
    Lines,
    JsonLines,
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
        let decoded = match parse_id(text).and_then(|id| self.layout.decompose(id)) {
            Ok(decoded) => decoded,
            Err(err) => {
                self.rejected += 1;
                self.ctx.out.error(&err.to_string(), Some(&err.hint()));
                return Ok(());
            }
        };
        match self.style {
            Style::Lines => self.ctx.out.print_line(&plain_line(self.layout, &decoded)),
            Style::JsonLines => {
                let record = JsonRecord {
                    layout: self.layout,
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

/// Fields other than time, in layout order.
fn shown_fields(decoded: &Decoded) -> impl Iterator<Item = (FieldKind, u64)> + '_ {
    decoded
        .values
        .iter()
        .copied()
        .filter(|(kind, _)| *kind != FieldKind::Time)
}

/// `ID LAYOUT [TIMESTAMP] FIELD=VALUE...`, the stable form for scripts.
fn plain_line(layout: &Layout, decoded: &Decoded) -> String {
    let mut line = format!("{} {}", decoded.id, layout.name());
    if let Some(ms) = decoded.unix_ms {
        line.push(' ');
        line.push_str(&format_timestamp(ms));
    }
    for (kind, value) in shown_fields(decoded) {
        line.push_str(&format!(" {kind}={value}"));
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
    row.extend(shown_fields(decoded).map(|(_, value)| value.to_string()));
    row
}

/// One JSON Lines record; keys in a fixed order: id, layout, timestamp, unix_ms, fields.
struct JsonRecord<'a> {
    layout: &'a Layout,
    decoded: &'a Decoded,
}

impl Serialize for JsonRecord<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("id", &self.decoded.id)?;
        map.serialize_entry("layout", self.layout.name())?;
        if let Some(ms) = self.decoded.unix_ms {
            map.serialize_entry("timestamp", &format_timestamp(ms))?;
            map.serialize_entry("unix_ms", &ms)?;
        }
        for (kind, value) in shown_fields(self.decoded) {
            map.serialize_entry(kind.name(), &value)?;
        }
        map.end()
    }
}

/// The `--help` epilogue: output format, the layouts with their epochs, examples.
fn help_text() -> String {
    let mut text = String::from(
        "Output:
  On a terminal: a table. Otherwise one line per ID, separated by single spaces:
    ID LAYOUT [TIMESTAMP] FIELD=VALUE...
    175928847299117063 discord 2016-04-30T11:18:25.796Z worker=1 process=0 increment=7
  TIMESTAMP is the start of the ID's time unit in UTC (RFC 3339, milliseconds); layouts
  without a time field (segment) have none. FIELDs follow the layout from high to low bits.
  --json: one object per line with keys id, layout, timestamp, unix_ms and one per field.
  A bad ID is reported on stderr by name; the others are still decoded; exit code 2.

Layouts (fields from high to low bits, unit; epoch; when the time bits run out):
",
    );
    for layout in named_layouts() {
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
                    format_timestamp(end),
                ));
            }
            _ => text.push_str(&format!(
                "  {:<17} {} (no time field)\n",
                layout.name(),
                fields.join(", ")
            )),
        }
    }
    text.push_str(
        "  custom            --bits NAME:WIDTH,... adding up to 63 (signed) or 64 (unsigned) bits,
                    with --unit and --epoch. Field names: time, sequence (seq), increment,
                    worker, datacenter, process, machine, app, shard, index.
  uid-generator's epoch is 2016-05-20 in UTC here; the original reads it in the server's
  local time, so for IDs from a +08:00 server pass --epoch 2016-05-20T00:00:00+08:00.

Examples:
  idgen decode --layout discord 175928847299117063
  idgen decode --layout uid-generator --epoch 2016-05-20T00:00:00+08:00 3200169789968523265
  idgen decode --json 1541815603606036480
  idgen decode --bits time:41,worker:10,seq:12 --unit ms --epoch 2024-01-01 123456789012345
  cut -d, -f1 orders.csv | idgen decode --layout sonyflake",
    );
    text
}
