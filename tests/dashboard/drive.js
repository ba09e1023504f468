// Drives the verifier dashboard (/admin) in headless Chromium.
// Usage: node drive.js <base-url> <admin-token> [render]
// With `render` (a full `labelpress serve`), the new token first renders a
// label through POST /api/v1/label and the page must show the balance drop.
// Exits non-zero on the first failed expectation; on success prints one JSON
// line {"id", "account"} so the Rust test can check the store.
"use strict";
const { chromium } = require("playwright-core");

const [base, admin, mode] = process.argv.slice(2);
const renders = mode === "render";
if (!base || !admin) {
  console.error("usage: node drive.js <base-url> <admin-token>");
  process.exit(2);
}

function expect(condition, what) {
  if (!condition) throw new Error("expected: " + what);
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

    // Recent usage.
    await row(id).locator("[data-testid=usage-show]").click();
    await waitText(page.locator("[data-testid=usage-row] td[data-field=count]"), /^3$/, "the usage row's count");

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

    // Ban and unban the account.
    await page.fill("[data-testid=ban-account]", account);
    await page.click("[data-testid=ban-submit]");
    await waitText(page.locator("[data-testid=account-result]"), "is banned", "the ban result");
    await waitText(field(id, "status"), /^banned$/, "the status after a ban");
    expect((await verify(secret, { count: 1 })).body.error === "Banned", "verify refuses a banned account");
    await page.click("[data-testid=unban-submit]");
    await waitText(field(id, "status"), /^active$/, "the status after an unban");

    // Revoke (the confirmation dialog is accepted).
    await row(id).locator("[data-testid=revoke]").click();
    await waitText(field(id, "status"), /^revoked$/, "the status after revoking");
    expect((await verify(secret, { count: 1 })).body.error === "Invalid Token", "verify refuses a revoked token");

    expect(pageErrors.length === 0, "no script errors, got " + pageErrors.join("; "));
    console.log(JSON.stringify({ id, account, balance }));
  } finally {
    await browser.close();
  }
})().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
