//! `labelpress print REQUEST --printer HOST[:PORT] [--copies N] [--dpi N]
//! [--sheet N] [--timeout S]`: renders the request as ZPL and sends it to a
//! network label printer's raw port (docs/cli.md, "ZPL and printing").
//!
//! Invariants: nothing is sent unless the whole ZPL rendered (an invalid
//! request prints its API-002 body and exits 1 with the printer untouched);
//! connecting and every write are bounded by the timeout, and a printer
//! that does not answer exits 4 (unavailable) naming the address tried.

use std::io::Write;
use std::net::{Shutdown, SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

use super::output::print_api_error;
use crate::exit::{Exit, Failure};
use labelpress_document::engine::{Engine, Output, ZplOptions};

/// The raw printing port (HP JetDirect's, which every Zebra listens on).
pub const RAW_PORT: u16 = 9100;

/// The most copies ZPL's `^PQ` takes.
pub const MAX_COPIES: i64 = 99_999_999;

/// A printer's address as given: a host name or IP address and a port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Printer {
    pub host: String,
    pub port: u16,
}

impl Printer {
    /// `HOST`, `HOST:PORT`, `IPV4`, `IPV4:PORT`, `IPV6`, `[IPV6]` or
    /// `[IPV6]:PORT`; the port defaults to [`RAW_PORT`].
    pub fn parse(text: &str) -> Result<Printer, Failure> {
        let bad = |why: &str| Failure::new(Exit::Usage, format!("--printer {text:?}: {why}"));
        let text = text.trim();
        if text.is_empty() {
            return Err(bad("name a host, e.g. zebra.local or 10.0.0.7:9100"));
        }
        let port = |p: &str| {
            p.parse::<u16>()
                .ok()
                .filter(|&p| p > 0)
                .ok_or_else(|| bad("the port must be a number from 1 to 65535"))
        };
        let (host, port) = if let Some(rest) = text.strip_prefix('[') {
            let (host, after) = rest
                .split_once(']')
                .ok_or_else(|| bad("an IPv6 address in brackets needs its closing `]`"))?;
            match after {
                "" => (host, RAW_PORT),
                _ => (
                    host,
                    port(
                        after
                            .strip_prefix(':')
                            .ok_or_else(|| bad("expected `:PORT` after `]`"))?,
                    )?,
                ),
            }
        } else if text.matches(':').count() > 1 {
            // A bare IPv6 address: no port can be told apart from it.
            (text, RAW_PORT)
        } else if let Some((host, p)) = text.split_once(':') {
            (host, port(p)?)
        } else {
            (text, RAW_PORT)
        };
        if host.is_empty() {
            return Err(bad("the host is missing"));
        }
        Ok(Printer {
            host: host.to_string(),
            port,
        })
    }

    fn describe(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// One print: where, what and how long to wait.
#[derive(Debug, Clone)]
pub struct Job {
    pub printer: Printer,
    pub options: ZplOptions,
    pub timeout: Duration,
}

pub fn run(engine: &Engine, body: &[u8], job: &Job) -> Result<Exit, Failure> {
    let doc = match engine.validate_for(body, &Output::Zpl(job.options)) {
        Ok(doc) => doc,
        Err(e) => return Ok(print_api_error(e.into(), true)),
    };
    let zpl = match engine.render_as(&doc, &Output::Zpl(job.options)) {
        Ok(zpl) => zpl,
        Err(e) => return Ok(print_api_error(e.into(), true)),
    };
    send(&job.printer, &zpl.bytes, job.timeout)?;
    eprintln!(
        "{}: {} label(s) x {} cop{}, {} bytes of ZPL",
        job.printer.describe(),
        zpl.delivered_sheets,
        job.options.copies,
        if job.options.copies == 1 { "y" } else { "ies" },
        zpl.bytes.len()
    );
    Ok(Exit::Success)
}

/// Sends `bytes` to the printer and closes the connection: each resolved
/// address is tried in turn until one accepts within `timeout`.
pub fn send(printer: &Printer, bytes: &[u8], timeout: Duration) -> Result<(), Failure> {
    let unavailable = |why: String| {
        Failure::new(
            Exit::Unavailable,
            format!(
                "the printer at {} did not answer: {why}",
                printer.describe()
            ),
        )
    };
    let addresses: Vec<SocketAddr> = (printer.host.as_str(), printer.port)
        .to_socket_addrs()
        .map_err(|e| unavailable(format!("cannot resolve {:?} ({e})", printer.host)))?
        .collect();
    let mut last = None;
    for address in &addresses {
        match TcpStream::connect_timeout(address, timeout) {
            Ok(mut stream) => {
                let sent = stream
                    .set_write_timeout(Some(timeout))
                    .and_then(|()| stream.write_all(bytes))
                    .and_then(|()| stream.flush());
                sent.map_err(|e| unavailable(format!("sending to {address} failed ({e})")))?;
                // The printer reads to the end of the stream; a reset after
                // everything was written loses nothing.
                let _ = stream.shutdown(Shutdown::Write);
                return Ok(());
            }
            Err(e) => last = Some(format!("{address}: {e}")),
        }
    }
    Err(unavailable(
        last.unwrap_or_else(|| "no address to connect to".into()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::TcpListener;

    #[test]
    fn printer_addresses_default_to_the_raw_port() {
        let printer = |text: &str| Printer::parse(text).unwrap();
        let at = |host: &str, port| Printer {
            host: host.into(),
            port,
        };
        assert_eq!(printer("zebra.local"), at("zebra.local", 9100));
        assert_eq!(printer("10.0.0.7:6101"), at("10.0.0.7", 6101));
        assert_eq!(printer("::1"), at("::1", 9100));
        assert_eq!(printer("[::1]"), at("::1", 9100));
        assert_eq!(printer("[fe80::1]:9101"), at("fe80::1", 9101));
        for bad in [
            "",
            "host:",
            "host:0",
            "host:70000",
            "host:x",
            ":9100",
            "[::1",
            "[::1]9100",
        ] {
            let failure = Printer::parse(bad).unwrap_err();
            assert_eq!(failure.exit, Exit::Usage, "{bad}");
        }
    }

    #[test]
    fn the_bytes_reach_the_printer_whole_and_the_connection_is_closed() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let printer = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut received = Vec::new();
            stream.read_to_end(&mut received).unwrap();
            received
        });
        let bytes: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let target = Printer {
            host: "127.0.0.1".into(),
            port,
        };
        send(&target, &bytes, Duration::from_secs(5)).unwrap();
        assert_eq!(printer.join().unwrap(), bytes);
    }

    #[test]
    fn a_printer_that_is_not_there_is_unavailable_naming_the_address() {
        // A port just closed: nothing listens there.
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let target = Printer {
            host: "127.0.0.1".into(),
            port,
        };
        let failure = send(&target, b"^XA^XZ", Duration::from_secs(2)).unwrap_err();
        assert_eq!(failure.exit, Exit::Unavailable);
        assert!(
            failure.message.contains(&format!("127.0.0.1:{port}")),
            "{}",
            failure.message
        );
    }
}
