//! Prometheus text exposition, hand-written: a few counters and two
//! histograms do not justify a metrics framework.

pub mod process;

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Upper bounds (seconds) shared by both histograms: renders and verifier
/// calls both live between a millisecond and the 30 s deadline.
const BUCKETS: [f64; 12] = [
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0, 30.0,
];

#[derive(Default)]
pub struct Histogram {
    counts: [AtomicU64; BUCKETS.len()],
    count: AtomicU64,
    /// Sum in microseconds (integer so it can be atomic).
    sum_us: AtomicU64,
}

impl Histogram {
    pub fn observe(&self, d: Duration) {
        let s = d.as_secs_f64();
        for (bound, count) in BUCKETS.iter().zip(&self.counts) {
            if s <= *bound {
                count.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum_us
            .fetch_add(d.as_micros() as u64, Ordering::Relaxed);
    }

    fn write(&self, out: &mut String, name: &str, help: &str) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} histogram");
        for (bound, count) in BUCKETS.iter().zip(&self.counts) {
            let _ = writeln!(
                out,
                "{name}_bucket{{le=\"{bound}\"}} {}",
                count.load(Ordering::Relaxed)
            );
        }
        let count = self.count.load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {count}");
        let sum = self.sum_us.load(Ordering::Relaxed) as f64 / 1e6;
        let _ = writeln!(out, "{name}_sum {sum}\n{name}_count {count}");
    }
}

/// Every metric the server exports.
#[derive(Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<(String, u16), u64>>,
    pub render_seconds: Histogram,
    pub verifier_seconds: Histogram,
    pub sheets: AtomicU64,
    pub cache_hits: AtomicU64,
    pub cache_misses: AtomicU64,
    pub renders_abandoned: AtomicU64,
    /// Renders delivered whose usage the verifier refused at report time
    /// (kept as uncharged records, see [`crate::auth::reporter`]).
    pub usage_uncharged: AtomicU64,
}

/// The verifier's ledger figures, read at scrape time (nodes serving the
/// verification service).
#[derive(Debug, Clone, Default)]
pub struct LedgerGauges {
    /// Uncharged renders per token id, for the tokens with the most
    /// ([`crate::verify::admin::UNCHARGED_SERIES`] at most).
    pub uncharged: Vec<(String, u64)>,
    /// Uncharged renders over every token.
    pub uncharged_total: u64,
}

/// Values read at scrape time from their owners.
pub struct Gauges {
    /// Renders recorded in the outbox, not yet confirmed by the verifier.
    pub outbox_depth: u64,
    pub renders_running: u64,
    pub renders_waiting: u64,
    /// Render worker processes started to replace one that was stopped at
    /// a deadline or died (a counter kept by the renderer).
    pub workers_replaced: u64,
    /// Uncharged renders in the outbox, not yet recorded by the verifier.
    pub uncharged_unreported: u64,
    /// Uncharged renders the verifier could not record (unknown token).
    pub uncharged_unrecorded: u64,
    /// Units of quota leases this node holds unspent (docs/leases.md).
    pub leased_units: u64,
    /// The server process's own figures (`None` off Linux).
    pub process: Option<process::ProcessStats>,
    /// `None` without the verification service (or when its ledger could
    /// not be read: the scrape still answers).
    pub ledger: Option<LedgerGauges>,
}

impl LedgerGauges {
    fn write(&self, out: &mut String) {
        let name = "labelpress_ledger_uncharged_renders";
        let _ = writeln!(
            out,
            "# HELP {name} Renders delivered but refused at report time, recorded on the token (the tokens with the most).\n\
             # TYPE {name} gauge"
        );
        for (id, n) in &self.uncharged {
            let _ = writeln!(out, "{name}{{token_id=\"{}\"}} {n}", label_value(id));
        }
        let name = "labelpress_ledger_uncharged_renders_all";
        let _ = writeln!(
            out,
            "# HELP {name} Renders delivered but refused at report time, recorded on any token.\n\
             # TYPE {name} gauge\n{name} {}",
            self.uncharged_total
        );
    }
}

