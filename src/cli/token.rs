//! `labelpress token ...`: token administration through the admin API of a
//! running server (`--url`), so it works the same against a local or a
//! remote verifier and never opens the store itself (sled allows one
//! process per store). The HTTP call and its errors are
//! [`super::admin_client`]'s; expiry times are parsed by
//! [`super::expiry`].

use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde_json::{json, Value};

use super::admin_client::{AdminCall, TokenSource};
use super::expiry::{self, Expiry};
use super::output::out;
use crate::exit::{Exit, Failure};
use crate::verify::http::views::TokenView;

#[derive(Debug, Args)]
pub struct TokenArgs {
    /// Base URL of the server running the verification service.
    #[arg(
        long,
        env = "LABELPRESS_URL",
        default_value = "http://127.0.0.1:8080",
        global = true
    )]
    pub url: String,
    /// The admin token (default: read from <data-dir>/admin-token).
    #[arg(
        long,
        env = "LABELPRESS_ADMIN_TOKEN",
        hide_env_values = true,
        global = true
    )]
    pub admin_token: Option<String>,
    /// The server's data directory, where a generated admin token is kept.
    #[arg(
        long,
        env = "LABELPRESS_DATA_DIR",
        default_value = "data",
        global = true
    )]
    pub data_dir: PathBuf,
    #[command(subcommand)]
    pub command: TokenCommand,
}

#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Create a token; prints it as JSON, the only time the secret is shown.
    Create {
        #[arg(long)]
        account: String,
        #[arg(long)]
        balance: u64,
        /// When the token stops working: a date (2026-12-31, valid through
        /// that day UTC), a date and time (2026-12-31T18:00, UTC unless it
        /// ends in Z or +02:00), a time from now (30d, +12h, 90m, 60s, 2w),
        /// Unix milliseconds, or never.
        #[arg(long, default_value = "never", value_parser = expiry::parse_now)]
        expires: Expiry,
        /// Per-token rate limit as PER_SECOND/BURST, e.g. 10/20.
        #[arg(long, value_parser = parse_rate_limit)]
        rate_limit: Option<(u32, u32)>,
        /// Print only the secret (for scripts: TOKEN=$(labelpress token create ... --print-secret)).
        #[arg(long)]
        print_secret: bool,
    },
    /// List tokens (a table; --json for the API's JSON).
    List {
        #[arg(long)]
        json: bool,
    },
    /// Show one token and its recent usage as JSON.
    Show { id: String },
    /// Add AMOUNT to a token's balance.
    Topup { id: String, amount: u64 },
    /// Set a token's expiry: 2026-12-31 (through that day, UTC),
    /// 2026-12-31T18:00[:00][Z|+02:00], 30d/+12h/90m/60s/2w from now, Unix
    /// ms, or never/none to clear it.
    Expiry {
        id: String,
        #[arg(value_parser = expiry::parse_now)]
        expires: Expiry,
    },
    /// Revoke a token for good.
    Revoke { id: String },
    /// Ban an account: all of its tokens are refused.
    Ban { account: String },
    /// Lift an account's ban.
    Unban { account: String },
}

fn parse_rate_limit(text: &str) -> Result<(u32, u32), String> {
    let (per_second, burst) = text.split_once('/').ok_or("expected PER_SECOND/BURST")?;
    let number = |s: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|_| format!("not a number: {s:?}"))
    };
    Ok((number(per_second)?, number(burst)?))
}

