-- The current-state workload (issue 16): what `binlog-schema spark current` must rebuild from
-- the binlogs alone -- the rows every table holds at the end. Tables of every common type,
-- with a primary key (single and composite), with only a UNIQUE NOT NULL key, and with no key
-- at all (duplicate identical rows: a multiset); one key inserted, deleted and inserted again
-- inside one transaction and across transactions (and across binlog files); UPDATEs that
-- change the primary key; multi-row statements; ALTERs between DML (ADD COLUMN with a DEFAULT,
-- NOT NULL without one, AFTER; DROP COLUMN; MODIFY widening; CHANGE and RENAME COLUMN),
-- RENAME TABLE, TRUNCATE, DROP TABLE and CREATE again with the same name; rolled-back
-- transactions and a rollback to a savepoint (InnoDB: they leave nothing in the binlog);
-- REPLACE and INSERT ... ON DUPLICATE KEY UPDATE. A second database is changed by qualified
-- names only. Across files (issue 26): ADD COLUMN with DEFAULT 42, NULL, and NOT NULL without
-- a DEFAULT (the implicit default) on rows of earlier files; a keyless table with duplicate
-- rows deleted and inserted in later files; a PRIMARY KEY added to a keyless table after
-- changes that its key would fold wrongly; and a statement the schema history refuses (an
-- application-time PERIOD FOR: its table is reported and not built).
--
-- scripts/make_current_binlogs.sh runs it twice (binlog_row_image FULL with
-- binlog_row_metadata FULL; MINIMAL with MINIMAL), each part (split at the "-- @@ part" lines)
-- into binlog files of its own, FLUSH BINARY LOGS inside the parts spreading them over
-- several files, and saves the tables' contents after part a and at the end;
-- tests/server/test_current_server.py compares `spark current` with them. Values are literals
-- or functions of a sequence (no NOW(), no RAND()): both passes write the same rows. The
-- session runs with time_zone '+00:00' (TIMESTAMP literals are UTC).
-- @@ part a: the tables, their first rows, the first ALTERs
DROP DATABASE IF EXISTS bs_current;
DROP DATABASE IF EXISTS bs_current_x;
CREATE DATABASE bs_current CHARACTER SET utf8mb4;
CREATE DATABASE bs_current_x CHARACTER SET latin1;
USE bs_current;