/// A label value escaped for the text format: `\` and `"` (a newline
/// cannot occur in a route pattern or a version).
fn label_value(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

impl Metrics {
    pub fn request(&self, route: &str, status: u16) {
        if let Ok(mut map) = self.requests.lock() {
            *map.entry((route.to_string(), status)).or_default() += 1;
        }
    }

    pub fn render(&self, gauges: &Gauges) -> String {
        let gauges_process = gauges.process.as_ref();
        let ledger = gauges.ledger.clone();
        let mut out = String::new();
        out.push_str(
            "# HELP labelpress_requests_total Requests answered, by route pattern and status.\n\
             # TYPE labelpress_requests_total counter\n",
        );
        if let Ok(map) = self.requests.lock() {
            for ((route, status), n) in map.iter() {
                let route = label_value(route);
                let _ = writeln!(
                    out,
                    "labelpress_requests_total{{route=\"{route}\",status=\"{status}\"}} {n}"
                );
            }
        }
        self.render_seconds.write(
            &mut out,
            "labelpress_render_duration_seconds",
            "Validated request to finished PDF (queue wait excluded).",
        );
        self.verifier_seconds.write(
            &mut out,
            "labelpress_verifier_duration_seconds",
            "Calls to the token verifier (in-process or remote).",
        );
        let counters = [
            ("labelpress_sheets_rendered_total", "Sheets in successfully rendered PDFs and PNGs (one per PNG).", &self.sheets),
            ("labelpress_auth_cache_hits_total", "Render requests admitted from the token cache.", &self.cache_hits),
            ("labelpress_auth_cache_misses_total", "Render requests that needed a synchronous verification.", &self.cache_misses),
            ("labelpress_renders_abandoned_total", "Renders answered with API-503 at the deadline (their worker process is stopped; with thread isolation they finish in the background).", &self.renders_abandoned),
            ("labelpress_usage_uncharged_total", "Renders delivered whose usage the verifier refused at report time (revoked, banned, expired or over the balance meanwhile), recorded by the verifier as uncharged (or kept on this node when it cannot be).", &self.usage_uncharged),
        ];
        let counters = counters
            .into_iter()
            .map(|(name, help, value)| (name, help, value.load(Ordering::Relaxed)))
            .chain([(
                "labelpress_render_workers_replaced_total",
                "Render worker processes replaced after a deadline or a crash.",
                gauges.workers_replaced,
            )]);
        for (name, help, value) in counters {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {value}"
            );
        }
        let gauges = [
            (
                "labelpress_outbox_depth",
                "Charged renders not yet confirmed by the verifier.",
                gauges.outbox_depth,
            ),
            (
                "labelpress_leased_units",
                "Quota lease units this node holds, paid for and not yet spent or given back.",
                gauges.leased_units,
            ),
            (
                "labelpress_renders_running",
                "Renders holding a slot.",
                gauges.renders_running,
            ),
            (
                "labelpress_renders_waiting",
                "Renders waiting for a slot.",
                gauges.renders_waiting,
            ),
            (
                "labelpress_usage_uncharged_unreported",
                "Uncharged renders not yet recorded by the verifier.",
                gauges.uncharged_unreported,
            ),
            (
                "labelpress_usage_uncharged_unrecorded",
                "Uncharged renders the verifier could not record (unknown token), kept on this node.",
                gauges.uncharged_unrecorded,
            ),
        ];
        for (name, help, value) in gauges {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {value}"
            );
        }
        let build = crate::build_info::BUILD;
        let _ = writeln!(
            out,
            "# HELP labelpress_build_info The running build: its version and Typst's; always 1.\n\
             # TYPE labelpress_build_info gauge\n\
             labelpress_build_info{{version=\"{}\",typst=\"{}\"}} 1",
            label_value(build.version),
            label_value(build.typst)
        );
        if let Some(process) = gauges_process {
            process.write(&mut out);
        }
        if let Some(ledger) = &ledger {
            ledger.write(&mut out);
        }
        out
    }
}
