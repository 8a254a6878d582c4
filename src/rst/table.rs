//! Grid and simple tables: a URL in a cell is written longer only where
//! its cell has spaces to give on that line, never moving a column border.

use std::collections::HashMap;
use std::ops::Range;

use super::Line;

/// A line's characters, and its cells' right borders.
type Read = (Vec<(usize, char)>, Vec<usize>);

/// A table's column borders and the spaces each cell line has given; each line read once.
pub struct Table {
    /// Whether a grid table (`+---+`), else a simple one (`===  ===`).
    grid: bool,
    /// A simple table's columns, the runs of `=` of its first line.
    columns: Vec<Range<usize>>,
    lines: Vec<Line>,
    /// For each line of a grid table, its row's top border line.
    tops: Vec<Option<usize>>,
    /// The line last read: its number, characters and grid cell borders (`None`
    /// with a tab or wide character, whose columns are not told).
    read: Option<(usize, Option<Read>)>,
    /// Per cell line (start, border column): spaces given, and spaces it has
    /// (grid) or where its text ends (simple).
    cells: HashMap<(usize, usize), (usize, usize)>,
}

impl Table {
    /// The table whose lines are `lines`, the first its border.
    pub fn new(text: &str, lines: &[Line], grid: bool) -> Table {
        let first = lines[0];
        let mut top = None;
        let tops = lines
            .iter()
            .enumerate()
            .map(|(k, l)| {
                let row_top = top;
                if text[l.text_at..l.end].starts_with('+') {
                    top = Some(k);
                }
                row_top
            })
            .collect();
        Table {
            grid,
            columns: simple_columns(&text.as_bytes()[first.start..first.end]),
            lines: lines.to_vec(),
            tops,
            read: None,
            cells: HashMap::new(),
        }
    }

    /// Line `k`'s characters and, in a grid table, its cells' right borders (a
    /// `|` under a `+` of the row's top border, or of a cell spanning rows).
    fn read_line(&self, text: &str, k: usize) -> Option<Read> {
        let line = self.lines[k];
        let chars: Vec<(usize, char)> = text[line.start..line.end].char_indices().collect();
        if chars.iter().any(|&(_, c)| c == '\t' || is_wide(c)) {
            return None;
        }
        let mut edges = Vec::new();
        if self.grid {
            let top = self.lines[self.tops[k]?];
            let top = &text.as_bytes()[top.start..top.end];
            edges = (0..chars.len())
                .filter(|&c| chars[c].1 == '|' && matches!(top.get(c), Some(b'+' | b'|')))
                .collect();
        }
        Some((chars, edges))
    }

    /// Room for `grow` more characters at `at`: the spaces to take from its cell's
    /// line (none if the line may grow), or `None` if the cell has too few.
    pub fn room(&mut self, text: &str, at: usize, grow: usize) -> Option<Range<usize>> {
        let k = self
            .lines
            .partition_point(|l| l.start <= at)
            .checked_sub(1)?;
        let line = self.lines[k];
        if at > line.end {
            return None;
        }
        if self.read.as_ref().is_none_or(|r| r.0 != k) {
            let read = self.read_line(text, k);
            self.read = Some((k, read));
        }
        let (chars, edges) = self.read.as_ref()?.1.as_ref()?;
        let p = chars.partition_point(|&(i, _)| line.start + i < at);
        let byte =
            |column: usize| line.start + chars.get(column).map_or(line.end - line.start, |c| c.0);
        if self.grid {
            let edge = *edges.get(edges.partition_point(|&e| e <= p))?;
            let (given, spaces) = self.cells.entry((line.start, edge)).or_insert_with(|| {
                (
                    0,
                    chars[..edge]
                        .iter()
                        .rev()
                        .take_while(|c| c.1 == ' ')
                        .count(),
                )
            });
            // One space stays before the border.
            if *spaces < 1 + *given + grow {
                return None;
            }
            let end = byte(edge) - 1 - *given;
            *given += grow;
            return Some(end - grow..end);
        }
        let i = self.columns.iter().rposition(|c| c.start <= p)?;
        let Some(next) = self.columns.get(i + 1) else {
            // The last column's text may pass its border.
            return Some(at..at);
        };
        let end = self.columns[i].end;
        let limit = next.start.min(chars.len());
        let (given, text_end) = self.cells.entry((line.start, end)).or_insert_with(|| {
            let text_end = (p..limit).rev().find(|&c| chars[c].1 != ' ');
            (0, text_end.map_or(p, |c| c + 1))
        });
        if *text_end + *given + grow > end {
            return None;
        }
        *given += grow;
        if chars.len() <= end {
            return Some(at..at);
        }
        let end = byte(end) - (*given - grow);
        Some(end - grow..end)
    }
}

/// A simple table's columns: the runs of `=` of its border.
fn simple_columns(border: &[u8]) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for (i, &b) in border.iter().enumerate() {
        if b != b'=' {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.end == i => last.end = i + 1,
            _ => out.push(i..i + 1),
        }
    }
    out
}

/// How many more columns `written` takes than `raw`: `None` when it cannot be
/// told (a line break, a tab, a wide character) or is fewer.
pub fn growth(raw: &str, written: &str) -> Option<usize> {
    if written.chars().any(|c| c == '\t' || is_wide(c)) {
        return None;
    }
    let replaced_whole = !written.ends_with(raw);
    if replaced_whole && raw.contains(super::is_line_end) {
        return None;
    }
    written.chars().count().checked_sub(raw.chars().count())
}

/// Whether docutils counts `c` as two columns (East Asian wide and fullwidth).
fn is_wide(c: char) -> bool {
    matches!(u32::from(c),
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x1F900..=0x1F9FF
        | 0x20000..=0x3FFFD)
}
