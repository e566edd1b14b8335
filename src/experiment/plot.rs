//! Plots of the experiments: one panel per setting, latency against the
//! number of destinations or the load, one line per scheme. A legend strip
//! above the panels names every line and says what the bars and the crosses
//! are, so no legend covers a point; a point where a scheme saturated is not
//! a latency, so it is drawn as a cross on the x axis instead of a point on
//! the line. Drawing (plotters) needs the `plots` feature; without it the
//! experiments write their CSV files only. Text is drawn with the DejaVu Sans
//! font embedded in the crate (assets/), so PNGs need no system fonts.

use super::{Figure, Options, Point, settings};
use crate::Result;
use crate::mcast::PlanScheme;
use std::path::{Path, PathBuf};

/// The legend name of a scheme, as the paper calls it.
pub fn legend(s: PlanScheme) -> &'static str {
    match s {
        PlanScheme::NiKbinomial => "NI-based (k-binomial, FPFS)",
        PlanScheme::PathLg => "Path-based (LG)",
        PlanScheme::PathG => "Path-based (G)",
        PlanScheme::SsrLg => "MPM-SSR (LG)",
        PlanScheme::SsrG => "MPM-SSR (G)",
        PlanScheme::Tree => "Tree-based",
        PlanScheme::Binomial => "Conventional (binomial)",
    }
}

fn color(s: PlanScheme) -> (u8, u8, u8) {
    match s {
        PlanScheme::NiKbinomial => (0, 90, 200),
        PlanScheme::PathLg => (200, 30, 30),
        PlanScheme::PathG => (230, 120, 0),
        PlanScheme::SsrLg => (130, 0, 160),
        PlanScheme::SsrG => (200, 0, 200),
        PlanScheme::Tree => (0, 140, 60),
        PlanScheme::Binomial => (90, 90, 90),
    }
}

/// One line of a [`Panel`].
#[derive(Clone, Debug, Default)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Colour.
    pub color: (u8, u8, u8),
    /// Points, in x order.
    pub points: Vec<(f64, f64)>,
    /// Optional bars from least to largest: `(x, min, max)`.
    pub spread: Vec<(f64, f64, f64)>,
    /// x of the points where this line saturated: no latency there; a
    /// cross on the x axis marks each.
    pub saturated: Vec<f64>,
}

/// One chart of a multi-panel figure.
#[derive(Clone, Debug)]
pub struct Panel {
    /// Caption.
    pub label: String,
    /// X axis title.
    pub x_desc: String,
    /// Y axis title.
    pub y_desc: String,
    /// Its lines.
    pub series: Vec<Series>,
}

/// The panels of `fig`: one per setting, one line per scheme, bars from the
/// least to the largest sample, saturated load points as crosses.
pub fn panels(fig: Figure, o: &Options, points: &[Point]) -> Vec<Panel> {
    let x_desc = if fig.is_loaded() {
        "Effective applied load (flits/cycle/node)"
    } else {
        "Number of destinations"
    };
    settings(fig, o.quick)
        .iter()
        .map(|s| {
            let mine: Vec<&Point> = points
                .iter()
                .filter(|p| p.setting == s.label && p.samples > 0)
                .collect();
            let series = o
                .schemes
                .iter()
                .map(|&scheme| {
                    let pts: Vec<&&Point> = mine.iter().filter(|p| p.scheme == scheme).collect();
                    let ok = || pts.iter().filter(|p| !p.saturated);
                    Series {
                        name: legend(scheme).into(),
                        color: color(scheme),
                        points: ok().map(|p| (p.x, p.mean)).collect(),
                        spread: ok().map(|p| (p.x, p.min, p.max)).collect(),
                        saturated: pts.iter().filter(|p| p.saturated).map(|p| p.x).collect(),
                    }
                })
                .collect();
            Panel {
                label: s.label.clone(),
                x_desc: x_desc.into(),
                y_desc: "Multicast latency (cycles)".into(),
                series,
            }
        })
        .collect()
}

