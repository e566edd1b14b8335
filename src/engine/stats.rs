//! One statistics module for every router model: latencies under named
//! definitions, percentiles, throughput, and batch means with a 95%
//! confidence interval and the stop rule of seed 002 section 5 (run until
//! the half-width is under 5% of the mean).
//!
//! Definitions, per copy (a unicast packet is a message of one copy):
//! - **latency**: from the message's creation (the cycle the source asked
//!   to send it) to the cycle its tail reached the destination, source
//!   queueing and start-up included;
//! - **network latency**: from the cycle its first flit entered the
//!   network at the source to the tail's arrival (start-up and source
//!   queueing excluded; seed 002 section 5 calls this "network latency").
//!
//! Only messages created inside the measurement window count. The window
//! is cut into batches by creation cycle; the batch means of the latency
//! give the confidence interval (Student's t with batches - 1 degrees of
//! freedom).

use crate::{Error, Result};
use serde::Serialize;

/// The latency whose batch means give a run's confidence interval and stop
/// rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Metric {
    /// Per copy, creation to tail.
    #[default]
    Latency,
    /// Per copy, first flit in the network to tail (refused for hosts
    /// with network interfaces, whose messages record no injection).
    Network,
}

impl Metric {
    /// Parses `latency` or `network-latency`.
    pub fn parse(s: &str) -> Result<Metric> {
        match s {
            "latency" => Ok(Metric::Latency),
            "network-latency" => Ok(Metric::Network),
            _ => Err(Error::Config {
                field: "stop_metric",
                value: s.into(),
                reason: "expected latency or network-latency".into(),
            }),
        }
    }

    /// The name [`parse`](Self::parse) takes.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Latency => "latency",
            Metric::Network => "network-latency",
        }
    }
}

/// One copy delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// The message, as the harness numbered it.
    pub msg: u64,
    /// Source node.
    pub src: u32,
    /// Destination node.
    pub node: u32,
    /// Cycle the message was created.
    pub created: u64,
    /// Cycle its first flit entered the network (`None` where the router
    /// model does not record it).
    pub injected: Option<u64>,
    /// Cycle the tail reached the destination.
    pub arrived: u64,
    /// Flits this destination received.
    pub flits: u32,
}

/// Percentiles and extremes of a set of latencies.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Samples.
    pub count: u64,
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: u64,
    /// 99th percentile.
    pub p99: u64,
    /// Largest.
    pub max: u64,
}

impl Summary {
    /// The summary of `v`. The percentiles follow the nearest-rank rule:
    /// the `p`th is the `ceil(p n)`th smallest sample. The samples are
    /// counted by value ([`Samples`]), never sorted.
    pub fn of(v: Vec<u64>) -> Summary {
        let mut s = Samples::default();
        for x in v {
            s.push(x);
        }
        s.summary()
    }
}

/// Latencies below this are counted in a table indexed by the value (grown
/// to the largest seen, in powers of two: 8 MB at most); larger ones, met
/// only deep in saturation, in an ordered map.
const DENSE: u64 = 1 << 20;

/// Latency samples kept as counts by value: the count, mean, percentiles
/// and largest of a [`Summary`] are exact, and the memory grows with the
/// largest latency rather than with the samples. A run's samples grow with
/// its length: kept one by one they took about 60 bytes a delivered
/// message, so a long run at a high load (a 32x32 mesh delivers 35
/// messages a cycle) would fill the machine.
#[derive(Clone, Debug, Default)]
pub struct Samples {
    counts: Vec<u64>,
    wide: std::collections::BTreeMap<u64, u64>,
    n: u64,
    sum: u128,
    max: u64,
}

impl Samples {
    /// Counts one sample.
    #[inline(always)]
    pub fn push(&mut self, v: u64) {
        match usize::try_from(v).ok().and_then(|i| self.counts.get_mut(i)) {
            Some(c) => *c += 1,
            None => self.push_rare(v),
        }
        self.n += 1;
        self.sum += v as u128;
        self.max = self.max.max(v);
    }

    /// Counts a sample past the dense counts as they stand: it grows them
    /// (a sample under [`DENSE`]) or goes into the sparse map.
    #[cold]
    #[inline(never)]
    fn push_rare(&mut self, v: u64) {
        if v < DENSE {
            let i = v as usize;
            self.counts
                .resize((i + 1).next_power_of_two().min(DENSE as usize), 0);
            self.counts[i] += 1;
        } else {
            *self.wide.entry(v).or_insert(0) += 1;
        }
    }