CREATE TABLE t_int (
  id INT NOT NULL PRIMARY KEY,
  ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED,
  mi MEDIUMINT, miu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED,
  bi BIGINT, biu BIGINT UNSIGNED, y YEAR, b8 BIT(8)
) ENGINE=InnoDB;
CREATE TABLE t_num (
  id INT NOT NULL PRIMARY KEY,
  d10 DECIMAL(10,2), d30 DECIMAL(30,10), f FLOAT, d DOUBLE
) ENGINE=InnoDB;
CREATE TABLE t_str (
  id INT NOT NULL PRIMARY KEY,
  c CHAR(10), vc VARCHAR(40),
  cl CHAR(10) CHARACTER SET latin1, vcl VARCHAR(40) CHARACTER SET latin1,
  bn BINARY(8), vb VARBINARY(16), tx TEXT, bl BLOB,
  e ENUM('small', 'medium', 'large', 'x-large'), s SET('red', 'green', 'blue', 'alpha'),
  j JSON
) ENGINE=InnoDB;
CREATE TABLE t_time (
  id INT NOT NULL PRIMARY KEY,
  dd DATE, dtm DATETIME(6), ts TIMESTAMP(6) NULL DEFAULT NULL, span TIME(6)
) ENGINE=InnoDB;
CREATE TABLE t_day (
  id INT NOT NULL PRIMARY KEY,
  at TIME(6), at0 TIME
) ENGINE=InnoDB;
CREATE TABLE t_comp (
  region CHAR(2) NOT NULL, n INT NOT NULL, val VARCHAR(20),
  PRIMARY KEY (region, n)
) ENGINE=InnoDB;
CREATE TABLE t_multi (
  a INT, b VARCHAR(10), f DOUBLE
) ENGINE=InnoDB;
CREATE TABLE t_uniq (
  k VARCHAR(10) NOT NULL, v INT, UNIQUE KEY uk (k)
) ENGINE=InnoDB;
CREATE TABLE t_alter (
  id INT NOT NULL PRIMARY KEY,
  n INT, name VARCHAR(10), note VARCHAR(20), old_col INT
) ENGINE=InnoDB;
CREATE TABLE t_old (
  id INT NOT NULL PRIMARY KEY, v VARCHAR(10)
) ENGINE=InnoDB;
CREATE TABLE t_trunc (
  id INT NOT NULL PRIMARY KEY, v VARCHAR(10)
) ENGINE=InnoDB;
CREATE TABLE t_recreate (
  id INT NOT NULL PRIMARY KEY, v VARCHAR(10), gone INT
) ENGINE=InnoDB;
CREATE TABLE t_gone (
  id INT NOT NULL PRIMARY KEY, v VARCHAR(10)
) ENGINE=InnoDB;
CREATE TABLE t_bulk (
  id INT NOT NULL PRIMARY KEY, grp TINYINT NOT NULL, amount DECIMAL(12,2), label VARCHAR(20)
) ENGINE=InnoDB;
CREATE TABLE bs_current_x.kv (
  k VARCHAR(20) NOT NULL PRIMARY KEY, v VARCHAR(40), n BIGINT
) ENGINE=InnoDB;
CREATE TABLE t_dflt (
  id INT NOT NULL PRIMARY KEY, v VARCHAR(10)
) ENGINE=InnoDB;
CREATE TABLE t_later (
  id INT NOT NULL, v INT
) ENGINE=InnoDB;
CREATE TABLE t_period (
  id INT NOT NULL, s DATE NOT NULL, e DATE NOT NULL, PERIOD FOR p(s, e)
) ENGINE=InnoDB;