/// What the bars of `fig`'s plots show.
pub fn caption(fig: Figure, o: &Options) -> String {
    let samples = if fig.is_loaded() {
        format!("{} topologies", o.topologies)
    } else {
        format!("{} topologies x {} destination sets", o.topologies, o.sets)
    };
    let mut c = format!("Points: mean; bars: least to largest over {samples}.");
    if o.host_overhead != crate::ni::HostOverhead::PerMessage {
        c.push_str(&format!(
            " Host overheads t_hs, t_hr paid {}.",
            o.host_overhead.name().replace('-', " ")
        ));
    }
    if fig.is_loaded() {
        c.push_str(" x on the axis: saturated (fewer than 95% of the multicasts finished, latency or backlog growing, sources refusing, or a window under 5 mean latencies).");
    }
    c
}

/// The file extensions plots are written in: SVG and PNG with the `plots`
/// feature, none without.
pub const PLOT_FORMATS: &[&str] = if cfg!(feature = "plots") {
    &["svg", "png"]
} else {
    &[]
};

/// Writes `panels` as `base.svg` and `base.png` (with the `plots` feature;
/// nothing without) and returns the files written.
pub fn write_plots(
    title: &str,
    caption: &str,
    panels: &[Panel],
    base: &Path,
) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for ext in PLOT_FORMATS {
        let p = base.with_extension(ext);
        #[cfg(feature = "plots")]
        draw::plot_panels(title, caption, panels, &p)?;
        #[cfg(not(feature = "plots"))]
        let _ = (title, caption, panels);
        out.push(p);
    }
    Ok(out)
}

/// How many decimals tick labels need for ticks about `span / 10` apart,
/// so that neighbouring labels differ (0.005 steps: 3 decimals, not 2).
pub fn tick_decimals(span: f64) -> usize {
    if !(span.is_finite() && span > 0.0) {
        return 0;
    }
    let step = span / 10.0;
    // plotters picks steps of 1, 2 or 5 times a power of ten no larger.
    let mag = step.log10().floor();
    let lead = step / 10f64.powf(mag);
    let nice = if lead >= 5.0 {
        5.0
    } else if lead >= 2.0 {
        2.0
    } else {
        1.0
    } * 10f64.powf(mag);
    let mut d = 0;
    while d < 9 {
        let scaled = nice * 10f64.powi(d as i32);
        if (scaled - scaled.round()).abs() < 1e-6 {
            break;
        }
        d += 1;
    }
    d
}

#[cfg(feature = "plots")]
pub use draw::plot_panels;

/// Draws `points` of `fig` into `path` (SVG or PNG by its extension).
#[cfg(feature = "plots")]
pub fn plot(fig: Figure, o: &Options, points: &[Point], path: &Path) -> Result<()> {
    draw::plot_panels(fig.title(), &caption(fig, o), &panels(fig, o, points), path)
}

#[cfg(feature = "plots")]
mod draw {
    use super::{Panel, tick_decimals};
    use crate::{Error, Result};
    use plotters::coord::Shift;
    use plotters::prelude::*;
    use std::path::Path;
    use std::sync::Once;

    static FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
    static REGISTER: Once = Once::new();

    const PANEL_W: u32 = 560;
    const PANEL_H: u32 = 380;
    const TITLE_H: u32 = 34;
    const LEGEND_ROW_H: u32 = 20;

    /// Legend entries: every line's name and colour, once.
    fn entries(panels: &[Panel]) -> Vec<(String, (u8, u8, u8))> {
        let mut names: Vec<(String, (u8, u8, u8))> = Vec::new();
        for s in panels.iter().flat_map(|p| &p.series) {
            if !names.iter().any(|(n, _)| *n == s.name) {
                names.push((s.name.clone(), s.color));
            }
        }
        names
    }

    /// Draws panels (two per row) into `path` (SVG or PNG by its
    /// extension) under a title, a legend strip and a caption. Every plot
    /// of the crate goes through here.
    pub fn plot_panels(title: &str, caption: &str, panels: &[Panel], path: &Path) -> Result<()> {
        REGISTER.call_once(|| {
            // The bytes are the font shipped with the crate: it parses.
            let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
        });
        let cols = if panels.len() == 1 { 1 } else { 2 };
        let rows = panels.len().div_ceil(cols).max(1);
        let width = PANEL_W * cols as u32;
        let names = entries(panels);
        // Entries laid out left to right, about 7 px a character.
        let mut legend_rows = 1;
        let mut x = 10;
        for (n, _) in &names {
            let w = 40 + 7 * n.chars().count() as u32;
            if x + w > width - 10 {
                legend_rows += 1;
                x = 10;
            }
            x += w;
        }
        let caption_rows = (7 * caption.chars().count() as u32)
            .div_ceil(width - 20)
            .max(1);
        let head = TITLE_H + LEGEND_ROW_H * (legend_rows + caption_rows) + 8;
        let size = (width, head + PANEL_H * rows as u32);
        let fail = |e: String| Error::Config {
            field: "plot",
            value: path.display().to_string(),
            reason: e,
        };
        let layout = Layout {
            title,
            caption,
            head,
            grid: (rows, cols),
        };
        match path.extension().and_then(|e| e.to_str()) {
            Some("svg") => {
                let root = SVGBackend::new(path, size).into_drawing_area();
                draw(root, &layout, panels).map_err(fail)
            }
            Some("png") => {
                let root = BitMapBackend::new(path, size).into_drawing_area();
                draw(root, &layout, panels).map_err(fail)
            }
            _ => Err(fail("plots are .svg or .png files".into())),
        }
    }

