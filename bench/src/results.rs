//! Accumulating per-round figures and turning them into medians and ratios.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::affinity::Placement;
use crate::stats::median;

/// Every value measured, per (placement, target, metric), in round order.
#[derive(Debug, Clone, Default)]
pub struct Samples {
    map: BTreeMap<(Placement, String, String), Vec<f64>>,
}

impl Samples {
    /// Records one round's value.
    pub fn push(&mut self, placement: Placement, target: &str, metric: &str, value: f64) {
        self.map
            .entry((placement, target.to_owned(), metric.to_owned()))
            .or_default()
            .push(value);
    }

    /// The values of one cell.
    pub fn get(&self, placement: Placement, target: &str, metric: &str) -> Option<&[f64]> {
        self.map
            .get(&(placement, target.to_owned(), metric.to_owned()))
            .map(Vec::as_slice)
    }

    /// Every cell, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&(Placement, String, String), &Vec<f64>)> {
        self.map.iter()
    }
}

/// One figure of one target in one placement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cell {
    /// Placement.
    pub placement: Placement,
    /// Target name.
    pub target: String,
    /// Metric id.
    pub metric: String,
    /// The value of each round.
    pub rounds: Vec<f64>,
    /// Median over the rounds.
    pub median: f64,
    /// `median / floor's median` (same placement and metric).
    pub vs_floor: Option<f64>,
    /// For SDK targets: `median / raw script's median`.
    pub vs_raw: Option<f64>,
}

/// Builds the cells: medians, then ratios to the floor and to each SDK
/// target's raw baseline (`raw_of(target)`).
pub fn cells(samples: &Samples, floor: &str, raw_of: impl Fn(&str) -> Option<String>) -> Vec<Cell> {
    let med = |p: Placement, t: &str, m: &str| samples.get(p, t, m).and_then(median);
    let ratio = |v: f64, base: Option<f64>| base.filter(|b| *b != 0.0).map(|b| v / b);
    samples
        .iter()
        .filter_map(|((p, t, m), values)| {
            let median = median(values)?;
            Some(Cell {
                placement: *p,
                target: t.clone(),
                metric: m.clone(),
                rounds: values.clone(),
                median,
                vs_floor: ratio(median, med(*p, floor, m)),
                vs_raw: raw_of(t).and_then(|raw| ratio(median, med(*p, &raw, m))),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_ratios() {
        let mut s = Samples::default();
        for v in [1.0, 3.0, 2.0] {
            s.push(Placement::Split, "floor", "m", v);
        }
        for v in [4.0, 4.0, 5.0] {
            s.push(Placement::Split, "sdk", "m", v);
        }
        s.push(Placement::Split, "raw", "m", 8.0);
        let cells = cells(&s, "floor", |t| (t == "sdk").then(|| "raw".to_owned()));
        let sdk = cells.iter().find(|c| c.target == "sdk").unwrap();
        assert_eq!(sdk.median, 4.0);
        assert_eq!(sdk.vs_floor, Some(2.0));
        assert_eq!(sdk.vs_raw, Some(0.5));
        let floor = cells.iter().find(|c| c.target == "floor").unwrap();
        assert_eq!(floor.vs_floor, Some(1.0));
        assert_eq!(floor.vs_raw, None);
    }
}
