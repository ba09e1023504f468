//! `labelpress token ...`: token administration through the admin API of a
//! running server (`--url`), so it works the same against a local or a
//! remote verifier and never opens the store itself (sled allows one
//! process per store).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};
use serde_json::{json, Value};

use super::admin::TokenView;
use super::rules;

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
        /// Unix milliseconds, a relative time (+30d, +12h, +90m, +60s) or "never".
        #[arg(long, default_value = "never", value_parser = parse_expiry)]
        expires: Expiry,
        /// Per-token rate limit as PER_SECOND/BURST, e.g. 10/20.
        #[arg(long, value_parser = parse_rate_limit)]
        rate_limit: Option<(u32, u32)>,
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
    /// Set a token's expiry: Unix ms, +30d/+12h/+90m/+60s, or "never".
    Expiry {
        id: String,
        #[arg(value_parser = parse_expiry)]
        expires: Expiry,
    },
    /// Revoke a token for good.
    Revoke { id: String },
    /// Ban an account: all of its tokens are refused.
    Ban { account: String },
    /// Lift an account's ban.
    Unban { account: String },
}

/// An expiry as given on the command line, resolved to Unix ms.
#[derive(Debug, Clone, Copy)]
pub struct Expiry(pub Option<i64>);

fn parse_expiry(text: &str) -> Result<Expiry, String> {
    if text == "never" {
        return Ok(Expiry(None));
    }
    if let Some(relative) = text.strip_prefix('+') {
        let split = relative
            .find(|c: char| !c.is_ascii_digit())
            .ok_or("a relative expiry needs a unit: +30d, +12h, +90m or +60s")?;
        let (n, unit) = relative.split_at(split);
        let n: i64 = n.parse().map_err(|_| format!("not a number: {n:?}"))?;
        let unit_ms = match unit {
            "d" => 86_400_000,
            "h" => 3_600_000,
            "m" => 60_000,
            "s" => 1_000,
            _ => return Err(format!("unknown unit {unit:?}: use d, h, m or s")),
        };
        let ms = n.checked_mul(unit_ms).ok_or("too far in the future")?;
        return Ok(Expiry(Some(rules::now_ms() + ms)));
    }
    text.parse()
        .map(|ms| Expiry(Some(ms)))
        .map_err(|_| "expected Unix milliseconds, +30d/+12h/+90m/+60s or \"never\"".into())
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

fn admin_token(args: &TokenArgs) -> Result<String, String> {
    if let Some(token) = &args.admin_token {
        return Ok(token.clone());
    }
    let path = args.data_dir.join("admin-token");
    match std::fs::read_to_string(&path) {
        Ok(token) if !token.trim().is_empty() => Ok(token.trim().to_string()),
        _ => Err(format!(
            "no admin token: pass --admin-token, set LABELPRESS_ADMIN_TOKEN, or point --data-dir at the server's data directory (no {})",
            path.display()
        )),
    }
}

pub fn run(args: TokenArgs) -> Result<ExitCode, String> {
    let admin = admin_token(&args)?;
    let (method, path, body): (&str, String, Option<Value>) = match &args.command {
        TokenCommand::Create {
            account,
            balance,
            expires,
            rate_limit,
        } => {
            let mut body = json!({"account": account, "balance": balance, "expires_at": expires.0});
            if let Some((per_second, burst)) = rate_limit {
                body["rate_limit"] = json!({"per_second": per_second, "burst": burst});
            }
            ("POST", "/tokens".into(), Some(body))
        }
        TokenCommand::List { .. } => ("GET", "/tokens".into(), None),
        TokenCommand::Show { id } => ("GET", format!("/tokens/{}", segment(id)), None),
        TokenCommand::Topup { id, amount } => (
            "POST",
            format!("/tokens/{}/topup", segment(id)),
            Some(json!({ "amount": amount })),
        ),
        TokenCommand::Expiry { id, expires } => (
            "POST",
            format!("/tokens/{}/expiry", segment(id)),
            Some(json!({ "expires_at": expires.0 })),
        ),
        TokenCommand::Revoke { id } => ("POST", format!("/tokens/{}/revoke", segment(id)), None),
        TokenCommand::Ban { account } => {
            ("POST", format!("/accounts/{}/ban", segment(account)), None)
        }
        TokenCommand::Unban { account } => (
            "POST",
            format!("/accounts/{}/unban", segment(account)),
            None,
        ),
    };
    let url = format!("{}/admin/api{path}", args.url.trim_end_matches('/'));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let (status, answer) = runtime.block_on(async {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| e.to_string())?;
        let mut request = match method {
            "GET" => client.get(&url),
            _ => client.post(&url),
        }
        .bearer_auth(&admin);
        if let Some(body) = &body {
            request = request.json(body);
        }
        let response = request.send().await.map_err(|e| format!("{url}: {e}"))?;
        let status = response.status();
        let text = response.text().await.map_err(|e| format!("{url}: {e}"))?;
        Ok::<_, String>((status, text))
    })?;
    let value: Value = serde_json::from_str(&answer).unwrap_or(Value::String(answer));
    if !status.is_success() {
        let message = value["message"].as_str().unwrap_or_default();
        eprintln!("labelpress token: {status}: {message}");
        return Ok(ExitCode::from(1));
    }
    match &args.command {
        TokenCommand::List { json: false } => {
            let tokens: Vec<TokenView> = serde_json::from_value(value)
                .map_err(|e| format!("{url}: unexpected answer: {e}"))?;
            print!("{}", table(&tokens));
        }
        command => {
            println!(
                "{}",
                serde_json::to_string_pretty(&value).unwrap_or_default()
            );
            if matches!(command, TokenCommand::Create { .. }) {
                eprintln!("labelpress token: keep the token now; it is not shown again");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
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
    fn expiries_parse_as_ms_relative_or_never() {
        assert_eq!(parse_expiry("never").unwrap().0, None);
        assert_eq!(
            parse_expiry("1700000000000").unwrap().0,
            Some(1_700_000_000_000)
        );
        let in_a_day = parse_expiry("+1d").unwrap().0.unwrap() - rules::now_ms();
        assert!((86_399_000..=86_400_000).contains(&in_a_day), "{in_a_day}");
        assert!(parse_expiry("+5").is_err());
        assert!(parse_expiry("+5w").is_err());
        assert!(parse_expiry("tomorrow").is_err());
    }

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
