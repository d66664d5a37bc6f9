-- Vesta segment table (MySQL, MariaDB). One row per business tag; SegmentSchema replaces the table name.
-- max_id: the end (exclusive) of the last segment handed to any node; new tags start at 1.
-- step: the table's step, the first and smallest step a node takes for the tag.
-- InnoDB: the allocating UPDATE relies on its row lock. DATETIME, not TIMESTAMP: the latter ends in 2038.
CREATE TABLE IF NOT EXISTS vesta_segment (
    biz_tag     VARCHAR(128) NOT NULL,
    max_id      BIGINT       NOT NULL DEFAULT 1,
    step        INT          NOT NULL,
    description VARCHAR(256) NULL,
    update_time DATETIME     NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (biz_tag)
) ENGINE = InnoDB;
