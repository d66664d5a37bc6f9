-- Vesta segment table (PostgreSQL). One row per business tag; SegmentSchema replaces the table name.
-- max_id: the end (exclusive) of the last segment handed to any node; new tags start at 1.
-- step: the table's step, the first and smallest step a node takes for the tag.
CREATE TABLE IF NOT EXISTS vesta_segment (
    biz_tag     VARCHAR(128) NOT NULL PRIMARY KEY,
    max_id      BIGINT       NOT NULL DEFAULT 1,
    step        INTEGER      NOT NULL,
    description VARCHAR(256),
    update_time TIMESTAMP    NOT NULL DEFAULT CURRENT_TIMESTAMP
);
