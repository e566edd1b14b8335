//! Plots of the experiments (plotters): one panel per setting, latency
//! against the number of destinations or the effective applied load, one
//! line per scheme with the least-to-largest spread as bars. Text is drawn
//! with the DejaVu Sans font embedded in the crate (assets/), so PNGs need
//! no system fonts.

use super::{Figure, Options, Point, settings};
use crate::mcast::PlanScheme;
use crate::{Error, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

static FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

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

fn color(s: PlanScheme) -> RGBColor {
    match s {
        PlanScheme::NiKbinomial => RGBColor(0, 90, 200),
        PlanScheme::PathLg => RGBColor(200, 30, 30),
        PlanScheme::PathG => RGBColor(230, 120, 0),
        PlanScheme::SsrLg => RGBColor(130, 0, 160),
        PlanScheme::SsrG => RGBColor(200, 0, 200),
        PlanScheme::Tree => RGBColor(0, 140, 60),
        PlanScheme::Binomial => RGBColor(90, 90, 90),
    }
}

/// Draws `points` of `fig` into `path` (SVG or PNG by its extension): one
/// panel per setting, one line per scheme with its least-to-largest spread.
pub fn plot(fig: Figure, o: &Options, points: &[Point], path: &Path) -> Result<()> {
    let x_desc = if fig.is_loaded() {
        "Effective applied load (flits/cycle/node)"
    } else {
        "Number of destinations"
    };
    let panels: Vec<Panel> = settings(fig, o.quick)
        .iter()
        .map(|s| {
            // Saturated load points are left out, as the paper's curves stop.
            let mine: Vec<&Point> = points
                .iter()
                .filter(|p| p.setting == s.label && !p.saturated && p.samples > 0)
                .collect();
            let series = o
                .schemes
                .iter()
                .map(|&scheme| {
                    let pts: Vec<&&Point> = mine.iter().filter(|p| p.scheme == scheme).collect();
                    let c = color(scheme);
                    Series {
                        name: legend(scheme).into(),
                        color: (c.0, c.1, c.2),
                        points: pts.iter().map(|p| (p.x, p.mean)).collect(),
                        spread: pts.iter().map(|p| (p.x, p.min, p.max)).collect(),
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
        .collect();
    plot_panels(fig.title(), &panels, path)
}

/// One line of a [`Panel`].
#[derive(Clone, Debug)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Colour.
    pub color: (u8, u8, u8),
    /// Points, in x order.
    pub points: Vec<(f64, f64)>,
    /// Optional bars from least to largest: `(x, min, max)`.
    pub spread: Vec<(f64, f64, f64)>,
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

/// Draws panels (two per row) into `path` (SVG or PNG by its extension),
/// with the embedded font. Every plot of the crate goes through here.
pub fn plot_panels(title: &str, panels: &[Panel], path: &Path) -> Result<()> {
    REGISTER.call_once(|| {
        // The bytes are the font shipped with the crate: it parses.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
    let cols = if panels.len() == 1 { 1 } else { 2 };
    let rows = panels.len().div_ceil(cols).max(1);
    let size = (560 * cols as u32, 40 + 380 * rows as u32);
    let fail = |e: String| Error::Config {
        field: "plot",
        value: path.display().to_string(),
        reason: e,
    };
    match path.extension().and_then(|e| e.to_str()) {
        Some("svg") => {
            let root = SVGBackend::new(path, size).into_drawing_area();
            draw_panels(root, title, panels, (rows, cols)).map_err(fail)
        }
        Some("png") => {
            let root = BitMapBackend::new(path, size).into_drawing_area();
            draw_panels(root, title, panels, (rows, cols)).map_err(fail)
        }
        _ => Err(fail("plots are .svg or .png files".into())),
    }
}

fn draw_panels<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    panels: &[Panel],
    grid: (usize, usize),
) -> std::result::Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let root = root.titled(title, ("sans-serif", 20)).map_err(e)?;
    let areas = root.split_evenly(grid);
    for (p, area) in panels.iter().zip(areas.iter()) {
        let pts = p.series.iter().flat_map(|s| s.points.iter());
        let x_max = pts.clone().map(|q| q.0).fold(0.0, f64::max);
        let x_max = if x_max > 0.0 { x_max } else { 1.0 };
        let tops = p.series.iter().flat_map(|s| s.spread.iter().map(|b| b.2));
        let y_max = pts.map(|q| q.1).chain(tops).fold(1.0, f64::max) * 1.1;
        let mut chart = ChartBuilder::on(area)
            .caption(&p.label, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..x_max * 1.05, 0.0..y_max)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc(p.x_desc.as_str())
            .y_desc(p.y_desc.as_str())
            .label_style(("sans-serif", 12))
            .light_line_style(WHITE)
            .bold_line_style(RGBColor(225, 225, 225))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .x_label_formatter(&|x| {
                if x.fract() == 0.0 {
                    format!("{x:.0}")
                } else {
                    format!("{x:.2}")
                }
            })
            .draw()
            .map_err(e)?;
        for s in &p.series {
            if s.points.is_empty() {
                continue;
            }
            let c = RGBColor(s.color.0, s.color.1, s.color.2);
            chart
                .draw_series(LineSeries::new(s.points.clone(), c.stroke_width(2)))
                .map_err(e)?
                .label(s.name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                });
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
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font(("sans-serif", 12))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(e)?;
    }
    root.present().map_err(e)?;
    Ok(())
}
