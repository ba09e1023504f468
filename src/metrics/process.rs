//! The server process's own figures for `/metrics`, under the names every
//! Prometheus client library uses (`process_*`), read from `/proc` at scrape
//! time. Linux only; elsewhere none are exported. The render worker
//! processes are separate processes and not counted here.

use std::fmt::Write;

/// One reading of the process's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcessStats {
    pub resident_memory_bytes: u64,
    pub virtual_memory_bytes: u64,
    /// User and system CPU time.
    pub cpu_seconds: f64,
    pub open_fds: u64,
    /// The soft limit on open files.
    pub max_fds: u64,
    /// Since the Unix epoch.
    pub start_time_seconds: f64,
    pub threads: u64,
}

impl ProcessStats {
    /// This process now; `None` off Linux or when `/proc` is unreadable.
    pub fn read() -> Option<ProcessStats> {
        #[cfg(target_os = "linux")]
        {
            linux::read()
        }
        #[cfg(not(target_os = "linux"))]
        None
    }

    /// Appends the figures in Prometheus text format.
    pub fn write(&self, out: &mut String) {
        let metrics: [(&str, &str, &str, f64); 7] = [
            (
                "process_resident_memory_bytes",
                "gauge",
                "Resident memory size in bytes.",
                self.resident_memory_bytes as f64,
            ),
            (
                "process_virtual_memory_bytes",
                "gauge",
                "Virtual memory size in bytes.",
                self.virtual_memory_bytes as f64,
            ),
            (
                "process_cpu_seconds_total",
                "counter",
                "Total user and system CPU time spent in seconds.",
                self.cpu_seconds,
            ),
            (
                "process_open_fds",
                "gauge",
                "Number of open file descriptors.",
                self.open_fds as f64,
            ),
            (
                "process_max_fds",
                "gauge",
                "Maximum number of open file descriptors.",
                self.max_fds as f64,
            ),
            (
                "process_start_time_seconds",
                "gauge",
                "Start time of the process since unix epoch in seconds.",
                self.start_time_seconds,
            ),
            (
                "process_threads",
                "gauge",
                "Number of OS threads in the process.",
                self.threads as f64,
            ),
        ];
        for (name, kind, help, value) in metrics {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
            );
        }
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use super::ProcessStats;

    pub(super) fn read() -> Option<ProcessStats> {
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        let boot_time = boot_time(&std::fs::read_to_string("/proc/stat").ok()?)?;
        // SAFETY: sysconf only reads configuration values.
        let (ticks, page) = unsafe {
            (
                libc::sysconf(libc::_SC_CLK_TCK),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        if ticks <= 0 || page <= 0 {
            return None;
        }
        let fields = StatFields::parse(&stat)?;
        let ticks = ticks as f64;
        Some(ProcessStats {
            resident_memory_bytes: fields.rss_pages * page as u64,
            virtual_memory_bytes: fields.vsize,
            cpu_seconds: (fields.utime + fields.stime) as f64 / ticks,
            open_fds: std::fs::read_dir("/proc/self/fd").ok()?.count() as u64,
            max_fds: max_fds()?,
            start_time_seconds: boot_time as f64 + fields.start_ticks as f64 / ticks,
            threads: fields.threads,
        })
    }

    /// The fields of `/proc/self/stat` used here (proc(5)).
    #[derive(Debug, PartialEq)]
    pub(super) struct StatFields {
        pub utime: u64,
        pub stime: u64,
        pub threads: u64,
        /// Clock ticks after boot.
        pub start_ticks: u64,
        pub vsize: u64,
        pub rss_pages: u64,
    }

    impl StatFields {
        /// The name (field 2) is in parentheses and may hold spaces and
        /// parentheses itself, so fields are counted from the last `)`.
        pub(super) fn parse(stat: &str) -> Option<StatFields> {
            let rest = &stat[stat.rfind(')')? + 1..];
            // Field 3 (state) is index 0.
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let field = |n: usize| fields.get(n - 3)?.parse::<u64>().ok();
            Some(StatFields {
                utime: field(14)?,
                stime: field(15)?,
                threads: field(20)?,
                start_ticks: field(22)?,
                vsize: field(23)?,
                rss_pages: field(24)?,
            })
        }
    }

    /// Seconds since the epoch at boot: the `btime` line of `/proc/stat`.
    pub(super) fn boot_time(proc_stat: &str) -> Option<u64> {
        proc_stat
            .lines()
            .find_map(|l| l.strip_prefix("btime "))
            .and_then(|v| v.trim().parse().ok())
    }

    fn max_fds() -> Option<u64> {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes into the struct it is given.
        let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
        ok.then_some(limit.rlim_cur)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn stat_fields_count_from_the_name_s_last_parenthesis() {
            let stat = "4242 (a) b (c) S 1 4242 4242 0 -1 4194560 900 0 0 0 \
                        150 50 0 0 20 0 12 0 98765 2000000 3000 18446744073709551615";
            assert_eq!(
                StatFields::parse(stat),
                Some(StatFields {
                    utime: 150,
                    stime: 50,
                    threads: 12,
                    start_ticks: 98765,
                    vsize: 2000000,
                    rss_pages: 3000,
                })
            );
            assert_eq!(StatFields::parse("4242 (a) S 1"), None);
        }

        #[test]
        fn boot_time_is_the_btime_line() {
            assert_eq!(
                boot_time("cpu 1 2 3\nbtime 1700000000\nprocesses 9\n"),
                Some(1700000000)
            );
            assert_eq!(boot_time("cpu 1 2 3\n"), None);
        }

        #[test]
        fn this_process_reads_plausibly() {
            let stats = read().unwrap();
            assert!(stats.resident_memory_bytes > 0);
            assert!(stats.virtual_memory_bytes >= stats.resident_memory_bytes);
            assert!(stats.open_fds > 0 && stats.open_fds <= stats.max_fds);
            assert!(stats.threads >= 1);
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs_f64();
            assert!(stats.start_time_seconds <= now + 1.0);
            assert!(stats.start_time_seconds > now - 3600.0);
        }
    }
}
