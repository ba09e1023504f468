//! The `labelpress` command line.

pub mod admin_client;
pub mod expiry;
mod generated_docs;
pub mod output;
mod print;
mod render;
pub mod token;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::api_error::ApiError;
use crate::exit::{self, Exit, Failure};
use labelpress_document::config::RuntimeConfig;
use labelpress_document::engine::fonts::FontOptions;
use labelpress_document::engine::Engine;
use labelpress_document::validate::ResourceDir;
use output::{out, print_api_error, Destination};

/// Stack of the server's async and blocking threads: blocking threads
/// validate the bodies of requests the render queue refuses.
const ASYNC_STACK_BYTES: usize = 64 << 20;

#[derive(Debug, Parser)]
#[command(
    name = "labelpress",
    version,
    about = "JSON document descriptions to print-exact PDF",
    after_long_help = exit::HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Render a DocumentRequest to PDF, PNG or ZPL (offline, no authentication).
    Render {
        /// The request JSON file (`-` for standard input). Several files
        /// render as one batch (one PDF or ZPL file, or a ZIP of PNGs) into
        /// -o, as `POST /api/v1/batch` does.
        #[arg(required_unless_present = "template")]
        request: Vec<PathBuf>,
        /// A template (a DocumentRequest with {{placeholders}}) to fill
        /// once per line of --records, rendered as one batch into -o.
        #[arg(long, requires = "records", conflicts_with = "request")]
        template: Option<PathBuf>,
        /// The template's data: one JSON object per line (JSON Lines).
        #[arg(long, requires = "template")]
        records: Option<PathBuf>,
        /// Where the PDF goes (`-`: standard output). Default: standard
        /// output when REQUEST is `-`, else the request's
        /// settings.output.file_name, else REQUEST with `.pdf` (`.png`,
        /// `.zpl`). A name ending in `.png` writes PNG, in `.zpl` ZPL.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Write the generated Typst source instead of rendering (to -o, or
        /// standard output).
        #[arg(long)]
        emit_typst: bool,
        /// pdf, png or zpl; default: png or zpl when -o ends in `.png` or
        /// `.zpl`, else pdf.
        #[arg(long, value_enum)]
        format: Option<render::FormatArg>,
        /// PNG or ZPL resolution in dots per inch; default:
        /// settings.print_dpi, else the configuration's defaults.png_dpi
        /// (203) for PNG and 203 for ZPL (which takes 152, 203, 300, 600).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        dpi: Option<u32>,
        /// Write only this sheet (1-based) as PNG or ZPL; without it every
        /// sheet is written: PNG one file each (`out-1.png`, `out-2.png`,
        /// ... when there are several), ZPL one label each in one file.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        sheet: Option<u64>,
        /// Pure black and white PNG (1-bit), for direct thermal printers.
        #[arg(long)]
        mono: bool,
        /// ZPL: the barcodes the printer can draw exactly as placed are
        /// written as its own commands (see docs/cli.md); the rest as dots.
        #[arg(long)]
        native_barcodes: bool,
        #[command(flatten)]
        engine: EngineArgs,
    },
    /// Print a DocumentRequest on a network label printer: its ZPL (one
    /// label per sheet) sent to the printer's raw port.
    Print {
        /// The request JSON file (`-` for standard input).
        request: PathBuf,
        /// The printer: HOST, HOST:PORT or [IPv6]:PORT; the port is 9100
        /// (the raw "JetDirect" port every Zebra listens on) unless given.
        #[arg(long)]
        printer: String,
        /// Copies of each label (ZPL `^PQ`).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=print::MAX_COPIES))]
        copies: u32,
        /// The printer's resolution: 152, 203, 300 or 600 dpi; default:
        /// settings.print_dpi, else 203.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        dpi: Option<u32>,
        /// Print only this sheet (1-based); default: every sheet.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        sheet: Option<u64>,
        /// Seconds to wait for the printer to accept the connection, and
        /// for each write to it.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
        timeout: u64,
        /// The barcodes the printer can draw exactly as placed are written
        /// as its own commands; the rest as dots.
        #[arg(long)]
        native_barcodes: bool,
        #[command(flatten)]
        engine: EngineArgs,
    },
    /// Validate a DocumentRequest; prints the API-002 body and exits 1 when
    /// invalid, else its warnings (one line each: path, code, message) and exits 0.
    Check {
        request: PathBuf,
        #[command(flatten)]
        engine: EngineArgs,
    },
    /// Write a barcode as SVG to standard output.
    Barcode {
        symbology: String,
        content: String,
        /// Options as key=value (e.g. --opt ecl=H), as in the barcode service's query.
        #[arg(long = "opt")]
        opts: Vec<String>,
    },
    /// Run the HTTP server: render, barcode and verification services.
    Serve(ServeArgs),
    /// Administer verification tokens through a running server's admin API.
    Token(token::TokenArgs),
    /// List the font families the renderer can use, the scripts each
    /// covers and its place in the fallback order.
    Fonts {
        /// JSON instead of a table.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        engine: EngineArgs,
    },
    /// Print the runtime configuration as JSON: defaults, limits, fonts and
    /// the catalogs (page sizes, PDF profiles, barcode symbologies).
    Config {
        #[command(flatten)]
        engine: EngineArgs,
    },
    /// Print the OpenAPI 3.1 document of the HTTP API (as `GET /openapi.json`).
    Openapi {
        /// Print the DocumentRequest's JSON Schema (2020-12) instead.
        #[arg(long)]
        request_schema: bool,
    },
    /// Print a shell completion script (e.g. `labelpress completions bash >
    /// /etc/bash_completion.d/labelpress`).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) of labelpress or of a subcommand
    /// (`labelpress man token create`), or write them all with --dir.
    Man {
        /// A subcommand path, e.g. `render` or `token expiry`.
        command: Vec<String>,
        /// Write every page (labelpress.1, labelpress-render.1, ...) into DIR.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// A render worker process: started by `serve`, never by hand.
    #[command(hide = true)]
    RenderWorker,
}

