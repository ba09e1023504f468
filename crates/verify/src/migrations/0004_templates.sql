-- labelpress schema version 4: the render nodes' stored templates
-- (`PUT /api/v1/templates/{name}`), one row per owner and name. `owner` is
-- `account:<name>` (or `token:<sha-256 hex>` when the verifier does not name
-- accounts); `template` is the JSON text as it was checked and stored.
CREATE TABLE lp_templates (
    owner      text   NOT NULL,
    name       text   NOT NULL,
    template   text   NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (owner, name)
);
