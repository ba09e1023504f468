-- labelpress verifier ledger, schema version 5: quota leases.
-- `lp_tokens.lease_tat`: the token's rate limit as leases draw from it (the
-- theoretical arrival time of a GCRA, Unix milliseconds; 0 before the first
-- lease), kept with the balance so every verifier node of a fleet judges
-- leases against one limit (docs/leases.md).
ALTER TABLE lp_tokens ADD COLUMN lease_tat bigint NOT NULL DEFAULT 0;