    /// Samples counted.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Their summary: the same as [`Summary::of`] the samples.
    pub fn summary(&self) -> Summary {
        let n = self.n;
        if n == 0 {
            return Summary::default();
        }
        let rank = |q: f64| ((q * n as f64).ceil() as u64).clamp(1, n) - 1;
        let (r50, r99) = (rank(0.5), rank(0.99));
        let (mut seen, mut p50, mut p99) = (0u64, None, None);
        let dense = self.counts.iter().enumerate().map(|(x, &c)| (x as u64, c));
        let wide = self.wide.iter().map(|(&x, &c)| (x, c));
        for (x, c) in dense.chain(wide) {
            seen += c;
            if p50.is_none() && seen > r50 {
                p50 = Some(x);
            }
            if seen > r99 {
                p99 = Some(x);
                break;
            }
        }
        Summary {
            count: n,
            mean: self.sum as f64 / n as f64,
            p50: p50.unwrap_or(self.max),
            p99: p99.unwrap_or(self.max),
            max: self.max,
        }
    }
}

/// The confidence interval of the mean latency from batch means.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Interval {
    /// Batches with at least one sample.
    pub batches: u32,
    /// Mean of the batch means.
    pub mean: f64,
    /// Half-width of the 95% interval.
    pub half_width: f64,
    /// Half-width over the mean.
    pub relative: f64,
}

/// Two-sided 95% quantiles of Student's t for 1 to 30 degrees of freedom.
const T95: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// Student's t quantile for `df` degrees of freedom (1.96 past 30).
pub fn t95(df: usize) -> f64 {
    if df == 0 {
        f64::INFINITY
    } else {
        T95.get(df - 1).copied().unwrap_or(1.96)
    }
}

/// Collects the copies of messages created in the window.
#[derive(Clone, Debug)]
pub struct Collector {
    /// First cycle of the window.
    pub from: u64,
    batch_len: u64,
    metric: Metric,
    latency: Samples,
    network: Samples,
    batch_sum: Vec<(f64, u64)>,
    flits: u64,
    copies: u64,
}

impl Collector {
    /// A collector for messages created from cycle `from`, in batches of
    /// `batch_len` cycles, whose batch means are of `metric`.
    pub fn new(from: u64, batch_len: u64, metric: Metric) -> Collector {
        Collector {
            from,
            batch_len: batch_len.max(1),
            metric,
            latency: Samples::default(),
            network: Samples::default(),
            batch_sum: Vec::new(),
            flits: 0,
            copies: 0,
        }
    }

    /// Counts one copy (ignored when its message predates the window).
    pub fn add(&mut self, a: &Arrival) {
        if a.created < self.from {
            return;
        }
        let lat = a.arrived - a.created;
        self.latency.push(lat);
        let net = a.injected.map(|i| a.arrived - i);
        if let Some(n) = net {
            self.network.push(n);
        }
        let sample = match (self.metric, net) {
            (Metric::Network, Some(n)) => n,
            _ => lat,
        };
        let b = ((a.created - self.from) / self.batch_len) as usize;
        if self.batch_sum.len() <= b {
            self.batch_sum.resize(b + 1, (0.0, 0));
        }
        self.batch_sum[b].0 += sample as f64;
        self.batch_sum[b].1 += 1;
        self.copies += 1;
        self.flits += a.flits as u64;
    }

    /// Copies counted.
    pub fn copies(&self) -> u64 {
        self.copies
    }

    /// Flits of the copies counted.
    pub fn flits(&self) -> u64 {
        self.flits
    }

    /// The interval of the metric's batch means over the first `batches` batches
    /// (those whose messages have had time to arrive).
    pub fn interval(&self, batches: usize) -> Interval {
        let means = self.batch_means(batches);
        let n = means.len();
        if n == 0 {
            // No sample: no interval, and no stop rule can be met.
            return Interval {
                half_width: f64::INFINITY,
                relative: f64::INFINITY,
                ..Interval::default()
            };
        }
        let mean = means.iter().sum::<f64>() / n as f64;
        let var = if n > 1 {
            means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            f64::INFINITY
        };
        let half_width = t95(n - 1) * (var / n as f64).sqrt();
        Interval {
            batches: n as u32,
            mean,
            half_width,
            relative: if mean > 0.0 {
                half_width / mean
            } else {
                f64::INFINITY
            },
        }
    }

    /// The means of the first `batches` batches that hold samples.
    fn batch_means(&self, batches: usize) -> Vec<f64> {
        self.batch_sum
            .iter()
            .take(batches)
            .filter(|b| b.1 > 0)
            .map(|b| b.0 / b.1 as f64)
            .collect()
    }

