-- labelpress verifier ledger, schema version 3: uncharged renders.
-- `lp_tokens.uncharged`: renders delivered on the token that the verifier
-- refused to charge when a render node reported them (revoked, banned,
-- expired or over the balance meanwhile), recorded by `POST /v1/verify?
-- uncharged=true`; never deducted, only ever growing.
-- `lp_idempotency.uncharged`: whether the first call under the key was such
-- a call, so a replay of the other kind is refused (400) like one with
-- another count.
ALTER TABLE lp_tokens ADD COLUMN uncharged bigint NOT NULL DEFAULT 0 CHECK (uncharged >= 0);
ALTER TABLE lp_idempotency ADD COLUMN uncharged boolean NOT NULL DEFAULT false;
-- The tokens with uncharged renders, for /metrics (a few, usually none).
CREATE INDEX lp_tokens_uncharged ON lp_tokens (uncharged DESC) WHERE uncharged > 0;
