-- TABLE_MAP workload, part 3 (run after table_maps.sql and gen_wide_tables.py).
--
-- MariaDB 5.3 "hires" temporal format (mysql56_temporal_format=OFF).  These
-- columns are logged with the OLD type codes MYSQL_TYPE_TIME (11),
-- MYSQL_TYPE_DATETIME (12) and MYSQL_TYPE_TIMESTAMP (7) and with NO field
-- metadata, although TIME(3)/DATETIME(6)/TIMESTAMP(2) values are stored in
-- a wider, precision-dependent format.  The row image therefore cannot be
-- decoded from the TABLE_MAP alone: MariaDB 10.11's `mariadb-binlog -v`
-- prints garbage for DATETIME(6) and exits with status 1 at TIME(3) /
-- TIMESTAMP(2).  Kept last so every other event stays decodable by it.
-- mysql56_temporal_format is GLOBAL-only; it is restored right after.

SET NAMES utf8mb4;
SET SESSION time_zone = '+00:00';
SET SESSION timestamp = 1700000000.123456;
SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION';
USE bs_tm;

SET @bs_saved_tf = @@GLOBAL.mysql56_temporal_format;
SET GLOBAL mysql56_temporal_format = OFF;
CREATE TABLE t_temporal_old (
  tm TIME, tm3 TIME(3), dtm DATETIME, dtm6 DATETIME(6),
  ts TIMESTAMP NULL DEFAULT NULL, ts2 TIMESTAMP(2) NULL DEFAULT NULL
) ENGINE=InnoDB;
SET GLOBAL mysql56_temporal_format = @bs_saved_tf;
INSERT INTO t_temporal_old VALUES ('12:34:56', '-01:02:03.456',
  '2023-11-14 22:13:20', '2023-11-14 22:13:20.123456',
  '2023-11-14 22:13:20', '2023-11-14 22:13:20.12');
