-- Statement-event workload for MariaDB (written against 10.11): QUERY events with many status
-- variables, USER_VAR / RAND / INTVAR, LOAD DATA (BEGIN_LOAD_QUERY, APPEND_BLOCK,
-- EXECUTE_LOAD_QUERY), QUERY_COMPRESSED, ANNOTATE_ROWS, XID.
--
-- Run by scripts/make_event_binlogs_query.sh, which creates database bs_evq and puts the data
-- files load_small.csv and load_big.csv (generated) into its directory first: LOAD DATA INFILE
-- with a relative name reads from the database directory, so no path of the machine reaches
-- the binlog. The script runs the failing LOAD DATA (DELETE_FILE), the binlog rotation and the
-- INCIDENT separately.
--
-- Fixed session timestamp; the RAND seeds and thread ids vary from run to run.

SET NAMES utf8mb4;
SET SESSION timestamp = 1700000000.654321;
SET SESSION time_zone = '+00:00';
SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION';
SET SESSION binlog_format = 'STATEMENT';
USE bs_evq;

CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(200), r DOUBLE,
                ts DATETIME(6), n BIGINT UNSIGNED) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE t2 (id INT PRIMARY KEY, w VARCHAR(20)) ENGINE=InnoDB;
CREATE TABLE t_load (a INT PRIMARY KEY, b VARCHAR(64), c VARCHAR(64)) ENGINE=InnoDB;
CREATE TABLE t_myisam (id INT, v TEXT) ENGINE=MyISAM;

-- USER_VAR: string, negative int, unsigned int, decimal, real, NULL
SET @s = 'text ü', @i = -5, @u = CAST(18446744073709551615 AS UNSIGNED), @d = 1.25,
    @f = 1.5e0, @nothing = NULL;
INSERT INTO t (v, n) VALUES (CONCAT(@s, ' ', @i, ' ', @d, ' ', @f, ' ',
                                    IFNULL(@nothing, 'null')), @u);

-- RAND (seeds), INTVAR (INSERT_ID, LAST_INSERT_ID)
INSERT INTO t (v, r) VALUES ('rand', RAND());
INSERT INTO t (v) VALUES ('auto');
INSERT INTO t (v, n) VALUES ('last id', LAST_INSERT_ID());

-- Q_HRNOW: NOW(6) in a statement
INSERT INTO t (v, ts) VALUES ('now6', NOW(6));

-- Q_TIME_ZONE, Q_LC_TIME_NAMES, Q_AUTO_INCREMENT, Q_CHARSET_DATABASE
SET SESSION time_zone = '+02:00';
INSERT INTO t (v, ts) VALUES ('tz', FROM_UNIXTIME(86400));
SET SESSION time_zone = '+00:00';
SET SESSION lc_time_names = 'de_DE';
INSERT INTO t (v) VALUES (DATE_FORMAT('2020-01-06', '%W %M'));
SET SESSION lc_time_names = 'en_US';
SET SESSION auto_increment_increment = 5, auto_increment_offset = 3;
INSERT INTO t (v) VALUES ('step 5');
SET SESSION auto_increment_increment = 1, auto_increment_offset = 1;
SET SESSION collation_database = 'latin1_swedish_ci';
INSERT INTO t (v) VALUES ('collation_database');
SET SESSION collation_database = 'utf8mb4_general_ci';

-- Q_TABLE_MAP_FOR_UPDATE: a multi-table UPDATE
INSERT INTO t2 VALUES (1, 'one'), (2, 'two');
UPDATE t, t2 SET t.v = t2.w WHERE t.id = t2.id;

-- Q_INVOKER: CURRENT_USER as definer
CREATE DEFINER = CURRENT_USER VIEW v_t AS SELECT id, v FROM t;
CREATE DEFINER = CURRENT_USER PROCEDURE p_noop() SELECT 1;

-- a transaction with two statements (BEGIN ... XID)
BEGIN;
INSERT INTO t (v) VALUES ('in trx 1');
UPDATE t SET v = 'in trx 2' WHERE v = 'in trx 1';
COMMIT;

-- MyISAM (no XID: COMMIT query)
INSERT INTO t_myisam VALUES (1, 'myisam');

-- Q_GTID_FLAGS3: two-phase ALTER (START ALTER, then COMMIT ALTER with the start's seq_no)
SET SESSION binlog_alter_two_phase = ON;
ALTER TABLE t2 ADD COLUMN extra INT;
SET SESSION binlog_alter_two_phase = OFF;

-- LOAD DATA: one block, then many (APPEND_BLOCK), with options
LOAD DATA INFILE 'load_small.csv' INTO TABLE t_load FIELDS TERMINATED BY ',' (a, b);
LOAD DATA INFILE 'load_big.csv' REPLACE INTO TABLE t_load
  FIELDS TERMINATED BY ';' OPTIONALLY ENCLOSED BY '"' ESCAPED BY '\\'
  LINES STARTING BY '>' TERMINATED BY '\n' IGNORE 1 LINES (a, b, @c) SET c = UPPER(@c);
LOAD DATA INFILE 'load_small.csv' IGNORE INTO TABLE t_load FIELDS TERMINATED BY ',' (a, b);

-- ROW format: ANNOTATE_ROWS before the rows events
SET SESSION binlog_format = 'ROW';
INSERT INTO t (v) VALUES ('row format, annotated');
UPDATE t SET r = 2.5 WHERE v = 'row format, annotated';
SET SESSION binlog_format = 'STATEMENT';

-- QUERY_COMPRESSED (log_bin_compress=ON, min length 10): DDL and DML, and a query longer than
-- 64 KiB (a 3-byte length in the compressed header)
SET GLOBAL log_bin_compress = ON;
SET GLOBAL log_bin_compress_min_len = 10;
CREATE TABLE t_c (id INT PRIMARY KEY, v LONGTEXT) ENGINE=InnoDB;
INSERT INTO t_c VALUES (1, 'compressed statement ü');
INSERT INTO t_c VALUES (2, REPEAT('x', 300));
SET @q = CONCAT('INSERT INTO t_c VALUES (3, ''', REPEAT('y', 70000), ''')');
PREPARE long_insert FROM @q;
EXECUTE long_insert;
DEALLOCATE PREPARE long_insert;
SET @big = REPEAT('0123456789abcdef', 4400);
INSERT INTO t_c VALUES (4, @big);
SET SESSION binlog_format = 'ROW';
INSERT INTO t_c VALUES (5, 'row event, compressed rows and annotate');
SET SESSION binlog_format = 'STATEMENT';
SET GLOBAL log_bin_compress = OFF;