/// Percent-encodes a path segment (everything but RFC 3986 unreserved characters).
fn segment(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The admin token and where it came from: `--admin-token`, its
/// environment variable, or the `admin-token` file of `--data-dir`.
fn admin_token(args: &TokenArgs) -> Result<(String, TokenSource), Failure> {
    if let Some(token) = &args.admin_token {
        // clap reads the flag and the variable into one field; the variable
        // holding this very value is the best evidence of where it came from.
        let source = match std::env::var("LABELPRESS_ADMIN_TOKEN") {
            Ok(env) if env == *token => TokenSource::Env,
            _ => TokenSource::Flag,
        };
        return Ok((token.clone(), source));
    }
    let path = args.data_dir.join("admin-token");
    match std::fs::read_to_string(&path) {
        Ok(token) if !token.trim().is_empty() => Ok((token.trim().to_string(), TokenSource::File(path))),
        _ => Err(Failure::new(Exit::Usage, format!(
            "no admin token: pass --admin-token, set LABELPRESS_ADMIN_TOKEN, or point --data-dir at the server's data directory (no {})",
            path.display()
        ))),
    }
}

/// The admin API call a command makes.
fn call(base: &str, command: &TokenCommand) -> AdminCall {
    use reqwest::Method;
    let (method, path, body): (Method, String, Option<Value>) = match command {
        TokenCommand::Create {
            account,
            balance,
            expires,
            rate_limit,
            ..
        } => {
            let mut body = json!({"account": account, "balance": balance, "expires_at": expires.0});
            if let Some((per_second, burst)) = rate_limit {
                body["rate_limit"] = json!({"per_second": per_second, "burst": burst});
            }
            (Method::POST, "/tokens".into(), Some(body))
        }
        TokenCommand::List { .. } => (Method::GET, "/tokens".into(), None),
        TokenCommand::Show { id } => (Method::GET, format!("/tokens/{}", segment(id)), None),
        TokenCommand::Topup { id, amount } => (
            Method::POST,
            format!("/tokens/{}/topup", segment(id)),
            Some(json!({ "amount": amount })),
        ),
        TokenCommand::Expiry { id, expires } => (
            Method::POST,
            format!("/tokens/{}/expiry", segment(id)),
            Some(json!({ "expires_at": expires.0 })),
        ),
        TokenCommand::Revoke { id } => (
            Method::POST,
            format!("/tokens/{}/revoke", segment(id)),
            None,
        ),
        TokenCommand::Ban { account } => (
            Method::POST,
            format!("/accounts/{}/ban", segment(account)),
            None,
        ),
        TokenCommand::Unban { account } => (
            Method::POST,
            format!("/accounts/{}/unban", segment(account)),
            None,
        ),
    };
    AdminCall {
        method,
        base: base.to_string(),
        path,
        body,
    }
}

pub fn run(args: TokenArgs) -> Result<Exit, Failure> {
    let (admin, source) = admin_token(&args)?;
    let call = call(&args.url, &args.command);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let value = runtime.block_on(call.send(&admin, &source))?;
    match &args.command {
        TokenCommand::List { json: false } => {
            let tokens: Vec<TokenView> = serde_json::from_value(value).map_err(|e| {
                Failure::new(
                    Exit::Unavailable,
                    format!("{}: unexpected answer: {e}", call.url()),
                )
            })?;
            out(&table(&tokens));
        }
        TokenCommand::Create {
            print_secret: true, ..
        } => {
            let secret = value["token"].as_str().ok_or_else(|| {
                Failure::new(
                    Exit::Unavailable,
                    format!("{}: the answer has no token", call.url()),
                )
            })?;
            out(&format!("{secret}\n"));
        }
        command => {
            out(&format!(
                "{}\n",
                serde_json::to_string_pretty(&value).unwrap_or_default()
            ));
            if matches!(command, TokenCommand::Create { .. }) {
                eprintln!("labelpress token: keep the token now; it is not shown again");
            }
        }
    }
    Ok(Exit::Success)
}

fn when(ms: Option<i64>) -> String {
    let Some(ms) = ms else {
        return "never".into();
    };
    time::OffsetDateTime::from_unix_timestamp_nanos(ms as i128 * 1_000_000)
        .ok()
        .and_then(|t| {
            t.format(&time::macros::format_description!(
                "[year]-[month]-[day] [hour]:[minute]Z"
            ))
            .ok()
        })
        .unwrap_or_else(|| ms.to_string())
}

/// The list as aligned columns.
fn table(tokens: &[TokenView]) -> String {
    let mut rows = vec![[
        "ID".to_string(),
        "HINT".into(),
        "ACCOUNT".into(),
        "BALANCE".into(),
        "STATUS".into(),
        "EXPIRES".into(),
        "LAST USED".into(),
    ]];
    for t in tokens {
        rows.push([
            t.id.clone(),
            t.hint.clone(),
            t.account.clone(),
            t.balance.to_string(),
            t.status.clone(),
            when(t.expires_at),
            t.last_used_at.map(|at| when(Some(at))).unwrap_or_default(),
        ]);
    }
    let widths: Vec<usize> = (0..7)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in rows {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_segments_are_percent_encoded() {
        assert_eq!(segment("tok_AbC123"), "tok_AbC123");
        assert_eq!(segment("a b/c@d"), "a%20b%2Fc%40d");
    }

    #[test]
    fn rate_limits_are_per_second_slash_burst() {
        assert_eq!(parse_rate_limit("10/20"), Ok((10, 20)));
        assert!(parse_rate_limit("10").is_err());
    }
}
