-- labelpress verifier ledger, schema version 2: the dashboard's history.
-- `banned_at`: Unix milliseconds of the ban in force (NULL when not banned,
-- or banned before version 2). The index serves usage over time per token
-- (GET /admin/api/usage): a token's rows in a time range.
ALTER TABLE lp_accounts ADD COLUMN banned_at bigint;
CREATE INDEX lp_usage_token_at ON lp_usage (token_hash, at);