-- integers at their limits; a NULL row
INSERT INTO t_int VALUES
  (1, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295,
   -9223372036854775808, 18446744073709551615, 1901, b'11111111'),
  (2, 127, 0, 32767, 0, 8388607, 0, 2147483647, 0, 9223372036854775807, 0, 2155, b'00000000'),
  (3, 0, 1, 0, 1, 0, 1, 0, 1, 0, 9223372036854775808, 2000, b'10100101'),
  (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO t_num VALUES
  (1, 12345678.99, 12345678901234567890.0123456789, 0.1, 0.1),
  (2, -99999999.99, -0.0000000001, -3.4e38, 1e308),
  (3, 0.00, 0, 16777217, 2.2250738585072014e-308),
  (4, NULL, NULL, NULL, NULL),
  (5, 0.01, 99999999999999999999.9999999999, 1.17549435e-38, -0.0);
INSERT INTO t_str VALUES
  (1, 'abc', 'emoji 😀 ✓', 'café', 'naïve €', X'0102', X'DEADBEEF', 'text ünïcode', X'00FF00',
   'small', 'red,blue', '{"a": 1, "b": [true, null, "x"]}'),
  (2, '', '', '', '', X'0102030405060708', X'', '', X'', 'x-large', '',
   '[]'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (4, 'quote''s', 'back\\slash', 'Ünïcödé', 'tab	here', X'FF', X'00',
   REPEAT('long text ', 200), REPEAT(X'AB', 3000), 'medium', 'red,green,blue,alpha',
   '{"nested": {"deep": [1, 2.5, "three"]}, "unicode": "☕"}');
INSERT INTO t_time VALUES
  (1, '2026-01-02', '2026-01-02 03:04:05.678901', '2026-01-02 03:04:05.678901',
   '-838:59:59.000000'),
  (2, '1000-01-01', '1000-01-01 00:00:00.000000', '1970-01-01 00:00:01.000000',
   '838:59:59.000000'),
  (3, '9999-12-31', '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.999999',
   '-00:00:00.000001'),
  (4, NULL, NULL, NULL, NULL),
  (5, '2000-02-29', '2000-02-29 12:00:00.000001', '2000-02-29 12:00:00.000001',
   '25:00:00.500000');
INSERT INTO t_day VALUES
  (1, '00:00:00.000000', '00:00:00'), (2, '23:59:59.999999', '23:59:59'),
  (3, '12:34:56.000789', '12:34:56'), (4, NULL, NULL);
INSERT INTO t_comp VALUES ('eu', 1, 'one'), ('eu', 2, 'two'), ('eu', 3, 'three'),
  ('us', 1, 'uno'), ('us', 2, 'dos');
-- the keyless table: duplicate identical rows
INSERT INTO t_multi VALUES (1, 'dup', 0.5), (1, 'dup', 0.5), (1, 'dup', 0.5),
  (2, 'pair', NULL), (2, 'pair', NULL), (3, NULL, -1.25);
INSERT INTO t_uniq VALUES ('a', 1), ('b', 2), ('c', NULL);
INSERT INTO t_alter VALUES (1, 10, 'ten', 'n1', 100), (2, 20, 'twenty', NULL, 200),
  (3, NULL, NULL, NULL, NULL);
INSERT INTO t_old VALUES (1, 'old one'), (2, 'old two');
INSERT INTO t_trunc VALUES (1, 'doomed'), (2, 'doomed');
INSERT INTO t_recreate VALUES (1, 'first', 1), (2, 'first', 2);
INSERT INTO t_gone VALUES (1, 'gone');
INSERT INTO t_bulk SELECT seq, seq % 7, seq * 1.25, CONCAT('row ', seq) FROM seq_1_to_400;
INSERT INTO bs_current_x.kv VALUES ('alpha', 'A', 1), ('beta', 'B', 2), ('gamma', NULL, NULL);
INSERT INTO t_dflt VALUES (1, 'one'), (2, 'two');
-- (keyed by id, as the key added in part b would key them, (1, 11) would replace (1, 10))
INSERT INTO t_later VALUES (1, 10), (2, 20), (1, 11), (3, 30), (3, 30);
INSERT INTO t_period VALUES (1, '2026-01-01', '2026-12-31');

FLUSH BINARY LOGS;

DELETE FROM t_later WHERE id = 1 AND v = 11;
DELETE FROM t_later WHERE id = 3 LIMIT 1;
INSERT INTO t_dflt VALUES (3, 'three');
INSERT INTO t_period VALUES (2, '2026-02-01', '2026-03-01');

-- insert, delete and insert again of one key inside one transaction
BEGIN;
INSERT INTO t_comp VALUES ('eu', 7, 'seven');
DELETE FROM t_comp WHERE region = 'eu' AND n = 7;
INSERT INTO t_comp VALUES ('eu', 7, 'seven again');
UPDATE t_int SET ti = ti - 1 WHERE id = 2;
COMMIT;
-- ... and across transactions (inserted, then deleted; inserted again after a FLUSH)
INSERT INTO t_uniq VALUES ('d', 4);
DELETE FROM t_uniq WHERE k = 'd';
INSERT INTO t_alter VALUES (9, 90, 'nine', 'n9', 900);
DELETE FROM t_alter WHERE id = 9;
-- UPDATEs that change the primary key (one row; several rows of the composite key)
UPDATE t_int SET id = 1002 WHERE id = 2;
UPDATE t_comp SET region = 'fr' WHERE region = 'eu' AND n < 3;
UPDATE t_bulk SET id = id + 10000 WHERE id > 390;
-- multi-row UPDATE and DELETE
UPDATE t_bulk SET amount = amount * 2, label = CONCAT(label, ' x2') WHERE grp = 3;
DELETE FROM t_bulk WHERE grp = 5 AND id < 200;
-- the keyless table: one of the duplicates changed, one deleted
UPDATE t_multi SET f = 0.75 WHERE a = 1 LIMIT 1;
DELETE FROM t_multi WHERE a = 2 LIMIT 1;
INSERT INTO t_multi VALUES (1, 'dup', 0.5);
-- value changes of every type
UPDATE t_num SET f = 0.3333333, d = 1 / 3, d10 = d10 - 1, d30 = -d30 WHERE id = 1;
UPDATE t_str SET vc = CONCAT(vc, ' ➜ changed'), e = 'large', s = 'green',
  j = '{"changed": true}', bn = X'0000000000000001' WHERE id = 1;
UPDATE t_str SET c = 'now set', tx = NULL, bl = X'', j = NULL WHERE id = 2;
UPDATE t_time SET ts = '2026-11-24 01:02:03.000004', span = '100:00:00.000001' WHERE id = 1;
UPDATE t_day SET at = '06:07:08.090000' WHERE id = 4;
-- a transaction rolled back: nothing of it is binlogged
BEGIN;
INSERT INTO t_int (id, ti) VALUES (77, 77);
UPDATE t_num SET d = 777 WHERE id = 2;
DELETE FROM t_comp WHERE region = 'us';
ROLLBACK;
-- REPLACE and INSERT ... ON DUPLICATE KEY UPDATE
REPLACE INTO t_old VALUES (2, 'replaced'), (3, 'new three');
INSERT INTO t_uniq VALUES ('b', 20), ('e', 5) ON DUPLICATE KEY UPDATE v = v * 10;
UPDATE bs_current_x.kv SET v = 'B2', n = n * 1000000000000 WHERE k = 'beta';

FLUSH BINARY LOGS;

-- the first ALTERs: ADD COLUMN with a DEFAULT (AFTER a column), NOT NULL without one
ALTER TABLE t_dflt ADD COLUMN d INT DEFAULT 42, ADD COLUMN z INT NOT NULL,
  ADD COLUMN nn VARCHAR(3), ADD COLUMN k ENUM('p', 'q') NOT NULL;
INSERT INTO t_dflt (id, v, z) VALUES (4, 'four', 4);
UPDATE t_dflt SET d = 7 WHERE id = 2;
DELETE FROM t_multi WHERE a = 2 LIMIT 1;
ALTER TABLE t_alter ADD COLUMN status VARCHAR(12) NOT NULL DEFAULT 'new' AFTER name;
ALTER TABLE t_alter ADD COLUMN cnt INT NOT NULL, ADD COLUMN extra DECIMAL(6,2) DEFAULT 1.50;
INSERT INTO t_alter (id, n, name, note, old_col, cnt) VALUES (4, 40, 'forty', 'n4', 400, 4);
INSERT INTO t_alter VALUES (5, 50, 'fifty', 'done', 'n5', 500, 5, NULL);
UPDATE t_alter SET status = 'seen' WHERE id = 1;
-- inserted again, the key deleted in an earlier file
INSERT INTO t_alter (id, n, name, cnt) VALUES (9, 99, 'nine again', 9);
TRUNCATE TABLE t_trunc;
INSERT INTO t_trunc VALUES (2, 'after'), (3, 'after');
DROP TABLE t_gone;
-- a rollback to a savepoint inside a committed transaction
BEGIN;
INSERT INTO t_comp VALUES ('de', 1, 'eins');
SAVEPOINT sp;
INSERT INTO t_comp VALUES ('de', 2, 'zwei');
UPDATE t_comp SET val = 'undone' WHERE region = 'us';
ROLLBACK TO SAVEPOINT sp;
UPDATE t_comp SET val = 'uno!' WHERE region = 'us' AND n = 1;
COMMIT;
INSERT INTO bs_current_x.kv VALUES ('delta', 'D', -4);
DELETE FROM bs_current_x.kv WHERE k = 'alpha';
-- @@ part b: more ALTERs between DML, renames, a table dropped and created again
-- a primary key for the keyless t_later; a column with a DEFAULT for rows of part a
ALTER TABLE t_later ADD PRIMARY KEY (id);
UPDATE t_later SET v = 21 WHERE id = 2;
INSERT INTO t_later VALUES (4, 40);
ALTER TABLE t_dflt ADD COLUMN late DECIMAL(5,2) NOT NULL DEFAULT 9.50;
INSERT INTO t_multi VALUES (2, 'pair', NULL), (2, 'pair', NULL);
-- widening
ALTER TABLE t_alter MODIFY n BIGINT, MODIFY name VARCHAR(50);
UPDATE t_alter SET n = 9000000000, name = 'a name longer than ten' WHERE id = 2;
INSERT INTO t_alter (id, n, name, cnt) VALUES (6, -9000000000, 'sixty, widened', 6);
ALTER TABLE t_alter DROP COLUMN old_col;
UPDATE t_alter SET note = 'dropped old' WHERE id = 1;
ALTER TABLE t_alter CHANGE note remark VARCHAR(30);
ALTER TABLE t_alter RENAME COLUMN status TO state;
UPDATE t_alter SET remark = 'renamed', state = 'late' WHERE id IN (3, 4);
DELETE FROM t_alter WHERE id = 5;

FLUSH BINARY LOGS;

RENAME TABLE t_old TO t_new;
INSERT INTO t_new VALUES (4, 'new four');
UPDATE t_new SET v = 'renamed' WHERE id = 1;
DROP TABLE t_recreate;
CREATE TABLE t_recreate (
  id BIGINT NOT NULL PRIMARY KEY, label VARCHAR(20), born DATE
) ENGINE=InnoDB;
INSERT INTO t_recreate VALUES (1, 'second life', '2026-11-24'), (5, 'five', NULL);
-- the keyless table again: a duplicate of a changed row, the rest of the duplicates deleted
INSERT INTO t_multi VALUES (1, 'dup', 0.75);
DELETE FROM t_multi WHERE a = 1 AND f = 0.5 LIMIT 2;
UPDATE t_multi SET b = 'single' WHERE a = 3;
-- key deleted in part a, inserted again here; key changed again
INSERT INTO t_uniq VALUES ('d', 44);
UPDATE t_uniq SET k = 'aa' WHERE k = 'a';
UPDATE t_int SET id = 2, ti = 126 WHERE id = 1002;
UPDATE t_int SET biu = biu - 1, b8 = b8 ^ 15, y = 1999 WHERE id IN (1, 3);
BEGIN;
DELETE FROM t_comp WHERE region = 'fr' AND n = 1;
INSERT INTO t_comp VALUES ('fr', 1, 'un, again');
DELETE FROM t_comp WHERE region = 'fr' AND n = 1;
INSERT INTO t_comp VALUES ('fr', 1, 'un, third');
COMMIT;

FLUSH BINARY LOGS;

TRUNCATE TABLE t_trunc;
INSERT INTO t_trunc VALUES (1, 'final');
INSERT INTO t_bulk SELECT seq, seq % 7, -seq / 8, NULL FROM seq_401_to_600;
DELETE FROM t_bulk WHERE grp = 0;
UPDATE t_bulk SET grp = grp + 10 WHERE id BETWEEN 100 AND 150;
UPDATE t_time SET dtm = '2026-11-24 23:59:59.999999', dd = '2026-11-24', span = '-100:00:00.5'
  WHERE id = 4;
INSERT INTO t_time VALUES (6, '2026-11-24', '2026-11-24 00:00:00', '2026-11-24 00:00:00',
  '00:00:00');
UPDATE t_day SET at0 = '01:02:03' WHERE id = 1;
INSERT INTO t_day VALUES (5, '18:00:00.5', '18:00:00');
UPDATE t_num SET f = -2.5e-10, d = 6.02214076e23 WHERE id = 3;
DELETE FROM t_num WHERE id = 2;
UPDATE t_str SET cl = 'Ærø', vcl = '¡olé!', vb = X'00010203', tx = 'second', s = 'alpha,red'
  WHERE id = 3;
BEGIN;
UPDATE t_bulk SET label = 'never' WHERE id < 50;
DELETE FROM t_new;
ROLLBACK;
UPDATE bs_current_x.kv SET k = 'beta2' WHERE k = 'beta';
INSERT INTO bs_current_x.kv VALUES ('alpha', 'A again', 11);