    struct Layout<'a> {
        title: &'a str,
        caption: &'a str,
        head: u32,
        grid: (usize, usize),
    }

    fn draw<DB: DrawingBackend>(
        root: DrawingArea<DB, Shift>,
        l: &Layout<'_>,
        panels: &[Panel],
    ) -> std::result::Result<(), String> {
        let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
        root.fill(&WHITE).map_err(e)?;
        let (head, body) = root.split_vertically(l.head);
        let (width, _) = head.dim_in_pixel();
        head.draw(&Text::new(
            l.title.to_string(),
            (10, 8),
            ("sans-serif", 20).into_font(),
        ))
        .map_err(e)?;
        // The legend strip.
        let names = entries(panels);
        let font = ("sans-serif", 13).into_font();
        let (mut x, mut y) = (10i32, TITLE_H as i32);
        for (n, c) in &names {
            let w = 40 + 7 * n.chars().count() as i32;
            if x + w > width as i32 - 10 {
                x = 10;
                y += LEGEND_ROW_H as i32;
            }
            let c = RGBColor(c.0, c.1, c.2);
            head.draw(&PathElement::new(
                vec![(x, y + 8), (x + 24, y + 8)],
                c.stroke_width(2),
            ))
            .map_err(e)?;
            head.draw(&Circle::new((x + 12, y + 8), 3, c.filled()))
                .map_err(e)?;
            head.draw(&Text::new(n.clone(), (x + 30, y), font.clone()))
                .map_err(e)?;
            x += w;
        }
        // The caption, wrapped at about 7 px a character.
        let per_line = ((width as usize).saturating_sub(20) / 7).max(20);
        let mut line = String::new();
        let mut y = y + LEGEND_ROW_H as i32;
        let mut lines = Vec::new();
        for word in l.caption.split_whitespace() {
            if !line.is_empty() && line.len() + 1 + word.len() > per_line {
                lines.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        lines.push(line);
        for t in lines {
            head.draw(&Text::new(t, (10, y), font.clone())).map_err(e)?;
            y += LEGEND_ROW_H as i32;
        }
        let areas = body.split_evenly(l.grid);
        for (p, area) in panels.iter().zip(areas.iter()) {
            draw_panel(p, area)?;
        }
        root.present().map_err(e)?;
        Ok(())
    }

    fn draw_panel<DB: DrawingBackend>(
        p: &Panel,
        area: &DrawingArea<DB, Shift>,
    ) -> std::result::Result<(), String> {
        let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
        let pts = p.series.iter().flat_map(|s| s.points.iter());
        let sat = p.series.iter().flat_map(|s| s.saturated.iter().copied());
        let x_max = pts.clone().map(|q| q.0).chain(sat).fold(0.0, f64::max);
        let x_max = if x_max > 0.0 { x_max * 1.05 } else { 1.0 };
        let tops = p.series.iter().flat_map(|s| s.spread.iter().map(|b| b.2));
        let y_max = pts.map(|q| q.1).chain(tops).fold(0.0, f64::max);
        let y_max = if y_max > 0.0 { y_max * 1.1 } else { 1.0 };
        let mut chart = ChartBuilder::on(area)
            .caption(&p.label, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..x_max, 0.0..y_max)
            .map_err(e)?;
        let (xd, yd) = (tick_decimals(x_max), tick_decimals(y_max));
        chart
            .configure_mesh()
            .x_desc(p.x_desc.as_str())
            .y_desc(p.y_desc.as_str())
            .label_style(("sans-serif", 12))
            .light_line_style(WHITE)
            .bold_line_style(RGBColor(225, 225, 225))
            .y_label_formatter(&|y| format!("{y:.yd$}"))
            .x_label_formatter(&|x| format!("{x:.xd$}"))
            .draw()
            .map_err(e)?;
        for (k, s) in p.series.iter().enumerate() {
            let c = RGBColor(s.color.0, s.color.1, s.color.2);
            if !s.points.is_empty() {
                chart
                    .draw_series(LineSeries::new(s.points.clone(), c.stroke_width(2)))
                    .map_err(e)?;
                chart
                    .draw_series(s.points.iter().map(|&q| Circle::new(q, 3, c.filled())))
                    .map_err(e)?;
                chart
                    .draw_series(
                        s.spread
                            .iter()
                            .map(|&(x, lo, hi)| PathElement::new(vec![(x, lo), (x, hi)], c)),
                    )
                    .map_err(e)?;
            }
            chart
                .draw_series(
                    s.saturated
                        .iter()
                        // Lines that saturate at the same load stack up.
                        .map(|&x| {
                            Cross::new((x, y_max * (0.02 + 0.035 * k as f64)), 5, c.stroke_width(2))
                        }),
                )
                .map_err(e)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A saturated point is no latency: it leaves the line and its bars and
    /// is kept as a cross.
    #[test]
    fn saturated_points_leave_the_line_and_are_marked() {
        let o = Options::new(true);
        let s = &settings(Figure::Fig26, true)[0];
        let pt = |x: f64, saturated: bool| Point {
            setting: s.label.clone(),
            scheme: o.schemes[0],
            x,
            samples: 2,
            mean: 100.0 * x,
            min: 90.0 * x,
            max: 110.0 * x,
            std: 1.0,
            phases: 1.0,
            saturated,
        };
        let points = [pt(0.01, false), pt(0.02, false), pt(0.03, true)];
        let p = &panels(Figure::Fig26, &o, &points)[0];
        let line = &p.series[0];
        assert_eq!(line.points, vec![(0.01, 1.0), (0.02, 2.0)]);
        assert_eq!(line.spread.len(), 2);
        assert_eq!(line.saturated, vec![0.03]);
        assert!(p.series[1].points.is_empty() && p.series[1].saturated.is_empty());
        let c = caption(Figure::Fig26, &o);
        assert!(
            c.contains("bars: least to largest over 2 topologies"),
            "{c}"
        );
        assert!(c.contains("saturated"), "{c}");
        assert!(!caption(Figure::Fig19, &o).contains("saturated"));
    }

    /// Plots are written with the `plots` feature, and only then.
    #[test]
    fn plots_are_written_in_each_format_the_build_has() {
        let dir = std::env::temp_dir().join(format!("wormcast-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let panel = Panel {
            label: "p".into(),
            x_desc: "x".into(),
            y_desc: "y".into(),
            series: vec![Series {
                name: "a".into(),
                points: vec![(0.0, 1.0), (1.0, 2.0)],
                saturated: vec![1.5],
                ..Series::default()
            }],
        };
        let files = write_plots("t", "c", &[panel], &dir.join("one")).unwrap();
        assert_eq!(files.len(), PLOT_FORMATS.len());
        for f in &files {
            assert!(
                std::fs::metadata(f).unwrap().len() > 1000,
                "{}",
                f.display()
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn tick_labels_have_the_decimals_their_steps_need() {
        // Loads up to 0.05: ticks 0.005 apart need three decimals.
        assert_eq!(tick_decimals(0.05), 3);
        assert_eq!(tick_decimals(0.2), 2);
        assert_eq!(tick_decimals(0.15), 2);
        assert_eq!(tick_decimals(1.0), 1);
        assert_eq!(tick_decimals(40.0), 0);
        assert_eq!(tick_decimals(60_000.0), 0);
        assert_eq!(tick_decimals(0.0), 0);
        // Neighbouring labels at that precision differ.
        for span in [0.012, 0.05, 0.144, 0.3, 3.0, 31.0, 2e5] {
            let d = tick_decimals(span);
            let step = span / 10.0;
            let a = format!("{:.d$}", 0.0);
            let b = format!("{:.d$}", step);
            assert_ne!(a, b, "span {span}");
        }
    }
}
