-- labelpress verifier ledger, schema version 1 (see src/verify/postgres.rs).
-- Times are Unix milliseconds, as in the API.

CREATE TABLE lp_accounts (
    name   text PRIMARY KEY,
    banned boolean NOT NULL DEFAULT false
);

-- One row per token, keyed by the SHA-256 of its secret (never the secret).
-- `banned` copies the account's ban into the row that a deduction updates,
-- so the ban is judged in the same atomic statement as the balance.
CREATE TABLE lp_tokens (
    hash            bytea PRIMARY KEY,
    id              text NOT NULL UNIQUE,
    hint            text NOT NULL,
    account         text NOT NULL,
    balance         bigint NOT NULL CHECK (balance >= 0),
    expires_at      bigint,
    rate_per_second bigint,
    rate_burst      bigint,
    revoked         boolean NOT NULL DEFAULT false,
    banned          boolean NOT NULL DEFAULT false,
    created_at      bigint NOT NULL,
    last_used_at    bigint
);
CREATE INDEX lp_tokens_account ON lp_tokens (account);

-- Every deduction, for the dashboard's usage history. `seq` orders a
-- token's deductions as they were applied (under its row lock); `at` is the
-- caller's clock, which concurrent calls may read out of that order.
CREATE TABLE lp_usage (
    seq        bigint GENERATED ALWAYS AS IDENTITY,
    token_hash bytea NOT NULL,
    at         bigint NOT NULL,
    count      bigint NOT NULL,
    balance    bigint NOT NULL
);
CREATE INDEX lp_usage_token_seq ON lp_usage (token_hash, seq DESC);

-- The first answer per (token, Idempotency-Key), kept 24 hours.
CREATE TABLE lp_idempotency (
    token_hash bytea NOT NULL,
    key        text NOT NULL,
    at         bigint NOT NULL,
    count      bigint NOT NULL,
    granted    text NOT NULL,
    PRIMARY KEY (token_hash, key)
);
CREATE INDEX lp_idempotency_at ON lp_idempotency (at);