/// `labelpress serve` (docs/operations.md). Every flag has a `LABELPRESS_*` twin.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on: HOST:PORT (`127.0.0.1:8080`, `[::1]:8080`), or
    /// `:PORT` for every interface (0.0.0.0).
    #[arg(long, env = "LABELPRESS_LISTEN", default_value = "127.0.0.1:8080", value_parser = listen_addr)]
    pub listen: std::net::SocketAddr,
    /// Services this node runs, comma-separated.
    #[arg(
        long,
        env = "LABELPRESS_SERVICES",
        value_enum,
        value_delimiter = ',',
        default_value = "render,barcode,verify"
    )]
    pub services: Vec<Service>,
    /// Base URL of a remote verification service (`http://host:port` or
    /// `https://host:port`), or several, comma-separated: a call that finds
    /// one unavailable goes on to the next. Without it the render service
    /// calls the in-process one.
    #[arg(
        long,
        env = "LABELPRESS_VERIFY_URL",
        value_delimiter = ',',
        value_name = "URL[,URL...]"
    )]
    pub verify_url: Vec<String>,
    /// PEM file of CA certificates trusted, besides the system's roots, for
    /// `https` verifier URLs (a private CA or a self-signed verifier).
    #[arg(long, env = "LABELPRESS_VERIFY_CA", value_name = "FILE")]
    pub verify_ca: Option<PathBuf>,
    /// PEM certificate chain (leaf first): with --tls-key, the listener
    /// speaks HTTPS only.
    #[arg(long, env = "LABELPRESS_TLS_CERT", value_name = "FILE")]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key of --tls-cert.
    #[arg(long, env = "LABELPRESS_TLS_KEY", value_name = "FILE")]
    pub tls_key: Option<PathBuf>,
    /// State: the verifier's embedded ledger, the render token cache and
    /// usage outbox.
    #[arg(long, env = "LABELPRESS_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,
    /// The verifier's ledger on PostgreSQL instead of the embedded store
    /// (`postgres://USER:PASSWORD@HOST:PORT/DB`; TLS by libpq's `sslmode`
    /// and `sslrootcert`, e.g. `?sslmode=verify-full&sslrootcert=CA.pem`):
    /// several verifier nodes may share it. Needs --admin-token.
    #[arg(long, env = "LABELPRESS_DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// Token for trusted internal calls: renders without verification or charge.
    #[arg(long, env = "LABELPRESS_SYSTEM_TOKEN", hide_env_values = true)]
    pub system_token: Option<String>,
    /// Admin token of the verification service (generated into
    /// `<data-dir>/admin-token` when unset).
    #[arg(long, env = "LABELPRESS_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,
    /// Log lines as `text` or `json` (one object per line), on standard output.
    #[arg(
        long,
        env = "LABELPRESS_LOG_FORMAT",
        value_enum,
        default_value = "text"
    )]
    pub log_format: crate::logging::LogFormat,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// `--listen`: a socket address, or `:PORT` for all IPv4 interfaces.
