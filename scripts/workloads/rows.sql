-- Row-value workload for MariaDB (written against 10.11): database `bs_rows`.
--
-- Tables of every column type MariaDB 10.11 has, in several charsets and key layouts, filled
-- with edge values, then UPDATEd and DELETEd, so that the binlog holds WRITE, UPDATE and
-- DELETE rows events of every type.  scripts/make_rows_binlogs.sh runs it once per
-- binlog_row_image (FULL, MINIMAL, NOBLOB) x binlog_row_metadata (FULL, MINIMAL) pass, each
-- pass in a fresh binlog file, and records the final SELECT of every table
-- (scripts/rows_snapshot.py); tests/server/test_rows_server.py replays the decoded row changes and
-- compares.  The row image and metadata settings come from the caller, not from this file.
--
-- What MariaDB does not store (and so is not here):
--   * NaN and +-infinity: FLOAT/DOUBLE columns reject them (there is no SQL literal for them
--     and arithmetic that would give them raises ER_DATA_OUT_OF_RANGE / returns NULL);
--   * negative zero: -0e0 is stored as +0 (the workload inserts it; the binlog holds +0);
--   * VECTOR (MariaDB 11.7+) and MySQL's binary JSON: MariaDB's JSON is LONGTEXT;
--   * "hires" old-format TIME(n)/DATETIME(n)/TIMESTAMP(n), n > 0 (mysql56_temporal_format=OFF):
--     logged with the old type codes and no metadata, so their row bytes cannot be decoded
--     from the binlog alone (see table_maps_old_temporal.sql); old-format columns of
--     precision 0 are here (t_temporal_old).
--
-- Deterministic: fixed session timestamp and time zone, no RAND()/UUID()/NOW() drift.
-- The file is UTF-8; latin1 bytes come from the server's conversion or _latin1 X'..'.

SET NAMES utf8mb4;
SET SESSION time_zone = '+00:00';
SET SESSION timestamp = 1700000000.123456;
-- strict, but zero dates and zero parts allowed (no NO_ZERO_DATE / NO_ZERO_IN_DATE)
SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION';
SET SESSION binlog_format = 'ROW';

DROP DATABASE IF EXISTS bs_rows;
CREATE DATABASE bs_rows CHARACTER SET latin1 COLLATE latin1_swedish_ci;
USE bs_rows;

