// Drives the verifier dashboard (/admin) in headless Chromium.
// Usage: node drive.js <base-url> <admin-token> [render]
// With `render` (a full `labelpress serve`), the new token first renders a
// label through POST /api/v1/label and the page must show the balance drop.
// Then it reads the usage chart's data points, searches and pages through
// tokens, bans and unbans from the banned list, and checks the layout at
// 360 to 1,920 px wide; screenshots at 390 and 1,280 px go to the folder
// $DASHBOARD_ARTIFACTS (when set).
// Exits non-zero on the first failed expectation; on success prints one JSON
// line {"id", "account", "balance", "units", "others", "screenshots"} so the
// Rust test can check the store.
"use strict";
const { chromium } = require("playwright-core");

const [base, admin, mode] = process.argv.slice(2);
const artifacts = process.env.DASHBOARD_ARTIFACTS;
const renders = mode === "render";
if (!base || !admin) {
  console.error("usage: node drive.js <base-url> <admin-token>");
  process.exit(2);
}

function expect(condition, what) {
  if (!condition) throw new Error("expected: " + what);
}

async function adminApi(method, path, body) {
  const r = await fetch(base + "/admin/api" + path, {
    method,
    headers: { Authorization: "Bearer " + admin, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await r.json();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(answer)}`);
  return answer;
}

async function verify(secret, body) {
  const r = await fetch(base + "/v1/verify", {
    method: "POST",
    headers: { Authorization: "Bearer " + secret, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    // Containers often run as root, where Chromium's sandbox cannot start.
    args: ["--no-sandbox"],
  });
  try {
    const page = await browser.newPage();
    const pageErrors = [];
    page.on("pageerror", (e) => pageErrors.push(String(e)));
    page.on("dialog", (d) => d.accept());
    const account = "dash-" + Date.now();
    const row = (id) => page.locator(`[data-testid=token-row][data-id="${id}"]`);
    const field = (id, name) => row(id).locator(`td[data-field=${name}]`);
    // Waits until `probe` (run in the page) returns true; says `what` if not.
    const until = async (what, probe, arg) => {
      try {
        await page.waitForFunction(probe, arg, { timeout: 5000 });
      } catch (e) {
        throw new Error("expected " + what);
      }
    };
    const shownIds = () => page.$$eval("[data-testid=token-row]", (rs) => rs.map((r) => r.dataset.id));
    const rowsAre = async (ids, what) => {
      await until(what + ": rows " + ids.join(","),
        (want) => JSON.stringify([...document.querySelectorAll("[data-testid=token-row]")].map((r) => r.dataset.id)) === want,
        JSON.stringify(ids)).catch(async (e) => { throw new Error(e.message + ", found " + (await shownIds()).join(",")); });
    };
    const chartPoints = () => page.$$eval("[data-testid=chart-point]", (ps) => ps.map((p) => ({
      start: p.dataset.start, units: Number(p.dataset.units), deductions: Number(p.dataset.deductions),
      title: p.querySelector("title").textContent,
    })));
    const waitText = async (locator, text, what) => {
      try {
        await locator.filter({ hasText: text }).first().waitFor({ timeout: 5000 });
      } catch (e) {
        const now = await locator.first().textContent().catch(() => "(absent)");
        throw new Error(`expected ${what} to read ${text}, found ${now}`);
      }
    };

    await page.goto(base + "/admin");

    // A wrong admin token is refused and leaves the sign-in form up.
    await page.fill("[data-testid=admin-token]", "not-the-admin-token");
    await page.click("[data-testid=login]");
    await page.locator("[data-testid=error]").waitFor({ state: "visible" });
    expect(/403/.test(await page.textContent("[data-testid=error]")), "a 403 error for a wrong admin token");
    expect(await page.isVisible("[data-testid=admin-token]"), "the sign-in form after a wrong token");

    await page.fill("[data-testid=admin-token]", admin);
    await page.click("[data-testid=login]");
    await page.locator("[data-testid=refresh]").waitFor({ state: "visible" });

    // Create a token; the secret is shown once.
    await page.fill("[data-testid=create-account]", account);
    await page.fill("[data-testid=create-balance]", "10");
    await page.click("[data-testid=create-submit]");
    await page.locator("[data-testid=created-secret]").waitFor({ state: "visible" });
    const secret = (await page.textContent("[data-testid=created-secret]")).trim();
    const id = (await page.textContent("[data-testid=created-id]")).trim();
    expect(/^lp_[0-9A-Za-z]{32}$/.test(secret), "a secret lp_ + 32 base62, got " + secret);
    expect(/^tok_[0-9A-Za-z]{12}$/.test(id), "an id tok_ + 12 base62, got " + id);
    await waitText(field(id, "balance"), /^10$/, "the new token's balance");
    await waitText(field(id, "status"), /^active$/, "the new token's status");
    expect((await field(id, "hint").textContent()).startsWith(secret.slice(0, 8)), "the hint is the secret's start");

    let balance = 10;
    if (renders) {
      // Render a label with the token; usage reaches the verifier through the
      // render node's outbox, so the page is refreshed until the balance drops.
      const r = await fetch(base + "/api/v1/label", {
        method: "POST",
        headers: { Authorization: "Bearer " + secret, "Content-Type": "application/json" },
        body: JSON.stringify({ pages: [{ size: "label_100_150", elements: [{ type: "text", x: 10, y: 10, content: "from the dashboard" }] }] }),
      });
      const pdf = Buffer.from(await r.arrayBuffer());
      expect(r.status === 200 && pdf.subarray(0, 5).toString() === "%PDF-", "a PDF for the render, got " + r.status);
      balance -= 1;
      const deadline = Date.now() + 20000;
      for (;;) {
        await page.click("[data-testid=refresh]");
        const now = (await field(id, "balance").textContent().catch(() => "")).trim();
        if (now === String(balance)) break;
        if (Date.now() > deadline) throw new Error(`expected the balance ${balance} after a render, found ${now}`);
        await page.waitForTimeout(250);
      }
    }

    // Spend 3 with the secret read from the page, then refresh the list.
    const spent = await verify(secret, { count: 3 });
    balance -= 3;
    expect(spent.status === 200 && spent.body.balance === balance, `verify 200 with balance ${balance}, got ` + JSON.stringify(spent));
    await page.click("[data-testid=refresh]");
    await waitText(field(id, "balance"), new RegExp(`^${balance}$`), "the balance after verifying 3");

    // A reload keeps the session (sessionStorage) and never shows the secret again.
    await page.reload();
    await waitText(field(id, "balance"), new RegExp(`^${balance}$`), "the balance after a reload");
    expect(!(await page.content()).includes(secret), "the secret is gone after a reload");

    // Recent usage, and the chart: a bar per hour of the last 24 whose
    // units add up to what was spent (the render and the 3 verified).
    const units = 10 - balance;
    const deductions = renders ? 2 : 1;
    await row(id).locator("[data-testid=usage-show]").click();
    await waitText(page.locator("[data-testid=usage-row] td[data-field=count]"), /^3$/, "the usage row's count");
    const sumOf = (points, key) => points.reduce((n, p) => n + p[key], 0);
    const checkChart = async (bucket, count, what) => {
      await until(`a ${bucket} chart (${what})`, (b) => document.getElementById("chart").dataset.bucket === b, bucket);
      const points = await chartPoints();
      expect(points.length === count, `${count} ${bucket} points (${what}), got ${points.length}`);
      expect(sumOf(points, "units") === units, `the ${bucket} points' units (${what}) add up to ${units}, got ` + JSON.stringify(points.filter((p) => p.units)));
      expect(sumOf(points, "deductions") === deductions, `${deductions} deductions in the ${bucket} points (${what})`);
      const used = points.filter((p) => p.units > 0);
      const last = Date.parse(points[points.length - 1].start);
      expect(used.every((p) => last - Date.parse(p.start) <= 3600e3 * (bucket === "hour" ? 1 : 24)), "usage in the last buckets, got " + JSON.stringify(used));
      expect(used.every((p) => p.title.endsWith(`${p.units} units, ${p.deductions} deductions`) && p.title.includes("UTC")), "each point's title names its units in UTC");
      expect(points.every((p) => p.start.endsWith(":00:00Z")), "buckets start on whole UTC hours");
    };
    await checkChart("hour", 24, "token");
    await page.click("[data-testid=usage-day]");
    await checkChart("day", 30, "token");
    await page.click("[data-testid=usage-hour]");
    await checkChart("hour", 24, "token again");
    // The account's series: its only token's usage.
    await page.fill("[data-testid=ban-account]", account);
    await page.click("[data-testid=account-usage]");
    await waitText(page.locator("[data-testid=usage-id]"), "account " + account, "the account's chart title");
    await checkChart("hour", 24, "account");
    expect((await page.locator("#recent").isHidden()), "no per-token deductions under an account's chart");

    // Top up by 5.
    await row(id).locator("[data-testid=topup-amount]").fill("5");
    await row(id).locator("[data-testid=topup]").click();
    balance += 5;
    await waitText(field(id, "balance"), new RegExp(`^${balance}$`), "the balance after a top-up");

    // Expiry in the past makes it expired; "never" restores it.
    await row(id).locator("[data-testid=expiry-input]").fill("2020-01-01T00:00");
    await row(id).locator("[data-testid=expiry-set]").click();
    await waitText(field(id, "status"), /^expired$/, "the status after a past expiry");
    expect((await verify(secret, { count: 1 })).body.error === "Token Expired", "verify refuses an expired token");
    await row(id).locator("[data-testid=expiry-never]").click();
    await waitText(field(id, "expires_at"), /^never$/, "the expiry after 'never'");
    await waitText(field(id, "status"), /^active$/, "the status after 'never'");

    // Search and paging: 7 tokens of another account, 5 per page, oldest first.
    const others = "page-" + Date.now();
    const made = [];
    for (let i = 0; i < 7; i++) {
      made.push((await adminApi("POST", "/tokens", { account: others, balance: 5 })).id);
      // Lists are oldest first, then by id: a few ms apart, the creation order.
      await new Promise((done) => setTimeout(done, 3));
    }
    await page.selectOption("[data-testid=page-size]", "5");
    await page.fill("[data-testid=search-account]", others);
    await rowsAre(made.slice(0, 5), "the first page of the account");
    await waitText(page.locator("[data-testid=page-info]"), "1–5 of 7", "the page info");
    expect(await page.isDisabled("[data-testid=page-prev]"), "no previous page on the first");
    await page.click("[data-testid=page-next]");
    await rowsAre(made.slice(5), "the second page");
    await waitText(page.locator("[data-testid=page-info]"), "6–7 of 7", "the second page's info");
    expect(await page.isDisabled("[data-testid=page-next]"), "no next page on the last");
    await page.click("[data-testid=page-prev]");
    await rowsAre(made.slice(0, 5), "the first page again");
    // Typing part of an id (any case) narrows the list to that token.
    await page.fill("[data-testid=search-account]", "");
    await page.fill("[data-testid=search-q]", made[3].slice(2).toUpperCase());
    await rowsAre([made[3]], "the search by id");
    // Part of the account name finds all 7, on two pages.
    await page.fill("[data-testid=search-q]", others.slice(0, -3));
    await rowsAre(made.slice(0, 5), "the search by account");
    await waitText(page.locator("[data-testid=page-info]"), "of 7", "the search's total");
    // A revoked token: found by its status, with no Top up, expiry or Revoke.
    await adminApi("POST", `/tokens/${made[0]}/revoke`);
    await page.selectOption("[data-testid=search-status]", "revoked");
    await rowsAre([made[0]], "the revoked tokens of the account");
    for (const action of ["topup", "topup-amount", "expiry-set", "expiry-never", "revoke"]) {
      expect(await row(made[0]).locator(`[data-testid=${action}]`).count() === 0, `no ${action} on a revoked token`);
    }
    expect(await row(made[0]).locator("[data-testid=usage-show]").count() === 1, "usage on a revoked token");
    await page.selectOption("[data-testid=search-status]", "active");
    await rowsAre(made.slice(1, 6), "the active tokens of the account");
    expect(await row(made[1]).locator("[data-testid=topup]").count() === 1, "top up on an active token");
    expect(await row(made[1]).locator("[data-testid=expiry-never]").count() === 0, "no 'never expires' without an expiry");
    await page.fill("[data-testid=search-q]", "no-such-token-anywhere");
    await page.locator("[data-testid=no-tokens]").waitFor({ state: "visible" });
    await page.fill("[data-testid=search-q]", "");
    await page.selectOption("[data-testid=search-status]", "");
    await page.selectOption("[data-testid=page-size]", "25");
    await until("every token again", (want) => want.every((t) => document.querySelector(`[data-testid=token-row][data-id="${t}"]`)), [id, ...made]);

    // Ban the account: listed as banned (with its time in UTC), its token
    // offers Unban, not Ban; Unban in the list lifts it.
    await page.fill("[data-testid=ban-account]", account);
    await page.click("[data-testid=ban-submit]");
    await waitText(page.locator("[data-testid=account-result]"), "is banned", "the ban result");
    await waitText(field(id, "status"), /^banned$/, "the status after a ban");
    expect((await verify(secret, { count: 1 })).body.error === "Banned", "verify refuses a banned account");
    const bannedRow = page.locator(`[data-testid=banned-row][data-account="${account}"]`);
    await bannedRow.waitFor({ timeout: 5000 });
    expect(/banned since \d{4}-\d\d-\d\d \d\d:\d\d UTC/.test(await bannedRow.textContent()), "the ban's time in UTC");
    expect(await row(id).locator("[data-testid=row-unban]").count() === 1 && await row(id).locator("[data-testid=row-ban]").count() === 0, "a banned token offers Unban account, not Ban");
    // A second account banned from its row.
    await row(made[1]).locator("[data-testid=row-ban]").click();
    await page.locator(`[data-testid=banned-row][data-account="${others}"]`).waitFor({ timeout: 5000 });
    await bannedRow.locator("[data-testid=banned-unban]").click();
    await bannedRow.waitFor({ state: "detached", timeout: 5000 });
    await waitText(field(id, "status"), /^active$/, "the status after an unban");
    expect(await row(id).locator("[data-testid=row-ban]").count() === 1, "an active token offers Ban account");

    // The layout from 360 to 1,920 px: no horizontal scrolling of the page,
    // with the chart, the banned list and a full token table on it.
    await row(id).locator("[data-testid=usage-show]").click();
    await until("the token's chart", (want) => document.getElementById("usage-id").textContent === want, id);
    const screenshots = [];
    for (const width of [360, 390, 1280, 1920]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(100);
      const sizes = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
        chart: document.getElementById("chart").getBoundingClientRect().right,
      }));
      expect(sizes.scroll <= sizes.inner, `no horizontal overflow at ${width} px, got ${JSON.stringify(sizes)}`);
      expect(sizes.chart <= sizes.inner, `the chart within the page at ${width} px, got ${JSON.stringify(sizes)}`);
      if (artifacts && (width === 390 || width === 1280)) {
        const path = `${artifacts}/dashboard-${width}.png`;
        await page.screenshot({ path, fullPage: true });
        screenshots.push(path);
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await adminApi("POST", `/accounts/${encodeURIComponent(others)}/unban`);

    // Revoke (the confirmation dialog is accepted).
    await row(id).locator("[data-testid=revoke]").click();
    await waitText(field(id, "status"), /^revoked$/, "the status after revoking");
    expect((await verify(secret, { count: 1 })).body.error === "Invalid Token", "verify refuses a revoked token");

    expect(pageErrors.length === 0, "no script errors, got " + pageErrors.join("; "));
    console.log(JSON.stringify({ id, account, balance, units, others, screenshots }));
  } finally {
    await browser.close();
  }
})().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