    /// True when the batch means of the first `batches` batches keep
    /// growing: with at least 4 batches holding samples, the mean of the
    /// last quarter of them is more than twice the mean of the first
    /// quarter (a queue that grows for the whole window).
    pub fn growing(&self, batches: usize) -> bool {
        let means = self.batch_means(batches);
        let n = means.len();
        if n < 4 {
            return false;
        }
        let q = n / 4;
        let avg = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        avg(&means[n - q..]) > 2.0 * avg(&means[..q])
    }

    /// Latency and network latency summaries.
    pub fn summaries(&self) -> (Summary, Option<Summary>) {
        let net = (!self.network.is_empty()).then(|| self.network.summary());
        (self.latency.summary(), net)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrival(created: u64, arrived: u64) -> Arrival {
        Arrival {
            msg: 0,
            src: 0,
            node: 1,
            created,
            injected: Some(created + 1),
            arrived,
            flits: 4,
        }
    }

    #[test]
    fn percentiles_follow_the_nearest_rank_rule() {
        let s = Summary::of((1..=100).collect());
        assert_eq!((s.count, s.p50, s.p99, s.max), (100, 50, 99, 100));
        assert_eq!(s.mean, 50.5);
        assert_eq!(Summary::of(vec![7]).p99, 7);
        assert_eq!(Summary::of(vec![]), Summary::default());
        assert_eq!(Samples::default().summary(), Summary::default());
        assert!(Samples::default().is_empty());
    }

    /// The nearest-rank summary of `v` by sorting it: what counting by
    /// value must give.
    fn sorted_summary(v: &[u64]) -> Summary {
        let mut sorted = v.to_vec();
        sorted.sort_unstable();
        let n = sorted.len();
        let at = |q: f64| sorted[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
        Summary {
            count: n as u64,
            mean: sorted.iter().sum::<u64>() as f64 / n as f64,
            p50: at(0.5),
            p99: at(0.99),
            max: sorted[n - 1],
        }
    }

    proptest::proptest! {
        /// Counted by value, the samples of any spread give the count,
        /// mean (to the bit), percentiles and largest of the sorted
        /// samples by the nearest-rank rule.
        #[test]
        fn counting_gives_the_sorted_ranks(
            v in proptest::collection::vec(
                proptest::prop_oneof![0u64..50, 0u64..5_000, 0u64..1 << 50],
                1..300,
            )
        ) {
            proptest::prop_assert_eq!(Summary::of(v.clone()), sorted_summary(&v));
        }

        /// Samples on both sides of the dense table's end are counted in
        /// order.
        #[test]
        fn samples_past_the_dense_table_count_in_order(
            v in proptest::collection::vec(
                proptest::prop_oneof![0u64..8, DENSE - 4..DENSE + 4, 0u64..u32::MAX as u64],
                1..400,
            )
        ) {
            let mut counted = Samples::default();
            for &x in &v {
                counted.push(x);
            }
            proptest::prop_assert_eq!(counted.len(), v.len() as u64);
            proptest::prop_assert_eq!(counted.summary(), sorted_summary(&v));
        }
    }

    #[test]
    fn batches_give_the_interval_and_old_messages_are_left_out() {
        let mut c = Collector::new(100, 10, Metric::Latency);
        c.add(&arrival(50, 60)); // before the window
        for b in 0..10u64 {
            // Batch b: latencies 10 + b (mean of means 14.5).
            c.add(&arrival(100 + 10 * b, 100 + 10 * b + 10 + b));
        }
        assert_eq!(c.copies(), 10);
        assert_eq!(c.flits(), 40);
        let i = c.interval(10);
        assert_eq!(i.batches, 10);
        assert!((i.mean - 14.5).abs() < 1e-9);
        // Sample sd of 10..19 is 3.0277; t(9) = 2.262.
        assert!(
            (i.half_width - 2.262 * 3.0277 / 10f64.sqrt()).abs() < 1e-3,
            "{i:?}"
        );
        let (lat, net) = c.summaries();
        assert_eq!((lat.p50, lat.max), (14, 19));
        assert_eq!(net.unwrap().max, 18);
        // One batch alone has no interval, nor has an empty collector.
        assert_eq!(c.interval(1).half_width, f64::INFINITY);
        assert!(!c.growing(10), "14.5 +- 4.5 is not growing");
        let mut g = Collector::new(0, 10, Metric::Latency);
        for b in 0..8u64 {
            // 10, 20, ... 80: the last quarter (75) over twice the first (15).
            g.add(&arrival(10 * b, 10 * b + 10 * (b + 1)));
        }
        assert!(g.growing(8) && !g.growing(3));
        let empty = Collector::new(0, 10, Metric::Latency).interval(10);
        assert_eq!((empty.batches, empty.relative), (0, f64::INFINITY));
    }
}