fn listen_addr(text: &str) -> Result<std::net::SocketAddr, String> {
    let full = match text.strip_prefix(':') {
        Some(port) => format!("0.0.0.0:{port}"),
        None => text.to_string(),
    };
    full.parse().map_err(|_| {
        format!("`{text}` is not HOST:PORT (127.0.0.1:8080, [::1]:8080) or :PORT (every interface)")
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Service {
    Render,
    Barcode,
    Verify,
}

/// Options that shape the engine, shared by the subcommands that render.
#[derive(Debug, Args)]
pub struct EngineArgs {
    /// Folder image file names resolve in.
    #[arg(long, env = "LABELPRESS_RESOURCES")]
    pub resources: Option<PathBuf>,
    /// Extra font folder (scanned recursively); refused at start when it
    /// does not exist or holds no font.
    #[arg(long, env = "LABELPRESS_FONTS")]
    pub fonts: Option<PathBuf>,
    /// Do not scan the system's fonts (only the embedded DejaVu Sans and --fonts).
    #[arg(long, env = "LABELPRESS_NO_SYSTEM_FONTS", value_parser = clap::builder::BoolishValueParser::new())]
    pub no_system_fonts: bool,
    /// TOML file overriding runtime-config defaults and limits.
    #[arg(long, env = "LABELPRESS_CONFIG")]
    pub config: Option<PathBuf>,
}

impl EngineArgs {
    pub fn engine(&self) -> Result<Engine, String> {
        let config = load_config(self.config.as_ref())?;
        let resources = match &self.resources {
            Some(dir) => {
                Some(ResourceDir::new(dir).map_err(|e| format!("{}: {e}", dir.display()))?)
            }
            None => None,
        };
        Ok(Engine::new(config, &self.font_options()?, resources))
    }

    /// The font options, checked: a `--fonts` folder that is missing or
    /// holds no font stops the start.
    fn font_options(&self) -> Result<FontOptions, String> {
        let options = FontOptions {
            system: !self.no_system_fonts,
            dir: self.fonts.clone(),
        };
        options.check().map_err(|e| e.to_string())?;
        Ok(options)
    }

    /// What a render worker process needs to build the same engine.
    pub fn worker_spec(&self, config: RuntimeConfig) -> Result<crate::worker::Spec, String> {
        Ok(crate::worker::Spec {
            config,
            fonts: self.font_options()?,
            resources: self.resources.clone(),
        })
    }
}

/// The runtime configuration: built-in defaults, then `--config`, then
/// `LABELPRESS_<SECTION>__<KEY>` variables.
fn load_config(path: Option<&PathBuf>) -> Result<RuntimeConfig, String> {
    RuntimeConfig::load(path.map(PathBuf::as_path), std::env::vars_os()).map_err(|e| e.to_string())
}

/// The listener's TLS from `--tls-cert` and `--tls-key`, which go together.
fn tls_acceptor(
    cert: Option<&std::path::Path>,
    key: Option<&std::path::Path>,
) -> Result<Option<crate::http::tls::TlsAcceptor>, String> {
    match (cert, key) {
        (None, None) => Ok(None),
        (Some(cert), Some(key)) => crate::http::tls::acceptor(cert, key)
            .map(Some)
            .map_err(|e| format!("--tls-cert/--tls-key: {e}")),
        (Some(_), None) => Err("--tls-cert needs --tls-key (the certificate's private key)".into()),
        (None, Some(_)) => Err("--tls-key needs --tls-cert (the key's certificate chain)".into()),
    }
}

fn read_request(path: &PathBuf) -> Result<Vec<u8>, String> {
    if output::is_stdin(path) {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)
            .map_err(|e| format!("standard input: {e}"))?;
        Ok(buf)
    } else {
        std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// Whether the command's document goes to standard output (which then
/// carries nothing else, not even an error body).
fn document_on_stdout(command: &Command) -> bool {
    match command {
        Command::Render {
            request,
            output,
            emit_typst,
            ..
        } => match request.as_slice() {
            [one] => render::document_on_stdout(one, output.as_deref(), *emit_typst),
            _ => output.as_deref().is_some_and(|o| o.as_os_str() == "-"),
        },
        _ => false,
    }
}

pub fn run(cli: Cli) -> ExitCode {
    // Offline renders run here, on a stack as deep as a render worker's; a
    // panic (an upstream bug) answers as the service would, API-501.
    let errors_on_stderr = document_on_stdout(&cli.command);
    let main = std::thread::Builder::new()
        .name("labelpress".into())
        .stack_size(labelpress_document::engine::threads::RENDER_STACK_BYTES)
        .spawn(move || run_inner(cli));
    let exit = match main.map(|thread| thread.join()) {
        Ok(Ok(Ok(exit))) => exit,
        Ok(Ok(Err(failure))) => {
            eprintln!("labelpress: {failure}");
            failure.exit
        }
        Ok(Err(_panic)) => print_api_error(
            ApiError::Render("the renderer panicked".into()),
            errors_on_stderr,
        ),
        Err(e) => {
            eprintln!("labelpress: {e}");
            Exit::Usage
        }
    };
    exit.into()
}

fn run_inner(cli: Cli) -> Result<Exit, Failure> {
    match cli.command {
        Command::Render {
            request,
            template,
            records,
            output,
            emit_typst,
            format,
            dpi,
            sheet,
            mono,
            native_barcodes,
            engine,
        } => {
            let png = render::PngArgs {
                format,
                dpi,
                sheet: sheet.map(|s| s as usize),
                mono,
                native_barcodes,
            };
            let batch = match (template, records, request.as_slice()) {
                (Some(template), Some(records), _) => Some(render::template_batch(
                    &read_request(&template)?,
                    &read_request(&records)?,
                )?),
                (_, _, [_, _, ..]) => {
                    let bodies = request
                        .iter()
                        .map(read_request)
                        .collect::<Result<Vec<_>, _>>()?;
                    Some(render::documents_batch(&request, &bodies)?)
                }
                _ => None,
            };
            let engine = engine.engine()?;
            match batch {
                Some(body) => render::run_batch(&engine, &body, output, emit_typst, &png),
                None => {
                    let request = &request[0];
                    let body = read_request(request)?;
                    render::run(&engine, request, &body, output, emit_typst, &png)
                }
            }
        }
        Command::Print {
            request,
            printer,
            copies,
            dpi,
            sheet,
            timeout,
            native_barcodes,
            engine,
        } => {
            let job = print::Job {
                printer: print::Printer::parse(&printer)?,
                options: labelpress_document::engine::ZplOptions {
                    dpi,
                    sheet: sheet.map(|s| s as usize),
                    copies,
                    native_barcodes,
                },
                timeout: std::time::Duration::from_secs(timeout),
            };
            let engine = engine.engine()?;
            let body = read_request(&request)?;
            print::run(&engine, &body, &job)
        }
        Command::Check { request, engine } => {
            let engine = engine.engine()?;
            let body = read_request(&request)?;
            match engine.validate(&body) {
                Ok(laid) => {
                    // Warnings never fail a check: one line each, on
                    // standard output like the violations' body.
                    let mut text = String::new();
                    for w in labelpress_document::warnings::check(&laid) {
                        let _ = writeln!(text, "{}: {} {}", w.path, w.code, w.message);
                    }
                    out(&text);
                    Ok(Exit::Success)
                }
                Err(e) => Ok(print_api_error(e.into(), false)),
            }
        }
        Command::Barcode {
            symbology,
            content,
            opts,
        } => {
            // Every barcode error is a refusal of the input (the barcode
            // service answers 400 with the same message).
            let svg = labelpress_barcode::cli_svg(&symbology, &content, &opts)
                .map_err(|e| Failure::new(Exit::Refused, e.to_string()))?;
            out(&svg);
            Ok(Exit::Success)
        }
        Command::Serve(args) => {
            crate::logging::init(args.log_format);
            let services = crate::http::Services {
                render: args.services.contains(&Service::Render),
                barcode: args.services.contains(&Service::Barcode),
                verify: args.services.contains(&Service::Verify),
            };
            let config = load_config(args.engine.config.as_ref())?;
            let engine = if services.render {
                Some(args.engine.engine()?)
            } else {
                None
            };
            let worker = Some(args.engine.worker_spec(config.clone())?);
            let tls = tls_acceptor(args.tls_cert.as_deref(), args.tls_key.as_deref())?;
            let options = crate::http::NodeOptions {
                services,
                config,
                engine,
                worker,
                data_dir: args.data_dir,
                database_url: args.database_url,
                verify_urls: args.verify_url,
                verify_ca: args.verify_ca,
                tls,
                system_token: args.system_token,
                admin_token: args.admin_token,
                verifier: None,
            };
            let limits = &options.config.limits;
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .worker_threads(limits.async_threads(services.render))
                .max_blocking_threads(limits.blocking_threads())
                // Blocking threads validate refused requests' bodies.
                .thread_stack_size(ASYNC_STACK_BYTES)
                .build()
                .map_err(|e| e.to_string())?;
            runtime.block_on(crate::http::serve(args.listen, options))?;
            Ok(Exit::Success)
        }
        Command::Token(args) => token::run(args),
        Command::Openapi { request_schema } => {
            let document = if request_schema {
                labelpress_document::request_schema::document_request()
            } else {
                crate::http::openapi::document()
            };
            out(&format!(
                "{}\n",
                serde_json::to_string_pretty(&document).unwrap_or_default()
            ));
            Ok(Exit::Success)
        }
        Command::Completions { shell } => {
            Destination::Stdout.write(&generated_docs::completions(shell))?;
            Ok(Exit::Success)
        }
        Command::Man { command, dir } => generated_docs::run_man(&command, dir.as_deref()),
        Command::RenderWorker => Ok(crate::worker::child::run()),
        Command::Fonts { json, engine } => {
            let engine = engine.engine()?;
            let catalogue = engine.fonts().catalogue();
            if json {
                out(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&catalogue).unwrap_or_default()
                ));
            } else {
                let mut table = format!("{:<34} {:>8}  scripts\n", "family", "fallback");
                for f in catalogue {
                    let rank = f.fallback.map_or(String::new(), |r| r.to_string());
                    let _ = writeln!(
                        table,
                        "{:<34} {rank:>8}  {}",
                        f.family,
                        f.scripts.join(", ")
                    );
                }
                out(&table);
            }
            Ok(Exit::Success)
        }
        Command::Config { engine } => {
            let engine = engine.engine()?;
            out(&format!(
                "{}\n",
                serde_json::to_string_pretty(&engine.published_config()).unwrap_or_default()
            ));
            Ok(Exit::Success)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::listen_addr;

    #[test]
    fn listen_takes_an_address_or_a_bare_port_for_every_interface() {
        let parsed = |t: &str| listen_addr(t).map(|a| a.to_string());
        assert_eq!(parsed(":8080").unwrap(), "0.0.0.0:8080");
        assert_eq!(parsed("127.0.0.1:9000").unwrap(), "127.0.0.1:9000");
        assert_eq!(parsed("[::1]:8080").unwrap(), "[::1]:8080");
        for bad in ["8080", ":", ":http", ":70000", "localhost:8080", ""] {
            let error = listen_addr(bad).unwrap_err();
            assert!(error.contains(":PORT"), "{bad}: {error}");
        }
    }
}