-- ------------------------------------------------------------------ integers (PK)
CREATE TABLE t_int (
  id INT NOT NULL PRIMARY KEY,
  ti TINYINT, tiu TINYINT UNSIGNED,
  si SMALLINT, siu SMALLINT UNSIGNED,
  mi MEDIUMINT, miu MEDIUMINT UNSIGNED,
  i INT, iu INT UNSIGNED,
  bi BIGINT, biu BIGINT UNSIGNED,
  b BOOLEAN, tiz TINYINT(3) UNSIGNED ZEROFILL
) ENGINE=InnoDB;
INSERT INTO t_int VALUES
  (1, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0, FALSE, 0),
  (2, 127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295,
   9223372036854775807, 18446744073709551615, TRUE, 255),
  (3, 0, 128, 0, 32768, 0, 8388608, 0, 2147483648, 0, 9223372036854775808, NULL, 7),
  (4, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, 1, 1),
  (5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

-- ------------------------------------------------------------------ decimals
CREATE TABLE t_decimal (
  id INT NOT NULL PRIMARY KEY,
  d65_30 DECIMAL(65,30), d10_0 DECIMAL(10,0), d5_5 DECIMAL(5,5), d1_0 DECIMAL(1,0),
  d18_9 DECIMAL(18,9), d20_10 DECIMAL(20,10), d65_0 DECIMAL(65,0),
  du DECIMAL(12,3) UNSIGNED, d9_9 DECIMAL(9,9), d19_0 DECIMAL(19,0)
) ENGINE=InnoDB;
INSERT INTO t_decimal VALUES
  (1, 99999999999999999999999999999999999.999999999999999999999999999999, 9999999999,
   0.99999, 9, 999999999.999999999, 9999999999.9999999999,
   99999999999999999999999999999999999999999999999999999999999999999, 999999999.999,
   0.999999999, 9999999999999999999),
  (2, -99999999999999999999999999999999999.999999999999999999999999999999, -9999999999,
   -0.99999, -9, -999999999.999999999, -9999999999.9999999999,
   -99999999999999999999999999999999999999999999999999999999999999999, 0,
   -0.999999999, -9999999999999999999),
  (3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
  (4, -0.000000000000000000000000000001, -1, -0.00001, -1, -0.000000001, -0.0000000001,
   -1, 0.001, -0.000000001, -1),
  (5, 12345678901234567890123456789012345.123456789012345678901234567890, 1234567890,
   0.12345, 5, -123456789.123456789, 1234567890.0123456789,
   12345678901234567890123456789012345678901234567890123456789012345, 123456789.123,
   0.123456789, -1234567890123456789),
  (6, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

-- ------------------------------------------------------------- floating point
-- tiny = smallest subnormal and smallest normal, huge = largest finite value
CREATE TABLE t_float (
  id INT NOT NULL PRIMARY KEY,
  f FLOAT, d DOUBLE, fu FLOAT UNSIGNED, du DOUBLE UNSIGNED, f7_3 FLOAT(7,3), d10_2 DOUBLE(10,2)
) ENGINE=InnoDB;
INSERT INTO t_float VALUES
  (1, 0, 0, 0, 0, 0, 0),
  (2, -0e0, -0e0, -0e0, -0e0, -0e0, -0e0),
  (3, 1.401298464324817e-45, 4.9406564584124654e-324, 1.1754943508222875e-38,
   2.2250738585072014e-308, 0.001, 0.01),
  (4, 3.4028234663852886e38, 1.7976931348623157e308, 3.4028234663852886e38,
   1.7976931348623157e308, 9999.999, 99999999.99),
  (5, -3.4028234663852886e38, -1.7976931348623157e308, 1.5, 2.5, -9999.999, -99999999.99),
  (6, 0.1, 0.1, 0.3333333333333333, 0.30000000000000004, 1.5, 0.125),
  (7, -1.1754943508222875e-38, -2.2250738585072014e-308, 16777217, 9007199254740993,
   -0.001, -0.01),
  (8, NULL, NULL, NULL, NULL, NULL, NULL);

-- ------------------------------------------------------------------- BIT(1..64)
CREATE TABLE t_bit (
  id INT NOT NULL PRIMARY KEY,
  b1 BIT(1), b2 BIT(2), b3 BIT(3), b4 BIT(4), b5 BIT(5), b6 BIT(6), b7 BIT(7), b8 BIT(8),
  b9 BIT(9), b10 BIT(10), b11 BIT(11), b12 BIT(12), b13 BIT(13), b14 BIT(14), b15 BIT(15),
  b16 BIT(16), b17 BIT(17), b18 BIT(18), b19 BIT(19), b20 BIT(20), b21 BIT(21), b22 BIT(22),
  b23 BIT(23), b24 BIT(24), b25 BIT(25), b26 BIT(26), b27 BIT(27), b28 BIT(28), b29 BIT(29),
  b30 BIT(30), b31 BIT(31), b32 BIT(32), b33 BIT(33), b34 BIT(34), b35 BIT(35), b36 BIT(36),
  b37 BIT(37), b38 BIT(38), b39 BIT(39), b40 BIT(40), b41 BIT(41), b42 BIT(42), b43 BIT(43),
  b44 BIT(44), b45 BIT(45), b46 BIT(46), b47 BIT(47), b48 BIT(48), b49 BIT(49), b50 BIT(50),
  b51 BIT(51), b52 BIT(52), b53 BIT(53), b54 BIT(54), b55 BIT(55), b56 BIT(56), b57 BIT(57),
  b58 BIT(58), b59 BIT(59), b60 BIT(60), b61 BIT(61), b62 BIT(62), b63 BIT(63), b64 BIT(64)
) ENGINE=InnoDB;
-- all ones (2^n - 1)
INSERT INTO t_bit VALUES (1,
  1, 3, 7, 15, 31, 63, 127, 255, 511, 1023, 2047, 4095, 8191, 16383, 32767, 65535, 131071,
  262143, 524287, 1048575, 2097151, 4194303, 8388607, 16777215, 33554431, 67108863,
  134217727, 268435455, 536870911, 1073741823, 2147483647, 4294967295, 8589934591,
  17179869183, 34359738367, 68719476735, 137438953471, 274877906943, 549755813887,
  1099511627775, 2199023255551, 4398046511103, 8796093022207, 17592186044415,
  35184372088831, 70368744177663, 140737488355327, 281474976710655, 562949953421311,
  1125899906842623, 2251799813685247, 4503599627370495, 9007199254740991,
  18014398509481983, 36028797018963967, 72057594037927935, 144115188075855871,
  288230376151711743, 576460752303423487, 1152921504606846975, 2305843009213693951,
  4611686018427387903, 9223372036854775807, 18446744073709551615);
-- the top bit only (2^(n-1))
INSERT INTO t_bit VALUES (2,
  1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536,
  131072, 262144, 524288, 1048576, 2097152, 4194304, 8388608, 16777216, 33554432, 67108864,
  134217728, 268435456, 536870912, 1073741824, 2147483648, 4294967296, 8589934592,
  17179869184, 34359738368, 68719476736, 137438953472, 274877906944, 549755813888,
  1099511627776, 2199023255552, 4398046511104, 8796093022208, 17592186044416,
  35184372088832, 70368744177664, 140737488355328, 281474976710656, 562949953421312,
  1125899906842624, 2251799813685248, 4503599627370496, 9007199254740992,
  18014398509481984, 36028797018963968, 72057594037927936, 144115188075855872,
  288230376151711744, 576460752303423488, 1152921504606846976, 2305843009213693952,
  4611686018427387904, 9223372036854775808);
-- alternating bits (0101...01 from the bottom)
INSERT INTO t_bit VALUES (3,
  1, 1, 5, 5, 21, 21, 85, 85, 341, 341, 1365, 1365, 5461, 5461, 21845, 21845, 87381, 87381,
  349525, 349525, 1398101, 1398101, 5592405, 5592405, 22369621, 22369621, 89478485,
  89478485, 357913941, 357913941, 1431655765, 1431655765, 5726623061, 5726623061,
  22906492245, 22906492245, 91625968981, 91625968981, 366503875925, 366503875925,
  1466015503701, 1466015503701, 5864062014805, 5864062014805, 23456248059221,
  23456248059221, 93824992236885, 93824992236885, 375299968947541, 375299968947541,
  1501199875790165, 1501199875790165, 6004799503160661, 6004799503160661,
  24019198012642645, 24019198012642645, 96076792050570581, 96076792050570581,
  384307168202282325, 384307168202282325, 1537228672809129301, 1537228672809129301,
  6148914691236517205, 6148914691236517205);
-- zeros, and b'..' literals
INSERT INTO t_bit (id, b1, b7, b8, b9, b16, b17, b63, b64) VALUES
  (4, 0, 0, 0, 0, 0, 0, 0, 0),
  (5, b'1', b'1010101', b'11111111', b'100000001', b'1000000000000001', b'10000000000000001',
   b'111111111111111111111111111111111111111111111111111111111111111',
   b'1000000000000000000000000000000000000000000000000000000000000001');

-- ---------------------------------------------- temporal (MySQL 5.6 format: *2 types)
CREATE TABLE t_temporal (
  id INT NOT NULL PRIMARY KEY,
  dt DATE, y YEAR,
  tm TIME, tm1 TIME(1), tm2 TIME(2), tm3 TIME(3), tm4 TIME(4), tm5 TIME(5), tm6 TIME(6),
  dtm DATETIME, dtm1 DATETIME(1), dtm2 DATETIME(2), dtm3 DATETIME(3), dtm4 DATETIME(4),
  dtm5 DATETIME(5), dtm6 DATETIME(6),
  ts TIMESTAMP NULL DEFAULT NULL, ts1 TIMESTAMP(1) NULL DEFAULT NULL,
  ts2 TIMESTAMP(2) NULL DEFAULT NULL, ts3 TIMESTAMP(3) NULL DEFAULT NULL,
  ts4 TIMESTAMP(4) NULL DEFAULT NULL, ts5 TIMESTAMP(5) NULL DEFAULT NULL,
  ts6 TIMESTAMP(6) NULL DEFAULT NULL
) ENGINE=InnoDB;
INSERT INTO t_temporal VALUES
  -- zero values
  (1, '0000-00-00', 0, '00:00:00', '00:00:00.0', '00:00:00.00', '00:00:00.000',
   '00:00:00.0000', '00:00:00.00000', '00:00:00.000000',
   '0000-00-00 00:00:00', '0000-00-00 00:00:00.0', '0000-00-00 00:00:00.00',
   '0000-00-00 00:00:00.000', '0000-00-00 00:00:00.0000', '0000-00-00 00:00:00.00000',
   '0000-00-00 00:00:00.000000',
   '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00',
   '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00'),
  -- minimum of each range
  (2, '1000-01-01', 1901, '-838:59:59', '-838:59:58.9', '-838:59:58.99', '-838:59:58.999',
   '-838:59:58.9999', '-838:59:58.99999', '-838:59:58.999999',
   '1000-01-01 00:00:00', '1000-01-01 00:00:00.1', '1000-01-01 00:00:00.01',
   '1000-01-01 00:00:00.001', '1000-01-01 00:00:00.0001', '1000-01-01 00:00:00.00001',
   '1000-01-01 00:00:00.000001',
   '1970-01-01 00:00:01', '1970-01-01 00:00:01.1', '1970-01-01 00:00:01.01',
   '1970-01-01 00:00:01.001', '1970-01-01 00:00:01.0001', '1970-01-01 00:00:01.00001',
   '1970-01-01 00:00:01.000001'),
  -- maximum of each range
  (3, '9999-12-31', 2155, '838:59:59', '838:59:58.9', '838:59:58.99', '838:59:58.999',
   '838:59:58.9999', '838:59:58.99999', '838:59:58.999999',
   '9999-12-31 23:59:59', '9999-12-31 23:59:59.9', '9999-12-31 23:59:59.99',
   '9999-12-31 23:59:59.999', '9999-12-31 23:59:59.9999', '9999-12-31 23:59:59.99999',
   '9999-12-31 23:59:59.999999',
   '2038-01-19 03:14:07', '2038-01-19 03:14:07.9', '2038-01-19 03:14:07.99',
   '2038-01-19 03:14:07.999', '2038-01-19 03:14:07.9999', '2038-01-19 03:14:07.99999',
   '2038-01-19 03:14:07.999999'),
  -- zero parts (allowed without NO_ZERO_IN_DATE), negative times under a second
  (4, '2024-00-15', 2000, '-00:00:01', '-00:00:00.5', '-00:00:00.05', '-00:00:00.005',
   '-00:00:00.0005', '-00:00:00.00005', '-00:00:00.000001',
   '2024-00-00 12:00:00', '2024-02-00 00:00:00.5', '0000-01-01 00:00:00.25',
   '2024-02-29 23:59:59.125', '2024-12-00 01:02:03.0625', '1999-00-01 00:00:00.00001',
   '2000-01-00 00:00:00.999999',
   '2023-11-14 22:13:20', '2023-11-14 22:13:20.5', '2023-11-14 22:13:20.25',
   '2023-11-14 22:13:20.125', '2023-11-14 22:13:20.0625', '2023-11-14 22:13:20.03125',
   '2023-11-14 22:13:20.123456'),
  -- ordinary values with odd fractions
  (5, '2023-11-14', 2023, '12:34:56', '-12:34:56.7', '01:02:03.45', '-01:02:03.456',
   '100:00:00.1234', '-100:00:00.12345', '23:59:59.123456',
   '2023-11-14 22:13:20', '2023-11-14 22:13:20.7', '2023-11-14 22:13:20.45',
   '2023-11-14 22:13:20.456', '2023-11-14 22:13:20.4567', '2023-11-14 22:13:20.45678',
   '2023-11-14 22:13:20.456789',
   '2001-09-09 01:46:40', '2001-09-09 01:46:40.7', '2001-09-09 01:46:40.45',
   '2001-09-09 01:46:40.456', '2001-09-09 01:46:40.4567', '2001-09-09 01:46:40.45678',
   '2001-09-09 01:46:40.456789'),
  (6, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

-- TIMESTAMP columns the server fills (DEFAULT / ON UPDATE CURRENT_TIMESTAMP)
CREATE TABLE t_ts_auto (
  id INT NOT NULL PRIMARY KEY, v INT,
  created TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  changed TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)
) ENGINE=InnoDB;
INSERT INTO t_ts_auto (id, v) VALUES (1, 1), (2, 2);

-- old-format (MariaDB 5.3 / MySQL 5.5) TIME, DATETIME and TIMESTAMP of precision 0: logged
-- as types 11, 12 and 7.  mysql56_temporal_format is GLOBAL-only; restored right after.
SET @bs_saved_tf = @@GLOBAL.mysql56_temporal_format;
SET GLOBAL mysql56_temporal_format = OFF;
CREATE TABLE t_temporal_old (
  id INT NOT NULL PRIMARY KEY, tm TIME, dtm DATETIME, ts TIMESTAMP NULL DEFAULT NULL
) ENGINE=InnoDB;
SET GLOBAL mysql56_temporal_format = @bs_saved_tf;
INSERT INTO t_temporal_old VALUES
  (1, '-838:59:59', '1000-01-01 00:00:00', '1970-01-01 00:00:01'),
  (2, '838:59:59', '9999-12-31 23:59:59', '2038-01-19 03:14:07'),
  (3, '00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00'),
  (4, '-00:00:01', '2024-00-15 12:34:56', '2023-11-14 22:13:20'),
  (5, NULL, NULL, NULL);

-- --------------------------------------------- strings: latin1 (the database default)
-- VARCHAR(255) latin1 = 255 bytes: 1-byte length; VARCHAR(256): 2-byte length
CREATE TABLE t_latin1 (
  id INT NOT NULL PRIMARY KEY,
  v255 VARCHAR(255), v256 VARCHAR(256), c10 CHAR(10), c255 CHAR(255), tt TINYTEXT,
  vbin VARCHAR(10) COLLATE latin1_bin, vnopad VARCHAR(10) COLLATE latin1_nopad_bin
) ENGINE=InnoDB;
INSERT INTO t_latin1 VALUES
  (1, '', '', '', '', '', '', ''),
  (2, REPEAT('x', 255), REPEAT('y', 256), 'abcdefghij', REPEAT('z', 255), REPEAT('t', 255),
   'café', _latin1 X'E9'),
  (3, 'café naïve', REPEAT('é', 256), 'é', REPEAT('ÿ', 255), 'Größe', 'x ', 'nopad  '),
  (4, _latin1 X'819D8DA0A1BFC0FF', _latin1 X'80', ' lead', 'trail   ', 'tab	', 'a''b', '\\'),
  (5, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

-- ------------------------------------------------------------ strings: utf8mb4
-- VARCHAR(63) utf8mb4 = 252 bytes: 1-byte length; VARCHAR(64) = 256 bytes: 2-byte length
CREATE TABLE t_utf8mb4 (
  id INT NOT NULL PRIMARY KEY,
  v63 VARCHAR(63), v64 VARCHAR(64), c10 CHAR(10), c64 CHAR(64), t TEXT,
  v_general VARCHAR(20) COLLATE utf8mb4_general_ci, v_bin VARCHAR(20) COLLATE utf8mb4_bin
) ENGINE=InnoDB CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
INSERT INTO t_utf8mb4 VALUES
  (1, '', '', '', '', '', '', ''),
  (2, REPEAT('😀', 63), REPEAT('☕', 64), '☕☕☕☕☕☕☕☕☕☕', REPEAT('€', 64), REPEAT('ü', 1000),
   'Привет, мир', '日本語テキスト'),
  (3, REPEAT('x', 63), REPEAT('y', 64), 'ascii', 'é combining', 'line1\nline2',
   'ß', '𝄞 clef'),
  (4, 'NUL \0 in text', 'tab\tand\rcr', ' ', 'trailing  ', '{"looks": "like json"}',
   'ǅ', '中文'),
  (5, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

-- --------------------------------------- strings: collation ids >= 251 and others
CREATE TABLE t_charsets (
  id INT NOT NULL PRIMARY KEY,
  v_uca1400 VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_ai_ci,
  v_uca1400_cs VARCHAR(300) CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_as_cs,
  v_croatian VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_croatian_ci,
  v_mb4_nopad VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin,
  v_mb3 VARCHAR(20) CHARACTER SET utf8mb3,
  v_mb3_520 VARCHAR(20) CHARACTER SET utf8mb3 COLLATE utf8mb3_unicode_520_nopad_ci,
  v_ucs2 VARCHAR(20) CHARACTER SET ucs2,
  v_utf16 VARCHAR(20) CHARACTER SET utf16,
  v_utf16le VARCHAR(20) CHARACTER SET utf16le,
  v_utf32 VARCHAR(20) CHARACTER SET utf32,
  v_cp1251 VARCHAR(20) CHARACTER SET cp1251,
  v_sjis VARCHAR(20) CHARACTER SET sjis,
  v_gbk VARCHAR(20) CHARACTER SET gbk,
  v_ascii VARCHAR(20) CHARACTER SET ascii,
  v_latin2 VARCHAR(20) CHARACTER SET latin2,
  c_uca1400 CHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_ai_ci,
  c_utf32 CHAR(5) CHARACTER SET utf32,
  t_uca1400 TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_ai_ci
) ENGINE=InnoDB;
INSERT INTO t_charsets VALUES
  (1, 'Ünïcødé', REPEAT('ß', 300), 'čćžšđ', 'nopad ', 'naïve', 'x', 'ucs2 é', 'utf16 😀',
   'utf16le ☕', 'utf32 😀', 'Привет', 'ｶﾀｶﾅ 漢字', '中文字符', 'ascii', 'Łódź',
   'Ü', '😀😀', 'text Ü'),
  (2, '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', ''),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL);
-- ASCII-only text in the UTF-16/32 and UCS-2 columns (decodes as UTF-8 too: the charset decides)
INSERT INTO t_charsets VALUES
  (4, 'a', 'b', 'c', 'd', 'e', 'f', 'ascii ucs2', 'ascii utf16', 'ascii utf16le', 'ascii utf32',
   'ascii cp1251', 'ascii sjis', 'ascii gbk', 'ascii', 'ascii latin2', 'abc', 'xyz', 'ascii');

-- ----------------------------------------------------- binary strings (charset binary)
CREATE TABLE t_binary (
  id INT NOT NULL PRIMARY KEY,
  b1 BINARY(1), b16 BINARY(16), b255 BINARY(255),
  vb10 VARBINARY(10), vb255 VARBINARY(255), vb256 VARBINARY(256),
  c_bin CHAR(4) CHARACTER SET binary
) ENGINE=InnoDB;
INSERT INTO t_binary VALUES
  (1, X'00', X'000102030405060708090A0B0C0D0E0F', REPEAT(X'FF', 255), X'DEADBEEF',
   REPEAT(X'AB', 255), REPEAT(X'CD', 256), X'00FF'),
  (2, '', '', '', '', '', '', ''),
  (3, X'20', X'2000', X'80', X'00', X'0000', X'00000000', X'20202020'),
  (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

-- ------------------------------------------------------------- TEXT and BLOB, 64 KiB+
CREATE TABLE t_blob (
  id INT NOT NULL PRIMARY KEY, tag VARCHAR(10),
  tb TINYBLOB, b BLOB, mb MEDIUMBLOB, lb LONGBLOB,
  tt TINYTEXT CHARACTER SET latin1, t TEXT CHARACTER SET utf8mb4,
  mt MEDIUMTEXT CHARACTER SET utf8mb4, lt LONGTEXT CHARACTER SET utf8mb4
) ENGINE=InnoDB;
INSERT INTO t_blob VALUES
  (1, 'empty', '', '', '', '', '', '', '', ''),
  (2, 'max', REPEAT(X'FE', 255), REPEAT(X'01', 65535), REPEAT(X'02', 70000),
   REPEAT(X'03', 131072), REPEAT('t', 255), REPEAT('é', 32767), REPEAT('☕', 30000),
   REPEAT('😀', 20000)),
  (3, 'small', X'00', X'0001', X'000102', X'00010203', 'café', 'text ☕', 'medium', 'long'),
  (4, 'null', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

-- -------------------------------------------------------------------- ENUM / SET
CREATE TABLE t_enum_set (
  id INT NOT NULL PRIMARY KEY,
  e_latin1 ENUM('café', 'naïve', 'plain') CHARACTER SET latin1,
  e_utf8mb4 ENUM('☕', 'ü', '') CHARACTER SET utf8mb4,
  e_bin ENUM('a', 'b') CHARACTER SET binary,
  e_one ENUM('only'),
  s_latin1 SET('café', 'b', 'c') CHARACTER SET latin1,
  s_utf8mb4 SET('x', 'ÿ', 'z', 'w', 'v', 'u', 't', 's', 'r') CHARACTER SET utf8mb4,
  s_64 SET('m01','m02','m03','m04','m05','m06','m07','m08','m09','m10','m11','m12',
           'm13','m14','m15','m16','m17','m18','m19','m20','m21','m22','m23','m24',
           'm25','m26','m27','m28','m29','m30','m31','m32','m33','m34','m35','m36',
           'm37','m38','m39','m40','m41','m42','m43','m44','m45','m46','m47','m48',
           'm49','m50','m51','m52','m53','m54','m55','m56','m57','m58','m59','m60',
           'm61','m62','m63','m64'),
  s_empty SET('') CHARACTER SET latin1,
  e_uca ENUM('Ä', 'b') CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_ai_ci
) ENGINE=InnoDB;
INSERT INTO t_enum_set VALUES
  (1, 'café', '☕', 'a', 'only', 'café,c', 'ÿ,r', 'm01,m64', '', 'Ä'),
  (2, 'plain', '', 'b', NULL, '', '', '', '', 'b'),
  (3, 'naïve', 'ü', NULL, 'only', 'café,b,c', 'x,ÿ,z,w,v,u,t,s,r',
   'm01,m02,m03,m04,m05,m06,m07,m08,m09,m10,m11,m12,m13,m14,m15,m16,m17,m18,m19,m20,m21,m22,m23,m24,m25,m26,m27,m28,m29,m30,m31,m32,m33,m34,m35,m36,m37,m38,m39,m40,m41,m42,m43,m44,m45,m46,m47,m48,m49,m50,m51,m52,m53,m54,m55,m56,m57,m58,m59,m60,m61,m62,m63,m64',
   NULL, NULL),
  (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- the ENUM error value '' (index 0): only outside strict mode; also in e_utf8mb4, which has
-- '' as a member (index 3) as well
SET SESSION sql_mode = 'NO_ENGINE_SUBSTITUTION';
INSERT INTO t_enum_set (id, e_latin1, e_utf8mb4, e_bin, e_one, s_latin1, s_utf8mb4, s_64,
                        s_empty, e_uca)
  VALUES (5, 'not a member', 'zz', 'zz', '', 'c', 'r', 'm32,m33', '', 'b');
SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION';

-- a 300-member ENUM (2-byte values)
CREATE TABLE t_enum_big (
  id INT NOT NULL PRIMARY KEY,
  e ENUM('v001','v002','v003','v004','v005','v006','v007','v008','v009','v010','v011','v012',
    'v013','v014','v015','v016','v017','v018','v019','v020','v021','v022','v023','v024','v025',
    'v026','v027','v028','v029','v030','v031','v032','v033','v034','v035','v036','v037','v038',
    'v039','v040','v041','v042','v043','v044','v045','v046','v047','v048','v049','v050','v051',
    'v052','v053','v054','v055','v056','v057','v058','v059','v060','v061','v062','v063','v064',
    'v065','v066','v067','v068','v069','v070','v071','v072','v073','v074','v075','v076','v077',
    'v078','v079','v080','v081','v082','v083','v084','v085','v086','v087','v088','v089','v090',
    'v091','v092','v093','v094','v095','v096','v097','v098','v099','v100','v101','v102','v103',
    'v104','v105','v106','v107','v108','v109','v110','v111','v112','v113','v114','v115','v116',
    'v117','v118','v119','v120','v121','v122','v123','v124','v125','v126','v127','v128','v129',
    'v130','v131','v132','v133','v134','v135','v136','v137','v138','v139','v140','v141','v142',
    'v143','v144','v145','v146','v147','v148','v149','v150','v151','v152','v153','v154','v155',
    'v156','v157','v158','v159','v160','v161','v162','v163','v164','v165','v166','v167','v168',
    'v169','v170','v171','v172','v173','v174','v175','v176','v177','v178','v179','v180','v181',
    'v182','v183','v184','v185','v186','v187','v188','v189','v190','v191','v192','v193','v194',
    'v195','v196','v197','v198','v199','v200','v201','v202','v203','v204','v205','v206','v207',
    'v208','v209','v210','v211','v212','v213','v214','v215','v216','v217','v218','v219','v220',
    'v221','v222','v223','v224','v225','v226','v227','v228','v229','v230','v231','v232','v233',
    'v234','v235','v236','v237','v238','v239','v240','v241','v242','v243','v244','v245','v246',
    'v247','v248','v249','v250','v251','v252','v253','v254','v255','v256','v257','v258','v259',
    'v260','v261','v262','v263','v264','v265','v266','v267','v268','v269','v270','v271','v272',
    'v273','v274','v275','v276','v277','v278','v279','v280','v281','v282','v283','v284','v285',
    'v286','v287','v288','v289','v290','v291','v292','v293','v294','v295','v296','v297','v298',
    'v299','v300')
) ENGINE=InnoDB;
INSERT INTO t_enum_big VALUES (1, 'v001'), (2, 'v255'), (3, 'v256'), (4, 'v300'), (5, NULL);

-- ------------------------------------------------------- JSON (MariaDB: LONGTEXT + CHECK)
CREATE TABLE t_json (id INT NOT NULL PRIMARY KEY, j JSON, j2 JSON) ENGINE=InnoDB;
INSERT INTO t_json VALUES
  (1, '{"a": [1, 2.5, "x", null, true], "b": {"c": "☕"}}', '[]'),
  (2, '"just a string"', '{}'),
  (3, '12345678901234567890', 'null'),
  (4, CONCAT('[', REPEAT('"0123456789",', 7000), '1]'), NULL);

-- -------------------------------------------------------------------- geometry
CREATE TABLE t_geo (
  id INT NOT NULL PRIMARY KEY,
  g GEOMETRY, p POINT, ls LINESTRING, pg POLYGON, mp MULTIPOINT,
  mls MULTILINESTRING, mpg MULTIPOLYGON, gc GEOMETRYCOLLECTION,
  p_srid POINT REF_SYSTEM_ID=4326
) ENGINE=InnoDB;
INSERT INTO t_geo VALUES
  (1, ST_GeomFromText('POINT(1 2)'), ST_GeomFromText('POINT(3 4)'),
   ST_GeomFromText('LINESTRING(0 0, 1 1, 2 0)'),
   ST_GeomFromText('POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 1))'),
   ST_GeomFromText('MULTIPOINT(1 1, 2 2)'),
   ST_GeomFromText('MULTILINESTRING((0 0, 1 1), (2 2, 3 3))'),
   ST_GeomFromText('MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))'),
   ST_GeomFromText('GEOMETRYCOLLECTION(POINT(1 1), LINESTRING(0 0, 1 1))'),
   ST_GeomFromText('POINT(10 20)', 4326)),
  (2, ST_GeomFromText('LINESTRING(-1.5 1e300, 0.1 -0.25)'), ST_GeomFromText('POINT(-0.5 1e-300)'),
   NULL, NULL, NULL, NULL, NULL, ST_GeomFromText('GEOMETRYCOLLECTION EMPTY'),
   ST_GeomFromText('POINT(-180 90)', 4326)),
  (3, ST_GeomFromText('POLYGON((0 0, 1 0, 1 1, 0 0))', 3857), NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL);

-- ----------------------------------------- MariaDB data type plugins: INET4, INET6, UUID
CREATE TABLE t_inet_uuid (id INT NOT NULL PRIMARY KEY, ip4 INET4, ip6 INET6, u UUID) ENGINE=InnoDB;
INSERT INTO t_inet_uuid VALUES
  (1, '192.168.0.1', '2001:db8::ff00:42:8329', '123e4567-e89b-12d3-a456-426614174000'),
  (2, '0.0.0.0', '::', '00000000-0000-0000-0000-000000000000'),
  (3, '255.255.255.255', '::ffff:1.2.3.4', 'ffffffff-ffff-ffff-ffff-ffffffffffff'),
  (4, NULL, NULL, NULL);

-- ----------------------------------------------------------- column compression
CREATE TABLE t_compressed (
  id INT NOT NULL PRIMARY KEY,
  vc VARCHAR(100) COMPRESSED CHARACTER SET latin1,
  vc_mb4 VARCHAR(300) COMPRESSED CHARACTER SET utf8mb4,
  vb VARBINARY(100) COMPRESSED,
  bc BLOB COMPRESSED,
  tc TEXT COMPRESSED CHARACTER SET utf8mb4
) ENGINE=InnoDB;
INSERT INTO t_compressed VALUES
  (1, REPEAT('a', 100), REPEAT('☕', 300), REPEAT(X'00', 100), REPEAT('b', 1000),
   REPEAT('c', 2000)),
  (2, 'short', 'kurz ü', X'01', X'02', 'x'),
  (3, '', '', '', '', ''),
  (4, NULL, NULL, NULL, NULL, NULL);

-- ------------------------------------------------------------------ key layouts
-- no key at all, with duplicate rows
CREATE TABLE t_no_pk (a INT, b VARCHAR(10), c DOUBLE) ENGINE=InnoDB;
INSERT INTO t_no_pk VALUES (1, 'one', 1.5), (1, 'one', 1.5), (2, NULL, NULL), (NULL, NULL, NULL);
-- composite primary key in non-table order
CREATE TABLE t_pk_multi (
  a INT NOT NULL, b VARCHAR(10) NOT NULL, c DATE NOT NULL, d INT, e TEXT,
  PRIMARY KEY (c, a, b)
) ENGINE=InnoDB;
INSERT INTO t_pk_multi VALUES (1, 'b', '2023-01-01', 4, 'e1'), (1, 'c', '2023-01-01', 5, 'e2'),
  (2, 'b', '0000-00-00', NULL, NULL);
-- prefix primary key on a multibyte VARCHAR and a TEXT
CREATE TABLE t_pk_prefix (
  a VARCHAR(50) CHARACTER SET utf8mb4 NOT NULL, b INT NOT NULL,
  c TEXT CHARACTER SET latin1 NOT NULL, d INT,
  PRIMARY KEY (a(10), b, c(20))
) ENGINE=InnoDB;
INSERT INTO t_pk_prefix VALUES ('prefix ☕ key one', 1, 'text key that is longer than 20', 1),
  ('prefix ☕ 2 key two', 1, 'text key that is longer than 20', 2), ('x', 2, '', NULL);
-- no PK but a UNIQUE NOT NULL key (used as the primary key)
CREATE TABLE t_unique_nn (a INT, b INT NOT NULL, c VARCHAR(10), UNIQUE KEY uk (b)) ENGINE=InnoDB;
INSERT INTO t_unique_nn VALUES (1, 1, 'x'), (NULL, 2, NULL), (3, 3, 'z');

-- ------------------------------------------------- NULLs: many nullable columns
-- 17 nullable columns: a 3-byte null bitmap
CREATE TABLE t_nulls (
  id INT NOT NULL PRIMARY KEY,
  a INT, b VARCHAR(10), c DATETIME(6), d DECIMAL(10,2), e BLOB, f ENUM('x', 'y'),
  g SET('p', 'q'), h BIT(3), i JSON, j POINT, k INET6, l DOUBLE, m TIME(2), n YEAR,
  o DATE, p TINYINT UNSIGNED, q CHAR(3)
) ENGINE=InnoDB;
INSERT INTO t_nulls (id) VALUES (1);
INSERT INTO t_nulls VALUES (2, 1, 'b', '2020-02-02 02:02:02.020202', 1.25, X'EE', 'y', 'p,q', 5,
  '{}', ST_GeomFromText('POINT(0 0)'), '::1', 0.5, '01:02:03.04', 1999, '1999-09-09', 200,
  'abc');
INSERT INTO t_nulls VALUES (3, NULL, 'b', NULL, 1.25, NULL, 'y', NULL, 5, NULL,
  ST_GeomFromText('POINT(0 0)'), NULL, 0.5, NULL, 1999, NULL, 200, NULL);

-- ================================================================== UPDATEs
UPDATE t_int SET ti = ti + 1, tiu = 254 WHERE id = 1;
UPDATE t_int SET bi = NULL, biu = 18446744073709551614 WHERE id = 2;
UPDATE t_int SET b = 0 WHERE id IN (3, 4, 5);          -- one event, several rows
UPDATE t_int SET id = 10 WHERE id = 4;                 -- the primary key itself
UPDATE t_decimal SET d65_30 = -d65_30, d5_5 = 0.5 WHERE id IN (1, 2);
UPDATE t_decimal SET d10_0 = 42 WHERE id = 6;          -- NULL -> value
UPDATE t_float SET d = d / 3, f = 2.5 WHERE id = 6;
UPDATE t_float SET fu = NULL WHERE id = 4;
UPDATE t_bit SET b64 = 0, b1 = 0 WHERE id = 1;
UPDATE t_bit SET b33 = 1 WHERE id = 4;
UPDATE t_temporal SET dt = '2024-02-29', tm3 = '-00:00:00.001', ts6 = '2023-11-14 22:13:20.654321'
  WHERE id = 5;
UPDATE t_temporal SET dtm6 = NULL WHERE id = 1;
UPDATE t_ts_auto SET v = 10 WHERE id = 1;              -- the server sets `changed`
SET SESSION timestamp = 1700000100.5;
UPDATE t_ts_auto SET v = 20 WHERE id = 2;
SET SESSION timestamp = 1700000000.123456;
UPDATE t_temporal_old SET tm = '-01:00:00', dtm = '2000-01-01 00:00:00' WHERE id IN (1, 3);
UPDATE t_latin1 SET v255 = CONCAT(v255, '!'), c10 = 'upd' WHERE id IN (1, 3);
UPDATE t_utf8mb4 SET v64 = REPEAT('é', 64), t = NULL WHERE id = 3;
UPDATE t_charsets SET v_ucs2 = 'changed ü', v_uca1400 = 'Ä' WHERE id = 2;
UPDATE t_binary SET vb256 = X'00', b16 = X'FF' WHERE id = 1;
UPDATE t_blob SET tag = 'tag only' WHERE id = 2;       -- blobs unchanged (NOBLOB leaves them out)
UPDATE t_blob SET lb = REPEAT(X'04', 70000), tag = 'big' WHERE id = 3;  -- a blob changed
UPDATE t_blob SET t = 'was empty' WHERE id = 1;
UPDATE t_enum_set SET e_latin1 = 'naïve', s_64 = 'm02,m63' WHERE id = 1;
UPDATE t_enum_set SET s_empty = NULL, e_uca = 'Ä' WHERE id = 2;
UPDATE t_enum_big SET e = 'v299' WHERE id = 4;
UPDATE t_json SET j = JSON_SET(j, '$.b.c', 'tea') WHERE id = 1;
UPDATE t_geo SET p = ST_GeomFromText('POINT(5 6)'), g = NULL WHERE id = 1;
UPDATE t_inet_uuid SET ip6 = '::2', u = '00000000-0000-1000-8000-000000000001' WHERE id = 2;
UPDATE t_compressed SET vc = REPEAT('d', 90), tc = 'now short' WHERE id = 1;
UPDATE t_no_pk SET c = 2.5 WHERE a = 2;
UPDATE t_no_pk SET b = 'uno' LIMIT 1;                  -- one of two identical rows
UPDATE t_pk_multi SET d = 40, e = 'changed' WHERE a = 1 AND b = 'b';
UPDATE t_pk_multi SET c = '2024-01-01' WHERE a = 2;   -- a key column
UPDATE t_pk_prefix SET d = 20, c = 'text key that is longer than 20 (changed)'
  WHERE a = 'prefix ☕ 2 key two';
UPDATE t_unique_nn SET c = 'y', a = 2 WHERE b = 2;
UPDATE t_nulls SET a = 1, b = NULL, c = '2021-01-01 00:00:00', k = '::3', q = NULL WHERE id IN (1, 2);

-- ================================================================== DELETEs
DELETE FROM t_int WHERE id = 5;
DELETE FROM t_decimal WHERE id IN (3, 4);
DELETE FROM t_float WHERE id = 8;
DELETE FROM t_bit WHERE id = 3;
DELETE FROM t_temporal WHERE id = 6;
DELETE FROM t_temporal_old WHERE id = 5;
DELETE FROM t_latin1 WHERE id = 5;
DELETE FROM t_utf8mb4 WHERE id = 5;
DELETE FROM t_charsets WHERE id = 3;
DELETE FROM t_binary WHERE id = 4;
DELETE FROM t_blob WHERE id = 4;
DELETE FROM t_blob WHERE id = 2;                       -- a row of 64 KiB+ blobs
DELETE FROM t_enum_set WHERE id = 4;
DELETE FROM t_enum_big WHERE id = 1;
DELETE FROM t_json WHERE id = 2;
DELETE FROM t_geo WHERE id = 3;
DELETE FROM t_inet_uuid WHERE id = 4;
DELETE FROM t_compressed WHERE id = 4;
DELETE FROM t_no_pk WHERE a = 1 LIMIT 1;               -- one of two rows with a = 1
DELETE FROM t_no_pk WHERE a IS NULL;
DELETE FROM t_pk_multi WHERE a = 1 AND b = 'c';
DELETE FROM t_pk_prefix WHERE b = 2;
DELETE FROM t_unique_nn WHERE b = 3;
DELETE FROM t_nulls WHERE id = 3;

-- a transaction with several events on one table, then one statement touching two tables
START TRANSACTION;
INSERT INTO t_int VALUES (20, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
UPDATE t_int SET ti = 2 WHERE id = 20;
UPDATE t_int SET ti = 3 WHERE id = 20;
DELETE FROM t_int WHERE id = 20;
INSERT INTO t_int VALUES (21, 21, 21, 21, 21, 21, 21, 21, 21, 21, 21, 1, 21);
COMMIT;
DELETE t_json, t_nulls FROM t_json JOIN t_nulls ON t_json.id = t_nulls.id WHERE t_json.id = 1;
